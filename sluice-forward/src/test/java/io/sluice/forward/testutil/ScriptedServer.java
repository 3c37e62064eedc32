package io.sluice.forward.testutil;

import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardStreamDecoder;
import io.sluice.forward.codec.RecordView;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A blocking Forward server for producer tests that can misbehave on purpose: it withholds the acks of the first
 * {@code withholdFrames} frames (reading them, answering nothing), then acks normally. It records events per chunk
 * id, so a resent chunk is counted once. With {@link #answerHeartbeats()} it answers UDP heartbeats on its port;
 * while {@link #frozen} it answers nothing at all (no acks, no heartbeats) but keeps its connections open, as a
 * host cut off by the network looks to a sender.
 */
public final class ScriptedServer implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger withhold;
    /** chunk id (or a generated key without acks) → event count. */
    public final Map<String, Integer> chunks = new ConcurrentHashMap<>();
    public final Set<String> records = ConcurrentHashMap.newKeySet();
    public final AtomicInteger framesReceived = new AtomicInteger();
    public final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger unnamed = new AtomicInteger();
    public final AtomicInteger heartbeats = new AtomicInteger();
    public volatile boolean frozen;
    private java.net.DatagramSocket udp;
    private volatile boolean closed;

    public ScriptedServer(int withholdFrames) throws IOException {
        this(withholdFrames, 0);
    }

    public ScriptedServer(int withholdFrames, int port) throws IOException {
        this.withhold = new AtomicInteger(withholdFrames);
        this.socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "scripted-server");
        t.setDaemon(true);
        t.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** Answers each UDP datagram to {@link #port()} with one zero byte (unless frozen), as in_forward does. */
    public ScriptedServer answerHeartbeats() throws IOException {
        udp = new java.net.DatagramSocket(port(), InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            byte[] buf = new byte[128];
            while (!closed) {
                try {
                    java.net.DatagramPacket p = new java.net.DatagramPacket(buf, buf.length);
                    udp.receive(p);
                    if (!frozen) {
                        heartbeats.incrementAndGet();
                        udp.send(new java.net.DatagramPacket(new byte[] {0}, 1, p.getSocketAddress()));
                    }
                } catch (IOException e) {
                    return;
                }
            }
        }, "scripted-heartbeat");
        t.setDaemon(true);
        t.start();
        return this;
    }

    /** Events received, each chunk counted once. */
    public int events() {
        return chunks.values().stream().mapToInt(Integer::intValue).sum();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = socket.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> serve(s), "scripted-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s; ForwardStreamDecoder dec = new ForwardStreamDecoder(64 << 20)) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                final String[] chunk = new String[1];
                final int[] count = new int[1];
                dec.feed(buf, 0, n, new EventSink() {
                    @Override
                    public void onOptions(String c, long size, String compressed) {
                        if (chunk[0] != null || count[0] > 0) {
                            finish(out, chunk[0], count[0]);
                        }
                        chunk[0] = c;
                        count[0] = 0;
                    }

                    @Override
                    public void onEvent(String tag, long sec, int nanos, RecordView record) {
                        count[0]++;
                        records.add(tag + "|" + new String(record.toBytes(), StandardCharsets.ISO_8859_1));
                    }
                });
                if (chunk[0] != null || count[0] > 0) {
                    finish(out, chunk[0], count[0]);
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private void finish(OutputStream out, String chunk, int count) {
        framesReceived.incrementAndGet();
        if (chunk != null && (frozen || withhold.getAndDecrement() > 0)) {
            return; // read, never acknowledged
        }
        chunks.putIfAbsent(chunk == null ? "frame-" + unnamed.incrementAndGet() : chunk, count);
        if (chunk != null) {
            byte[] id = chunk.getBytes(StandardCharsets.UTF_8);
            byte[] ack = new byte[6 + id.length];
            ack[0] = (byte) 0x81;
            ack[1] = (byte) 0xa3;
            ack[2] = 'a';
            ack[3] = 'c';
            ack[4] = 'k';
            ack[5] = (byte) (0xa0 | id.length);
            System.arraycopy(id, 0, ack, 6, id.length);
            try {
                out.write(ack);
                out.flush();
            } catch (IOException ignored) {
                // the client went away; it will resend
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        socket.close();
        if (udp != null) {
            udp.close();
        }
    }
}
