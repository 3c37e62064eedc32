package io.sluice.forward.producer;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.sluice.core.pipeline.Log;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;

/**
 * Heartbeats of {@code producer.Forward}, as Fluentd's out_forward sends them: every interval each server gets a
 * UDP datagram of one zero byte on its Forward port (a Forward server such as Fluentd's in_forward or
 * consumer.Forward answers it from that port), or a TCP connection that is opened and closed again. An answer,
 * or an acknowledged batch, shows the server alive.
 *
 * <p>A server that has shown no sign of life for {@code timeout} is marked down: the producer stops sending to it
 * and drops its connection to it, so frames waiting there are resent to the next server at once instead of after
 * the ack timeout. A server marked down is marked up again once it has answered for {@code recoverWait} without a
 * gap longer than {@code timeout} (out_forward's {@code recover_wait}); if it comes before the server in use in
 * the list, the producer moves back to it. Unlike out_forward's φ accrual detector the rule is a plain timeout, so
 * an operator can tell from the settings how long detection takes: at most {@code timeout} plus one interval.
 *
 * <p>Servers are resolved once, and again at every heartbeat while marked down (a server that moved comes back).
 * Heartbeats are sent and judged on a thread of their own; answers arrive on the producer's event loop.
 */
final class Heartbeat implements AutoCloseable {
    /** How heartbeats are sent. */
    enum Type {
        /** None: servers are judged by connection attempts only. */
        NONE,
        /** A datagram of one zero byte to the Forward port; any datagram back from that address is an answer. */
        UDP,
        /** A TCP connection opened and closed at once; its being accepted is the answer. */
        TCP
    }

    private static final byte[] PING = {0};

    private final String id;
    private final Type type;
    private final List<ServerPool.Server> servers;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final long recoverNanos;
    private final int connectTimeoutMillis;
    private final EventLoopGroup group;
    private final Log log;
    /** Told of a server marked down, and of one marked up, on the heartbeat thread. */
    private final IntConsumer onDown;
    private final IntConsumer onUp;

    private final AtomicReferenceArray<InetSocketAddress> addresses;
    private final boolean[] up;
    private final long[] last;
    private final long[] runStart;
    private Channel udp;
    private Bootstrap tcp;
    private ScheduledExecutorService timer;

    Heartbeat(String id, Type type, List<ServerPool.Server> servers, long intervalMillis, long timeoutMillis,
              long recoverWaitMillis, int connectTimeoutMillis, EventLoopGroup group, Log log, IntConsumer onDown,
              IntConsumer onUp) {
        this.id = id;
        this.type = type;
        this.servers = servers;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.recoverNanos = TimeUnit.MILLISECONDS.toNanos(recoverWaitMillis);
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.group = group;
        this.log = log;
        this.onDown = onDown;
        this.onUp = onUp;
        int n = servers.size();
        this.addresses = new AtomicReferenceArray<>(n);
        this.up = new boolean[n];
        this.last = new long[n];
        this.runStart = new long[n];
        long now = System.nanoTime();
        Arrays.fill(up, true); // as out_forward: every server is available until heartbeats say otherwise
        Arrays.fill(last, now);
        Arrays.fill(runStart, now);
    }

    /** Opens the UDP socket (for UDP heartbeats) and starts the timer; the first heartbeats go out at once. */
    void start() throws InterruptedException {
        if (type == Type.NONE) {
            return;
        }
        for (int i = 0; i < addresses.length(); i++) {
            addresses.set(i, resolve(i));
        }
        if (type == Type.UDP) {
            udp = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                            answered(packet.sender());
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            // ICMP port unreachable and the like: a missing answer says it already.
                            log.limited(Log.DEBUG, id + ": heartbeat", id + ": heartbeat: " + cause);
                        }
                    })
                    .bind(new InetSocketAddress(0)).sync().channel();
        } else {
            tcp = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                    .handler(new Discard());
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "forward-heartbeat-" + id);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, TimeUnit.NANOSECONDS.toMillis(intervalNanos));
        timer.scheduleAtFixedRate(this::tickSafely, 0, period, TimeUnit.MILLISECONDS);
    }

    /** Whether heartbeats are sent at all. */
    boolean enabled() {
        return type != Type.NONE;
    }

    /** Whether server {@code i} is marked up (always, without heartbeats). */
    synchronized boolean isUp(int i) {
        return up[i];
    }

    /** Whether some server is marked up. */
    synchronized boolean anyUp() {
        for (boolean u : up) {
            if (u) {
                return true;
            }
        }
        return false;
    }

    /** Server {@code i} acknowledged a batch: a sign of life as good as an answer (out_forward counts it too). */
    synchronized void alive(int i) {
        if (up[i]) {
            last[i] = System.nanoTime();
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            log.limited(Log.WARNING, id + ": heartbeat failed", id + ": heartbeat failed: " + e);
        }
    }

    /** Sends one round of heartbeats, then judges every server. */
    void tick() {
        for (int i = 0; i < addresses.length(); i++) {
            InetSocketAddress a = addresses.get(i);
            if (!isUp(i) || a == null) {
                a = resolve(i); // a server that was down may have moved
                addresses.set(i, a);
            }
            if (a == null) {
                continue;
            }
            if (type == Type.UDP) {
                udp.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(PING), a), udp.voidPromise());
            } else if (type == Type.TCP) {
                int server = i;
                ChannelFuture f = tcp.connect(a);
                f.addListener(done -> {
                    if (done.isSuccess()) {
                        beat(server);
                    }
                    f.channel().close();
                });
            }
        }
        judge();
    }

    /** Marks servers down after {@code timeout} without a sign of life, and up after {@code recoverWait} of them. */
    void judge() {
        long now = System.nanoTime();
        for (int i = 0; i < up.length; i++) {
            boolean wentDown = false;
            boolean cameUp = false;
            long silent;
            long run;
            synchronized (this) {
                silent = now - last[i];
                run = now - runStart[i];
                if (up[i] && silent > timeoutNanos) {
                    up[i] = false;
                    wentDown = true;
                } else if (!up[i] && silent <= timeoutNanos && run >= recoverNanos) {
                    up[i] = true;
                    cameUp = true;
                }
            }
            if (wentDown) {
                log.warn(id + ": server " + servers.get(i) + " marked down: no answer to " + type.name().toLowerCase()
                        + " heartbeats for " + TimeUnit.NANOSECONDS.toMillis(silent) + " ms");
                onDown.accept(i);
            } else if (cameUp) {
                log.info(id + ": server " + servers.get(i) + " marked up: it has answered heartbeats for "
                        + TimeUnit.NANOSECONDS.toMillis(run) + " ms");
                onUp.accept(i);
            }
        }
    }

    /** A UDP datagram came back: every server at that address answered. */
    private void answered(InetSocketAddress from) {
        for (int i = 0; i < addresses.length(); i++) {
            InetSocketAddress a = addresses.get(i);
            if (a != null && a.getPort() == from.getPort() && same(a.getAddress(), from.getAddress())) {
                beat(i);
            }
        }
    }

    private static boolean same(InetAddress a, InetAddress b) {
        if (a == null || b == null) {
            return false;
        }
        if (a.equals(b)) {
            return true;
        }
        byte[] x = a.getAddress();
        byte[] y = b.getAddress();
        // An IPv4 address may come back as IPv4-mapped IPv6 (::ffff:a.b.c.d) from a dual-stack socket.
        return Arrays.equals(v4(x), v4(y));
    }

    private static byte[] v4(byte[] addr) {
        if (addr.length == 16) {
            for (int i = 0; i < 10; i++) {
                if (addr[i] != 0) {
                    return addr;
                }
            }
            if (addr[10] == (byte) 0xff && addr[11] == (byte) 0xff) {
                return Arrays.copyOfRange(addr, 12, 16);
            }
        }
        return addr;
    }

    /** Server {@code i} answered a heartbeat. */
    synchronized void beat(int i) {
        long now = System.nanoTime();
        if (now - last[i] > timeoutNanos) {
            runStart[i] = now; // a gap ends the run of answers a recovery is counted from
        }
        last[i] = now;
    }

    /** Reads and drops what a server sends on a TCP heartbeat connection (a HELO, with a shared key). */
    @ChannelHandler.Sharable
    private static final class Discard extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private InetSocketAddress resolve(int i) {
        try {
            return new InetSocketAddress(InetAddress.getByName(servers.get(i).host()), servers.get(i).port());
        } catch (Exception e) {
            log.limited(Log.WARNING, id + ": heartbeat resolve",
                    id + ": cannot resolve " + servers.get(i) + ": " + e.getMessage());
            return null;
        }
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
        if (udp != null) {
            udp.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
    }
}
