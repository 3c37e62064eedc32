package io.sluice.io.socket;

import io.sluice.core.message.Clock;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Rejection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Serves every stream connection of one {@link SocketServer} with one thread and a selector, bounded in memory.
 *
 * <p><b>Threads.</b> The consumer's own thread (the one {@link #serve()} runs on) accepts, reads, frames, parses
 * and publishes: a line is read, copied into its message and handed to the pipeline (the consumer's formatters
 * run there too) on one core. It waits only where waiting is the backpressure: while the queues behind are full
 * (no connection is read meanwhile, so TCP's window closes on every sender) and, for at most
 * {@code RETRY_NANOS} a round, for memory a paused connection needs. A connection costs a few hundred bytes and
 * no thread. (Until issue 17 a second thread published what this one read: every message and its payload then
 * crossed between two cores; with format.JSON on the consumer that cost about 12% more CPU per line.)
 *
 * <p><b>Buffers.</b> Reads go into one buffer of {@code ReadBufferKB} shared by all connections; complete frames
 * are copied out of it into messages ({@link FramePublisher}), and only the unfinished end of a read moves to a
 * buffer of the connection's ({@link StreamConnection}). An idle connection holds no buffer.
 *
 * <p><b>Memory.</b> Everything held is reserved from the process's budget ({@link MemoryCredit}): the bytes a read
 * may bring, a connection's unfinished frame, each message until its batch is delivered. When the budget is spent
 * the connection stops being read (its key loses {@code OP_READ}; TCP's window closes on the sender) with its
 * frames kept, and the loop waits for the memory between rounds. Nothing read is dropped.
 *
 * <p><b>TLS.</b> With the TLS/* group on, each connection has a {@link TlsStream} reading into the same buffers,
 * so framing, memory and backpressure apply unchanged; the plain path only tests {@code tls == null}. Bytes an
 * engine already holds are announced by no selector event: such connections are queued ({@code tlsReady}) and
 * served in the next round without waiting. A refused handshake counts {@code rejected auth}.
 *
 * <p>What is left here (rounds, reading, pausing and resuming for memory, the TLS queue, ending and shutdown) is one
 * scheduler: each step reads and sets the same connection flags, so it stays in one class of about 450 lines.
 */
final class StreamLoop {
    /** Smallest read when memory is short. */
    private static final int MIN_READ = 4096;
    /** Reads of one connection per round before the others get their turn. */
    private static final int READS_PER_ROUND = 16;
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final byte[] EMPTY = new byte[0];

    private final SocketServer server;
    private final SocketServer.Settings s;
    private final String id;
    private final ConsumerContext ctx;
    private final MemoryCredit credit;
    private final FramePublisher out;
    private final ServerSocketChannel listener;
    private final Selector selector;
    private final Acceptor acceptor;
    private final byte[] shared;
    private final ByteBuffer sharedView;
    private final ByteBuffer emptyView = ByteBuffer.wrap(EMPTY);
    /** TLS buffers for the connections, or null for a plain listener. */
    private final TlsBufferPool tlsPool;
    private final ConnectionTimeouts timeouts;

    private volatile Throwable failure;
    private volatile Thread thread;
    private boolean interrupted;

    // The serving thread only.
    private final java.util.function.Consumer<SelectionKey> onReady = this::ready;
    private final ArrayDeque<StreamConnection> paused = new ArrayDeque<>();
    private final List<StreamConnection> roundAcks = new ArrayList<>();
    private final ArrayDeque<StreamConnection> tlsReady = new ArrayDeque<>();
    /** Bytes paused connections wait for (the largest); the loop reserves them between rounds. */
    private long wanted;

    StreamLoop(SocketServer server, ConsumerContext ctx, ServerSocketChannel listener) throws IOException {
        this.server = server;
        this.s = server.s;
        this.id = server.id;
        this.ctx = ctx;
        this.credit = new MemoryCredit(ctx.memory());
        this.out = new FramePublisher(server, ctx, credit, this);
        this.listener = listener;
        this.selector = Selector.open();
        this.shared = new byte[s.readBufferSize];
        this.sharedView = ByteBuffer.wrap(shared);
        this.tlsPool = s.tls == null ? null : new TlsBufferPool(s.tls.newEngine(null, 0));
        this.acceptor = new Acceptor(server, ctx, listener, selector, tlsPool, RETRY_NANOS);
        this.timeouts = new ConnectionTimeouts(s.idleTimeoutMs, s.tls != null);
    }

    /**
     * Serves, reads and publishes on the calling thread until the server stops.
     *
     * @throws IOException when the listener is lost while the server runs
     */
    void serve() throws Exception {
        thread = Thread.currentThread();
        run();
        if (interrupted) {
            throw new InterruptedException("consumer " + id + " interrupted");
        }
        Throwable f = failure;
        if (f != null) {
            throw new IOException("listener on " + s.address + " lost: " + f, f);
        }
    }

    /** Whether the loop serves (or is about to). */
    boolean isHealthy() {
        Thread t = thread;
        return failure == null && (t == null || t.isAlive() || server.stopped);
    }

    void wakeup() {
        selector.wakeup();
    }

    // ---------------------------------------------------------------- the loop

    private void run() {
        try {
            while (!server.stopped) {
                if (tlsReady.isEmpty()) {
                    selector.select(onReady, selectTimeoutMillis());
                } else {
                    selector.selectNow(onReady);
                    serveTlsReady();
                }
                tasks();
                endRound();
                if (!listener.isOpen() && !server.stopped) {
                    throw new ClosedChannelException();
                }
            }
        } catch (Throwable e) {
            if (e instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
                interrupted = true; // told to stop while publishing: not a failure of the listener
            } else if (!server.stopped) {
                failure = e;
                ctx.log().error(id + ": the listener on " + s.address + " failed: " + e);
            }
        } finally {
            shutdown();
        }
    }

    private long selectTimeoutMillis() {
        return timeouts.selectMillis(paused.isEmpty() && !acceptor.paused() ? 1000
                : TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS));
    }

    private void ready(SelectionKey key) {
        if (acceptor.owns(key)) {
            acceptor.accept();
            return;
        }
        serve((StreamConnection) key.attachment(), false);
    }

    /** Writes what {@code c} owes and reads what it sent; {@code tlsBuffered}: it has TLS bytes ready already. */
    private void serve(StreamConnection c, boolean tlsBuffered) {
        SelectionKey key = c.key;
        try {
            if (!tlsBuffered && key.isWritable()) {
                if (c.tls != null && c.tls.flush(c.ch)) {
                    queueTls(c); // the handshake may go on now that its last flight went out
                }
                c.writeAcks(s.acknowledge);
            }
            if (key.isValid() && (tlsBuffered || key.isReadable())) {
                read(c);
            }
        } catch (IOException e) {
            ctx.log().info(id + ": connection from " + c.peer + " ended: " + e.getMessage());
            end(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (RuntimeException e) {
            ctx.log().error(id + ": connection from " + c.peer + " failed and was closed: " + e);
            close(c);
        }
    }

    /** Reads what the connection sent, a few reads at a time, and passes on its frames. */
    private void read(StreamConnection c) throws IOException, InterruptedException {
        if (c.tls == null) {
            readRounds(c);
            return;
        }
        if (!c.tls.holdsBuffers() && !tlsPool.lend(c.tls, credit)) {
            pause(c, tlsPool.bytes);
            return;
        }
        readRounds(c);
        afterTls(c);
    }

    private void readRounds(StreamConnection c) throws IOException, InterruptedException {
        boolean got = false;
        for (int i = 0; i < READS_PER_ROUND && !c.paused && !c.eof; i++) {
            Framer f = c.framer;
            int pending = f.pending();
            int want;
            int n;
            boolean viaShared = pending <= shared.length / 2;
            if (viaShared) {
                // Hold the memory this read may bring, until its frames are reserved one by one and its
                // unfinished end has moved to the connection's buffer.
                want = shared.length - pending;
                if (!credit.take(want)) {
                    want = Math.min(want, MIN_READ);
                    if (!credit.take(want)) {
                        pause(c, want);
                        return;
                    }
                }
                f.useBuffer(shared, sharedView);
                sharedView.limit(pending + want);
            } else {
                long wait = c.roomToRead(credit);
                if (wait > 0) {
                    pause(c, wait);
                    return;
                }
                want = f.readTarget().remaining();
            }
            try {
                n = readSome(c, viaShared ? sharedView : f.readTarget());
                if (n < 0) {
                    c.eof = true;
                } else {
                    got |= n > 0;
                    c.readEpoch = Clock.epochNanos();
                    c.readNanos = System.nanoTime();
                    out.from(c);
                    f.drain(out);
                }
            } finally {
                if (viaShared) {
                    credit.give(want); // the read's hold comes back
                    c.fit(credit, emptyView);
                } else if (f.pending() <= shared.length / 2) {
                    c.fit(credit, emptyView); // the long frame is done: its buffer shrinks back
                }
            }
            if (c.eof) {
                end(c);
                return;
            }
            if (n < want) {
                // A TLS read that only moved the handshake on brought nothing to acknowledge.
                if (s.acknowledge != null && !c.ackThisRound && (got || c.tls == null)) {
                    c.ackThisRound = true;
                    roundAcks.add(c);
                }
                return;
            }
        }
    }

    private int readSome(StreamConnection c, ByteBuffer target) {
        try {
            return c.tls == null ? c.ch.read(target) : c.tls.read(c.ch, target);
        } catch (TlsStream.Failure e) {
            ctx.reject(e.handshake ? Rejection.AUTH : Rejection.MALFORMED, c.peer,
                    (e.handshake ? "TLS handshake failed: " : "TLS failed: ") + e.getMessage() + "; connection closed");
            return -1;
        } catch (IOException e) {
            ctx.log().info(id + ": connection from " + c.peer + " ended: " + e.getMessage());
            return -1;
        }
    }

    /**
     * After serving a TLS connection: bytes it already holds are served next round (no selector event announces
     * them); an idle one gives its buffers back.
     */
    private void afterTls(StreamConnection c) {
        if (c.closed) {
            return;
        }
        if (!queueTls(c)) {
            tlsPool.reclaim(c.tls, false, credit);
        }
        c.interest();
    }

    /** Queues {@code c} to be served without a selector event when its TLS bytes are ready; whether it is queued. */
    private boolean queueTls(StreamConnection c) {
        if (c.tls == null || c.closed || !c.tls.hasBuffered()) {
            return false;
        }
        if (!c.tlsQueued && !c.paused && !c.eof) {
            c.tlsQueued = true;
            tlsReady.add(c);
        }
        return true;
    }

    private void serveTlsReady() {
        for (int n = tlsReady.size(); n > 0; n--) {
            StreamConnection c = tlsReady.poll();
            c.tlsQueued = false;
            if (!c.closed && !c.paused && !c.eof) {
                serve(c, true);
            }
        }
    }

    /** Stops reading {@code c} until {@code bytes} of memory are available (frames it sent stay in its framer). */
    void pause(StreamConnection c, long bytes) {
        if (c.paused) {
            return;
        }
        c.paused = true;
        c.needs = bytes;
        c.interest();
        paused.add(c);
        wanted = Math.max(wanted, bytes);
    }

    /** Between rounds: memory for paused connections (waited for here, briefly), then those connections. */
    private void tasks() throws InterruptedException {
        if (!paused.isEmpty()) {
            long want = wanted;
            wanted = 0;
            // The round's selecting already waited RETRY_NANOS; a wait here too lets the pipeline return memory.
            if (want > 0) {
                credit.await(want, RETRY_NANOS);
            }
            resume();
        }
        acceptor.resumeWhenDue();
    }

    /** Passes on the frames of paused connections, oldest first, while there is memory (and room) for them. */
    private void resume() throws InterruptedException {
        for (int n = paused.size(); n > 0; n--) {
            StreamConnection c = paused.peek();
            if (c.closed) {
                paused.poll();
                continue;
            }
            if (c.needs > 0) {
                if (!credit.take(c.needs)) {
                    wanted = Math.max(wanted, c.needs);
                    return; // still spent: it and those after it wait
                }
                credit.give(c.needs); // now in the loop's credit, for the frames or the read it waits for
            }
            paused.poll();
            c.paused = false;
            c.readNanos = System.nanoTime();
            c.lastProgress = c.readNanos;
            out.from(c);
            if (c.eof) {
                end(c);
            } else {
                c.framer.drain(out);
                c.interest();
                if (c.tls != null) {
                    afterTls(c);
                }
            }
            if (c.paused) {
                return; // still short: the rest stay paused, in order
            }
        }
    }

    private void endRound() throws InterruptedException {
        out.publish();
        if (!roundAcks.isEmpty()) {
            // What these connections sent is in the pipeline now: each is owed an acknowledgement.
            for (StreamConnection c : roundAcks) {
                c.ackThisRound = false;
                if (!c.closed) {
                    c.acksOwed++;
                    try {
                        c.writeAcks(s.acknowledge);
                    } catch (IOException e) {
                        close(c);
                    }
                }
            }
            roundAcks.clear();
        }
        credit.trim();
        long now = System.nanoTime();
        if (timeouts.sweepDue(now)) {
            sweep(now);
        }
    }

    /** Closes connections that completed no message (or no TLS handshake) in time, counted as timeouts. */
    private void sweep(long now) {
        for (SelectionKey k : selector.keys()) {
            if (k.attachment() instanceof StreamConnection c && !c.paused && !c.eof && !c.closed) {
                String detail = timeouts.expired(c, now, out.unblockedAt());
                if (detail != null) {
                    ctx.reject(Rejection.TIMEOUT, c.peer, detail);
                    end(c);
                }
            }
        }
    }

    /** The peer left (or timed out): its last unfinished frame is passed on, then the connection is closed. */
    private void end(StreamConnection c) {
        c.eof = true;
        out.from(c);
        try {
            if (c.paused || !c.framer.finish(out)) {
                c.interest();
                return; // paused for memory: resume() finishes it
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close(c);
    }

    private void close(StreamConnection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        if (c.tls != null) {
            c.tls.closeOutbound(c.ch);
            tlsPool.reclaim(c.tls, true, credit);
        }
        c.key.cancel();
        SocketServer.closeQuietly(c.ch);
        c.dropOwn(credit);
        acceptor.closed();
        server.truncated.addAndGet(c.framer.truncated());
        server.badHeaders.addAndGet(c.framer.badHeaders());
        server.unterminated.addAndGet(c.framer.unterminated());
    }

    /**
     * Stopping: every connection's frames, finished or not, are passed on (charged when published, which may
     * wait), then everything is closed.
     */
    private void shutdown() {
        out.drain();
        try {
            for (SelectionKey k : selector.keys()) {
                if (k.attachment() instanceof StreamConnection c && !c.closed) {
                    out.from(c);
                    try {
                        c.framer.finish(out);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    close(c);
                }
            }
            out.publish();
        } catch (Throwable e) {
            if (failure == null && !server.stopped) {
                failure = e;
            }
        } finally {
            out.count();
            try {
                selector.close(); // first: it deregisters the listener, which a replacing consumer may take over
            } catch (IOException ignored) {
                // Closing.
            }
            server.closeListener();
            long held = out.discard(); // interrupted while stopping: back to the pool, and its memory to the budget
            if (tlsPool != null) {
                held += tlsPool.pooledBytes(); // pooled TLS buffers stayed reserved until now
            }
            credit.releaseAll(held);
        }
    }
}
