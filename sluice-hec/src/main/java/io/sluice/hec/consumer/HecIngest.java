package io.sluice.hec.consumer;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.core.message.AnswerOnce;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Clock;
import io.sluice.core.message.GzipBody;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.RequestMemory;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.RequestPublisher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What consumer.HEC does with a whole request body: inflate it, parse it into batches on the event loop (with the
 * thread's {@link EventLoopState}), hand them to one publisher thread (so a full pipeline never blocks an event loop)
 * and answer the request once the pipeline is done with every batch of it: the HEC "success only once taken" rule,
 * or with indexer acks the ack id at once, turning true on delivery. Counts the events waiting for delivery
 * ({@code MaxPendingEvents}) and the requests owed an answer.
 */
final class HecIngest {
    private final HecServer.Settings settings;
    private final Log log;
    private final MemoryBudget budget;
    private final RequestPublisher publisher;

    HecIngest(HecServer.Settings settings, ConsumerContext ctx) {
        this.settings = settings;
        this.log = ctx.log();
        this.budget = ctx.memory();
        this.publisher = new RequestPublisher(ctx, settings.id, "hec-publish-", "the events of a request failed; answered 503");
    }

    /** Events accepted and not yet taken by the pipeline. */
    int pending() {
        return publisher.pending();
    }

    /** The publisher thread and its counts of pending events and unanswered requests. */
    RequestPublisher publisher() {
        return publisher;
    }

    /** Lets the publisher finish what was accepted (for up to 5 s); later requests fail (503). */
    void stop() {
        publisher.stop(5000);
    }

    /**
     * Parses a whole request into batches and hands them to the publisher: null when the answer comes on delivery,
     * else the answer to write now (a refusal, or the ack id). Runs on the event loop; what the request holds
     * (buffers, batches, memory) is released here unless it was handed on, before any answer is written (the
     * next pipelined request reuses this thread's parser and buffers).
     */
    HecAnswer ingest(HecConnection conn, HecRequest q, EventLoopState st) {
        RequestMemory mem = q.memory;
        BatchCollector out = st.collector;
        out.releaseAll();
        boolean handedOff = false;
        try {
            byte[] data = q.body;
            int len = q.length;
            if (len == 0) {
                return HecAnswer.refuse(HecStatus.NO_DATA, "empty body");
            }
            long inputCharge = q.bodyCharged;
            if (q.gzip) {
                GzipBody.Result r = st.gzip.inflate(data, 0, len, settings.maxBodySize, mem);
                // the compressed body is not needed any more
                mem.give(q.bodyCharged);
                q.bodyCharged = 0;
                st.give(q.body);
                q.body = null;
                switch (r) {
                    case TOO_LARGE:
                        return HecAnswer.refuse(HecStatus.TOO_LARGE, "gzip body inflates beyond MaxBodySize ("
                                + settings.maxBodySize + ")");
                    case REFUSED:
                        return HecAnswer.refuse(HecStatus.of(mem.refusal()), "inflating the gzip body: " + mem.detail());
                    case CORRUPT:
                        return HecAnswer.refuse(HecStatus.INVALID_DATA_FORMAT, st.gzip.error());
                    default:
                        break;
                }
                data = st.gzip.output();
                len = st.gzip.length();
                if (len == 0) {
                    return HecAnswer.refuse(HecStatus.NO_DATA, "empty body after gzip");
                }
                inputCharge = st.gzip.charged();
                // the events copied from the inflated body (a plain body reserved this with itself)
                if (!mem.take(len)) {
                    return HecAnswer.refuse(HecStatus.of(mem.refusal()), mem.detail());
                }
            }
            TokenIndexes rules = q.indexRules;
            EventParser.Defaults dflt = defaults(q.uri, rules);
            byte[][] indexes = rules == null ? settings.indexes : rules.allowed;
            long perEvent = MemoryBudget.MESSAGE_OVERHEAD + (dflt == null ? 0 : dflt.bytesPerEvent());
            out.limit(mem, perEvent, settings.maxEventsPerRequest);
            long now = Clock.epochNanos();
            boolean ok = q.kind == HecRequest.RAW ? st.parser.parseRaw(data, 0, len, out, dflt, indexes, now)
                    : st.parser.parseEvents(data, 0, len, out, dflt, indexes, now);
            // the input is copied into the events: its buffer and reservation go back
            mem.give(inputCharge);
            if (!ok) {
                HecStatus s = st.parser.error();
                String detail = st.parser.detail();
                if (st.parser.invalidEvent() >= 0) {
                    detail = "event " + st.parser.invalidEvent() + (detail == null ? ": " + s.text() : ": " + detail);
                }
                return new HecAnswer(s, s.body(st.parser.invalidEvent()), s.rejection(), detail);
            }
            int n = out.count();
            if (n == 0) {
                return HecAnswer.refuse(HecStatus.NO_DATA, "no events in the body");
            }
            // What the events hold: their copies (at most the input) and their overhead; the rest goes back now.
            long hold = Math.min(mem.reserved(), (long) len + (long) n * perEvent);
            mem.give(mem.reserved() - hold);
            List<Batch> batches = new ArrayList<>(out.batches());
            AckChannels.Channel ackChannel = q.ackChannel;
            long ackId = ackChannel != null ? ackChannel.next() : -1;
            Done done = new Done(this, n, q.keepAlive, ackChannel, ackId, conn);
            done.holdMemory(budget, mem.handOff());
            for (int i = 0; i < batches.size(); i++) {
                if (i > 0) {
                    done.retain();
                }
                batches.get(i).setCompletion(done);
            }
            out.reset();
            handedOff = true;
            if (ackChannel == null) {
                conn.pauseReading();
            }
            publisher.submit(batches, done, n); // once stopped, the request fails (503), its memory goes back
            if (ackChannel != null) {
                // With indexer acks Splunk answers at once with the ack id; the id turns true on delivery.
                return new HecAnswer(HecStatus.SUCCESS, ("{\"text\":\"Success\",\"code\":0,\"ackId\":" + ackId + "}")
                        .getBytes(StandardCharsets.US_ASCII), null, null);
            }
            return null;
        } finally {
            if (!handedOff) {
                out.releaseAll();
            }
            q.release(st); // what was handed off is no longer the request's to release
            st.gzip.done();
        }
    }

    /**
     * A request's defaults: the query string's {@code host}, {@code source}, {@code sourcetype} and {@code index},
     * else the token's default index (an event's own fields come before both); null when there are none.
     */
    private static EventParser.Defaults defaults(QueryStringDecoder uri, TokenIndexes rules) {
        Map<String, List<String>> q = uri.parameters();
        if (q.isEmpty()) {
            return rules == null ? null : rules.defaults;
        }
        EventParser.Defaults d = new EventParser.Defaults();
        d.host = first(q, "host");
        d.source = first(q, "source");
        d.sourcetype = first(q, "sourcetype");
        d.index = first(q, "index");
        if (d.index == null && rules != null) {
            d.index = rules.defaults.index;
        }
        return d;
    }

    private static byte[] first(Map<String, List<String>> q, String key) {
        List<String> v = q.get(key);
        return v == null || v.isEmpty() ? null : v.get(0).getBytes(StandardCharsets.UTF_8);
    }

    /** The pipeline is done with a request's events: delivered (success) or not (503). Any thread; never throws. */
    private void finished(Done d, boolean delivered) {
        publisher.finished(d.events);
        if (d.ack != null && delivered) {
            d.ack.done(d.ackId);
        }
        HecConnection c = d.conn;
        if (!delivered) {
            log.limited(Log.WARNING, settings.id + ": not delivered", settings.id + ": " + d.events
                    + " events from " + c.peer() + " were not delivered; " + (d.ack == null ? "answered 503"
                    : "their ack stays false"));
        }
        c.delivered(delivered, d.ack == null, d.keepAlive, publisher);
    }

    /** Answers a request once every batch of it was delivered. */
    private static final class Done extends AnswerOnce {
        private final HecIngest ingest;
        private final int events;
        private final boolean keepAlive;
        private final AckChannels.Channel ack;
        private final long ackId;
        private final HecConnection conn;

        Done(HecIngest ingest, int events, boolean keepAlive, AckChannels.Channel ack, long ackId, HecConnection conn) {
            this.ingest = ingest;
            this.events = events;
            this.keepAlive = keepAlive;
            this.ack = ack;
            this.ackId = ackId;
            this.conn = conn;
        }

        /** Runs on the thread that released the last batch (a producer's): nothing may escape into it. */
        @Override
        protected void answer(boolean delivered) {
            try {
                ingest.finished(this, delivered);
            } catch (Throwable t) {
                ingest.log.limited(Log.ERROR, ingest.settings.id + ": answer failed",
                        ingest.settings.id + ": answering a request failed: " + t);
            }
        }
    }
}
