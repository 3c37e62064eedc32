package io.sluice.otlp.producer;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsPartialSuccess;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.MetricsServiceGrpc;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * producer.OTLP's gRPC peer: grpc-java with the official generated LogsService and MetricsService base classes on
 * 127.0.0.1:0. It keeps every request it accepted and the headers of every call, and answers from a script
 * (OK when the script is empty).
 */
final class GrpcReceiver implements AutoCloseable {
    static final Metadata.Key<String> GRPC_ENCODING = Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

    /** One scripted answer: a gRPC status (with a RetryInfo delay when given), or OK with a partial success. */
    record Answer(int code, String message, long retryDelayMillis, long rejected) {
        static Answer fail(io.grpc.Status.Code code, String message) {
            return new Answer(code.value(), message, -1, 0);
        }

        static Answer failRetryAfter(io.grpc.Status.Code code, long millis) {
            return new Answer(code.value(), "slow down", millis, 0);
        }

        static Answer partial(long rejected, String message) {
            return new Answer(0, message, -1, rejected);
        }

        /** No answer at all: the call is left open. */
        static Answer hang() {
            return new Answer(-1, "", -1, 0);
        }

        io.grpc.StatusRuntimeException exception() {
            com.google.rpc.Status.Builder s = com.google.rpc.Status.newBuilder().setCode(code).setMessage(message);
            if (retryDelayMillis >= 0) {
                s.addDetails(Any.pack(RetryInfo.newBuilder().setRetryDelay(Duration.newBuilder()
                        .setSeconds(retryDelayMillis / 1000).setNanos((int) (retryDelayMillis % 1000) * 1_000_000)).build()));
            }
            return StatusProto.toStatusRuntimeException(s.build());
        }
    }

    final List<ExportLogsServiceRequest> logs = new CopyOnWriteArrayList<>();
    final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
    final List<Metadata> headers = new CopyOnWriteArrayList<>();
    final AtomicInteger calls = new AtomicInteger();
    final Queue<Answer> script = new ConcurrentLinkedQueue<>();
    private final Server server;

    GrpcReceiver() throws Exception {
        this(null);
    }

    GrpcReceiver(SslContext tls) throws Exception {
        this(tls, 0);
    }

    /** With {@code maxConnectionAgeMillis} above 0 the server sends GOAWAY to connections older than that. */
    GrpcReceiver(SslContext tls, long maxConnectionAgeMillis) throws Exception {
        NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (maxConnectionAgeMillis > 0) {
            b.maxConnectionAge(maxConnectionAgeMillis, java.util.concurrent.TimeUnit.MILLISECONDS)
                    .maxConnectionAgeGrace(maxConnectionAgeMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        if (tls != null) {
            b.sslContext(tls);
        }
        ServerInterceptor keepHeaders = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata h, ServerCallHandler<Q, R> next) {
                headers.add(h);
                return next.startCall(call, h);
            }
        };
        server = b.addService(ServerInterceptors.intercept(new Logs(), keepHeaders))
                .addService(ServerInterceptors.intercept(new Metrics(), keepHeaders)).build().start();
    }

    int port() {
        return server.getPort();
    }

    int logRecords() {
        return logs.stream().flatMap(r -> r.getResourceLogsList().stream()).flatMap(r -> r.getScopeLogsList().stream())
                .mapToInt(s -> s.getLogRecordsCount()).sum();
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination();
    }

    private final class Logs extends LogsServiceGrpc.LogsServiceImplBase {
        @Override
        public void export(ExportLogsServiceRequest req, StreamObserver<ExportLogsServiceResponse> out) {
            calls.incrementAndGet();
            Answer a = script.poll();
            if (a != null && a.code() < 0) {
                return;
            }
            if (a != null && a.code() != 0) {
                out.onError(a.exception());
                return;
            }
            logs.add(req);
            ExportLogsServiceResponse.Builder r = ExportLogsServiceResponse.newBuilder();
            if (a != null) {
                r.setPartialSuccess(ExportLogsPartialSuccess.newBuilder().setRejectedLogRecords(a.rejected())
                        .setErrorMessage(a.message()));
            }
            out.onNext(r.build());
            out.onCompleted();
        }
    }

    private final class Metrics extends MetricsServiceGrpc.MetricsServiceImplBase {
        @Override
        public void export(ExportMetricsServiceRequest req, StreamObserver<ExportMetricsServiceResponse> out) {
            calls.incrementAndGet();
            Answer a = script.poll();
            if (a != null && a.code() < 0) {
                return;
            }
            if (a != null && a.code() != 0) {
                out.onError(a.exception());
                return;
            }
            metrics.add(req);
            ExportMetricsServiceResponse.Builder r = ExportMetricsServiceResponse.newBuilder();
            if (a != null) {
                r.setPartialSuccess(ExportMetricsPartialSuccess.newBuilder().setRejectedDataPoints(a.rejected())
                        .setErrorMessage(a.message()));
            }
            out.onNext(r.build());
            out.onCompleted();
        }
    }
}
