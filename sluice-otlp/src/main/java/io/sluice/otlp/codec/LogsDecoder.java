package io.sluice.otlp.codec;

/**
 * Decodes a protobuf {@code ExportLogsServiceRequest} (opentelemetry-proto collector/logs/v1) into one message
 * per log record, as {@link io.sluice.core.message.OtlpFields} describes: the body as payload, the record's time
 * as timestamp, the resource's, scope's and record's fields and attributes as metadata.
 *
 * <p>Allocation-free per record once its buffers have grown to the working size: the resource and scope fields
 * are encoded once per group and copied into each record's metadata as bytes; a record's own fields are
 * gathered in a reused block and copied in with one more array copy. The common attribute (a short key and one
 * scalar or short string) is read straight from the bytes, its key compared with the key at the same position of
 * the record before ({@link KeyHashCache}: equal bytes need no UTF-8 check and no hashing). Malformed input (broken framing, a known
 * field with the wrong wire type, invalid UTF-8, values nested deeper than {@code maxDepth}) ends decoding with
 * an {@link OtlpFormatException}; the messages already handed out are complete records (a record is read whole
 * before its message is asked for), and the caller discards them. Not thread-safe: one per thread.
 */
public final class LogsDecoder extends ProtoEnvelope {
    /** How deep arrays and key-value lists may nest unless a decoder is told otherwise. */
    public static final int DEFAULT_MAX_DEPTH = 64;

    /** A decoder accepting values nested {@link #DEFAULT_MAX_DEPTH} levels deep. */
    public LogsDecoder() {
        this(DEFAULT_MAX_DEPTH);
    }

    /** A decoder rejecting values (arrays, key-value lists) nested deeper than {@code maxDepth} (1 to 64) levels. */
    public LogsDecoder(int maxDepth) {
        super(maxDepth, Keys.LOG);
    }

    /**
     * Counts the log records of a request without decoding them (a cheap pass over the framing, for a server
     * that reserves memory before it decodes). A request it counts may still fail {@link #decode}.
     */
    public static int countRecords(byte[] buf, int off, int len) throws OtlpFormatException {
        return ProtoEnvelope.countItems(buf, off, len, record -> 1);
    }

    private final LogRecordFields record = new LogRecordFields();

    @Override
    int item(RecordSink sink) throws OtlpFormatException {
        ProtoReader in = this.in;
        LogRecordFields r = this.record;
        r.reset();
        byte[] b = in.buffer();
        r.severityText = b;
        r.eventName = b;
        r.ids = b;
        int bodyOff = 0;
        int bodyLen = -1;
        while (in.hasMore()) {
            int t = in.readTag();
            switch (ProtoReader.field(t)) {
                case 1 -> r.time = in.fixed64(t);
                case 2 -> {
                    in.expect(t, ProtoReader.VARINT);
                    r.severity = (int) in.readVarint(); // an enum is an int32
                }
                case 3 -> {
                    r.severityTextOff = values.readString(t);
                    r.severityTextLen = values.lastLength;
                }
                case 5 -> {
                    in.expect(t, ProtoReader.LEN);
                    bodyLen = in.readLength();
                    bodyOff = in.position();
                    in.skipBytes(bodyLen);
                }
                case 6 -> values.attribute(t, r.fields, Keys.EMPTY);
                case 7 -> r.dropped = in.uint32(t);
                case 8 -> {
                    in.expect(t, ProtoReader.I32);
                    r.flags = in.readFixed32() & 0xFFFFFFFFL;
                }
                case 9 -> {
                    r.traceOff = values.readBytes(t);
                    r.traceLen = in.idLength(values.lastLength, 16, "trace_id");
                }
                case 10 -> {
                    r.spanOff = values.readBytes(t);
                    r.spanLen = in.idLength(values.lastLength, 8, "span_id");
                }
                case 11 -> r.observed = in.fixed64(t);
                case 12 -> {
                    r.eventNameOff = values.readString(t);
                    r.eventNameLen = values.lastLength;
                }
                default -> in.skip(t);
            }
        }
        int type = bodyLen < 0 ? 0 : values.body(bodyOff, bodyLen);
        r.bodyType = type;
        switch (type) {
            case 0 -> { }
            case ProtoValues.STRING -> {
                r.body = b;
                r.bodyOff = values.valueOff();
                r.bodyLen = values.valueLen();
            }
            case ProtoValues.BYTES -> { // the base64 text, without the quotes the JSON writer put around it
                r.body = values.json().buffer();
                r.bodyOff = 1;
                r.bodyLen = values.json().length() - 2;
            }
            default -> {
                r.body = values.json().buffer();
                r.bodyOff = 0;
                r.bodyLen = values.json().length();
            }
        }
        r.emit(sink.next(), prefixFields);
        return 1;
    }
}
