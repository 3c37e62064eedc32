package io.sluice.forward.producer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.forward.codec.Digests;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.Helo;
import io.sluice.forward.codec.MsgPackReader;
import io.sluice.forward.codec.ValueType;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One connection of {@code producer.Forward} to a server, and the Netty handler that reads what the server sends:
 * the handshake (HELO, then PONG) and acks. Several producer workers write frames on it at once; each waits for its
 * own chunks' acks, which arrive here and complete the matching futures. When the connection drops, every waiting
 * future fails, so their workers resend on the next connection.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String address;
    private final int server;
    private final String sharedKey;
    private final String selfHostname;
    private final String username;
    private final String password;
    private final Map<String, CompletableFuture<Void>> acks = new ConcurrentHashMap<>();
    /** Completes when the connection may carry frames: after the handshake, or at once without one. */
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final MsgPackReader reader = new MsgPackReader();
    private volatile Channel channel;
    /** Set when the producer moves to another server: no new frames here, closed once the acks are in. */
    private volatile boolean retired;
    private byte[] nonce;
    private byte[] salt;

    ServerConnection(String address, int server, String sharedKey, String selfHostname, String username, String password) {
        this.address = address;
        this.server = server;
        this.sharedKey = sharedKey;
        this.selfHostname = selfHostname;
        this.username = username;
        this.password = password;
    }

    String address() {
        return address;
    }

    /** Index of the server in the producer's list. */
    int server() {
        return server;
    }

    CompletableFuture<Void> ready() {
        return ready;
    }

    boolean isActive() {
        Channel c = channel;
        return c != null && !retired && c.isActive() && ready.isDone() && !ready.isCompletedExceptionally();
    }

    /**
     * Takes no new frames (the producer moves back to a server before this one) and closes once the frames
     * written here have their acks, so nothing is resent only because of the move.
     */
    void retire() {
        retired = true;
        closeIfDrained();
    }

    private void closeIfDrained() {
        Channel c = channel;
        if (retired && acks.isEmpty() && c != null) {
            // On the event loop, after any write already queued there.
            c.eventLoop().execute(() -> {
                if (acks.isEmpty()) {
                    c.close();
                }
            });
        }
    }

    /** Registers interest in a chunk's ack before the frame is written (the ack may come back at once). */
    CompletableFuture<Void> expect(String chunk) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        acks.put(chunk, f);
        if (!channel.isActive()) {
            f.completeExceptionally(new IOException("connection to " + address + " closed"));
        }
        return f;
    }

    /** Forgets a chunk (after a timeout, before resending it elsewhere). */
    void forget(String chunk) {
        acks.remove(chunk);
    }

    ChannelFuture write(ByteBuf frame) {
        return channel.writeAndFlush(frame);
    }

    void close() {
        Channel c = channel;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (sharedKey == null) {
            ready.complete(null);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        ctx.fireChannelRegistered();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        IOException closed = new IOException("connection to " + address + " closed");
        ready.completeExceptionally(closed);
        for (CompletableFuture<Void> f : acks.values()) {
            f.completeExceptionally(closed);
        }
        acks.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
            MsgPackReader r = reader.reset(frame.array(), frame.arrayOffset() + frame.readerIndex(), frame.readableBytes(), 0);
            if (!ready.isDone()) {
                handshake(ctx, r);
            } else {
                ack(r);
            }
        } catch (ForwardProtocolException | RuntimeException e) {
            ready.completeExceptionally(new IOException("bad response from " + address + ": " + e.getMessage(), e));
            ctx.close();
        } finally {
            frame.release();
        }
    }

    /** {@code {"ack": chunk}}; anything else from the server is ignored. */
    private void ack(MsgPackReader r) throws ForwardProtocolException {
        if (r.nextType() != ValueType.MAP) {
            return;
        }
        int n = r.readMapHeader();
        for (int i = 0; i < n; i++) {
            if (r.nextType() == ValueType.STRING && r.readStringEquals("ack") && r.nextType() == ValueType.STRING) {
                CompletableFuture<Void> f = acks.remove(r.readString());
                if (f != null) {
                    f.complete(null);
                    if (retired) {
                        closeIfDrained();
                    }
                }
            } else {
                r.skipValue();
            }
        }
    }

    private void handshake(ChannelHandlerContext ctx, MsgPackReader r) throws ForwardProtocolException {
        int n = r.readArrayHeader();
        String kind = r.readString();
        if (nonce == null && kind.equals("HELO") && n >= 2) {
            Helo helo = Helo.readOptions(r);
            nonce = helo.nonce();
            salt = new byte[16];
            RANDOM.nextBytes(salt);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(helo.ping(selfHostname, salt, sharedKey, username, password)));
        } else if (nonce != null && kind.equals("PONG") && n >= 5) {
            boolean ok = r.nextType() == ValueType.BOOLEAN && r.readBoolean();
            String reason = r.readString();
            String serverHost = r.readString();
            String digest = r.readString();
            if (!ok) {
                fail(ctx, "server " + address + " refused the handshake: " + reason);
            } else if (!digest.equals(Digests.sharedKey(salt, serverHost, nonce, sharedKey))) {
                fail(ctx, "server " + address + " (" + serverHost + ") does not know the shared key");
            } else {
                ready.complete(null);
            }
        } else {
            fail(ctx, "unexpected " + kind + " from " + address + " during the handshake");
        }
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        ready.completeExceptionally(new HandshakeException(why));
        ctx.close();
    }

    /** The server refused us or failed to prove it knows the key: retrying the same server will not help. */
    static final class HandshakeException extends IOException {
        private static final long serialVersionUID = 1L;

        HandshakeException(String message) {
            super(message);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ready.completeExceptionally(new IOException("connection to " + address + " failed: " + cause.getMessage(), cause));
        ctx.close();
    }

}
