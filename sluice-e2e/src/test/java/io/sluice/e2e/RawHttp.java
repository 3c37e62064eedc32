package io.sluice.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP/1.1 POST on its own connection, sending the body on a second thread while the answer is read. A server
 * may answer a large request (413, 503) before it has read the body and close; the JDK's client then reports
 * "header parser received no bytes" (and, with Expect: 100-continue, on JDK 17 waits forever), where curl and
 * Splunk's clients read the answer. This client reads it too.
 */
final class RawHttp {
    /** Status, headers (lower-case names) and body of an answer. */
    record Answer(int status, Map<String, String> headers, String body) {
    }

    private RawHttp() {
    }

    static Answer post(int port, String path, byte[] body) throws IOException, InterruptedException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(300_000);
            OutputStream out = s.getOutputStream();
            byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + body.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            Thread writer = new Thread(() -> {
                try {
                    out.write(head);
                    out.write(body);
                    out.flush();
                } catch (IOException answeredEarly) {
                    // the server answered and closed before taking the whole body
                }
            }, "raw-http-writer");
            writer.setDaemon(true);
            writer.start();
            Answer a = read(s.getInputStream());
            writer.join(10_000);
            return a;
        }
    }

    private static Answer read(InputStream in) throws IOException {
        String status = line(in);
        if (status == null) {
            throw new IOException("connection closed without an answer");
        }
        Map<String, String> headers = new TreeMap<>();
        String l;
        while ((l = line(in)) != null && !l.isEmpty()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new Answer(Integer.parseInt(status.split(" ")[1]), headers, new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return c < 0 && b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
    }
}
