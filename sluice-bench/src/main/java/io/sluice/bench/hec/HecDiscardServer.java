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
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.Inflater;

/**
 * A HEC endpoint that reads requests and discards them (scripts/bench-hec.sh), counting events (one per line of
 * the inflated body, as producer.SplunkHEC writes them) and printing the rate from the first request to the
 * one that completes {@code expected} events.
 * <pre>java -cp benchmarks.jar io.sluice.bench.hec.HecDiscardServer PORT EXPECTED_EVENTS</pre>
 */
public final class HecDiscardServer {
    private HecDiscardServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        long expected = Long.parseLong(args[1]);
        AtomicLong events = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong first = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
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
                                        bytes.addAndGet(c.readableBytes());
                                        long n = 0;
                                        if (!req.uri().startsWith("/services/collector/health")) {
                                            // Timed from the first event request, not the producer's health check.
                                            first.compareAndSet(0, System.nanoTime());
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
                                        if (n > 0 && events.addAndGet(n) >= expected) {
                                            done.countDown();
                                        }
                                    }
                                });
                    }
                }).bind("127.0.0.1", port).sync();
        System.out.println("HecDiscardServer: listening on " + port);
        done.await();
        double secs = (System.nanoTime() - first.get()) / 1e9;
        System.out.printf("HecDiscardServer: %,d events (%,d bytes on the wire) in %.3f s = %,.0f events/s%n",
                events.get(), bytes.get(), secs, events.get() / secs);
        group.shutdownGracefully();
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
