package io.sluice.bench.hec;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A HEC endpoint that reads requests and discards them (scripts/bench-hec.sh), counting events (one per line of
 * the inflated body, as producer.SplunkHEC writes them). It prints the rate from the first request to the one
 * that completes {@code EXPECTED} events, and the wall-clock time of that last event, so the script can time the
 * run from its first byte sent.
 *
 * <p>Before it listens for the run, it sends itself plain and gzip requests for a while, so its own JIT work is
 * done before the measured process starts: on 2 cores a cold sink would bill its compilation to the process
 * under test. With {@code WARMUP}, it prints {@code warm: N events} once that many events were counted (the
 * script's untimed first round) and times from the next request.
 * <pre>java -cp benchmarks.jar io.sluice.bench.hec.HecDiscardServer PORT EXPECTED_EVENTS [WARMUP_EVENTS]</pre>
 */
public final class HecDiscardServer {
    private HecDiscardServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        long expected = Long.parseLong(args[1]);
        long warmup = args.length > 2 ? Long.parseLong(args[2]) : 0;
        AtomicLong events = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong first = new AtomicLong();
        AtomicBoolean selfTest = new AtomicBoolean(true);
        CountDownLatch done = new CountDownLatch(1);
        Instant[] lastAt = new Instant[1];
        byte[] ok = "{\"text\":\"Success\",\"code\":0}".getBytes(StandardCharsets.US_ASCII);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // Bodies are counted as they stream in, not aggregated: the sink shares the 2 cores with
                        // the process under test, so it does as little as it can.
                        ch.pipeline().addLast(new HttpServerCodec(), new SimpleChannelInboundHandler<HttpObject>() {
                            private final LineCounter counter = new LineCounter();
                            private boolean health;

                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws Exception {
                                if (msg instanceof HttpRequest req) {
                                    health = req.uri().startsWith("/services/collector/health");
                                    counter.start("gzip".equals(req.headers().get(HttpHeaderNames.CONTENT_ENCODING)));
                                }
                                if (!(msg instanceof HttpContent content)) {
                                    return;
                                }
                                ByteBuf c = content.content();
                                if (!health) {
                                    counter.add(c);
                                }
                                if (!(msg instanceof LastHttpContent)) {
                                    return;
                                }
                                DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                        HttpResponseStatus.OK, Unpooled.wrappedBuffer(ok));
                                r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, ok.length);
                                ctx.writeAndFlush(r);
                                long n = counter.lines();
                                if (health || n == 0 || selfTest.get()) {
                                    return;
                                }
                                long before = events.getAndAdd(n);
                                if (before >= warmup) {
                                    // Timed from the first event request of the run, not the health check
                                    // or the untimed warm-up round.
                                    first.compareAndSet(0, System.nanoTime());
                                    bytes.addAndGet(counter.wireBytes());
                                } else if (before + n >= warmup) {
                                    System.out.printf("warm: %d events%n", before + n);
                                    System.out.flush();
                                }
                                if (before < expected && before + n >= expected) {
                                    lastAt[0] = Instant.now();
                                    done.countDown();
                                }
                            }
                        });
                    }
                }).bind("127.0.0.1", port).sync();
        warmItself(port, 1500);
        selfTest.set(false);
        System.out.println("HecDiscardServer: listening on " + port);
        System.out.flush();
        done.await();
        double secs = (System.nanoTime() - first.get()) / 1e9;
        long timed = events.get() - warmup;
        System.out.printf("HecDiscardServer: %,d events (%,d bytes on the wire) in %.3f s = %,.0f events/s;"
                + " last event at epoch %d.%06d s%n", timed, bytes.get(), secs, timed / secs,
                lastAt[0].getEpochSecond(), lastAt[0].getNano() / 1000);
        group.shutdownGracefully();
    }

    /** Posts plain and gzip bodies of HEC-like lines to itself over one keep-alive connection for {@code millis}. */
    private static void warmItself(int port, long millis) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; lines.length() < (1 << 20); i++) {
            lines.append("{\"time\":1700000000.").append(i % 1000).append(",\"event\":\"warm-up line ").append(i)
                    .append(" of the discard server's own JIT work\"}\n");
        }
        byte[] plain = lines.toString().getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(plain);
        }
        byte[] gzip = gz.toByteArray();
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            long until = System.nanoTime() + millis * 1_000_000;
            for (int i = 0; System.nanoTime() < until; i++) {
                byte[] body = i % 2 == 0 ? plain : gzip;
                String head = "POST /services/collector/event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + body.length
                        + (body == gzip ? "\r\nContent-Encoding: gzip" : "") + "\r\n\r\n";
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                readResponse(in);
            }
        }
    }

    /** Reads one response of this server: headers, then the Content-Length bytes of body. */
    private static void readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed during warm-up");
            }
            head.append((char) b);
        }
        String h = head.toString().toLowerCase(java.util.Locale.ROOT);
        int at = h.indexOf("content-length:");
        int len = Integer.parseInt(h.substring(at + 15, h.indexOf('\r', at)).trim());
        in.readNBytes(len);
    }

    /**
     * Counts the newlines of one request body as its chunks arrive, inflating a gzip body (one member, as
     * producer.SplunkHEC writes it) on the way. Newlines are counted eight bytes per step.
     */
    static final class LineCounter {
        private static final long ONES = 0x0101010101010101L;
        private static final long LOWS = 0x7F7F7F7F7F7F7F7FL;
        private static final long NEWLINES = '\n' * ONES;
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        private final Inflater inflater = new Inflater(true);
        private byte[] in = new byte[1 << 16];
        private final byte[] out = new byte[1 << 16];
        private boolean gzip;
        private int header;
        private long lines;
        private long wire;

        void start(boolean gzip) {
            this.gzip = gzip;
            header = 10;
            lines = 0;
            wire = 0;
            inflater.reset();
        }

        long lines() {
            return lines;
        }

        long wireBytes() {
            return wire;
        }

        void add(ByteBuf c) throws DataFormatException {
            int n = c.readableBytes();
            wire += n;
            if (in.length < n) {
                in = new byte[n];
            }
            c.getBytes(c.readerIndex(), in, 0, n);
            if (!gzip) {
                lines += count(in, 0, n);
                return;
            }
            int skip = Math.min(header, n); // the 10-byte gzip header; the trailer is never inflated
            header -= skip;
            inflater.setInput(in, skip, n - skip);
            while (!inflater.finished() && !inflater.needsInput()) {
                int k = inflater.inflate(out);
                lines += count(out, 0, k);
            }
        }

        /** Newlines in b[from, to): exact per-byte zero test of b ^ '\n', popcounted. */
        static long count(byte[] b, int from, int to) {
            long n = 0;
            int i = from;
            for (; i + 8 <= to; i += 8) {
                long x = (long) LONGS.get(b, i) ^ NEWLINES;
                long zero = ~(((x & LOWS) + LOWS) | x | LOWS);
                n += Long.bitCount(zero);
            }
            for (; i < to; i++) {
                if (b[i] == '\n') {
                    n++;
                }
            }
            return n;
        }
    }
}
