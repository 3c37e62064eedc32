package io.sluice.forward.codec;

/** How an encoder writes event times. */
public enum TimeFormat {
    /** EventTime ext (fixext8, type 0): seconds and nanoseconds. Needs a v1 peer (fluentd 0.14+). */
    EVENT_TIME,
    /** Integer seconds, nanoseconds dropped: for v0 peers such as fluentd 0.12. */
    INTEGER
}
