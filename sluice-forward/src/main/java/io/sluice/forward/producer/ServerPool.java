package io.sluice.forward.producer;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Log;
import io.sluice.core.net.Connect;
import io.sluice.core.tls.NettyTls;
import io.sluice.forward.ForwardPlugins;
import io.sluice.forward.FrameDecoder;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The servers of one {@code producer.Forward} and its one connection: connects to the first server that answers
 * (TCP, TLS, the handshake), primary first, passing over those its {@link Heartbeat} marked down until every other
 * one failed; drops the connection to a server marked down and moves back to an earlier one marked up again.
 * Thread-safe: delivery workers share the connection, and one of them connects at a time.
 */
final class ServerPool {
    /** One entry of {@code Servers}. */
    record Server(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    private final PluginConfig config;
    private final List<Server> servers;
    private final Heartbeat.Type heartbeatType;
    private NettyTls ssl;
    private final Object connectLock = new Object();
    private volatile ServerConnection connection;
    private volatile Heartbeat heartbeat;
    private volatile boolean ready;
    private volatile boolean closed;
    private EventLoopGroup group;
    private Bootstrap bootstrap;
    private Log log;

    ServerPool(PluginConfig config, List<Server> servers, Heartbeat.Type heartbeatType) {
        this.config = config;
        this.servers = servers;
        this.heartbeatType = heartbeatType;
    }

    /**
     * Starts the event loop and the heartbeats, and tries a first connection (a failure is only logged).
     *
     * @param ssl the TLS client, or null without TLS
     */
    void start(Log log, NettyTls ssl) throws InterruptedException {
        this.log = log;
        this.ssl = ssl;
        int connectTimeout = config.get(ForwardProducer.CONNECT_TIMEOUT_MS);
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeout);
        Heartbeat hb = new Heartbeat(config.id(), heartbeatType, servers,
                config.get(ForwardProducer.HEARTBEAT_INTERVAL_MS), config.get(ForwardProducer.HEARTBEAT_TIMEOUT_MS),
                config.get(ForwardProducer.RECOVER_WAIT_MS), connectTimeout, group, log, this::onServerDown,
                this::onServerUp);
        hb.start();
        heartbeat = hb;
        try {
            connection();
        } catch (IOException e) {
            // Not fatal: deliver retries, and /ready reports the state meanwhile.
            log.warn(config.id() + ": " + e.getMessage() + "; will retry when there is something to send");
        }
    }

    /** Heartbeats say server {@code i} is gone: drop the connection to it, so what waits there is resent elsewhere. */
    private void onServerDown(int i) {
        ServerConnection c = connection;
        if (c != null && c.server() == i) {
            c.close();
        }
    }

    /** Server {@code i} answers again: when it comes before the one in use, move back to it. */
    private void onServerUp(int i) {
        ServerConnection c = connection;
        if (c != null && c.server() > i && c.isActive()) {
            log.info(config.id() + ": moving back to " + servers.get(i) + " from " + c.address());
            c.retire();
        }
    }

    /** An ack came from server {@code i}: a sign of life for the heartbeats (a write alone is not). */
    void alive(int i) {
        Heartbeat hb = heartbeat;
        if (hb != null) {
            hb.alive(i);
        }
    }

    /**
     * The open connection, or a new one to the first server that accepts: primary first, and servers that
     * heartbeats marked down only after every other one failed (heartbeats may be filtered where TCP is not).
     */
    ServerConnection connection() throws IOException, InterruptedException {
        ServerConnection c = connection;
        if (c != null && c.isActive()) {
            return c;
        }
        synchronized (connectLock) {
            c = connection;
            if (c != null && c.isActive()) {
                return c;
            }
            IOException last = null;
            for (int i : connectOrder()) {
                Server s = servers.get(i);
                if (closed) {
                    throw new IOException("producer is closed");
                }
                try {
                    c = connect(s, i);
                    connection = c;
                    if (!ready) {
                        log.info(config.id() + ": connected to " + s);
                    }
                    ready = true;
                    return c;
                } catch (IOException e) {
                    last = e;
                    log.limited(Log.WARNING, config.id() + ": connect failed", config.id() + ": cannot use " + s + ": "
                            + e.getMessage());
                }
            }
            ready = false;
            throw new IOException("no Forward server reachable (" + servers + "); last error: "
                    + (last == null ? "?" : last.getMessage()), last);
        }
    }

    /** Server indexes in the order to try them: those marked up in list order, then those marked down. */
    private int[] connectOrder() {
        int n = servers.size();
        int[] order = new int[n];
        int k = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                if (serverUp(i) == (pass == 0)) {
                    order[k++] = i;
                }
            }
        }
        return order;
    }

    private ServerConnection connect(Server s, int index) throws IOException, InterruptedException {
        String sharedKey = config.get(ForwardProducer.SHARED_KEY);
        ServerConnection conn = new ServerConnection(s.toString(), index, sharedKey.isEmpty() ? null : sharedKey,
                ForwardPlugins.selfHostname(config.get(ForwardProducer.SELF_HOSTNAME)),
                config.get(ForwardProducer.USERNAME), config.get(ForwardProducer.PASSWORD));
        long timeout = config.get(ForwardProducer.CONNECT_TIMEOUT_MS);
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (ssl != null) {
                    SslHandler h = ssl.clientHandler(ch.alloc(), s.host(), s.port());
                    if (!config.get(ForwardProducer.TLS_VERIFY_HOSTNAME)) {
                        // the deprecated switch: the certificate is still checked against the CAs, its name is not
                        SSLEngine engine = h.engine();
                        SSLParameters p = engine.getSSLParameters();
                        p.setEndpointIdentificationAlgorithm(null);
                        engine.setSSLParameters(p);
                    }
                    ch.pipeline().addLast("tls", h);
                }
                ch.pipeline().addLast("frames", new FrameDecoder(1 << 20));
                ch.pipeline().addLast("responses", conn);
            }
        });
        Channel c = Connect.open(b, s.host(), s.port(), ssl != null, timeout);
        try {
            conn.ready().get(timeout, TimeUnit.MILLISECONDS); // the Forward handshake (HELO, PING, PONG)
            return conn;
        } catch (ExecutionException e) {
            c.close();
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            c.close();
            throw new IOException("handshake timed out after " + timeout + " ms");
        }
    }

    /** Whether server {@code i} (in {@code Servers} order) is marked up; always true without heartbeats. */
    boolean serverUp(int i) {
        Heartbeat hb = heartbeat;
        return hb == null || hb.isUp(i);
    }

    /** The server the current connection goes to ({@code Servers} index), or -1. */
    int connectedServer() {
        ServerConnection c = connection;
        return c != null && c.isActive() ? c.server() : -1;
    }

    /** False while no server can be reached, or while heartbeats mark every server down. */
    boolean isReady() {
        Heartbeat hb = heartbeat;
        return ready && !closed && (hb == null || !hb.enabled() || hb.anyUp());
    }

    /** Stops the heartbeats, drops the connection and stops the event loop. */
    void close() {
        closed = true;
        Heartbeat hb = heartbeat;
        if (hb != null) {
            hb.close();
        }
        ServerConnection c = connection;
        if (c != null) {
            c.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 200, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
