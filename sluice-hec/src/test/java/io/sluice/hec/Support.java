package io.sluice.hec;

import io.sluice.core.message.MemoryBudget;
import io.sluice.core.testing.PipelineHarness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * HEC's own test helpers: a receiving pipeline (consumer.HEC into core's test.Collect) on a free loopback port,
 * raw HTTP exchanges. Pipelines, capture and polling are core's {@link PipelineHarness}, producers started by hand
 * get its DirectProducerContext.
 */
public final class Support {
    private Support() {
    }

    /** consumer.HEC (id "in", extra settings) → test.Collect (id given), running; waits until it listens. */
    public static PipelineHarness receiver(int port, String captureId, Map<String, Object> settings) throws Exception {
        return receiver(port, captureId, settings, MemoryBudget.ofHeapShare());
    }

    /** {@link #receiver(int, String, Map)} with the given memory budget. */
    public static PipelineHarness receiver(int port, String captureId, Map<String, Object> settings, MemoryBudget memory)
            throws Exception {
        PipelineHarness p = pipeline(port, captureId, settings, memory).start();
        PipelineHarness.await("receiver to listen", 10_000, () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        return p;
    }

    /** The receiving pipeline of {@link #receiver}, built and not started; its consumer's counters are stats("in"). */
    public static PipelineHarness pipeline(int port, String captureId, Map<String, Object> settings, MemoryBudget memory) {
        Map<String, Object> in = new HashMap<>(settings);
        in.put("Address", "127.0.0.1:" + port);
        in.put("Streams", "hec");
        return PipelineHarness.builder().plugin("in", "consumer.HEC", in)
                .plugin(captureId, "test.Collect", Map.of("Streams", "hec"))
                .log(PipelineHarness.stderrLog()).memory(memory).build();
    }

    /** A status, head (status line and headers) and body read from a raw HTTP exchange. */
    public record Reply(int status, String body, String head) {
        /** The value of header {@code name} (any case), or null. */
        public String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    /** Writes request bytes as they are and reads one response. */
    public static Reply exchange(int port, byte[] request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            return read(s.getInputStream());
        }
    }

    /** Reads a response (status line, headers, Content-Length body). */
    public static Reply read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int c;
        int state = 0;
        while (state < 4 && (c = in.read()) >= 0) {
            head.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        if (h.isEmpty()) {
            throw new IOException("connection closed without a response");
        }
        int status = Integer.parseInt(h.substring(9, 12));
        int len = 0;
        for (String line : h.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                len = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(len);
        return new Reply(status, new String(body, StandardCharsets.UTF_8), h);
    }

    /** A POST with the given headers ("Name: value" lines) and body. */
    public static byte[] post(String path, byte[] body, String... headers) {
        StringBuilder b = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        b.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] head = b.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }
}
