package io.sluice.forward.codec;

/**
 * Receives what {@link ForwardDecoder} finds in a frame: first the options, then each event in
 * order.
 */
@FunctionalInterface
public interface EventSink {

    /**
     * Called once per frame, before its events, whether or not the frame has an options map.
     * Unknown options (such as Fluent Bit's {@code fluent_signal}) are skipped.
     *
     * @param chunk      the {@code chunk} option (ack requested when not null), or null
     * @param size       the {@code size} option, or -1 when absent
     * @param compressed the {@code compressed} option (e.g. {@code "gzip"}), or null
     */
    default void onOptions(String chunk, long size, String compressed) {
    }

    /**
     * Called for each event.
     *
     * @param tag          the frame's tag
     * @param epochSeconds event time, seconds since the epoch
     * @param nanos        event time, nanoseconds within the second (0 for integer times)
     * @param record       the record: raw msgpack bytes and an on-demand decoded map. A flyweight,
     *                     valid only during this call; copy what must be kept.
     */
    void onEvent(String tag, long epochSeconds, int nanos, RecordView record);
}
