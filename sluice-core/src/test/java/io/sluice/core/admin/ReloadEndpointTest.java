package io.sluice.core.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.testing.PipelineHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code POST /api/reload}: answers with the outcome; a refused config is a 400 and counted on /metrics. */
@Timeout(60)
class ReloadEndpointTest {
    private static final String CONFIG = "Src:\n  Type: test.Numbers\n  Count: 1\n  KeepRunning: true\n  Streams: s\n"
            + "Out:\n  Type: test.Collect\n  Streams: s\n";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private HttpResponse<String> send(int port, String method, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/reload"))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String metrics(int port) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void answersWithTheOutcomeAndCountsIt() throws Exception {
        AtomicReference<String> next = new AtomicReference<>(CONFIG);
        try (PipelineHarness h = PipelineHarness.builder().yaml(CONFIG).start()) {
            AdminServer.Settings settings = new AdminServer.Settings();
            settings.port = 0;
            settings.reload = () -> h.reload(next.get());
            try (AdminServer admin = AdminServer.start(h.pipeline(), settings, null, PipelineHarness.quietLog())) {
                HttpResponse<String> same = send(admin.port(), "POST", null);
                assertThat(same.statusCode()).isEqualTo(200);
                assertThat(same.body()).contains("\"ok\":true", "\"changed\":false");

                next.set(CONFIG + "Copy:\n  Type: test.Collect\n  Streams: s\n");
                HttpResponse<String> added = send(admin.port(), "POST", null);
                assertThat(added.statusCode()).isEqualTo(200);
                assertThat(added.body()).contains("\"changed\":true", "\"added\":[\"Copy\"]");

                next.set(CONFIG.replace("test.Collect", "test.Nope"));
                HttpResponse<String> bad = send(admin.port(), "POST", null);
                assertThat(bad.statusCode()).isEqualTo(400);
                assertThat(bad.body()).contains("\"ok\":false", "test.Nope");
                assertThat(h.pipeline().plugins()).extracting(p -> p.id()).containsExactly("Src", "Out", "Copy");

                assertThat(send(admin.port(), "GET", null).statusCode()).isEqualTo(405);
                assertThat(metrics(admin.port())).contains("sluice_config_reloads_total{result=\"applied\"} 1",
                        "sluice_config_reloads_total{result=\"unchanged\"} 1",
                        "sluice_config_reloads_total{result=\"failed\"} 1",
                        "sluice_config_last_reload_successful 0");
            }
        }
    }

    @Test
    void needsTheTokenWhenOneIsSet() throws Exception {
        try (PipelineHarness h = PipelineHarness.builder().yaml(CONFIG).start()) {
            AdminServer.Settings settings = new AdminServer.Settings();
            settings.port = 0;
            settings.token = "t0ken";
            settings.reload = () -> h.reload(CONFIG);
            try (AdminServer admin = AdminServer.start(h.pipeline(), settings, null, PipelineHarness.quietLog())) {
                assertThat(send(admin.port(), "POST", null).statusCode()).isEqualTo(401);
                assertThat(h.pipeline().reloads().unchanged()).isZero();
                assertThat(send(admin.port(), "POST", "t0ken").statusCode()).isEqualTo(200);
                assertThat(h.pipeline().reloads().unchanged()).isEqualTo(1);
            }
        }
    }

    @Test
    void withoutAConfigFileThereIsNothingToReload() throws Exception {
        try (PipelineHarness h = PipelineHarness.builder().yaml(CONFIG).start()) {
            AdminServer.Settings settings = new AdminServer.Settings();
            settings.port = 0;
            try (AdminServer admin = AdminServer.start(h.pipeline(), settings, null, PipelineHarness.quietLog())) {
                assertThat(send(admin.port(), "POST", null).statusCode()).isEqualTo(409);
            }
        }
    }
}
