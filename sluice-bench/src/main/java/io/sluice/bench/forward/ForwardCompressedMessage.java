package io.sluice.bench.forward;

/**
 * {@code CompressedMessage}: the same event through the asynchronous senders, gzip-compressed
 * (CompressedPackedForward) by Sluice's emitter. fluency 2.7.3 has no compression for Forward, so it sends its plain
 * PackedForward: the comparison shows what compression costs Sluice against fluency's cheapest mode.
 * One op is one event, timed per burst until the server has counted the whole burst.
 */
public class ForwardCompressedMessage extends ForwardSends {
}
