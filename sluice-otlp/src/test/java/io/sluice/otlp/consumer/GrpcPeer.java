package io.sluice.otlp.consumer;

import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java as the peer for what the SDK exporters never send (truncated messages, unknown methods, oversized
 * requests): unary calls with raw bytes, so the test controls every byte, and the status, message and details it
 * gets back as grpc-java reads them.
 */
final class GrpcPeer implements AutoCloseable {
    static final String LOGS = "opentelemetry.proto.collector.logs.v1.LogsService/Export";
    static final String METRICS = "opentelemetry.proto.collector.metrics.v1.MetricsService/Export";
    static final String TRACES = "opentelemetry.proto.collector.trace.v1.TraceService/Export";

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    /** What a call ended with: the status, the response bytes (on OK) and the RetryInfo delay in seconds, or -1. */
    record Result(Status.Code code, String message, byte[] response, long retrySeconds) {
    }

    private final ManagedChannel channel;

    GrpcPeer(int port) {
        channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    Result call(String method, byte[] request, String bearer) {
        MethodDescriptor<byte[], byte[]> m = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(method)
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
        Metadata headers = new Metadata();
        if (bearer != null) {
            headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + bearer);
        }
        try {
            byte[] r = ClientCalls.blockingUnaryCall(ClientInterceptors.intercept(channel,
                    MetadataUtils.newAttachHeadersInterceptor(headers)), m,
                    CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request);
            return new Result(Status.Code.OK, null, r, -1);
        } catch (StatusRuntimeException e) {
            long retry = -1;
            com.google.rpc.Status details = StatusProto.fromThrowable(e);
            if (details != null) {
                for (com.google.protobuf.Any any : details.getDetailsList()) {
                    if (any.is(RetryInfo.class)) {
                        try {
                            retry = any.unpack(RetryInfo.class).getRetryDelay().getSeconds();
                        } catch (com.google.protobuf.InvalidProtocolBufferException x) {
                            throw new AssertionError(x);
                        }
                    }
                }
            }
            return new Result(e.getStatus().getCode(), e.getStatus().getDescription(), null, retry);
        }
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
}
