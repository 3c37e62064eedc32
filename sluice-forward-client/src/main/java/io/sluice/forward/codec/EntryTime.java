package io.sluice.forward.codec;

/**
 * The time slot of a Forward entry, read in place: EventTime (fixext8 or ext8, type 0, 8 bytes), integer or float
 * seconds, or the v1.5 form {@code [time, {metadata}]} that Fluent Bit sends, whose metadata map is located (not
 * decoded) for the {@link RecordView}. Reused by its {@link ForwardDecoder} for every entry; not thread-safe.
 */
final class EntryTime {
    /** Seconds since the epoch of the entry read last. */
    long seconds;
    /** Nanoseconds within the second. */
    int nanos;
    /** Where the v1.5 metadata map starts in the reader's array, or -1 without one. */
    int metaOffset;
    /** The metadata map's length in bytes (0 without one). */
    int metaLength;

    /** Reads any accepted time form into {@code seconds}, {@code nanos} and the metadata fields. */
    void read(MsgPackReader in, boolean allowMetadata) throws ForwardProtocolException {
        metaOffset = -1;
        metaLength = 0;
        int b = in.peek();
        switch (ValueType.of(b)) {
            case EXTENSION -> readEventTime(in);
            case INTEGER -> {
                seconds = in.readLong();
                nanos = 0;
            }
            case FLOAT -> readFloatTime(in.readDouble());
            case ARRAY -> {
                if (!allowMetadata) {
                    throw in.error("time must be EventTime, integer or float, found a nested array");
                }
                readTimeWithMetadata(in);
            }
            default -> throw in.error("time must be EventTime, integer or float, found "
                    + ValueType.describe(b));
        }
    }

    private void readEventTime(MsgPackReader in) throws ForwardProtocolException {
        long at = in.offset();
        long header = in.readExtHeader();
        int type = (int) (header >> 32);
        int len = (int) header;
        if (type != EventTime.EXT_TYPE || len != 8) {
            throw new ForwardProtocolException(at, "time ext must be type 0 with 8 bytes, found type "
                    + type + " with " + len);
        }
        seconds = in.readUint32Raw();
        long ns = in.readUint32Raw();
        if (ns > 999_999_999L) {
            throw new ForwardProtocolException(at, "EventTime nanoseconds out of range: " + ns);
        }
        nanos = (int) ns;
    }

    private void readFloatTime(double t) {
        double floor = Math.floor(t);
        seconds = (long) floor;
        nanos = (int) Math.min(999_999_999L, Math.round((t - floor) * 1e9));
    }

    /** v1.5 / Fluent Bit: the time slot holds {@code [time, {metadata}]}. */
    private void readTimeWithMetadata(MsgPackReader in) throws ForwardProtocolException {
        long at = in.offset();
        int n = in.readArrayHeader();
        if (n < 1) {
            throw new ForwardProtocolException(at, "empty [time, metadata] array");
        }
        read(in, false);
        for (int i = 1; i < n; i++) {
            int start = in.position();
            if (i == 1 && in.nextType() == ValueType.MAP) {
                in.skipValueLimited(); // handed on with the record
                metaOffset = start;
                metaLength = in.position() - start;
            } else {
                in.skipValue();
            }
        }
    }
}
