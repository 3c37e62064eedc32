package io.sluice.otlp.consumer;

import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import java.nio.charset.StandardCharsets;

/** Export requests built with the official generated classes, and their OTLP JSON form. */
final class Requests {
    private Requests() {
    }

    /** An ExportLogsServiceRequest of {@code n} string-body records ("line 0", "line 1", ...). */
    static ExportLogsServiceRequest logs(int n) {
        ScopeLogs.Builder scope = ScopeLogs.newBuilder();
        for (int i = 0; i < n; i++) {
            scope.addLogRecords(LogRecord.newBuilder().setTimeUnixNano(1_700_000_000_000_000_000L + i)
                    .setSeverityNumberValue(9).setBody(AnyValue.newBuilder().setStringValue("line " + i))
                    .addAttributes(KeyValue.newBuilder().setKey("i").setValue(AnyValue.newBuilder().setIntValue(i))));
        }
        return ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder()
                .setResource(Resource.newBuilder().addAttributes(KeyValue.newBuilder().setKey("service.name")
                        .setValue(AnyValue.newBuilder().setStringValue("curl"))))
                .addScopeLogs(scope)).build();
    }

    static byte[] logsBytes(int n) {
        return logs(n).toByteArray();
    }

    /** The same request in OTLP JSON (camelCase names, int64 as strings, enums as numbers). */
    static byte[] logsJson(int n) {
        StringBuilder b = new StringBuilder("{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\","
                + "\"value\":{\"stringValue\":\"curl\"}}]},\"scopeLogs\":[{\"logRecords\":[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"timeUnixNano\":\"").append(1_700_000_000_000_000_000L + i)
                    .append("\",\"severityNumber\":9,\"body\":{\"stringValue\":\"line ").append(i)
                    .append("\"},\"attributes\":[{\"key\":\"i\",\"value\":{\"intValue\":\"").append(i).append("\"}}]}");
        }
        return b.append("]}]}]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code b} with an unknown field appended: field 99 (varint 1) at the top of the request. */
    static byte[] withUnknownField(byte[] b) {
        byte[] out = java.util.Arrays.copyOf(b, b.length + 3);
        out[b.length] = (byte) 0x98; // field 99, wire type 0: (99 << 3) = 792 = 0x98 0x06
        out[b.length + 1] = 0x06;
        out[b.length + 2] = 0x01;
        return out;
    }
}
