package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;

/**
 * Decodes an OTLP/JSON {@code ExportLogsServiceRequest} (what OTLP/HTTP carries as {@code application/json}) into
 * the same messages {@link LogsDecoder} makes of the protobuf: one per log record, per
 * {@link io.sluice.core.message.OtlpFields}.
 *
 * <p>OTLP JSON is protobuf's JSON mapping with OTLP's exceptions: field names in lowerCamelCase (the .proto's
 * snake_case names are taken too, as protobuf's parsers take them), trace and span ids in hex rather than base64,
 * enums as integers, 64-bit integers as strings or numbers, bytes in base64; unknown fields are ignored and null
 * stands for an absent field. Not the hot path (protobuf is what SDKs send by default): it re-scans each nesting
 * level, and parses doubles and base64 through Strings. Not thread-safe: one per thread.
 */
public final class JsonLogsDecoder extends JsonEnvelope {
    private static final byte[] OBSERVED = Keys.b("observedTimeUnixNano");
    private static final byte[] OBSERVED_SNAKE = Keys.b("observed_time_unix_nano");
    private static final byte[] SEVERITY = Keys.b("severityNumber");
    private static final byte[] SEVERITY_SNAKE = Keys.b("severity_number");
    private static final byte[] SEVERITY_TEXT = Keys.b("severityText");
    private static final byte[] SEVERITY_TEXT_SNAKE = Keys.b("severity_text");
    private static final byte[] BODY = Keys.b("body");
    private static final byte[] EVENT_NAME = Keys.b("eventName");
    private static final byte[] EVENT_NAME_SNAKE = Keys.b("event_name");

    /** SeverityNumber's names, by value: SEVERITY_NUMBER_UNSPECIFIED, SEVERITY_NUMBER_TRACE, ..._TRACE2, ... */
    private static final byte[][] SEVERITY_NAMES = new byte[25][];

    static {
        SEVERITY_NAMES[0] = Keys.b("SEVERITY_NUMBER_UNSPECIFIED");
        String[] levels = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
        for (int v = 1; v < SEVERITY_NAMES.length; v++) {
            int k = (v - 1) % 4;
            SEVERITY_NAMES[v] = Keys.b("SEVERITY_NUMBER_" + levels[(v - 1) / 4] + (k == 0 ? "" : k + 1));
        }
    }

    /** A decoder accepting values nested {@link LogsDecoder#DEFAULT_MAX_DEPTH} levels deep. */
    public JsonLogsDecoder() {
        super(Keys.LOG, "resourceLogs", "scopeLogs", "logRecords");
    }

    /**
     * Counts the log records of a JSON request without decoding them: validates the JSON and walks to the records.
     */
    public static int countRecords(byte[] buf, int off, int len) throws OtlpFormatException {
        return JsonCount.items(buf, off, len, "resourceLogs", "scopeLogs", "logRecords", null);
    }

    private final LogRecordFields record = new LogRecordFields();
    private byte[] severityText = new byte[32];
    private byte[] eventName = new byte[32];
    private byte[] body = new byte[256];
    private final byte[] ids = new byte[24];

    @Override
    int item(JsonFields items, int i, RecordSink sink) throws OtlpFormatException {
        JsonFields rec = doc.object(items, i, ITEM_LEVEL);
        LogRecordFields r = record;
        r.reset();
        JsonFields attrs = doc.arrayOrEmpty(rec, ATTRIBUTES, null, ITEM_LEVEL + 1);
        for (int k = 0; k < attrs.size(); k++) {
            values.attribute(attrs, k, ITEM_LEVEL + 2, r.fields, Keys.EMPTY);
        }
        r.time = uint64(rec, Keys.J_TIME_UNIX_NANO, TIME_SNAKE);
        r.observed = uint64(rec, OBSERVED, OBSERVED_SNAKE);
        int s = doc.find(rec, SEVERITY, SEVERITY_SNAKE);
        r.severity = s < 0 ? 0 : doc.enumValue(rec, s, SEVERITY_NAMES);
        severityText = copy(rec, SEVERITY_TEXT, SEVERITY_TEXT_SNAKE, severityText);
        r.severityText = severityText;
        r.severityTextLen = copied;
        eventName = copy(rec, EVENT_NAME, EVENT_NAME_SNAKE, eventName);
        r.eventName = eventName;
        r.eventNameLen = copied;
        r.flags = uint32(rec, FLAGS, null);
        r.dropped = uint32(rec, DROPPED, DROPPED_SNAKE);
        r.ids = ids;
        int t = doc.find(rec, Keys.J_TRACE_ID, TRACE_ID_SNAKE);
        r.traceOff = 0;
        r.traceLen = t < 0 ? 0 : doc.hexId(rec, t, ids, 0, 16, "traceId");
        int sp = doc.find(rec, Keys.J_SPAN_ID, SPAN_ID_SNAKE);
        r.spanOff = 16;
        r.spanLen = sp < 0 ? 0 : doc.hexId(rec, sp, ids, 16, 8, "spanId");
        int b = doc.find(rec, BODY, null);
        if (b >= 0) {
            body = values.body(rec, b, ITEM_LEVEL + 1, r, body);
        }
        r.emit(sink.next(), prefixFields);
        return 1;
    }
}
