package io.sluice.bench.hec;

import io.sluice.bench.BenchDefaults;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;

/**
 * Load generator for consumer.HEC (scripts/bench-hec.sh): {@code senders} keep-alive connections each POST
 * requests of {@code perRequest} events of about 250 bytes and wait for the answer, which consumer.HEC gives
 * only once the events were delivered, so the time to the last answer is the time to the last event delivered.
 * Requests are built once (raw socket writes), so the generator costs little CPU next to the receiver.
 * <pre>java -cp benchmarks.jar io.sluice.bench.hec.HecLoad PORT TOTAL_EVENTS [senders=4] [perRequest=1000] [gzip=false]</pre>
 */
public final class HecLoad {
    private HecLoad() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        long total = Long.parseLong(args[1]);
        int senders = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        int perRequest = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        boolean gzip = args.length > 4 && Boolean.parseBoolean(args[4]);
        byte[] request = request(perRequest, gzip);
        long requests = total / perRequest;
        AtomicLong next = new AtomicLong();
        AtomicLong busy = new AtomicLong();
        Thread[] t = new Thread[senders];
        long start = System.nanoTime();
        for (int i = 0; i < senders; i++) {
            t[i] = new Thread(() -> {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    s.setTcpNoDelay(true);
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[4096];
                    while (next.getAndIncrement() < requests) {
                        while (true) {
                            out.write(request);
                            out.flush();
                            int status = readResponse(in, buf);
                            if (status == 200) {
                                break;
                            }
                            if (status != 503) {
                                throw new IOException("HTTP " + status);
                            }
                            busy.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            t[i].start();
        }
        for (Thread th : t) {
            th.join();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        long events = requests * perRequest;
        System.out.printf("HecLoad: %,d events in %,d requests of %d (%s, %d senders) delivered in %.3f s = %,.0f events/s"
                        + " (%d answers 503 busy, retried)%n", events, requests, perRequest, gzip ? "gzip" : "plain",
                senders, secs, events / secs, busy.get());
    }

    /** One POST of n events of ~250 bytes each (random text, so gzip does real work). */
    static byte[] request(int n, boolean gzip) throws IOException {
        Random r = new Random(42);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ";
        for (int i = 0; i < n; i++) {
            String ev = "{\"time\":1796002770." + (100000 + i) + ",\"host\":\"web-1\",\"sourcetype\":\"app\","
                    + "\"event\":\"" + BenchDefaults.randomText(r, chars, 150) + "\",\"fields\":{\"n\":" + i + "}}";
            body.write(ev.getBytes(StandardCharsets.UTF_8));
        }
        byte[] b = body.toByteArray();
        if (gzip) {
            ByteArrayOutputStream z = new ByteArrayOutputStream();
            try (GZIPOutputStream g = new GZIPOutputStream(z)) {
                g.write(b);
            }
            b = z.toByteArray();
        }
        String head = "POST /services/collector/event HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Splunk bench\r\n"
                + (gzip ? "Content-Encoding: gzip\r\n" : "") + "Content-Length: " + b.length + "\r\n\r\n";
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.write(head.getBytes(StandardCharsets.US_ASCII));
        all.write(b);
        return all.toByteArray();
    }

    /** Reads one response (headers + Content-Length body); returns the status. */
    static int readResponse(InputStream in, byte[] buf) throws IOException {
        int n = 0;
        int headerEnd = -1;
        while (headerEnd < 0) {
            int r = in.read(buf, n, buf.length - n);
            if (r < 0) {
                throw new IOException("connection closed");
            }
            n += r;
            for (int i = 3; i < n; i++) {
                if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
                    headerEnd = i + 1;
                    break;
                }
            }
        }
        String head = new String(buf, 0, headerEnd, StandardCharsets.ISO_8859_1);
        int status = Integer.parseInt(head.substring(9, 12));
        int len = 0;
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                len = Integer.parseInt(line.substring(15).trim());
            }
        }
        int have = n - headerEnd;
        while (have < len) {
            int r = in.read(buf, 0, Math.min(buf.length, len - have));
            if (r < 0) {
                throw new IOException("connection closed");
            }
            have += r;
        }
        return status;
    }
}
