package io.sluice.forward.codec;

/** The event modes of the Forward protocol. */
public enum ForwardMode {
    /** {@code [tag, time, record, options?]}: one event. */
    MESSAGE,
    /** {@code [tag, [[time, record], ...], options?]}: events as a msgpack array. */
    FORWARD,
    /** {@code [tag, bin|str, options?]}: events as concatenated msgpack {@code [time, record]}. */
    PACKED_FORWARD,
    /** Like PackedForward, the payload gzipped, with option {@code compressed: "gzip"}. */
    COMPRESSED_PACKED_FORWARD
}
