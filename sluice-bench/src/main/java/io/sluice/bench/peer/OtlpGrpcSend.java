package io.sluice.bench.peer;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * An OTLP/gRPC sender for scripts/bench-peers.sh (otlp-grpc with {@code OTLP_GRPC_SENDER=netty}): it makes one
 * unary LogsService/Export call per gRPC message of a file of pre-encoded messages (NeutralData's
 * {@code otlp.grpc}: each a 0 byte, a 4-byte big-endian length and an ExportLogsServiceRequest), over h2c with
 * prior knowledge. Nothing is encoded per call: the file is mapped, and each call's DATA is a slice of the mapping,
 * written as it is. Unlike h2load it sends every message of the file (not one body again and again) and reads each
 * call's grpc-status: every call must end 0; 14 (UNAVAILABLE: busy) is sent again; anything else, a reset stream or
 * a closed connection fails the run. CONNECTIONS connections each make calls i, i+N, i+2N, ..., STREAMS at a time
 * (Fluent Bit's in_opentelemetry allows one stream at a time per connection). Prints the epoch time the first call
 * was written, for a rate timed from it; a summary to stderr.
 * A stream the server refused (REFUSED_STREAM: it was not processed) is sent again; streams are opened only as the
 * server's SETTINGS_MAX_CONCURRENT_STREAMS allows. {@code -Dotlp.debug=true} logs every frame.
 * <pre>java -cp benchmarks.jar io.sluice.bench.peer.OtlpGrpcSend PORT FILE [CONNECTIONS=1] [STREAMS=1] [RECORDS_PER_CALL=1000]</pre>
 */
public final class OtlpGrpcSend {
    private static final String PATH = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";
    private static final long REGION = 1L << 30; // mapped at most this much at a time (a mapping is at most 2 GiB)

    private final List<ByteBuf> messages;
    private final CountDownLatch done;
    private final Map<String, Integer> statuses = new TreeMap<>();
    private volatile String failure;
    private long resent;

    private OtlpGrpcSend(List<ByteBuf> messages, int connections) {
        this.messages = messages;
        this.done = new CountDownLatch(connections);
    }

    public static void main(String[] args) throws Exception {
        // java.util.logging: Netty finds slf4j-api on this class path but no provider, and would say so. Quiet
        // unless -Dotlp.debug=true, which also logs every frame.
        io.netty.util.internal.logging.InternalLoggerFactory.setDefaultFactory(
                io.netty.util.internal.logging.JdkLoggerFactory.INSTANCE);
        int port = Integer.parseInt(args[0]);
        Path file = Path.of(args[1]);
        int connections = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        int streams = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        int perCall = args.length > 4 ? Integer.parseInt(args[4]) : OtlpData.PER_REQUEST;
        OtlpGrpcSend send = new OtlpGrpcSend(messages(file), connections);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(Math.min(connections, 2), NioIoHandler.newFactory());
        try {
            List<Conn> conns = new ArrayList<>();
            List<Channel> channels = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                ArrayDeque<Integer> share = new ArrayDeque<>();
                for (int i = c; i < send.messages.size(); i += connections) {
                    share.add(i);
                }
                Conn conn = send.new Conn(port, share, streams);
                conns.add(conn);
                channels.add(new Bootstrap().group(group).channel(NioSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel ch) {
                                ch.pipeline().addLast(conn.codec, conn);
                            }
                        }).connect("127.0.0.1", port).sync().channel());
            }
            java.time.Instant start = java.time.Instant.now();
            for (int c = 0; c < connections; c++) {
                channels.get(c).eventLoop().execute(conns.get(c)::fill);
            }
            send.done.await();
            if (send.failure != null) {
                System.err.println("OTLP/gRPC sender failed: " + send.failure);
                System.exit(1);
            }
            System.err.printf("OTLP/gRPC: %d records sent in %d calls over %d connection(s), %d stream(s) each;"
                    + " answers: %s; sent again (grpc-status 14, refused streams): %d%n", (long) send.messages.size() * perCall,
                    send.messages.size(), connections, streams, send.statuses, send.resent);
            System.out.printf("%d.%06d%n", start.getEpochSecond(), start.getNano() / 1000);
            for (Channel ch : channels) {
                ch.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Each gRPC message of the file (its 5-byte prefix included), as a slice of a read-only mapping. */
    private static List<ByteBuf> messages(Path file) throws IOException {
        List<ByteBuf> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer head = ByteBuffer.allocate(5);
            long regionStart = 0;
            MappedByteBuffer region = null;
            for (long at = 0; at < size; ) {
                head.clear();
                while (head.hasRemaining() && ch.read(head, at + head.position()) > 0) {
                    // positional reads of the prefix
                }
                if (head.hasRemaining() || head.get(0) != 0) {
                    throw new IOException(file + ": no uncompressed gRPC message at byte " + at);
                }
                long length = 5 + (head.getInt(1) & 0xFFFFFFFFL);
                if (at + length > size) {
                    throw new IOException(file + ": the message at byte " + at + " runs past the end");
                }
                if (region == null || at + length > regionStart + region.capacity()) {
                    regionStart = at;
                    region = ch.map(FileChannel.MapMode.READ_ONLY, at, Math.min(Math.max(REGION, length), size - at));
                }
                out.add(Unpooled.wrappedBuffer(region.slice((int) (at - regionStart), (int) length)));
                at += length;
            }
        }
        if (out.isEmpty()) {
            throw new IOException(file + ": no gRPC message");
        }
        return out;
    }

    private synchronized void status(String s, boolean again) {
        statuses.merge(s, 1, Integer::sum);
        if (again) {
            resent++;
        }
    }

    /** One connection: its share of the calls, STREAMS at a time. Event loop only. */
    private final class Conn extends Http2ChannelDuplexHandler {
        final Http2FrameCodec codec = Boolean.getBoolean("otlp.debug")
                ? Http2FrameCodecBuilder.forClient().frameLogger(new io.netty.handler.codec.http2.Http2FrameLogger(
                        io.netty.handler.logging.LogLevel.INFO, OtlpGrpcSend.class)).build()
                : Http2FrameCodecBuilder.forClient().build();
        private final ArrayDeque<Integer> todo;
        private final int streams;
        private final Http2Headers request;
        private final Map<Http2FrameStream, Integer> calls = new HashMap<>();
        private final Map<Http2FrameStream, String> grpcStatus = new HashMap<>();
        private ChannelHandlerContext ctx;
        private boolean finished;

        Conn(int port, ArrayDeque<Integer> todo, int streams) {
            this.todo = todo;
            this.streams = streams;
            this.request = new DefaultHttp2Headers().method("POST").scheme("http").authority("127.0.0.1:" + port)
                    .path(PATH).add("content-type", "application/grpc").add("te", "trailers");
        }

        @Override
        protected void handlerAdded0(ChannelHandlerContext c) {
            ctx = c;
        }

        /**
         * Starts calls until STREAMS are in flight, as far as the server's SETTINGS_MAX_CONCURRENT_STREAMS allows
         * (known once its SETTINGS came; a stream it refused before is sent again).
         */
        void fill() {
            while (calls.size() < streams && !todo.isEmpty() && codec.connection().local().canOpenStream()) {
                call(todo.poll());
            }
            ctx.flush();
            if (calls.isEmpty() && todo.isEmpty()) {
                finish(null);
            }
        }

        private void call(int message) {
            Http2FrameStream stream = newStream();
            calls.put(stream, message);
            ctx.write(new DefaultHttp2HeadersFrame(request, false).stream(stream));
            ctx.write(new DefaultHttp2DataFrame(messages.get(message).retainedDuplicate(), true).stream(stream))
                    .addListener(f -> {
                        // A stream the server reset (refused) was handled by channelRead before this write failed.
                        if (!f.isSuccess() && calls.containsKey(stream)) {
                            finish("writing call " + message + " failed: " + f.cause());
                        }
                    });
        }

        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame h) {
                    Http2Headers headers = h.headers();
                    if (headers.status() != null && !"200".contentEquals(headers.status())) {
                        finish("HTTP status " + headers.status());
                        return;
                    }
                    CharSequence s = headers.get("grpc-status");
                    if (s != null) {
                        grpcStatus.put(h.stream(), s.toString());
                    }
                    if (h.isEndStream()) {
                        ended(h.stream());
                    }
                } else if (msg instanceof Http2DataFrame d) {
                    if (d.isEndStream()) {
                        ended(d.stream());
                    }
                } else if (msg instanceof Http2ResetFrame r) {
                    Integer message = calls.remove(r.stream());
                    grpcStatus.remove(r.stream());
                    if (r.errorCode() == Http2Error.REFUSED_STREAM.code() && message != null) {
                        // Not processed (RFC 9113, 8.7): the server allows fewer streams than were opened.
                        status("refused stream", true);
                        todo.addFirst(message);
                        ctx.executor().execute(this::fill);
                    } else {
                        finish("call " + message + " reset by the server: error code " + r.errorCode());
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void ended(Http2FrameStream stream) {
            Integer message = calls.remove(stream);
            String s = grpcStatus.remove(stream);
            if (message == null) {
                return;
            }
            if ("14".equals(s)) { // UNAVAILABLE: busy, sent again
                status(s, true);
                todo.addFirst(message);
            } else if ("0".equals(s)) {
                status(s, false);
            } else {
                finish("call " + message + " ended with grpc-status " + s);
                return;
            }
            // The stream is closed only once this frame was handled: the next call may need its place.
            ctx.executor().execute(this::fill);
        }

        @Override
        public void channelInactive(ChannelHandlerContext c) {
            if (!finished) {
                finish("the server closed the connection with " + (calls.size() + todo.size()) + " calls to go");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            finish("connection failed: " + cause);
        }

        private void finish(String failed) {
            if (finished) {
                return;
            }
            finished = true;
            if (failed != null) {
                failure = failed;
                // A failed connection ends the run: the others are not waited for.
                while (done.getCount() > 0) {
                    done.countDown();
                }
                return;
            }
            done.countDown();
        }
    }
}
