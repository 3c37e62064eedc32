package io.sluice.otlp.consumer;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Completion;
import io.sluice.core.message.GzipBody;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.Message;
import io.sluice.core.message.RequestMemory;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.otlp.codec.OtlpFormatException;
import io.sluice.otlp.codec.RecordSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What both transports do with a received export request: inflate (bounded, reserved), count, reserve, decode into
 * batches, hand them to one publisher thread (a full pipeline never blocks an event loop) and answer once the
 * pipeline delivered them. Decoding runs on the request's event loop with that thread's decoders and inflater.
 *
 * <p>Memory: the body was reserved as it was received; gzip output is reserved as it is inflated; before decoding,
 * the copies the messages make (at most the input's length) and {@link MemoryBudget#MESSAGE_OVERHEAD} per
 * counted record are reserved; the body's own reservation goes back once decoded, and the messages' share travels
 * with the batches until they are delivered.
 */
final class Ingest {
    private final ConsumerContext ctx;
    private final Log log;
    private final String id;
    private final int maxPending;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger unanswered = new AtomicInteger();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong requestsOk;
    private final ExecutorService publisher;
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
        this.publisher = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "otlp-publish-" + id);
            t.setDaemon(true);
            return t;
        });
    }

    /** Null while requests may come in, else why they are refused as busy now (MaxPendingRecords reached). */
    String busy() {
        int p = pending.get();
        return p >= maxPending ? "MaxPendingRecords (" + maxPending + ") records accepted and not yet delivered" : null;
    }

    /** Records accepted and not yet delivered. */
    int pending() {
        return pending.get();
    }

    /** Records accepted so far. */
    long received() {
        return received.get();
    }

    /** Requests handed to the pipeline and not answered yet. */
    int unanswered() {
        return unanswered.get();
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
            byte[] data = e.body;
            int len = e.length;
            long inputCharge = e.bodyCharge();
            if (e.gzip) {
                GzipBody.Result r = st.gzip.inflate(data == null ? Wire.EMPTY : data, 0, len, e.max, mem);
                mem.give(inputCharge); // the compressed body is not needed any more
                e.body = null;
                switch (r) {
                    case TOO_LARGE:
                        return Outcome.refuse(Outcome.Code.TOO_LARGE, "the gzip body inflates beyond MaxRequestSize ("
                                + e.max + ")");
                    case REFUSED:
                        return Outcome.refuse(Outcome.Code.of(mem.refusal()), "inflating the gzip body: " + mem.detail());
                    case CORRUPT:
                        return Outcome.refuse(Outcome.Code.INVALID, "bad gzip body: " + st.gzip.error());
                    default:
                        break;
                }
                data = st.gzip.output();
                len = st.gzip.length();
                inputCharge = st.gzip.charged();
            }
            if (data == null) {
                data = Wire.EMPTY;
            }
            int count;
            try {
                count = Decoders.count(e.signal, e.json, data, 0, len);
            } catch (OtlpFormatException x) {
                return Outcome.refuse(Outcome.Code.INVALID, x.getMessage());
            }
            if (count < 0) {
                return Outcome.refuse(Outcome.Code.INVALID, "malformed " + (e.json ? "JSON" : "protobuf") + " request");
            }
            int p = pending.get();
            if (p > 0 && (long) p + count > maxPending) {
                return Outcome.refuse(Outcome.Code.BUSY, "the request's " + count + " " + e.signal.items
                        + " would exceed MaxPendingRecords (" + maxPending + "), " + p + " pending");
            }
            // what the messages will hold: copies of (at most) the input, and each one's overhead
            long perRecord = MemoryBudget.MESSAGE_OVERHEAD;
            if (!mem.take(len + (long) count * perRecord)) {
                return Outcome.refuse(Outcome.Code.of(mem.refusal()), mem.detail());
            }
            sink.start();
            int n;
            try {
                n = st.decoders.decode(e.signal, e.json, data, 0, len, sink);
            } catch (OtlpFormatException x) {
                return Outcome.refuse(Outcome.Code.INVALID, x.getMessage());
            }
            mem.give(inputCharge); // decoded: the input buffer's reservation goes back
            e.body = null;
            n = sink.count();
            long rejected = Math.max(0, count - n);
            String why = rejected == 0 ? "" : rejected + " " + e.signal.items + " could not be decoded";
            if (n == 0) {
                return new Outcome(Outcome.Code.OK, rejected, why);
            }
            mem.give(mem.reserved() - Math.min(mem.reserved(), len + (long) n * perRecord));
            List<Batch> batches = sink.handOff();
            Done done = new Done(n, new Outcome(Outcome.Code.OK, rejected, why), loop, reply);
            done.holdMemory(mem.budget(), mem.handOff());
            for (int i = 0; i < batches.size(); i++) {
                if (i > 0) {
                    done.retain();
                }
                batches.get(i).setCompletion(done);
            }
            handedOff = true;
            pending.addAndGet(n);
            unanswered.incrementAndGet();
            received.addAndGet(n);
            try {
                publisher.execute(() -> publish(batches, done));
            } catch (RejectedExecutionException x) {
                for (Batch b : batches) {
                    b.fail(); // stopped: the request fails (busy), its memory goes back
                }
            }
            return null;
        } finally {
            if (!handedOff) {
                sink.releaseAll();
                e.release();
            }
            st.gzip.done();
        }
    }

    /**
     * On the publisher thread. A failure fails the request (busy), never the thread; batches not yet handed to the
     * pipeline are failed (their memory goes back), the one whose publish threw is the pipeline's.
     */
    private void publish(List<Batch> batches, Done done) {
        int i = 0;
        try {
            for (; i < batches.size(); i++) {
                ctx.publish(batches.get(i));
            }
        } catch (Throwable t) {
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.limited(Log.ERROR, id + ": publish failed", id + ": publishing an export request failed; answered busy: " + t);
            for (int j = i + 1; j < batches.size(); j++) {
                batches.get(j).fail();
            }
            done.abandon();
        }
    }

    /** Stops the publisher after the records accepted were handed on (waits up to {@code millis}). */
    void stop(long millis) {
        publisher.shutdown();
        try {
            publisher.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    /** The records of one request: collected in pool batches, nothing published until all of it decoded. */
    private final class Sink implements RecordSink {
        private final List<Batch> filled = new ArrayList<>(4);
        private Batch current;
        private int count;

        void start() {
            releaseAll();
        }

        @Override
        public Message next() {
            if (current == null || current.isFull()) {
                current = ctx.newBatch();
                filled.add(current);
            }
            count++;
            return current.add();
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
            count = 0;
        }
    }

    /** Answers a request once every batch of it was delivered (success), or once any failed (busy). */
    private final class Done extends Completion {
        private final int records;
        private final Outcome success;
        private final EventExecutor loop;
        private final Consumer<Outcome> reply;
        private final AtomicBoolean finished = new AtomicBoolean();

        Done(int records, Outcome success, EventExecutor loop, Consumer<Outcome> reply) {
            this.records = records;
            this.success = success;
            this.loop = loop;
            this.reply = reply;
        }

        @Override
        protected void onComplete() {
            finish(true);
        }

        @Override
        protected void onFailed() {
            finish(false);
        }

        void abandon() {
            fail();
            finish(false);
        }

        /** On the thread that released the last batch (a producer's): nothing may escape into it. */
        private void finish(boolean delivered) {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            pending.addAndGet(-records);
            Outcome o = delivered ? success : Outcome.refuse(Outcome.Code.BUSY,
                    "the pipeline did not deliver the request's " + records + " records; send them again");
            if (!delivered) {
                log.limited(Log.WARNING, id + ": not delivered", id + ": " + records
                        + " records were not delivered; answered busy");
            }
            try {
                loop.execute(() -> {
                    try {
                        reply.accept(o);
                    } finally {
                        unanswered.decrementAndGet();
                    }
                });
            } catch (Throwable t) {
                unanswered.decrementAndGet(); // the event loop is gone: nobody left to answer
            }
        }
    }
}
