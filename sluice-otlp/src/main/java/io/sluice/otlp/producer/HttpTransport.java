package io.sluice.otlp.producer;

import io.sluice.core.net.http.HttpClient;
import io.sluice.core.tls.TlsSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * OTLP/HTTP with binary protobuf: {@code POST <base>/v1/logs} (or {@code /v1/metrics}) on core's {@link HttpClient}
 * (keep-alive connections; one closed by the server while idle is replaced at once). 2xx is accepted (its body may
 * report a partial success); 429, 502, 503 and 504 are retryable, after {@code Retry-After} when given; any other
 * status is permanent, as the OTLP specification says.
 */
final class HttpTransport implements Transport {
    /** Longest response body read (an error's google.rpc.Status, a partial success). */
    private static final int MAX_RESPONSE = 4 * 1024 * 1024;

    private final HttpClient client;

    HttpTransport(String host, int port, String basePath, TlsSettings tls, Map<String, String> headers,
                  long timeoutMillis) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("User-Agent", "sluice-otlp");
        all.putAll(headers);
        client = new HttpClient(host, port, basePath, tls, "application/x-protobuf", all, (int) timeoutMillis,
                MAX_RESPONSE);
    }

    /** Whether an answer with this HTTP status may be retried (OTLP/HTTP: 429, 502, 503, 504). */
    static boolean retryable(int status) {
        return status == 429 || status == 502 || status == 503 || status == 504;
    }

    @Override
    public Reply export(Signal signal, byte[] body, int off, int len, boolean gzip) throws IOException {
        HttpClient.Response r = client.post(signal.httpPath, body, off, len, gzip);
        int status = r.status();
        if (status >= 200 && status < 300) {
            // The response is an Export*ServiceResponse in the request's encoding; one in another (JSON, from a
            // server that answers so anyway) carries no partial success we could read, so it counts as plain success.
            return Reply.ok(r.contentType().isEmpty() || r.contentType().contains("protobuf") ? r.body() : new byte[0]);
        }
        return Reply.failed(retryable(status), r.retryAfterMillis(), "HTTP " + status + errorText(r));
    }

    /** The error's text: an OTLP server's google.rpc.Status message, or the start of any other body. */
    private static String errorText(HttpClient.Response r) {
        byte[] body = r.body();
        if (body.length == 0) {
            return "";
        }
        String text = r.contentType().contains("protobuf") ? Responses.statusMessage(body)
                : new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
        return text.isEmpty() ? "" : ": " + text.strip();
    }

    @Override
    public void close() {
        client.close();
    }
}
