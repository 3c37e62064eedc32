package io.sluice.core.net.http;

import io.sluice.core.net.Connect;
import io.sluice.core.tls.TlsSettings;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.GZIPInputStream;

/**
 * The HTTP/1.1 client of the producers that post to a server (producer.SplunkHEC, producer.OTLP's
 * {@code http/protobuf}): a pool of keep-alive sockets, TLS from the TLS/* group when the endpoint is https.
 *
 * <p>A request is one write of its header bytes (the fixed ones prepared once) and one of the body straight from the
 * caller's buffer; the answer is read into a reused buffer. Blocking sockets rather than Netty: the producer's own
 * thread sends and waits anyway, and a Netty client cost 1.10–1.36× the time per HEC request (two hand-offs to its
 * event loop and back, and header encoding); the JDK's HttpClient copies bodies and hops threads per request, several
 * times slower still (BENCHMARKS.md). Allocation is per request, never per event. Thread-safe: each request takes a
 * connection of its own from the pool.
 */
public final class HttpClient implements AutoCloseable {
    /**
     * One answer: status, the body (its first {@code maxBody} bytes, inflated when gzip-encoded), {@code Content-Type}
     * (or "") and {@code Retry-After} in milliseconds from now (-1 when absent or unreadable).
     */
    public record Response(int status, byte[] body, String contentType, long retryAfterMillis) {
        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final String host;
    private final int port;
    private final String hostHeader;
    private final String basePath;
    private final String contentType;
    private final byte[] fixedHeaders;
    private final int timeoutMillis;
    private final int maxBody;
    /** The TLS/* group when the endpoint is https, else null. */
    private final TlsSettings tls;
    private final ConcurrentLinkedQueue<Conn> idle = new ConcurrentLinkedQueue<>();

    /**
     * A client of {@code host:port} whose requests go to {@code basePath} + their path, with a body of
     * {@code contentType} and {@code headers} on every request; {@code tls} null for plain HTTP. A request waits
     * at most {@code timeoutMillis} for the connection and for each read of the answer.
     */
    public HttpClient(String host, int port, String basePath, TlsSettings tls, String contentType,
                      Map<String, String> headers, int timeoutMillis, int maxBody) {
        this.host = host.startsWith("[") ? host.substring(1, host.length() - 1) : host; // an IPv6 literal
        this.port = port;
        this.hostHeader = (this.host.indexOf(':') >= 0 ? "[" + this.host + "]" : this.host) + ":" + port;
        this.basePath = basePath.endsWith("/") ? basePath.substring(0, basePath.length() - 1) : basePath;
        this.tls = tls;
        this.contentType = contentType;
        StringBuilder h = new StringBuilder();
        headers.forEach((k, v) -> h.append(k).append(": ").append(v).append("\r\n"));
        this.fixedHeaders = h.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
        this.timeoutMillis = timeoutMillis;
        this.maxBody = maxBody;
    }

    /** One keep-alive connection with its reused read buffer. */
    private final class Conn {
        final Socket socket;
        final OutputStream out;
        final InputStream in;
        final byte[] buf = new byte[8192];
        boolean reusable;

        Conn() throws IOException {
            socket = Connect.blocking(host, port, tls, timeoutMillis, 0);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 8192);
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a broken connection: nothing left to do
            }
        }
    }

    /** Posts {@code body[off, off+len)} (gzip-compressed when {@code gzip}) to the base path + {@code path}. */
    public Response post(String path, byte[] body, int off, int len, boolean gzip) throws IOException {
        return exchange("POST", path, body, off, len, gzip);
    }

    /** A GET of the base path + {@code path}. */
    public Response get(String path) throws IOException {
        return exchange("GET", path, null, 0, 0, false);
    }

    private Response exchange(String method, String path, byte[] body, int off, int len, boolean gzip)
            throws IOException {
        StringBuilder h = new StringBuilder(160).append(method).append(' ').append(basePath).append(path)
                .append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
        if (body != null) {
            h.append("Content-Type: ").append(contentType).append("\r\nContent-Length: ").append(len).append("\r\n");
            if (gzip) {
                h.append("Content-Encoding: gzip\r\n");
            }
        }
        byte[] head = h.toString().getBytes(StandardCharsets.UTF_8);
        // A pooled connection may have been closed by the server while idle: the request goes once more on a new
        // one. Not after a timeout: the server may have taken that request, and the caller's backoff decides.
        for (int attempt = 0; ; attempt++) {
            Conn c = idle.poll();
            boolean reused = c != null;
            if (c == null) {
                c = new Conn();
            }
            try {
                c.out.write(head);
                c.out.write(fixedHeaders);
                if (body != null) {
                    c.out.write(body, off, len);
                }
                c.out.flush();
                Response r = readResponse(c);
                if (c.reusable) {
                    idle.offer(c);
                } else {
                    c.close(); // "Connection: close" or read to the end: not reusable
                }
                return r;
            } catch (SocketTimeoutException e) {
                c.close();
                throw new SocketTimeoutException("no answer from " + hostHeader + " within " + timeoutMillis + " ms");
            } catch (IOException e) {
                c.close();
                if (!reused || attempt > 0) {
                    throw e;
                }
            }
        }
    }

    /** Reads status, headers and body; marks the connection reusable unless the server closes it. */
    private Response readResponse(Conn c) throws IOException {
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
        boolean gzipped = false;
        long retryAfter = -1;
        String type = "";
        String l;
        while ((l = line(c)) != null && !l.isEmpty()) {
            int colon = l.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String value = l.substring(colon + 1).trim();
            switch (l.substring(0, colon).trim().toLowerCase(Locale.ROOT)) {
                case "content-length" -> contentLength = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase().contains("chunked");
                case "connection" -> close = value.equalsIgnoreCase("close");
                case "retry-after" -> retryAfter = retryAfterMillis(value);
                case "content-type" -> type = value;
                case "content-encoding" -> gzipped = value.equalsIgnoreCase("gzip");
                default -> { }
            }
        }
        Body body = new Body(maxBody);
        if (chunked) {
            readChunks(c, body);
        } else if (contentLength >= 0) {
            readBody(c, contentLength, body);
        } else if (code != 204 && code != 304) {
            readBody(c, Long.MAX_VALUE, body); // until close
            close = true;
        }
        c.reusable = !close;
        return new Response(code, gzipped ? inflate(body.bytes(), maxBody) : body.bytes(), type, retryAfter);
    }

    private static void readChunks(Conn c, Body body) throws IOException {
        while (true) {
            String size = line(c);
            if (size == null) {
                throw new IOException("connection closed in a chunked answer");
            }
            int semi = size.indexOf(';');
            long n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
            if (n == 0) {
                String l;
                while ((l = line(c)) != null && !l.isEmpty()) {
                    // trailers
                }
                return;
            }
            readBody(c, n, body);
            line(c);
        }
    }

    /** The answer's body as far as it is kept: at most a limit, the rest read and dropped. */
    private static final class Body {
        final int max;
        byte[] bytes = new byte[0];
        int len;

        Body(int max) {
            this.max = max;
        }

        void add(byte[] b, int n) {
            int keep = Math.min(n, max - len);
            if (keep > 0) {
                if (len + keep > bytes.length) {
                    bytes = Arrays.copyOf(bytes, Math.min(max, Math.max(len + keep, bytes.length * 2)));
                }
                System.arraycopy(b, 0, bytes, len, keep);
                len += keep;
            }
        }

        byte[] bytes() {
            return len == bytes.length ? bytes : Arrays.copyOf(bytes, len);
        }
    }

    /** Reads n bytes (or to the end of the stream when n is Long.MAX_VALUE) into {@code body}. */
    private static void readBody(Conn c, long n, Body body) throws IOException {
        long left = n;
        while (left > 0) {
            int r = c.in.read(c.buf, 0, (int) Math.min(c.buf.length, left));
            if (r < 0) {
                if (n == Long.MAX_VALUE) {
                    return;
                }
                throw new IOException("connection closed in an answer");
            }
            body.add(c.buf, r);
            left -= r;
        }
    }

    /** A gzip-encoded answer's body inflated, up to {@code max} bytes. */
    private static byte[] inflate(byte[] gz, int max) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            return in.readNBytes(max);
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
    @Override
    public void close() {
        Conn c;
        while ((c = idle.poll()) != null) {
            c.close();
        }
    }

    /** Retry-After as delay-seconds or an HTTP-date (RFC 9110), in milliseconds from now; -1 when unreadable. */
    public static long retryAfterMillis(String value) {
        if (value == null || value.isBlank()) {
            return -1;
        }
        String v = value.trim();
        try {
            return Math.max(0, Long.parseLong(v)) * 1000L;
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
                return Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis());
            } catch (RuntimeException notDate) {
                return -1;
            }
        }
    }
}
