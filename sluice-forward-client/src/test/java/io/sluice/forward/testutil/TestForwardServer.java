package io.sluice.forward.testutil;

import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.FrameScanner;
import io.sluice.forward.codec.MsgPackReader;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * A small blocking Forward server on 127.0.0.1 for tests, decoding with the module's own
 * {@link FrameScanner} and {@link ForwardDecoder} and answering acks. Hooks let a test drop an ack,
 * hold acks back, close a connection after a frame, or require the shared-key handshake.
 */
public final class TestForwardServer implements AutoCloseable {
    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Socket> sockets = new ArrayList<>();
    private final Object monitor = new Object();
    private final CollectingSink sink = new CollectingSink();
    private final List<String> chunks = new ArrayList<>();
    private final List<Throwable> errors = new ArrayList<>();
    private final Set<String> dropAckOnce = ConcurrentHashMap.newKeySet();
    private final List<Object[]> heldAcks = new ArrayList<>();
    private volatile int dropNextAcks;
    private volatile int holdAcksUntil;
    private volatile int closeAfterFrames = -1;
    private volatile String sharedKey;
    private int frames;
    private int connections;

    public TestForwardServer() throws IOException {
        this(null);
    }

    /** @param tls server TLS context, or null for plain TCP */
    public TestForwardServer(javax.net.ssl.SSLContext tls) throws IOException {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        server = tls == null ? new ServerSocket(0, 50, loopback)
                : tls.getServerSocketFactory().createServerSocket(0, 50, loopback);
        acceptor = new Thread(this::acceptLoop, "test-forward-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Do not ack the next {@code n} chunks (they stay unacknowledged for ever). */
    public TestForwardServer dropNextAcks(int n) {
        dropNextAcks = n;
        return this;
    }

    /** Hold every ack back until {@code n} chunks have arrived in total, then send them all. */
    public TestForwardServer holdAcksUntil(int n) {
        holdAcksUntil = n;
        return this;
    }

    /** Close the connection (once) right after the {@code n}-th frame, without acking it. */
    public TestForwardServer closeAfterFrames(int n) {
        closeAfterFrames = n;
        return this;
    }

    /** Require the v1 handshake with this shared key. */
    public TestForwardServer requireSharedKey(String key) {
        sharedKey = key;
        return this;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                synchronized (monitor) {
                    sockets.add(s);
                    connections++;
                }
                Thread t = new Thread(() -> serve(s), "test-forward-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        FrameScanner scanner = new FrameScanner(16 << 20);
        ForwardDecoder decoder = new ForwardDecoder();
        byte[] buf = new byte[64 * 1024];
        int have = 0;
        try (s; decoder) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            if (sharedKey != null) {
                handshake(in, out);
            }
            while (true) {
                int n;
                while ((n = scanner.scan(buf, 0, have)) < 0) {
                    if (have == buf.length) {
                        buf = Arrays.copyOf(buf, buf.length * 2);
                    }
                    int r = in.read(buf, have, buf.length - have);
                    if (r < 0) {
                        return;
                    }
                    have += r;
                }
                if (!onFrame(buf, n, decoder, out, s)) {
                    return;
                }
                System.arraycopy(buf, n, buf, 0, have - n);
                have -= n;
            }
        } catch (IOException e) {
            if (!server.isClosed() && !s.isClosed()) {
                synchronized (monitor) {
                    errors.add(e);
                    monitor.notifyAll();
                }
            }
        }
    }

    private boolean onFrame(byte[] buf, int n, ForwardDecoder decoder, OutputStream out, Socket s)
            throws IOException {
        String chunk;
        boolean close;
        synchronized (monitor) {
            int before = sink.options.size();
            decoder.decode(buf, 0, n, sink);
            chunk = sink.options.get(before).chunk();
            frames++;
            close = frames == closeAfterFrames;
            if (chunk != null) {
                chunks.add(chunk);
            }
            monitor.notifyAll();
        }
        if (close) {
            closeAfterFrames = -1;
            s.close();
            return false;
        }
        if (chunk != null) {
            ack(chunk, out);
        }
        return true;
    }

    private void ack(String chunk, OutputStream out) throws IOException {
        if (dropNextAcks > 0) {
            dropNextAcks--;
            return;
        }
        List<Object[]> toSend = new ArrayList<>();
        synchronized (monitor) {
            heldAcks.add(new Object[] {chunk, out});
            if (chunks.size() >= holdAcksUntil) {
                toSend.addAll(heldAcks);
                heldAcks.clear();
            }
        }
        for (Object[] a : toSend) {
            writeAck((String) a[0], (OutputStream) a[1]);
        }
    }

    private static void writeAck(String chunk, OutputStream out) {
        MsgPackWriter w = new MsgPackWriter();
        w.writeMapHeader(1);
        w.writeString("ack");
        w.writeString(chunk);
        try {
            synchronized (out) {
                out.write(w.array(), 0, w.size());
                out.flush();
            }
        } catch (IOException ignored) {
            // that connection is gone; the client resends
        }
    }

    private void handshake(InputStream in, OutputStream out) throws IOException {
        byte[] nonce = "server-nonce-123".getBytes(StandardCharsets.US_ASCII);
        MsgPackWriter w = new MsgPackWriter();
        w.writeArrayHeader(2);
        w.writeString("HELO");
        w.writeMapHeader(3);
        w.writeString("nonce");
        w.writeBin(nonce, 0, nonce.length);
        w.writeString("auth");
        w.writeString("");
        w.writeString("keepalive");
        w.writeBoolean(true);
        out.write(w.toByteArray());
        out.flush();
        byte[] ping = readOneMessage(in);
        MsgPackReader r = new MsgPackReader().reset(ping, 0, ping.length, 0);
        r.readArrayHeader();
        r.readString(); // PING
        String clientHost = r.readString();
        int saltLen = r.readStrOrBinHeader();
        byte[] salt = Arrays.copyOfRange(ping, r.position(), r.position() + saltLen);
        r.position(r.position() + saltLen);
        String digest = r.readString();
        boolean ok = digest.equals(sha512(salt, clientHost.getBytes(StandardCharsets.UTF_8), nonce,
                sharedKey.getBytes(StandardCharsets.UTF_8)));
        w.clear();
        w.writeArrayHeader(5);
        w.writeString("PONG");
        w.writeBoolean(ok);
        w.writeString(ok ? "" : "shared_key mismatch");
        w.writeString("test-server");
        w.writeString(sha512(salt, "test-server".getBytes(StandardCharsets.UTF_8), nonce,
                sharedKey.getBytes(StandardCharsets.UTF_8)));
        out.write(w.toByteArray());
        out.flush();
        if (!ok) {
            throw new IOException("client failed the handshake");
        }
    }

    private static byte[] readOneMessage(InputStream in) throws IOException {
        FrameScanner scanner = new FrameScanner(4096);
        byte[] buf = new byte[4096];
        int have = 0;
        int n;
        // One byte at a time so nothing after the PING is consumed here.
        while ((n = scanner.scan(buf, 0, have)) < 0) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed during handshake");
            }
            buf[have++] = (byte) b;
        }
        return Arrays.copyOf(buf, n);
    }

    private static String sha512(byte[]... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-512");
            for (byte[] p : parts) {
                md.update(p);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits (no sleeping: on a monitor, with a deadline) until {@code condition} holds. */
    public void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (monitor) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("timed out waiting for " + what + "; have " + sink.events.size()
                            + " events, " + frames + " frames, errors " + errors);
                }
                try {
                    monitor.wait(Math.max(1, Math.min(10, left / 1_000_000))); // also sees client-side state
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }

    /** Waits until at least {@code n} events have arrived. */
    public void awaitEvents(int n, Duration timeout) {
        await(() -> sink.events.size() >= n, timeout, n + " events");
    }

    public List<CollectingSink.Event> events() {
        synchronized (monitor) {
            return List.copyOf(sink.events);
        }
    }

    public List<CollectingSink.Options> options() {
        synchronized (monitor) {
            return List.copyOf(sink.options);
        }
    }

    public List<String> chunks() {
        synchronized (monitor) {
            return List.copyOf(chunks);
        }
    }

    public int frames() {
        synchronized (monitor) {
            return frames;
        }
    }

    public int connections() {
        synchronized (monitor) {
            return connections;
        }
    }

    public List<Throwable> errors() {
        synchronized (monitor) {
            return List.copyOf(errors);
        }
    }

    /** Forcibly closes every accepted connection (the server keeps listening). */
    public void dropConnections() throws IOException {
        synchronized (monitor) {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        dropConnections();
    }
}
