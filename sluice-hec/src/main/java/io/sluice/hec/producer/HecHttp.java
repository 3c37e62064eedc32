package io.sluice.hec.producer;

import io.sluice.core.tls.TlsSettings;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The HTTP side of {@code producer.SplunkHEC}: a small HTTP/1.1 client over a pool of keep-alive sockets (TLS
 * when the endpoint is https). A request is one write of the header bytes and one of the body straight from
 * the encoder's buffer; the answer is read into a reused buffer. Measured here, this moves several times the
 * requests per CPU second of the JDK's HttpClient with 150 KB bodies (which copies bodies into its own
 * buffers and hops threads per request), and per-request work is what bounds the producer on loopback.
 * Allocation is per request, never per event.
 */
final class HecHttp implements HecTransport {
    private final String host;
    private final int port;
    private final String hostHeader;
    private final String basePath;
    private final byte[] auth;
    private final int timeoutMillis;
    private final boolean tls;
    /** The TLS/* group when the endpoint is https, else null. */
    private final TlsSettings tlsSettings;
    private final ConcurrentLinkedQueue<Conn> idle = new ConcurrentLinkedQueue<>();

    HecHttp(String endpoint, String token, String channel, Duration timeout, TlsSettings tlsSettings) throws Exception {
        URI u = URI.create(endpoint);
        this.tls = "https".equalsIgnoreCase(u.getScheme());
        if (!tls && !"http".equalsIgnoreCase(u.getScheme())) {
            throw new IllegalArgumentException("Endpoint must be http:// or https://, got " + endpoint);
        }
        this.host = u.getHost();
        this.port = u.getPort() > 0 ? u.getPort() : tls ? 443 : 80;
        this.hostHeader = u.getPort() > 0 ? host + ":" + port : host;
        String p = u.getRawPath() == null ? "" : u.getRawPath();
        p = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
        if (p.endsWith("/services/collector")) {
            p = p.substring(0, p.length() - "/services/collector".length());
        }
        this.basePath = p;
        this.auth = ("Authorization: Splunk " + token + "\r\nX-Splunk-Request-Channel: " + channel + "\r\n")
                .getBytes(StandardCharsets.UTF_8);
        this.timeoutMillis = (int) timeout.toMillis();
        if (tls && !tlsSettings.enabled()) {
            throw new IllegalArgumentException("https endpoint without TLS settings");
        }
        this.tlsSettings = tls ? tlsSettings : null;
    }

    /** One keep-alive connection with its reused read buffer. */
    private final class Conn {
        final Socket socket;
        final OutputStream out;
        final InputStream in;
        byte[] buf = new byte[8192];
        boolean reusable;

        Conn() throws IOException {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.setSoTimeout(timeoutMillis);
            s.connect(new InetSocketAddress(host, port), timeoutMillis);
            if (tlsSettings != null) {
                s = tlsSettings.clientSocket(s, host, port);
            }
            socket = s;
            out = s.getOutputStream();
            in = new BufferedInputStream(s.getInputStream(), 8192);
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a broken connection: nothing left to do
            }
        }
    }

    @Override
    public HecResponse post(String pathAndQuery, byte[] body, int off, int len, boolean gzip) throws IOException {
        return exchange("POST", pathAndQuery, body, off, len, gzip);
    }

    @Override
    public HecResponse get(String path) throws IOException {
        return exchange("GET", path, null, 0, 0, false);
    }

    private HecResponse exchange(String method, String path, byte[] body, int off, int len, boolean gzip)
            throws IOException {
        StringBuilder h = new StringBuilder(160).append(method).append(' ').append(basePath).append(path)
                .append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
        if (body != null) {
            h.append("Content-Type: application/json\r\nContent-Length: ").append(len).append("\r\n");
            if (gzip) {
                h.append("Content-Encoding: gzip\r\n");
            }
        }
        byte[] head = h.toString().getBytes(StandardCharsets.UTF_8);
        // A pooled connection may have been closed by the server while idle: retry once on a fresh one.
        for (int attempt = 0; ; attempt++) {
            Conn c = idle.poll();
            boolean reused = c != null;
            if (c == null) {
                c = new Conn();
            }
            try {
                c.out.write(head);
                c.out.write(auth);
                c.out.write('\r');
                c.out.write('\n');
                if (body != null) {
                    c.out.write(body, off, len);
                }
                c.out.flush();
                HecResponse r = readResponse(c);
                if (c.reusable) {
                    idle.offer(c);
                } else {
                    c.close(); // "Connection: close" or read to the end: not reusable
                }
                return r;
            } catch (IOException e) {
                c.close();
                if (!reused || attempt > 0) {
                    throw e;
                }
            }
        }
    }

    /** Reads status, headers and body; marks the connection reusable unless the server closes it. */
    private HecResponse readResponse(Conn c) throws IOException {
        String status = line(c);
        if (status == null) {
            throw new IOException("connection closed before an answer");
        }
        if (status.length() < 12 || !status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP answer: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long contentLength = -1;
        boolean chunked = false;
        boolean close = false;
        long retryAfter = -1;
        String l;
        while ((l = line(c)) != null && !l.isEmpty()) {
            int colon = l.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = l.substring(0, colon).trim();
            String value = l.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                contentLength = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                chunked = value.toLowerCase().contains("chunked");
            } else if (name.equalsIgnoreCase("Connection")) {
                close = value.equalsIgnoreCase("close");
            } else if (name.equalsIgnoreCase("Retry-After")) {
                retryAfter = retryAfterMillis(value);
            }
        }
        StringBuilder text = new StringBuilder();
        if (chunked) {
            while (true) {
                String size = line(c);
                if (size == null) {
                    throw new IOException("connection closed in a chunked answer");
                }
                int semi = size.indexOf(';');
                long n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    while ((l = line(c)) != null && !l.isEmpty()) {
                        // trailers
                    }
                    break;
                }
                readBody(c, n, text);
                line(c);
            }
        } else if (contentLength >= 0) {
            readBody(c, contentLength, text);
        } else if (code != 204 && code != 304) {
            readBody(c, Long.MAX_VALUE, text); // until close
            close = true;
        }
        c.reusable = !close;
        return new HecResponse(code, text.toString(), retryAfter);
    }

    /** Reads n bytes (or to the end of the stream); keeps the first 64 KiB as text, discards the rest. */
    private static void readBody(Conn c, long n, StringBuilder text) throws IOException {
        long left = n;
        while (left > 0) {
            int r = c.in.read(c.buf, 0, (int) Math.min(c.buf.length, left));
            if (r < 0) {
                if (n == Long.MAX_VALUE) {
                    return;
                }
                throw new IOException("connection closed in an answer");
            }
            if (text.length() < 65536) {
                text.append(new String(c.buf, 0, r, StandardCharsets.UTF_8));
            }
            left -= r;
        }
    }

    /** A header line without its CR LF, or null at the end of the stream. */
    private static String line(Conn c) throws IOException {
        int n = 0;
        int b;
        while ((b = c.in.read()) >= 0) {
            if (b == '\n') {
                if (n > 0 && c.buf[n - 1] == '\r') {
                    n--;
                }
                return new String(c.buf, 0, n, StandardCharsets.ISO_8859_1);
            }
            if (n == c.buf.length) {
                throw new IOException("header line too long");
            }
            c.buf[n++] = (byte) b;
        }
        return n == 0 ? null : new String(c.buf, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** Closes the idle connections. */
    void close() {
        Conn c;
        while ((c = idle.poll()) != null) {
            c.close();
        }
    }

    /** Retry-After is either delay-seconds or an HTTP date (RFC 9110); -1 when unreadable. */
    static long retryAfterMillis(String v) {
        String s = v.trim();
        try {
            return Math.max(0, Long.parseLong(s)) * 1000L;
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(s, DateTimeFormatter.RFC_1123_DATE_TIME);
                return Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis());
            } catch (RuntimeException notDate) {
                return -1;
            }
        }
    }

    /** The string value of a top-level key in a small JSON reply (HEC replies are flat), or null. */
    static String stringField(String json, String key) {
        if (json == null) {
            return null;
        }
        int k = json.indexOf("\"" + key + "\"");
        if (k < 0) {
            return null;
        }
        int q = json.indexOf('"', json.indexOf(':', k) + 1);
        if (q < 0) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (int i = q + 1; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\' && i + 1 < json.length()) {
                c = json.charAt(++i);
            }
            b.append(c);
        }
        return null;
    }

    /** The integer value of a top-level key in a small JSON reply, or {@code dflt}. */
    static long longField(String json, String key, long dflt) {
        if (json == null) {
            return dflt;
        }
        int k = json.indexOf("\"" + key + "\"");
        if (k < 0) {
            return dflt;
        }
        int i = json.indexOf(':', k) + 1;
        while (i < json.length() && json.charAt(i) == ' ') {
            i++;
        }
        int j = i;
        while (j < json.length() && (Character.isDigit(json.charAt(j)) || json.charAt(j) == '-')) {
            j++;
        }
        try {
            return Long.parseLong(json.substring(i, j));
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
