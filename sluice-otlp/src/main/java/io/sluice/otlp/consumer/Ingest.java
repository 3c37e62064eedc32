package io.sluice.otlp.consumer;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.core.message.AnswerOnce;
import io.sluice.core.message.Batch;
import io.sluice.core.message.GzipBody;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.message.RequestMemory;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.RequestPublisher;
import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.RecordSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What both transports do with a received export request: inflate (bounded, reserved), count, reserve, decode into
 * batches, hand them to one publisher thread (a full pipeline never blocks an event loop) and answer once the
 * pipeline delivered them. Decoding runs on the request's event loop with that thread's decoders and inflater.
 *
 * <p>Memory: the body was reserved as it was received; gzip output is reserved as it is inflated; before decoding,
 * the input's length and {@link MemoryBudget#MESSAGE_OVERHEAD} per counted record are reserved, and while decoding
 * what the records really hold is measured and charged in steps past that (a resource's attributes are copied into
 * each of its records); the body's own reservation goes back once decoded, and the messages' share travels
 * with the batches until they are delivered.
 */
final class Ingest {
    private final ConsumerContext ctx;
    private final Log log;
    private final String id;
    private final int maxPending;
    private final AtomicLong requestsOk;
    private final RequestPublisher publisher;
    private final FastThreadLocal<State> state = new FastThreadLocal<>() {
        @Override
        protected State initialValue() {
            return new State();
        }

        @Override
        protected void onRemoval(State s) {
            s.gzip.close();
        }
    };

    /** One event loop's decoders, inflater and sink. */
    private final class State {
        final Decoders decoders = new Decoders();
        final GzipBody gzip = new GzipBody();
        final Sink sink = new Sink();
    }

    Ingest(ConsumerContext ctx, String id, int maxPending) {
        this.ctx = ctx;
        this.log = ctx.log();
        this.id = id;
        this.maxPending = maxPending;
        this.requestsOk = ctx.stats().counter("sluice_otlp_requests_total",
                "OTLP export requests answered with success (the pipeline took every record).");
        this.publisher = new RequestPublisher(ctx, id, "otlp-publish-", "an export request failed; answered busy");
    }

    /** Null while requests may come in, else why they are refused as busy now (MaxPendingRecords reached). */
    String busy() {
        int p = publisher.pending();
        return p >= maxPending ? "MaxPendingRecords (" + maxPending + ") records accepted and not yet delivered" : null;
    }

    /** The publisher thread and its counts of pending records and unanswered requests. */
    RequestPublisher publisher() {
        return publisher;
    }

    /** Counts a request answered with success. */
    void answeredOk() {
        requestsOk.incrementAndGet();
    }

    /**
     * Decodes and publishes {@code e}, on the event loop {@code loop}. Returns the answer now (a refusal, an empty
     * request), or null when {@code reply} will get it on {@code loop} once the pipeline is done with the records.
     * Whatever {@code e} holds is released or handed on here.
     */
    Outcome run(Export e, EventExecutor loop, Consumer<Outcome> reply) {
        State st = state.get();
        Sink sink = st.sink;
        RequestMemory mem = e.memory;
        boolean handedOff = false;
        try {
            Outcome refused = e.gzip ? inflate(e, st) : null;
            if (refused != null) {
                return refused;
            }
            byte[] data = e.gzip ? st.gzip.output() : e.body == null ? Wire.EMPTY : e.body;
            int len = e.gzip ? st.gzip.length() : e.length;
            long inputCharge = e.gzip ? st.gzip.charged() : e.bodyCharge();
            int count;
            try {
                count = Decoders.count(e.signal, e.json, data, 0, len);
            } catch (OtlpFormatException x) {
                return Outcome.refuse(Outcome.Code.INVALID, x.getMessage());
            }
            refused = reserve(e, len, count);
            if (refused != null) {
                return refused;
            }
            sink.start(mem, len + (long) count * MemoryBudget.MESSAGE_OVERHEAD);
            try {
                st.decoders.decode(e.signal, e.json, data, 0, len, sink);
                sink.measureLast();
            } catch (OtlpFormatException x) {
                return Outcome.refuse(Outcome.Code.INVALID, x.getMessage());
            } catch (OverBudget x) {
                return Outcome.refuse(Outcome.Code.of(mem.refusal()), "decoded, the request's " + e.signal.items
                        + " hold more than reserved: " + mem.detail());
            }
            if (e.gzip) {
                mem.give(inputCharge); // decoded: the inflated buffer's reservation goes back
            } else {
                e.bodyDone(); // decoded: the body's buffer and reservation go back
            }
            int n = sink.count();
            long rejected = Math.max(0, count - n);
            Outcome success = new Outcome(Outcome.Code.OK, rejected,
                    rejected == 0 ? "" : rejected + " " + e.signal.items + " could not be decoded");
            if (n == 0) {
                return success;
            }
            // what the messages hold, as measured, travels with them; the rest of the reservation goes back
            mem.give(mem.reserved() - Math.min(mem.reserved(), sink.held()));
            handedOff = true;
            handOn(sink.handOff(), new Done(n, success, loop, reply), mem);
            return null;
        } finally {
            if (!handedOff) {
                sink.releaseAll();
                e.release();
            }
            st.gzip.done();
        }
    }

    /** Inflates a gzip body into the thread's buffer (reserved as it grows); null, or the refusal. */
    private Outcome inflate(Export e, State st) {
        RequestMemory mem = e.memory;
        GzipBody.Result r = st.gzip.inflate(e.body == null ? Wire.EMPTY : e.body, 0, e.length, e.max, mem);
        e.bodyDone(); // the compressed body is not needed any more
        return switch (r) {
            case TOO_LARGE -> Outcome.refuse(Outcome.Code.TOO_LARGE, "the gzip body inflates beyond MaxRequestSize ("
                    + e.max + ")");
            case REFUSED -> Outcome.refuse(Outcome.Code.of(mem.refusal()), "inflating the gzip body: " + mem.detail());
            case CORRUPT -> Outcome.refuse(Outcome.Code.INVALID, "bad gzip body: " + st.gzip.error());
            default -> null;
        };
    }

    /**
     * Admits {@code count} records of {@code len} input bytes: refused busy when they would take the records waiting
     * past MaxPendingRecords, else their copies and per-record overhead are reserved. Null, or the refusal.
     */
    private Outcome reserve(Export e, int len, int count) {
        int p = publisher.pending();
        if (p > 0 && (long) p + count > maxPending) {
            return Outcome.refuse(Outcome.Code.BUSY, "the request's " + count + " " + e.signal.items
                    + " would exceed MaxPendingRecords (" + maxPending + "), " + p + " pending");
        }
        if (!e.memory.take(len + (long) count * MemoryBudget.MESSAGE_OVERHEAD)) {
            return Outcome.refuse(Outcome.Code.of(e.memory.refusal()), e.memory.detail());
        }
        return null;
    }

    /** Attaches {@code done} and the request's memory to the batches and queues them for the publisher. */
    private void handOn(List<Batch> batches, Done done, RequestMemory mem) {
        done.holdMemory(mem.budget(), mem.handOff());
        for (int i = 0; i < batches.size(); i++) {
            if (i > 0) {
                done.retain();
            }
            batches.get(i).setCompletion(done);
        }
        publisher.submit(batches, done, done.records); // once stopped, the request fails (busy), its memory goes back
    }

    /** Stops the publisher after the records accepted were handed on (waits up to {@code millis}). */
    void stop(long millis) {
        publisher.stop(millis);
    }

    /**
     * The budget would not hold what the records decoded so far really take: the decoding stops (thrown through the
     * decoder, which catches nothing but its own format errors) and the request is refused.
     */
    private static final class OverBudget extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OverBudget() {
            super(null, null, false, false);
        }
    }

    /** Charged to the budget this many bytes at a time beyond the first estimate: one budget operation per step. */
    private static final int CHARGE_STEP = 64 * 1024;

    /**
     * The records of one request: collected in pool batches, nothing published until all of it decoded. What each
     * record really holds (payload, metadata: a resource's attributes are copied into every record of it, numbers
     * and ids become text) is measured as the next one is asked for, and charged to the request's reservation when
     * it passes what was reserved up front: a small request with a large resource cannot take more than the budget.
     */
    private final class Sink implements RecordSink {
        private final List<Batch> filled = new ArrayList<>(4);
        private Batch current;
        private Message last;
        private int count;
        private RequestMemory memory;
        /** Bytes reserved for the records (first the estimate, then in steps), and what they hold as measured. */
        private long charged;
        private long held;

        void start(RequestMemory memory, long reserved) {
            releaseAll();
            this.memory = memory;
            this.charged = reserved;
            this.held = 0;
        }

        @Override
        public Message next() {
            measureLast();
            if (current == null || current.isFull()) {
                current = ctx.newBatch();
                filled.add(current);
            }
            count++;
            last = current.add();
            return last;
        }

        /** Charges what the record last handed out holds; call once more when the decoding is done. */
        void measureLast() {
            if (last == null) {
                return;
            }
            held += MemoryBudget.MESSAGE_OVERHEAD + last.length()
                    + (last.hasMetadata() ? last.metadata().usedBytes() : 0);
            last = null;
            if (held > charged) {
                long step = Math.max(CHARGE_STEP, held - charged);
                if (!memory.take(step)) {
                    throw new OverBudget();
                }
                charged += step;
            }
        }

        /** What the records hold, as measured. */
        long held() {
            return held;
        }

        int count() {
            return count;
        }

        /** The batches, which are the caller's now (non-empty ones only). */
        List<Batch> handOff() {
            List<Batch> out = new ArrayList<>(filled.size());
            for (Batch b : filled) {
                if (b.isEmpty()) {
                    b.release();
                } else {
                    out.add(b);
                }
            }
            filled.clear();
            current = null;
            last = null;
            count = 0;
            return out;
        }

        /** Returns every batch to its pool (a refused request). */
        void releaseAll() {
            for (Batch b : filled) {
                b.release();
            }
            filled.clear();
            current = null;
            last = null;
            count = 0;
        }
    }

    /** Answers a request once every batch of it was delivered (success), or once any failed (busy). */
    private final class Done extends AnswerOnce {
        private final int records;
        private final Outcome success;
        private final EventExecutor loop;
        private final Consumer<Outcome> reply;

        Done(int records, Outcome success, EventExecutor loop, Consumer<Outcome> reply) {
            this.records = records;
            this.success = success;
            this.loop = loop;
            this.reply = reply;
        }

        /** On the thread that released the last batch (a producer's): nothing may escape into it. */
        @Override
        protected void answer(boolean delivered) {
            publisher.finished(records);
            Outcome o = delivered ? success : Outcome.refuse(Outcome.Code.BUSY,
                    "the pipeline did not deliver the request's " + records + " records; send them again");
            // a failure is logged and counted (busy) where the answer is written
            try {
                loop.execute(() -> {
                    try {
                        reply.accept(o);
                    } finally {
                        publisher.answered();
                    }
                });
            } catch (Throwable t) {
                publisher.answered(); // the event loop is gone: nobody left to answer
            }
        }
    }
}
