package io.sluice.hec.producer;

import io.sluice.core.net.http.HttpClient;
import io.sluice.core.tls.TlsSettings;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The HTTP side of {@code producer.SplunkHEC}: its endpoint, token and channel on core's {@link HttpClient} (keep-alive
 * sockets, TLS when the endpoint is https). The endpoint is the collector's base URL; a trailing
 * {@code /services/collector} is taken off, as the paths posted to start with it.
 */
final class HecHttp implements HecTransport {
    /** Longest answer body kept: HEC's answers are small JSON objects. */
    private static final int MAX_ANSWER = 64 * 1024;

    private final HttpClient client;

    HecHttp(String endpoint, String token, String channel, Duration timeout, TlsSettings tlsSettings) {
        URI u = URI.create(endpoint);
        boolean tls = "https".equalsIgnoreCase(u.getScheme());
        if (!tls && !"http".equalsIgnoreCase(u.getScheme())) {
            throw new IllegalArgumentException("Endpoint must be http:// or https://, got " + endpoint);
        }
        if (tls && !tlsSettings.enabled()) {
            throw new IllegalArgumentException("https endpoint without TLS settings");
        }
        String p = u.getRawPath() == null ? "" : u.getRawPath();
        p = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
        if (p.endsWith("/services/collector")) {
            p = p.substring(0, p.length() - "/services/collector".length());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Splunk " + token);
        headers.put("X-Splunk-Request-Channel", channel);
        int port = u.getPort() > 0 ? u.getPort() : tls ? 443 : 80;
        client = new HttpClient(u.getHost(), port, p, tls ? tlsSettings : null, "application/json", headers,
                (int) timeout.toMillis(), MAX_ANSWER);
    }

    @Override
    public HecResponse post(String pathAndQuery, byte[] body, int off, int len, boolean gzip) throws IOException {
        return answer(client.post(pathAndQuery, body, off, len, gzip));
    }

    @Override
    public HecResponse get(String path) throws IOException {
        return answer(client.get(path));
    }

    private static HecResponse answer(HttpClient.Response r) {
        return new HecResponse(r.status(), r.text(), r.retryAfterMillis());
    }

    /** Closes the idle connections. */
    void close() {
        client.close();
    }

    /** Where the value of a top-level key starts in a small JSON reply (after its colon), or -1 without the key. */
    private static int valueAt(String json, String key) {
        int k = json == null ? -1 : json.indexOf("\"" + key + "\"");
        return k < 0 ? -1 : json.indexOf(':', k) + 1;
    }

    /** The string value of a top-level key in a small JSON reply (HEC replies are flat), or null. */
    static String stringField(String json, String key) {
        int v = valueAt(json, key);
        int q = v < 0 ? -1 : json.indexOf('"', v);
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
        int i = valueAt(json, key);
        if (i < 0) {
            return dflt;
        }
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
