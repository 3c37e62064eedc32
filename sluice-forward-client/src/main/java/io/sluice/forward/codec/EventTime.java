package io.sluice.forward.codec;

import java.time.Instant;

/**
 * The Forward protocol's EventTime: seconds and nanoseconds since the epoch, carried on the wire
 * as msgpack ext type 0 with 8 bytes (big-endian 32-bit seconds, then 32-bit nanoseconds).
 *
 * <p>Used as a record value when a record itself holds an EventTime; frame times are passed as
 * plain {@code long}/{@code int} pairs so that no object is made per event.
 *
 * @param seconds seconds since the epoch (0 to 2^32-1 on the wire)
 * @param nanos   nanoseconds within the second, 0 to 999,999,999
 */
public record EventTime(long seconds, int nanos) {

    /** The msgpack ext type number the protocol gives EventTime. */
    public static final byte EXT_TYPE = 0;

    /**
     * @param instant a point in time
     * @return the same time as an EventTime
     */
    public static EventTime of(Instant instant) {
        return new EventTime(instant.getEpochSecond(), instant.getNano());
    }

    /** @return this time as an Instant */
    public Instant toInstant() {
        return Instant.ofEpochSecond(seconds, nanos);
    }
}
