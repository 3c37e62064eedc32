package io.sluice.bench.forward;

import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardStreamDecoder;
import io.sluice.forward.codec.RecordView;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmarks' Forward server, run in a child JVM so that its work and allocations are not charged to the
 * client being measured: reads every frame, counts its events, discards them and acks a {@code chunk} at once.
 *
 * <p>A control connection lets the benchmark wait, without polling, until the server has counted a given total:
 * the client writes the total (8 bytes) and the server answers one byte once it has seen that many events. That is
 * how asynchronous senders are measured "until the events have left the process".
 *
 * <p>Prints {@code <data port> <control port>} on stdout once listening.
 */
public final class BenchServer {
    private static final AtomicLong EVENTS = new AtomicLong();
    private static final Object LOCK = new Object();

    private BenchServer() {
    }

    public static void main(String[] args) throws Exception {
        ServerSocket data = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ServerSocket control = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        System.out.println(data.getLocalPort() + " " + control.getLocalPort());
        System.out.flush();
        daemon(() -> acceptLoop(control, BenchServer::control));
        // The parent closes our stdin when it is done with us; exit then, whatever happens.
        daemon(() -> {
            try {
                System.in.read();
            } catch (IOException ignored) {
                // parent gone
            }
            System.exit(0);
        });
        acceptLoop(data, BenchServer::serve);
    }

    private interface Handler {
        void handle(Socket s) throws IOException;
    }

    private static void acceptLoop(ServerSocket server, Handler h) {
        while (true) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                daemon(() -> {
                    try (s) {
                        h.handle(s);
                    } catch (IOException ignored) {
                        // client went away
                    }
                });
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r);
        t.setDaemon(true);
        t.start();
    }

    private static void serve(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        OutputStream out = new BufferedOutputStream(s.getOutputStream(), 8192);
        byte[] buf = new byte[256 * 1024];
        byte[] ackHead = {(byte) 0x81, (byte) 0xa3, 'a', 'c', 'k'};
        try (ForwardStreamDecoder decoder = new ForwardStreamDecoder(256L << 20)) {
            long[] count = new long[1];
            boolean[] acked = new boolean[1];
            EventSink sink = new EventSink() {
                @Override
                public void onOptions(String chunk, long size, String compressed) {
                    if (chunk != null) {
                        try {
                            byte[] id = chunk.getBytes(StandardCharsets.US_ASCII);
                            out.write(ackHead);
                            out.write(id.length < 32 ? 0xa0 | id.length : 0xd9);
                            if (id.length >= 32) {
                                out.write(id.length);
                            }
                            out.write(id);
                            acked[0] = true;
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }
                }

                @Override
                public void onEvent(String tag, long sec, int nanos, RecordView record) {
                    count[0]++;
                }
            };
            int n;
            while ((n = in.read(buf)) > 0) {
                count[0] = 0;
                acked[0] = false;
                decoder.feed(buf, 0, n, sink);
                // Acks are written before the frame's events are counted, but only flushed here: one write per read.
                if (acked[0]) {
                    out.flush();
                }
                if (count[0] > 0) {
                    EVENTS.addAndGet(count[0]);
                    synchronized (LOCK) {
                        LOCK.notifyAll();
                    }
                }
            }
        }
    }

    private static void control(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        while (true) {
            long target = in.readLong();
            synchronized (LOCK) {
                while (EVENTS.get() < target) {
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            out.write(1);
            out.flush();
        }
    }
}
