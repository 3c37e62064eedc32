package io.sluice.bench.forward;

import io.sluice.forward.codec.EventBatch;
import io.sluice.forward.codec.ForwardEncoder;
import io.sluice.forward.codec.ForwardMode;
import io.sluice.forward.codec.MsgPackWriter;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load generator for the Forward whole-process bar: sends {@code events} events of ~250 bytes to a consumer.Forward
 * over {@code connections} sockets, as PackedForward chunks of 1,000 events or as Message mode (one event per frame),
 * with or without an ack per frame (acks pipelined, a window of frames in flight per connection).
 * Frames are encoded before the clock starts, so the figure is the server's, not the encoder's.
 *
 * <pre>java -cp benchmarks.jar io.sluice.bench.forward.ForwardLoad HOST PORT packed|packed-ack|message|message-ack CONNECTIONS EVENTS</pre>
 */
public final class ForwardLoad {
    private static final int PACK = 1000;
    private static final int WINDOW = 64;

    private ForwardLoad() {
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String mode = args[2];
        int connections = Integer.parseInt(args[3]);
        long events = Long.parseLong(args[4]);
        boolean packed = mode.startsWith("packed");
        boolean ack = mode.endsWith("-ack");
        long perConnection = events / connections;
        List<Thread> senders = new ArrayList<>();
        AtomicLong acked = new AtomicLong();
        // Every sender encodes its frames and connects first; the clock starts when all are ready to write.
        CountDownLatch ready = new CountDownLatch(connections);
        CountDownLatch go = new CountDownLatch(1);
        for (int c = 0; c < connections; c++) {
            int id = c;
            Thread t = new Thread(() -> {
                try {
                    send(host, port, packed, ack, perConnection, id, acked, ready, go);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "forward-load-" + c);
            senders.add(t);
            t.start();
        }
        ready.await();
        Instant startedAt = Instant.now();
        long start = System.nanoTime();
        go.countDown();
        for (Thread t : senders) {
            t.join();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("sent %,d events (%s, %d connections) in %.3f s = %,.0f events/s written%s%n",
                perConnection * connections, mode, connections, secs, perConnection * connections / secs,
                ack ? String.format(" (%,d acks received)", acked.get()) : "");
        // For timing the run from the first byte sent to the last event delivered in the server's process.
        System.out.printf("first byte sent at epoch %d.%06d s%n", startedAt.getEpochSecond(), startedAt.getNano() / 1000);
    }

    private static Map<String, Object> record(long n) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("level", "info");
        r.put("service", "checkout");
        r.put("n", n);
        r.put("message", "x".repeat(190));
        return r;
    }

    private static void send(String host, int port, boolean packed, boolean ack, long events, int id, AtomicLong acked,
                             CountDownLatch ready, CountDownLatch go) throws Exception {
        ForwardEncoder enc = new ForwardEncoder();
        // A few distinct frames, sent round robin. Each chunk id is a placeholder whose digits are rewritten
        // before every write: ids must be unique, as a real client's are, or consumer.Forward takes the
        // frame for a resent copy and delivers it once (duplicate-chunk suppression).
        int distinct = 8;
        String placeholder = "c" + id + "-" + "0".repeat(ID_DIGITS);
        int perFrame = packed ? PACK : 1;
        List<byte[]> frames = new ArrayList<>();
        long t = System.currentTimeMillis() / 1000;
        for (int f = 0; f < distinct; f++) {
            MsgPackWriter out = new MsgPackWriter(1 << 20);
            String chunk = ack ? placeholder : null;
            if (packed) {
                EventBatch batch = new EventBatch();
                for (int i = 0; i < PACK; i++) {
                    batch.add(t, 0, record((long) f * PACK + i));
                }
                enc.frame(ForwardMode.PACKED_FORWARD, out, "bench.load", batch, chunk);
            } else {
                // Message mode: one event per frame; 1,000 of them are written together so a syscall moves many frames.
                for (int i = 0; i < 1000; i++) {
                    enc.message(out, "bench.load", t, 0, record(i), chunk);
                }
                perFrame = 1000;
            }
            frames.add(out.toByteArray());
        }
        int[][] idDigits = new int[distinct][];
        for (int f = 0; f < distinct; f++) {
            idDigits[f] = ack ? find(frames.get(f), placeholder.getBytes(StandardCharsets.US_ASCII)) : new int[0];
        }
        long nextId = 0;
        int acksPerWrite = packed ? 1 : 1000;
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port));
            OutputStream out = s.getOutputStream();
            Semaphore window = new Semaphore(WINDOW * acksPerWrite);
            Thread reader = null;
            long writes = (events + perFrame - 1) / perFrame;
            if (ack) {
                long expected = writes * acksPerWrite;
                InputStream in = s.getInputStream();
                reader = new Thread(() -> readAcks(in, expected, window, acked), "acks-" + id);
                reader.start();
            }
            ready.countDown();
            go.await();
            for (long w = 0; w < writes; w++) {
                if (ack) {
                    window.acquire(acksPerWrite);
                }
                int f = (int) (w % distinct);
                for (int at : idDigits[f]) {
                    setDigits(frames.get(f), at, nextId++);
                }
                out.write(frames.get(f));
            }
            out.flush();
            if (reader != null) {
                reader.join();
            }
        }
    }

    private static final int ID_DIGITS = 13;

    /** Offsets of the digits of every occurrence of {@code pattern} in {@code b}. */
    private static int[] find(byte[] b, byte[] pattern) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i + pattern.length <= b.length; i++) {
            if (Arrays.equals(b, i, i + pattern.length, pattern, 0, pattern.length)) {
                at.add(i + pattern.length - ID_DIGITS);
                i += pattern.length - 1;
            }
        }
        return at.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void setDigits(byte[] b, int at, long v) {
        for (int k = at + ID_DIGITS - 1; k >= at; k--) {
            b[k] = (byte) ('0' + v % 10);
            v /= 10;
        }
    }

    /** Counts ack maps ({"ack": "..."}): each is a fixmap of one entry; the bytes are scanned for the 0x81 0xa3 "ack" head. */
    private static void readAcks(InputStream in, long expected, Semaphore window, AtomicLong acked) {
        byte[] buf = new byte[64 * 1024];
        long seen = 0;
        int state = 0;
        try {
            while (seen < expected) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                for (int i = 0; i < n; i++) {
                    int b = buf[i] & 0xFF;
                    // Match 0x81 0xA3 'a' 'c' 'k' across reads.
                    state = (state == 0 && b == 0x81) ? 1 : (state == 1 && b == 0xA3) ? 2 : (state == 2 && b == 'a') ? 3
                            : (state == 3 && b == 'c') ? 4 : (state == 4 && b == 'k') ? 5 : (b == 0x81 ? 1 : 0);
                    if (state == 5) {
                        seen++;
                        acked.incrementAndGet();
                        window.release();
                        state = 0;
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
