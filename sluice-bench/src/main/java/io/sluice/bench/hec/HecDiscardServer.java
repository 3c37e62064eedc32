package io.sluice.bench.hec;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.DataFormatException;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;

/**
 * A HEC endpoint that reads requests and discards them (scripts/bench-hec.sh), counting events (one per line of
 * the inflated body, as producer.SplunkHEC writes them). It prints the rate from the first request to the one
 * that completes {@code EXPECTED} events, and the wall-clock time of that last event, so the script can time the
 * run from its first byte sent.
 *
 * <p>It shares the 2 cores with the process under test, so it does as little as it can: a blocking thread per
 * connection reads each request into one buffer and counts the body's lines as it arrives, with no HTTP
 * framework (a Netty sink spent a fifth of the machine's CPU in the timed run, much of it compiling). It
 * speaks what producer.SplunkHEC sends: HTTP/1.1 keep-alive requests with a Content-Length body, plain or
 * gzip. Before it listens for the run, it sends itself plain and gzip requests for a while, so its own JIT
 * work is done before the measured process starts. With {@code WARMUP}, it prints {@code warm: N events} once
 * that many events were counted (the script's untimed first round) and times from the next request.
 *
 * <p>With {@code COUNT} {@code events} (scripts/bench-peers.sh, the otlp-hec workloads) it counts the
 * {@code "event":} keys of a body instead of its lines, which counts Fluent Bit's out_splunk too: it concatenates
 * its events with nothing between them (in valid JSON those eight bytes are only ever a key named event; the
 * benchmark's events hold no other key of that name). It then also waits a second after the last expected event
 * and prints {@code total: N events} (all counted after the warm-up), for a check that nothing came twice.
 * <pre>java -cp benchmarks.jar io.sluice.bench.hec.HecDiscardServer PORT EXPECTED_EVENTS [WARMUP_EVENTS] [COUNT=lines|events]</pre>
 */
public final class HecDiscardServer {
    private static final byte[] HEALTH = ascii("get /services/collector/health");
    private static final byte[] CONTENT_LENGTH = ascii("content-length:");
    private static final byte[] CONTENT_ENCODING = ascii("content-encoding:");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding:");
    private static final byte[] GZIP = ascii("gzip");
    private static final byte[] OK = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n"
            + "{\"text\":\"Success\",\"code\":0}").getBytes(StandardCharsets.US_ASCII);

    private final long expected;
    private final long warmup;
    private final boolean eventKeys;
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong first = new AtomicLong();
    private final AtomicBoolean selfTest = new AtomicBoolean(true);
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Instant lastAt;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private HecDiscardServer(long expected, long warmup, boolean eventKeys) {
        this.expected = expected;
        this.warmup = warmup;
        this.eventKeys = eventKeys;
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        boolean eventKeys = args.length > 3 && args[3].equals("events");
        if (args.length > 3 && !eventKeys && !args[3].equals("lines")) {
            throw new IllegalArgumentException("COUNT is lines or events, not " + args[3]);
        }
        HecDiscardServer server = new HecDiscardServer(Long.parseLong(args[1]), args.length > 2 ? Long.parseLong(args[2]) : 0,
                eventKeys);
        server.listen(port);
        warmItself(port, 1500);
        server.selfTest.set(false);
        System.out.println("HecDiscardServer: listening on " + port);
        System.out.flush();
        server.done.await();
        double secs = (System.nanoTime() - server.first.get()) / 1e9;
        long timed = server.events.get() - server.warmup;
        Instant last = server.lastAt;
        System.out.printf("HecDiscardServer: %,d events (%,d bytes on the wire) in %.3f s = %,.0f events/s;"
                + " last event at epoch %d.%06d s%n", timed, server.bytes.get(), secs, timed / secs,
                last.getEpochSecond(), last.getNano() / 1000);
        if (eventKeys) {
            System.out.flush();
            Thread.sleep(1000);
            System.out.printf("total: %d events%n", server.events.get() - server.warmup);
        }
        System.exit(0);
    }

    /**
     * A server in this process on a free loopback port, counting nothing (its self-test mode): what a JMH benchmark
     * of producer.SplunkHEC's HTTP path posts to. Closing the returned socket stops accepting.
     */
    public static ServerSocket inProcess() throws IOException {
        return new HecDiscardServer(Long.MAX_VALUE, 0, false).listen(0);
    }

    /** Listens on a loopback port and accepts connections on a daemon thread. */
    private ServerSocket listen(int port) throws IOException {
        ServerSocket listener = new ServerSocket(port, 64, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> accept(listener), "accept");
        acceptor.setDaemon(true);
        acceptor.start();
        return listener;
    }

    private void accept(ServerSocket listener) {
        while (true) {
            try {
                Socket s = listener.accept();
                Thread t = new Thread(() -> serve(s), "conn-" + s.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Serves one keep-alive connection until the peer closes it. */
    private void serve(Socket s) {
        try (s) {
            new Connection(s.getInputStream(), s.getOutputStream()).run();
        } catch (EOFException e) {
            // the peer closed between requests
        } catch (IOException | DataFormatException | RuntimeException e) {
            System.err.println("HecDiscardServer: connection failed: " + e);
        }
    }

    /** Counts one request's events towards the run. */
    private void counted(long n, long wireBytes) {
        if (n == 0 || selfTest.get()) {
            return;
        }
        long before = events.getAndAdd(n);
        if (before >= warmup) {
            // Timed from the first event request of the run, not the health check or the untimed warm-up round.
            first.compareAndSet(0, System.nanoTime());
            bytes.addAndGet(wireBytes);
        } else if (before + n >= warmup) {
            System.out.printf("warm: %d events%n", before + n);
            System.out.flush();
        }
        if (before < expected && before + n >= expected) {
            lastAt = Instant.now();
            done.countDown();
        }
    }

    /** One connection's request loop: a read buffer, the request head parsed from it, the body counted. */
    private final class Connection {
        private final InputStream in;
        private final OutputStream out;
        private final LineCounter counter = new LineCounter(eventKeys);
        private final byte[] buf = new byte[1 << 18];
        private int pos;
        private int lim;
        private int headStart;

        Connection(InputStream in, OutputStream out) {
            this.in = in;
            this.out = out;
        }

        void run() throws IOException, DataFormatException {
            while (true) {
                int end = readHead();
                int start = headStart;
                boolean health = startsWith(start, end, HEALTH);
                long length = 0;
                boolean gzip = false;
                // Header lines, parsed in place: the sink must stay cheap, and cheap to compile.
                for (int line = next(start, end); line < end; line = next(line, end)) {
                    if (startsWith(line, end, CONTENT_LENGTH)) {
                        for (int i = line + CONTENT_LENGTH.length; buf[i] != '\r'; i++) {
                            if (buf[i] >= '0' && buf[i] <= '9') {
                                length = length * 10 + buf[i] - '0';
                            }
                        }
                    } else if (startsWith(line, end, CONTENT_ENCODING)) {
                        gzip = startsWith(skipSpaces(line + CONTENT_ENCODING.length), end, GZIP);
                    } else if (startsWith(line, end, TRANSFER_ENCODING)) {
                        throw new IOException("chunked request bodies are not supported");
                    }
                }
                counter.start(gzip);
                for (long left = length; left > 0; ) {
                    if (pos == lim) {
                        fill();
                    }
                    int n = (int) Math.min(left, lim - pos);
                    if (!health) {
                        counter.add(buf, pos, n);
                    }
                    pos += n;
                    left -= n;
                }
                if (!health) {
                    // Counted before the answer: the self-test client must not see its last answer (and the
                    // run begin) before its events were set aside as not counting.
                    counted(counter.lines(), length);
                }
                out.write(OK);
                out.flush();
            }
        }

        /** The start of the line after the one at {@code at}. */
        private int next(int at, int end) {
            while (at < end && buf[at] != '\n') {
                at++;
            }
            return at + 1;
        }

        private int skipSpaces(int at) {
            while (buf[at] == ' ') {
                at++;
            }
            return at;
        }

        /** Whether the bytes at {@code at} start with {@code lower}, ignoring ASCII case. */
        private boolean startsWith(int at, int end, byte[] lower) {
            if (end - at < lower.length) {
                return false;
            }
            for (int i = 0; i < lower.length; i++) {
                if ((buf[at + i] | 0x20) != lower[i] && buf[at + i] != lower[i]) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Reads up to the blank line that ends a request head; the head is then {@code [headStart, returned end)}
         * and {@link #pos} is after it (leftover bytes stay).
         */
        private int readHead() throws IOException {
            int from = pos;
            while (true) {
                for (int i = Math.max(from, pos + 3); i < lim; i++) {
                    if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
                        headStart = pos;
                        pos = i + 1;
                        return pos;
                    }
                }
                from = lim;
                if (pos > 0) { // keep the partial head at the start of the buffer
                    System.arraycopy(buf, pos, buf, 0, lim - pos);
                    from -= pos;
                    lim -= pos;
                    pos = 0;
                }
                if (lim == buf.length) {
                    throw new IOException("request head over " + buf.length + " bytes");
                }
                int n = in.read(buf, lim, buf.length - lim);
                if (n < 0) {
                    throw new EOFException();
                }
                lim += n;
            }
        }

        private void fill() throws IOException {
            int n = in.read(buf, 0, buf.length);
            if (n < 0) {
                throw new IOException("connection closed inside a request body");
            }
            pos = 0;
            lim = n;
        }
    }

    /**
     * Sends itself requests of every shape the run brings, from two connections at once, for {@code millis}: bodies
     * of 2 MiB (as producer.SplunkHEC sends them: many reads each, heads landing anywhere in the buffer), plain and
     * gzip, small ones (so the per-request code is compiled too) and health checks. A path the warm-up never took
     * is compiled as a trap, and taking it in the run makes C2 compile the method again while the run is timed.
     */
    private static void warmItself(int port, long millis) throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; lines.length() < (2 << 20) - 200; i++) {
            lines.append("{\"time\":1700000000.").append(i % 1000).append(",\"event\":\"warm-up line ").append(i)
                    .append(" of the discard server's own JIT work\"}\n");
        }
        byte[] plain = lines.toString().getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(plain);
        }
        byte[] gzip = gz.toByteArray();
        byte[] small = Arrays.copyOf(plain, lines.indexOf("\n", 2000) + 1);
        byte[][] requests = new byte[16][];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = i == 4 ? ascii("GET /services/collector/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    : request(i % 8 == 0 ? plain : i == 12 ? gzip : small, i == 12);
        }
        long until = System.nanoTime() + millis * 1_000_000;
        Thread[] clients = new Thread[2];
        Exception[] failed = new Exception[1];
        for (int c = 0; c < clients.length; c++) {
            int offset = c * 5; // the two connections send different shapes at the same time
            clients[c] = new Thread(() -> {
                try {
                    warmConnection(port, requests, offset, until);
                } catch (IOException e) {
                    failed[0] = e;
                }
            });
            clients[c].start();
        }
        for (Thread t : clients) {
            t.join();
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    private static void warmConnection(int port, byte[][] requests, int offset, long until) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = offset; System.nanoTime() < until; i++) {
                out.write(requests[i % requests.length]);
                out.flush();
                if (!Arrays.equals(in.readNBytes(OK.length), OK)) { // the answer is always OK, byte for byte
                    throw new IOException("unexpected answer during warm-up");
                }
            }
        }
    }

    private static byte[] request(byte[] body, boolean gzip) {
        byte[] head = ascii("POST /services/collector/event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + body.length
                + (gzip ? "\r\nContent-Encoding: gzip" : "") + "\r\n\r\n");
        byte[] r = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, r, head.length, body.length);
        return r;
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
        /** {@code "event":} as a little-endian long. */
        private static final long EVENT_KEY = (long) LONGS.get("\"event\":".getBytes(StandardCharsets.US_ASCII), 0);
        private static final long QUOTES = '"' * ONES;
        private final Inflater inflater = new Inflater(true);
        private final byte[] out = new byte[1 << 16];
        private final boolean eventKeys;
        /** For eventKeys: the last 7 bytes of the chunk before (their positions not yet tested), then a chunk. */
        private final byte[] work;
        private int carry;
        private boolean gzip;
        private int header;
        private long lines;

        LineCounter(boolean eventKeys) {
            this.eventKeys = eventKeys;
            this.work = eventKeys ? new byte[(1 << 18) + 8] : null;
        }

        void start(boolean gzip) {
            this.gzip = gzip;
            carry = 0;
            header = 10;
            lines = 0;
            inflater.reset();
        }

        long lines() {
            return lines;
        }

        void add(byte[] b, int off, int n) throws DataFormatException {
            if (!gzip) {
                lines += counted(b, off, off + n);
                return;
            }
            int skip = Math.min(header, n); // the 10-byte gzip header; the trailer is never inflated
            header -= skip;
            inflater.setInput(b, off + skip, n - skip);
            while (!inflater.finished() && !inflater.needsInput()) {
                int k = inflater.inflate(out);
                lines += counted(out, 0, k);
            }
        }

        private long counted(byte[] b, int from, int to) {
            if (!eventKeys) {
                return count(b, from, to);
            }
            long n = 0;
            for (int at = from; at < to; ) { // chunks of at most the work buffer's room
                int k = Math.min(to - at, work.length - 7);
                System.arraycopy(b, at, work, carry, k);
                int end = carry + k;
                n += eventKeys(work, end);
                carry = Math.min(7, end);
                System.arraycopy(work, end - carry, work, 0, carry);
                at += k;
            }
            return n;
        }

        /**
         * {@code "event":} in work[0, end) at positions p with p + 8 <= end (the rest is tested with the next chunk):
         * quotes found eight bytes per step as in {@link #count}, each tested as the start of the key.
         */
        static long eventKeys(byte[] work, int end) {
            long n = 0;
            for (int i = 0; i + 8 <= end; i += 8) {
                long x = (long) LONGS.get(work, i) ^ QUOTES;
                long zero = ~(((x & LOWS) + LOWS) | x | LOWS);
                while (zero != 0) {
                    int p = i + (Long.numberOfTrailingZeros(zero) >>> 3);
                    if (p + 8 <= end && (long) LONGS.get(work, p) == EVENT_KEY) {
                        n++;
                    }
                    zero &= zero - 1;
                }
            }
            return n;
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
