package io.sluice.forward.consumer;

import io.netty.channel.Channel;
import io.sluice.core.message.Batch;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Moves one connection's groups of batches into the pipeline, off the event loop: {@code publish} blocks while the
 * pipeline's queues are full, so groups wait in a per-connection queue drained by the server's shared pool of
 * publisher threads, one drain at a time per connection (order is kept). When {@code readAhead} groups wait, the
 * connection is {@link #paused()} (it stops reading, so the client's TCP window closes) until the publisher
 * catches up.
 */
final class GroupPublisher {
    private final ForwardServer server;
    private final int readAhead;
    /** Called (on the event loop) when {@link #paused()} changed: the connection sets autoRead. */
    private final Runnable pauseChanged;
    private final ConcurrentLinkedQueue<Batch[]> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private volatile boolean paused;
    private Channel channel;

    GroupPublisher(ForwardServer server, Runnable pauseChanged) {
        this.server = server;
        this.readAhead = server.settings().readAhead();
        this.pauseChanged = pauseChanged;
    }

    /** The connection's channel, once active. */
    void channel(Channel channel) {
        this.channel = channel;
    }

    /** Too many groups wait: the connection should not read. */
    boolean paused() {
        return paused;
    }

    /** Groups handed over and not yet published. */
    int queued() {
        return queued.get();
    }

    /** Event loop: queues a group of batches (published together, after the groups before it). */
    void submit(Batch[] group) {
        pending.add(group);
        int n = queued.incrementAndGet();
        if (n >= readAhead && !paused) {
            paused = true;
            pauseChanged.run();
            // The publisher may have drained below the mark between the increment and the flag: it then saw
            // paused false and scheduled no resume, and reading would stay off for good. Both are volatile, so
            // either it sees the flag or this sees its decrement.
            resume();
        }
        if (n == 1) {
            server.publisher().execute(this::drain);
        }
    }

    /** Publisher thread: publishes this connection's groups in order, one drain at a time. */
    private void drain() {
        int left;
        do {
            publish(pending.poll());
            left = queued.decrementAndGet();
            if (paused && left < readAhead) {
                channel.eventLoop().execute(this::resume);
            }
        } while (left > 0);
    }

    private void publish(Batch[] group) {
        int i = 0;
        try {
            for (; i < group.length; i++) {
                server.context().publish(group[i]);
            }
        } catch (InterruptedException e) {
            // Shutdown gave up waiting for the pipeline: what was not published is released as failed (no ack),
            // so the client sends it again to whoever runs next.
            Thread.currentThread().interrupt();
            for (; i < group.length; i++) {
                group[i].fail();
            }
        }
    }

    private void resume() {
        if (paused && queued.get() < readAhead && channel.isOpen()) {
            paused = false;
            pauseChanged.run();
        }
    }
}
