package io.sluice.bench.forward;

/**
 * Seed 003's {@code SingleMessageAck}: the same event, acknowledged by the server. One op is one event.
 * {@code sluiceClient} waits for each ack before the next send (stop-and-wait, as fluent-forward-go; fluent-logger-java
 * has no ack mode); {@code sluiceEmitter} vs {@code fluency} are asynchronous emits, timed per burst until the server
 * has counted the whole burst.
 */
public class ForwardSingleMessageAck extends ForwardSends.WithClient {
}
