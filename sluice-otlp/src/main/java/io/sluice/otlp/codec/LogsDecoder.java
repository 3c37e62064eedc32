package io.sluice.otlp.codec;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * Decodes a protobuf {@code ExportLogsServiceRequest} (opentelemetry-proto collector/logs/v1) into one message
 * per log record, as {@link io.sluice.core.message.OtlpFields} describes: the body as payload, the record's time
 * as timestamp, the resource's, scope's and record's fields and attributes as metadata.
 *
 * <p>Allocation-free per record once its buffers have grown to the working size: the resource and scope fields
 * are encoded once per group and copied into each record's metadata as bytes; a record's own fields are
 * gathered in a reused block and copied in with one more array copy. Malformed input (broken framing, a known
 * field with the wrong wire type, invalid UTF-8, values nested deeper than {@code maxDepth}) ends decoding with
 * an {@link OtlpFormatException}; the messages already handed out are complete records (a record is read whole
 * before its message is asked for), and the caller discards them. Not thread-safe: one per thread.
 */
public final class LogsDecoder {
    /** How deep arrays and key-value lists may nest unless a decoder is told otherwise. */
    public static final int DEFAULT_MAX_DEPTH = 64;

    private final Envelope envelope;

    /** A decoder accepting values nested {@link #DEFAULT_MAX_DEPTH} levels deep. */
    public LogsDecoder() {
        this(DEFAULT_MAX_DEPTH);
    }

    /** A decoder rejecting values (arrays, key-value lists) nested deeper than {@code maxDepth} (1 to 64) levels. */
    public LogsDecoder(int maxDepth) {
        envelope = new Envelope(maxDepth);
    }

    /**
     * Decodes the request in {@code buf[off, off+len)}, filling one message from {@code sink} per log record.
     *
     * @return the number of records decoded
     * @throws OtlpFormatException if the request is malformed; messages already filled hold whole records
     */
    public int decode(byte[] buf, int off, int len, RecordSink sink) throws OtlpFormatException {
        return envelope.decodeRequest(buf, off, len, sink);
    }

    /**
     * Counts the log records of a request without decoding them (a cheap pass over the framing, for a server
     * that reserves memory before it decodes). A request it counts may still fail {@link #decode}.
     */
    public static int countRecords(byte[] buf, int off, int len) throws OtlpFormatException {
        return ProtoEnvelope.countItems(buf, off, len);
    }

    /** The envelope walker with the LogRecord as its item. */
    private static final class Envelope extends ProtoEnvelope {
        private final FieldBlock record = new FieldBlock();

        Envelope(int maxDepth) {
            super(maxDepth, Keys.LOG);
        }

        @Override
        int item(RecordSink sink) throws OtlpFormatException {
            ProtoReader in = this.in;
            FieldBlock record = this.record;
            record.clear();
            long time = 0;
            long observed = 0;
            long severity = 0;
            long dropped = 0;
            long flags = 0;
            int textOff = 0;
            int textLen = 0;
            int bodyOff = 0;
            int bodyLen = -1;
            int traceOff = 0;
            int traceLen = 0;
            int spanOff = 0;
            int spanLen = 0;
            int eventOff = 0;
            int eventLen = 0;
            while (in.hasMore()) {
                int t = in.readTag();
                switch (ProtoReader.field(t)) {
                    case 1 -> time = fixed64(t);
                    case 2 -> {
                        in.expect(t, ProtoReader.VARINT);
                        severity = (int) in.readVarint(); // an enum is an int32
                    }
                    case 3 -> {
                        textOff = values.readString(t);
                        textLen = values.lastLength;
                    }
                    case 5 -> {
                        in.expect(t, ProtoReader.LEN);
                        bodyLen = in.readLength();
                        bodyOff = in.position();
                        in.skipBytes(bodyLen);
                    }
                    case 6 -> values.attribute(t, record, Keys.EMPTY);
                    case 7 -> dropped = uint32(t);
                    case 8 -> {
                        in.expect(t, ProtoReader.I32);
                        flags = in.readFixed32() & 0xFFFFFFFFL;
                    }
                    case 9 -> {
                        traceOff = values.readBytes(t);
                        traceLen = id(values.lastLength, 16, "trace_id");
                    }
                    case 10 -> {
                        spanOff = values.readBytes(t);
                        spanLen = id(values.lastLength, 8, "span_id");
                    }
                    case 11 -> observed = fixed64(t);
                    case 12 -> {
                        eventOff = values.readString(t);
                        eventLen = values.lastLength;
                    }
                    default -> in.skip(t);
                }
            }
            byte[] b = in.buffer();
            if (severity != 0) {
                record.key(Keys.SEVERITY_NUMBER).signed(severity);
            }
            if (textLen > 0) {
                record.key(Keys.SEVERITY_TEXT).string(b, textOff, textLen);
            }
            if (traceLen > 0 && !ValueText.allZero(b, traceOff, traceLen)) {
                record.key(Keys.TRACE_ID).hex(b, traceOff, traceLen);
            }
            if (spanLen > 0 && !ValueText.allZero(b, spanOff, spanLen)) {
                record.key(Keys.SPAN_ID).hex(b, spanOff, spanLen);
            }
            if (flags != 0) {
                record.key(Keys.FLAGS).signed(flags);
            }
            if (eventLen > 0) {
                record.key(Keys.EVENT_NAME).string(b, eventOff, eventLen);
            }
            if (observed != 0) {
                record.key(Keys.OBSERVED_TIME).unsigned(observed);
            }
            if (dropped != 0) {
                record.key(Keys.DROPPED_ATTRIBUTES).signed(dropped);
            }
            int bodyType = bodyLen < 0 ? 0 : values.body(bodyOff, bodyLen);
            if (bodyType != ProtoValues.STRING) {
                byte[] type = Keys.BODY_TYPES[bodyType];
                record.key(Keys.BODY_TYPE).string(type, 0, type.length);
            }

            Message m = sink.next();
            m.setTimestamp(time);
            Metadata md = m.metadata();
            prefix.copyTo(md);
            record.copyTo(md);
            switch (bodyType) {
                case ProtoValues.STRING -> m.setPayload(b, values.valueOff(), values.valueLen());
                case 0 -> m.setLength(0);
                case ProtoValues.BYTES -> m.setPayload(values.json().buffer(), 1, values.json().length() - 2);
                default -> m.setPayload(values.json().buffer(), 0, values.json().length());
            }
            return 1;
        }

        private long fixed64(int tag) throws OtlpFormatException {
            in.expect(tag, ProtoReader.I64);
            return in.readFixed64();
        }

        /** An id must be empty (not set) or have its size, as the Collector requires. */
        private int id(int len, int size, String name) throws OtlpFormatException {
            if (len != 0 && len != size) {
                throw in.error(name + " of " + len + " bytes (expected " + size + ")");
            }
            return len;
        }
    }
}
