package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.RetryInfo;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The hand-encoded answers read back with the official generated classes (OTLP's and google.rpc's). */
class WireTest {
    @Test
    void exportResponses() throws Exception {
        assertThat(Wire.exportResponse(0, "")).isEmpty();
        ExportLogsServiceResponse logs = ExportLogsServiceResponse.parseFrom(Wire.exportResponse(3, "3 records dropped"));
        assertThat(logs.getPartialSuccess().getRejectedLogRecords()).isEqualTo(3);
        assertThat(logs.getPartialSuccess().getErrorMessage()).isEqualTo("3 records dropped");
        ExportMetricsServiceResponse metrics = ExportMetricsServiceResponse.parseFrom(
                Wire.exportResponse(1L << 40, "größer"));
        assertThat(metrics.getPartialSuccess().getRejectedDataPoints()).isEqualTo(1L << 40);
        assertThat(metrics.getPartialSuccess().getErrorMessage()).isEqualTo("größer");
    }

    @Test
    void exportResponsesInJson() {
        assertThat(new String(Wire.exportResponseJson(Signal.LOGS, 0, ""), StandardCharsets.UTF_8)).isEqualTo("{}");
        assertThat(new String(Wire.exportResponseJson(Signal.LOGS, 2, "a \"b\""), StandardCharsets.UTF_8))
                .isEqualTo("{\"partialSuccess\":{\"rejectedLogRecords\":\"2\",\"errorMessage\":\"a \\\"b\\\"\"}}");
        assertThat(new String(Wire.exportResponseJson(Signal.METRICS, 1, "x"), StandardCharsets.UTF_8))
                .isEqualTo("{\"partialSuccess\":{\"rejectedDataPoints\":\"1\",\"errorMessage\":\"x\"}}");
    }

    @Test
    void statusWithAndWithoutRetryInfo() throws Exception {
        com.google.rpc.Status s = com.google.rpc.Status.parseFrom(Wire.status(14, "busy", 2));
        assertThat(s.getCode()).isEqualTo(14);
        assertThat(s.getMessage()).isEqualTo("busy");
        assertThat(s.getDetails(0).unpack(RetryInfo.class).getRetryDelay().getSeconds()).isEqualTo(2);
        s = com.google.rpc.Status.parseFrom(Wire.status(3, "bad", 0));
        assertThat(s.getCode()).isEqualTo(3);
        assertThat(s.getDetailsCount()).isZero();
        assertThat(new String(Wire.statusJson(3, "bad\n"), StandardCharsets.UTF_8))
                .isEqualTo("{\"code\":3,\"message\":\"bad\\n\"}");
    }

    @Test
    void grpcMessageIsPercentEncoded() {
        assertThat(Wire.percentEncode("100% größer\n")).isEqualTo("100%25 gr%C3%B6%C3%9Fer%0A");
    }
}
