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
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
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
        ThreadLocal<Inflater> inflaters = ThreadLocal.withInitial(() -> new Inflater(true));
        ThreadLocal<byte[]> scratch = ThreadLocal.withInitial(() -> new byte[1 << 16]);
        new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 << 20),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) throws Exception {
                                        ByteBuf c = req.content();
                                        long n = 0;
                                        boolean health = req.uri().startsWith("/services/collector/health");
                                        if (!health) {
                                            if ("gzip".equals(req.headers().get(HttpHeaderNames.CONTENT_ENCODING))) {
                                                n = gzipLines(c, inflaters.get(), scratch.get());
                                            } else {
                                                n = countLines(c);
                                            }
                                        }
                                        DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                HttpResponseStatus.OK, Unpooled.wrappedBuffer(ok));
                                        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, ok.length);
                                        ctx.writeAndFlush(r);
                                        if (health || n == 0 || selfTest.get()) {
                                            return;
                                        }
                                        long before = events.getAndAdd(n);
                                        if (before >= warmup) {
                                            // Timed from the first event request of the run, not the health check
                                            // or the untimed warm-up round.
                                            first.compareAndSet(0, System.nanoTime());
                                            bytes.addAndGet(c.readableBytes());
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

    /** Lines in a single-member gzip body (what producer.SplunkHEC sends): header 10 bytes, trailer 8. */
    private static long gzipLines(ByteBuf c, Inflater inf, byte[] out) throws java.util.zip.DataFormatException {
        byte[] in = new byte[c.readableBytes()];
        c.getBytes(c.readerIndex(), in);
        inf.reset();
        inf.setInput(in, 10, in.length - 18);
        long n = 0;
        while (!inf.finished()) {
            int k = inf.inflate(out);
            for (int i = 0; i < k; i++) {
                if (out[i] == '\n') {
                    n++;
                }
            }
            if (k == 0 && inf.needsInput()) {
                break;
            }
        }
        return n;
    }

    private static long countLines(ByteBuf c) {
        long[] n = {0};
        c.forEachByte(b -> {
            if (b == '\n') {
                n[0]++;
            }
            return true;
        });
        return n[0];
    }
}
