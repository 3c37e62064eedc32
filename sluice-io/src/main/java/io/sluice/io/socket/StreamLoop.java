package io.sluice.io.socket;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
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
 * are copied out of it into messages, and only the unfinished end of a read moves to a buffer of the
 * connection's, sized to it (it grows towards {@code MaxLineSize} while a long line arrives and shrinks back
 * afterwards). An idle connection holds no buffer.
 *
 * <p><b>Memory.</b> Everything held is reserved from the process's {@link MemoryBudget}: the bytes a read may
 * bring, a connection's unfinished frame, and each message (its bytes plus
 * {@link MemoryBudget#MESSAGE_OVERHEAD}), whose reservation travels with the batch ({@link Batch#holdMemory})
 * until it is delivered. When the budget is spent the connection stops being read (its key loses
 * {@code OP_READ}; TCP's window closes on the sender) with its frames kept, and the loop waits for the memory
 * between rounds. Nothing read is dropped.
 *
 * <p><b>TLS.</b> With the TLS/* group on, each connection has a {@link TlsStream}: reads go through its engine
 * into the same buffers (plaintext straight into the shared read buffer when it has room for a record), so the
 * framing, memory and backpressure above apply unchanged; the plain path only tests {@code tls == null}. A
 * connection's ciphertext and plaintext buffers come from a pool of the loop's, reserved from the budget while
 * held or pooled, and go back when the connection is idle. Bytes an engine already holds (a record behind the
 * one unwrapped, plaintext the framer had no room for) are announced by no selector event: such connections are
 * queued ({@code tlsReady}) and served in the next round without waiting. A handshake must complete within
 * IdleTimeoutMs, or {@link #HANDSHAKE_NANOS} when that is 0; a refused one counts {@code rejected auth}.
 */
final class StreamLoop implements Framer.Sink {
    /** Smallest buffer a connection keeps for an unfinished frame. */
    private static final int OWN_MIN = 512;
    /** A connection's buffer up to this size is kept between reads; a larger one shrinks to fit what it holds. */
    private static final int OWN_KEEP = 4096;
    /** Smallest read when memory is short. */
    private static final int MIN_READ = 4096;
    /** Reads of one connection per round before the others get their turn. */
    private static final int READS_PER_ROUND = 16;
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** A publish that took longer than this waited for the pipeline (see {@link #unblockedAt}). */
    private static final long WAITED_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final byte[] EMPTY = new byte[0];
    /** How long a TLS handshake may take when IdleTimeoutMs is 0 (a half-open handshake must not hold a slot). */
    static final long HANDSHAKE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** One accepted connection. */
    private static final class Conn {
        final SocketChannel ch;
        final String peer;
        final Framer framer;
        SelectionKey key;
        /** The connection's buffer for an unfinished frame (reserved from the budget), or null. */
        byte[] own;
        ByteBuffer ownView;
        boolean paused;
        /** Bytes of memory the paused connection waits for. */
        long needs;
        boolean eof;
        boolean closed;
        boolean ackThisRound;
        int acksOwed;
        ByteBuffer ack;
        long readEpoch;
        long readNanos;
        long lastProgress;
        /** TLS on this connection, or null (plain). */
        TlsStream tls;
        /** In {@code tlsReady}: it has decrypted or whole encrypted bytes that no selector event will announce. */
        boolean tlsQueued;

        Conn(SocketChannel ch, String peer, Framer framer) {
            this.ch = ch;
            this.peer = peer;
            this.framer = framer;
        }
    }

    private final SocketServer server;
    private final SocketServer.Settings s;
    private final String id;
    private final ConsumerContext ctx;
    private final MemoryBudget budget;
    private final ServerSocketChannel listener;
    private final Selector selector;
    private final SelectionKey acceptKey;
    private final byte[] shared;
    private final ByteBuffer sharedView;
    private final ByteBuffer emptyView = ByteBuffer.wrap(EMPTY);
    private final SyslogParser parser;
    private final long chunk;
    private final long idleNanos;
    private final String idleDetail;
    private final String busyDetail;
    /** TLS buffers for the connections, or null for a plain listener. */
    private final TlsStream.Pool tlsPool;
    /** The longest a TLS handshake may take; 0 without TLS. */
    private final long handshakeNanos;
    private final String handshakeDetail;
    /** How often connections are checked for timeouts; 0: never. */
    private final long sweepNanos;

    private volatile Throwable failure;
    private volatile Thread thread;
    private boolean interrupted;

    // The serving thread only.
    private final java.util.function.Consumer<SelectionKey> onReady = this::ready;
    private final ArrayDeque<Conn> paused = new ArrayDeque<>();
    private final List<Conn> roundAcks = new ArrayList<>();
    private final ArrayDeque<Conn> tlsReady = new ArrayDeque<>();
    private int open;
    private long credit;
    private Batch batch;
    private long batchBytes;
    /** Bytes paused connections wait for (the largest); the loop reserves them between rounds. */
    private long wanted;
    /** When the last publish that had to wait for the pipeline ended: no connection was read until then. */
    private long unblockedAt;
    private long lines;
    private int admitted;
    private Conn current;
    private boolean draining;
    private long nextSweep;
    private long acceptPausedUntil;

    StreamLoop(SocketServer server, ConsumerContext ctx, ServerSocketChannel listener) throws IOException {
        this.server = server;
        this.s = server.s;
        this.id = server.id;
        this.ctx = ctx;
        this.budget = ctx.memory();
        this.listener = listener;
        this.selector = Selector.open();
        this.acceptKey = listener.register(selector, SelectionKey.OP_ACCEPT);
        this.shared = new byte[s.readBufferSize];
        this.sharedView = ByteBuffer.wrap(shared);
        this.parser = s.syslog == null ? null : new SyslogParser(s.syslog);
        this.chunk = Math.max(1, Math.min(64 * 1024, budget.limit() / 16));
        this.idleNanos = TimeUnit.MILLISECONDS.toNanos(s.idleTimeoutMs);
        this.idleDetail = "no complete message for " + s.idleTimeoutMs + " ms (IdleTimeoutMs); connection closed";
        this.busyDetail = "MaxConnections (" + s.maxConnections + ") reached; connection closed";
        this.tlsPool = s.tls == null ? null : new TlsStream.Pool(s.tls.newEngine(null, 0));
        this.handshakeNanos = s.tls == null ? 0 : idleNanos > 0 ? idleNanos : HANDSHAKE_NANOS;
        this.handshakeDetail = "TLS handshake not completed within " + TimeUnit.NANOSECONDS.toMillis(handshakeNanos)
                + " ms; connection closed";
        this.sweepNanos = idleNanos > 0 ? idleNanos : handshakeNanos;
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
        long t = 1000;
        if (!paused.isEmpty() || acceptPausedUntil != 0) {
            t = TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS);
        }
        if (sweepNanos > 0) {
            t = Math.min(t, Math.max(1, TimeUnit.NANOSECONDS.toMillis(sweepNanos / 4)));
        }
        return t;
    }

    private void ready(SelectionKey key) {
        if (key == acceptKey) {
            accept();
            return;
        }
        serve((Conn) key.attachment(), false);
    }

    /** Writes what {@code c} owes and reads what it sent; {@code tlsBuffered}: it has TLS bytes ready already. */
    private void serve(Conn c, boolean tlsBuffered) {
        SelectionKey key = c.key;
        try {
            if (!tlsBuffered && key.isWritable()) {
                if (c.tls != null && c.tls.flush(c.ch)) {
                    queueTls(c); // the handshake may go on now that its last flight went out
                }
                writeAcks(c);
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

    private void accept() {
        for (int i = 0; i < 256; i++) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (ClosedChannelException e) {
                return; // run() sees the listener closed
            } catch (IOException e) {
                // Out of file descriptors and the like: the listener stays; accepting pauses for a moment.
                ctx.log().limited(Log.ERROR, id + ": accept", id + ": cannot accept on " + s.address + ": " + e.getMessage());
                acceptKey.interestOps(0);
                acceptPausedUntil = System.nanoTime() + RETRY_NANOS;
                return;
            }
            if (ch == null) {
                return;
            }
            String peer = remote(ch);
            if (open >= s.maxConnections) {
                SocketServer.closeQuietly(ch);
                ctx.reject(Rejection.BUSY, peer, busyDetail);
                continue;
            }
            try {
                ch.configureBlocking(false);
                if (s.address.protocol() == Address.Protocol.TCP) {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                Conn c = new Conn(ch, peer, server.newFramer(0));
                if (tlsPool != null) {
                    c.tls = new TlsStream(s.tls.newEngine(null, 0), tlsPool);
                }
                c.lastProgress = System.nanoTime();
                c.key = ch.register(selector, SelectionKey.OP_READ, c);
                open++;
                ctx.stats().addConnections(1);
            } catch (IOException e) {
                SocketServer.closeQuietly(ch);
            }
        }
    }

    /** Reads what the connection sent, a few reads at a time, and passes on its frames. */
    private void read(Conn c) throws IOException, InterruptedException {
        if (c.tls == null) {
            readRounds(c);
            return;
        }
        if (!c.tls.holdsBuffers() && !lendTls(c)) {
            return;
        }
        readRounds(c);
        afterTls(c);
    }

    private void readRounds(Conn c) throws IOException, InterruptedException {
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
                if (!take(want)) {
                    want = Math.min(want, MIN_READ);
                    if (!take(want)) {
                        pause(c, want);
                        return;
                    }
                }
                f.useBuffer(shared, sharedView);
                sharedView.limit(pending + want);
            } else {
                if (!roomToRead(c)) {
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
                    current = c;
                    f.drain(this);
                }
            } finally {
                if (viaShared) {
                    credit += want; // the read's hold comes back
                    fit(c);
                } else if (f.pending() <= shared.length / 2) {
                    fit(c); // the long frame is done: its buffer shrinks back
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

    private int readSome(Conn c, ByteBuffer target) {
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

    /** Lends a TLS connection its buffers: pooled ones, or new ones reserved from the budget (else it pauses). */
    private boolean lendTls(Conn c) {
        ByteBuffer[] pair = tlsPool.poll();
        if (pair == null) {
            if (!take(tlsPool.bytes)) {
                pause(c, tlsPool.bytes);
                return false;
            }
            pair = tlsPool.allocate();
        }
        c.tls.lend(pair);
        return true;
    }

    /** Takes a TLS connection's buffers back when nothing is pending in them (or {@code always}: closing). */
    private void reclaimTls(Conn c, boolean always) {
        ByteBuffer[] pair = c.tls.reclaim(always);
        if (pair != null && !tlsPool.offer(pair)) {
            credit += tlsPool.bytes;
        }
    }

    /**
     * After serving a TLS connection: bytes it already holds are served next round (no selector event announces
     * them); an idle one gives its buffers back.
     */
    private void afterTls(Conn c) {
        if (c.closed) {
            return;
        }
        if (!queueTls(c)) {
            reclaimTls(c, false);
        }
        interest(c);
    }

    /** Queues {@code c} to be served without a selector event when its TLS bytes are ready; whether it is queued. */
    private boolean queueTls(Conn c) {
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
            Conn c = tlsReady.poll();
            c.tlsQueued = false;
            if (!c.closed && !c.paused && !c.eof) {
                serve(c, true);
            }
        }
    }

    /**
     * Moves the unfinished end of what was read to the connection's buffer, made to fit it: grown, or shrunk back
     * after a long line, or none at all.
     */
    private void fit(Conn c) {
        Framer f = c.framer;
        int left = f.pending();
        int cap = c.own == null ? 0 : c.own.length;
        if (left == 0 && cap > OWN_KEEP) {
            dropOwn(c);
            cap = 0;
        } else if (left > 0 && (cap < left || cap > Math.max(OWN_KEEP, 4L * left))) {
            dropOwn(c);
            long pow2 = Long.highestOneBit(Math.max(left, OWN_MIN) - 1L) << 1;
            int size = (int) Math.min(Math.max(left, f.capacityLimit()), pow2);
            if (!take(size)) {
                size = left;
                take(size); // always granted: the bytes were held by the read's hold or the old buffer
            }
            c.own = new byte[size];
            c.ownView = ByteBuffer.wrap(c.own);
            cap = size;
        }
        if (cap == 0) {
            f.useBuffer(EMPTY, emptyView);
        } else {
            f.useBuffer(c.own, c.ownView);
        }
    }

    private void dropOwn(Conn c) {
        if (c.own != null) {
            credit += c.own.length;
            c.own = null;
            c.ownView = null;
        }
    }

    /** A long unfinished frame is read into the connection's own buffer, doubled when full. */
    private boolean roomToRead(Conn c) {
        Framer f = c.framer;
        int cap = f.capacity();
        if (f.pending() < cap) {
            return true;
        }
        int limit = f.capacityLimit();
        if (cap >= limit) {
            throw new IllegalStateException("a full buffer of " + cap + " bytes holds no frame");
        }
        int size = (int) Math.min(limit, 2L * cap);
        if (!take(size)) {
            pause(c, size);
            return false;
        }
        byte[] bigger = new byte[size];
        ByteBuffer view = ByteBuffer.wrap(bigger);
        f.useBuffer(bigger, view);
        dropOwn(c);
        c.own = bigger;
        c.ownView = view;
        return true;
    }

    @Override
    public boolean admit(int len) {
        if (draining || (len == 0 && s.skipEmpty)) {
            admitted = 0;
            return true;
        }
        int cost = len + MemoryBudget.MESSAGE_OVERHEAD;
        if (!take(cost)) {
            pause(current, cost);
            return false;
        }
        admitted = cost;
        return true;
    }

    @Override
    public void frame(byte[] buf, int off, int len, boolean cut) throws InterruptedException {
        Conn c = current;
        c.lastProgress = c.readNanos;
        if (len == 0 && s.skipEmpty) {
            return;
        }
        if (batch == null) {
            batch = ctx.newBatch();
        }
        server.fill(batch.add(), buf, off, len, cut, c.readEpoch, parser, ctx, c.peer);
        batchBytes += admitted;
        admitted = 0;
        lines++;
        if (batch.isFull()) {
            publish();
        }
    }

    /**
     * Hands the batch being filled to the pipeline, carrying its memory from now on. May wait while the queues
     * behind are full: nothing is read meanwhile, which is the backpressure.
     */
    private void publish() throws InterruptedException {
        Batch b = batch;
        batch = null;
        if (b == null) {
            return;
        }
        if (batchBytes > 0) {
            b.holdMemory(budget, batchBytes);
        }
        batchBytes = 0;
        server.lines.addAndGet(lines);
        lines = 0;
        long t0 = System.nanoTime();
        ctx.publish(b);
        long t1 = System.nanoTime();
        if (t1 - t0 > WAITED_NANOS) {
            unblockedAt = t1; // every connection waited for the pipeline, not only this one
        }
    }

    /** Stops reading {@code c} until {@code bytes} of memory are available. */
    private void pause(Conn c, long bytes) {
        if (c.paused) {
            return;
        }
        c.paused = true;
        c.needs = bytes;
        interest(c);
        paused.add(c);
        wanted = Math.max(wanted, bytes);
    }

    /** Reserves {@code n} bytes from the loop's credit, topping it up from the budget; false when spent. */
    private boolean take(long n) {
        if (credit < n) {
            long need = n - credit;
            if (budget.limit() - budget.used() >= need + chunk && budget.tryReserve(need + chunk)) {
                credit += need + chunk;
            } else if (budget.tryReserve(need)) {
                credit += need;
            } else {
                return false;
            }
        }
        credit -= n;
        return true;
    }

    private void interest(Conn c) {
        if (c.closed || !c.key.isValid()) {
            return;
        }
        boolean write = c.acksOwed > 0 || c.tls != null && c.tls.wantsWrite();
        int ops = (c.paused || c.eof ? 0 : SelectionKey.OP_READ) | (write ? SelectionKey.OP_WRITE : 0);
        if (c.key.interestOps() != ops) {
            c.key.interestOps(ops);
        }
    }

    /** Between rounds: memory for paused connections (waited for here, briefly), then those connections. */
    private void tasks() throws InterruptedException {
        if (!paused.isEmpty()) {
            long want = wanted;
            wanted = 0;
            // The round's selecting already waited RETRY_NANOS; a wait here too lets the pipeline return memory.
            if (want > 0 && budget.reserve(want, RETRY_NANOS)) {
                credit += want;
            }
            resume();
        }
        if (acceptPausedUntil != 0 && System.nanoTime() - acceptPausedUntil >= 0) {
            acceptPausedUntil = 0;
            acceptKey.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    /** Passes on the frames of paused connections, oldest first, while there is memory (and room) for them. */
    private void resume() throws InterruptedException {
        for (int n = paused.size(); n > 0; n--) {
            Conn c = paused.peek();
            if (c.closed) {
                paused.poll();
                continue;
            }
            if (c.needs > 0) {
                if (!take(c.needs)) {
                    wanted = Math.max(wanted, c.needs);
                    return; // still spent: it and those after it wait
                }
                credit += c.needs; // now in the loop's credit, for the frames or the read it waits for
            }
            paused.poll();
            c.paused = false;
            c.readNanos = System.nanoTime();
            c.lastProgress = c.readNanos;
            current = c;
            if (c.eof) {
                end(c);
            } else {
                c.framer.drain(this);
                interest(c);
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
        publish();
        if (!roundAcks.isEmpty()) {
            // What these connections sent is in the pipeline now: each is owed an acknowledgement.
            for (Conn c : roundAcks) {
                c.ackThisRound = false;
                if (!c.closed) {
                    c.acksOwed++;
                    try {
                        writeAcks(c);
                    } catch (IOException e) {
                        close(c);
                    }
                }
            }
            roundAcks.clear();
        }
        if (credit > chunk) {
            budget.release(credit - chunk);
            credit = chunk;
        }
        if (sweepNanos > 0) {
            long now = System.nanoTime();
            if (now - nextSweep >= 0) {
                nextSweep = now + sweepNanos / 4;
                sweep(now);
            }
        }
    }

    /** Closes connections that completed no message (or no TLS handshake) in time, counted as timeouts. */
    private void sweep(long now) {
        for (SelectionKey k : selector.keys()) {
            if (k.attachment() instanceof Conn c && !c.paused && !c.eof && !c.closed) {
                boolean handshaking = c.tls != null && !c.tls.established();
                long limit = handshaking ? handshakeNanos : idleNanos;
                if (limit > 0 && now - Math.max(c.lastProgress, unblockedAt) > limit) {
                    ctx.reject(Rejection.TIMEOUT, c.peer, handshaking ? handshakeDetail : idleDetail);
                    end(c);
                }
            }
        }
    }

    /** The peer left (or timed out): its last unfinished frame is passed on, then the connection is closed. */
    private void end(Conn c) {
        c.eof = true;
        current = c;
        try {
            if (c.paused || !c.framer.finish(this)) {
                interest(c);
                return; // paused for memory: resume() finishes it
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close(c);
    }

    private void writeAcks(Conn c) throws IOException {
        while (c.acksOwed > 0) {
            if (c.ack == null) {
                c.ack = ByteBuffer.wrap(s.acknowledge);
            }
            if (c.tls != null) {
                if (!c.tls.write(c.ch, c.ack)) {
                    break; // earlier ciphertext still waits for the socket
                }
            } else {
                c.ch.write(c.ack);
                if (c.ack.hasRemaining()) {
                    break;
                }
            }
            c.ack.clear();
            c.acksOwed--;
        }
        interest(c);
    }

    private void close(Conn c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        if (c.tls != null) {
            c.tls.closeOutbound(c.ch);
            reclaimTls(c, true);
        }
        c.key.cancel();
        SocketServer.closeQuietly(c.ch);
        dropOwn(c);
        open--;
        ctx.stats().addConnections(-1);
        server.truncated.addAndGet(c.framer.truncated());
        server.badHeaders.addAndGet(c.framer.badHeaders());
        server.unterminated.addAndGet(c.framer.unterminated());
    }

    /**
     * Stopping: every connection's frames, finished or not, are passed on (charged when published, which may
     * wait), then everything is closed.
     */
    private void shutdown() {
        draining = true;
        try {
            for (SelectionKey k : selector.keys()) {
                if (k.attachment() instanceof Conn c && !c.closed) {
                    current = c;
                    try {
                        c.framer.finish(this);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    close(c);
                }
            }
            publish();
        } catch (Throwable e) {
            if (failure == null && !server.stopped) {
                failure = e;
            }
        } finally {
            server.lines.addAndGet(lines);
            lines = 0;
            if (parser != null) {
                server.syslogErrors.addAndGet(parser.errors());
            }
            server.closeListener();
            try {
                selector.close();
            } catch (IOException ignored) {
                // Closing.
            }
            if (batch != null) {
                batch.fail(); // interrupted while stopping: back to the pool, and its memory to the budget
                batch = null;
            }
            if (tlsPool != null) {
                credit += tlsPool.pooledBytes(); // pooled TLS buffers stayed reserved until now
            }
            budget.release(credit + batchBytes);
            credit = 0;
            batchBytes = 0;
        }
    }

    private static String remote(SocketChannel ch) {
        try {
            String a = String.valueOf(ch.getRemoteAddress());
            return a.isEmpty() ? "unix socket peer" : a;
        } catch (IOException e) {
            return "?";
        }
    }
}
