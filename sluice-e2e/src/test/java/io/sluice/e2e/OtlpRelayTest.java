package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.resources.Resource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OTLP across processes, every record counted: the OpenTelemetry Java SDK's OTLP/HTTP exporter sends numbered log
 * records to process A ({@code consumer.OTLP} on HTTP → {@code producer.OTLP} over gRPC, the defaults: gzip), which
 * sends them to process B ({@code consumer.OTLP} on gRPC → {@code producer.File}, the body as the line). Every
 * number arrives once, and what B wrote out as metadata shows the resource, scope and attributes made it through
 * both processes.
 */
@Timeout(120)
class OtlpRelayTest extends ProcessTest {
    private static final int RECORDS = 20_000;

    private static String receiver(int grpcPort, Path out, Path meta) {
        return "\"In\":\n"
                + "    Type: \"consumer.OTLP\"\n"
                + "    Address: \"127.0.0.1:" + grpcPort + "\"\n"
                + "    HTTPAddress: \"\"\n"
                + "    Streams: \"logs\"\n"
                + "\"Out\":\n"
                + "    Type: \"producer.File\"\n"
                + "    Streams: \"logs\"\n"
                + "    File: \"" + out + "\"\n"
                + "\"Fields\":\n"
                + "    Type: \"producer.File\"\n"
                + "    Streams: \"logs\"\n"
                + "    File: \"" + meta + "\"\n"
                + "    Modulators:\n"
                + "        - filter.Sample:\n"
                + "            SampleRatePerGroup: 1\n"
                + "            SampleGroupSize: 1000\n"
                + "        - format.ToJSON\n";
    }

    private static String relay(int httpPort, int grpcPort) {
        return "\"In\":\n"
                + "    Type: \"consumer.OTLP\"\n"
                + "    Address: \"\"\n"
                + "    HTTPAddress: \"127.0.0.1:" + httpPort + "\"\n"
                + "    Streams: \"logs\"\n"
                + "\"ToB\":\n"
                + "    Type: \"producer.OTLP\"\n"
                + "    Streams: \"logs\"\n"
                + "    Endpoint: \"127.0.0.1:" + grpcPort + "\"\n";
    }

    @Test
    void everyRecordCrossesBothProcessesOnceWithItsResourceAndAttributes() throws Exception {
        int grpcPort = E2e.freePort();
        Path out = dir.resolve("otlp-out.ndjson");
        Path meta = dir.resolve("otlp-fields.ndjson");
        SluiceProcess b = start("otlp-B", receiver(grpcPort, out, meta), grpcPort);
        int httpPort = E2e.freePort();
        SluiceProcess a = start("otlp-A", relay(httpPort, grpcPort), httpPort);

        OtlpHttpLogRecordExporter exporter = OtlpHttpLogRecordExporter.builder()
                .setEndpoint("http://127.0.0.1:" + httpPort + "/v1/logs").setCompression("gzip").build();
        SdkLoggerProvider provider = SdkLoggerProvider.builder()
                .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "e2e-otlp",
                        AttributeKey.stringKey("host.name"), "relay-host")))
                .addLogRecordProcessor(BatchLogRecordProcessor.builder(exporter).setMaxQueueSize(RECORDS)
                        .setMaxExportBatchSize(1000).setScheduleDelay(Duration.ofMillis(50)).build())
                .build();
        Logger logger = provider.get("io.sluice.e2e.otlp");
        String pad = "x".repeat(60);
        for (int i = 0; i < RECORDS; i++) {
            logger.logRecordBuilder().setSeverity(Severity.INFO).setSeverityText("INFO")
                    .setBody("{\"n\":" + i + ",\"s\":\"o\",\"p\":\"" + pad + "\"}")
                    .setAttribute(AttributeKey.longKey("seq"), (long) i)
                    .setAttribute(AttributeKey.stringKey("user.id"), "u" + (i % 97))
                    .emit();
        }
        assertThat(provider.forceFlush().join(60, TimeUnit.SECONDS).isSuccess()).as("the SDK exported all").isTrue();
        provider.shutdown().join(10, TimeUnit.SECONDS);

        Ledger ledger = new Ledger(out);
        Await.until("every record in B's file", 60, () -> ledger.refresh().hasAll('o', RECORDS));
        assertThat(a.metric("sluice_messages_out_total", "ToB")).as("delivered by A").isEqualTo(RECORDS);
        assertThat(a.stop()).isZero();
        assertThat(b.stop()).isZero();
        ledger.refresh();
        System.out.printf("otlp relay: %s%n", ledger);
        assertThat(ledger.unparsable()).isZero();
        assertThat(ledger.distinct('o')).isEqualTo(RECORDS);
        assertThat(ledger.duplicates()).as("records written twice").isZero();
        assertThat(ledger.lines()).isEqualTo(RECORDS);

        String fields = Files.readString(meta);
        assertThat(fields).contains("\"resource.service.name\":\"e2e-otlp\"", "\"resource.host.name\":\"relay-host\"",
                "\"scope.name\":\"io.sluice.e2e.otlp\"", "\"otlp.severity_text\":\"INFO\"", "\"otlp.severity_number\":9",
                "\"user.id\":\"u", "\"seq\":");
    }
}
