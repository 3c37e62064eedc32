package io.sluice.otlp.consumer;

import io.netty.buffer.ByteBuf;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.RequestMemory;

/**
 * One export request being received, whichever transport it came on: its signal and encoding, and its body in a
 * buffer reserved from the memory budget before a byte of it is copied. Used by one event loop at a time.
 */
final class Export {
    /** A body of unknown length (chunked HTTP) starts with this much and doubles. */
    static final int CHUNKED_INITIAL = 16 * 1024;

    final Signal signal;
    final boolean json;
    final boolean gzip;
    final int max;
    final RequestMemory memory;
    byte[] body;
    int length;
    /** Bytes reserved for {@link #body}: its announced length (a pooled buffer may be longer), or its capacity. */
    private long charged;

    Export(Signal signal, boolean json, boolean gzip, int max, MemoryBudget budget) {
        this.signal = signal;
        this.json = json;
        this.gzip = gzip;
        this.max = max;
        this.memory = new RequestMemory(budget);
    }

    /**
     * Reserves and allocates a body of exactly {@code n} bytes (a Content-Length, a gRPC message length).
     *
     * @return null, or the refusal: over {@code MaxRequestSize} or the whole budget (too large), budget spent (busy)
     */
    Outcome expect(long n) {
        if (n > max) {
            return Outcome.refuse(Outcome.Code.TOO_LARGE, "the request is " + n + " bytes, over MaxRequestSize (" + max + ")");
        }
        if (!memory.take(n)) {
            return Outcome.refuse(Outcome.Code.of(memory.refusal()), memory.detail());
        }
        body = BodyBuffers.take((int) n);
        charged = n;
        return null;
    }

    /**
     * Copies {@code n} readable bytes of {@code b} into the body, growing it (reserving first) when its length was
     * not announced.
     *
     * @return null, or the refusal
     */
    Outcome append(ByteBuf b, int n) {
        long need = (long) length + n;
        if (need > max) {
            return Outcome.refuse(Outcome.Code.TOO_LARGE, "the request is over MaxRequestSize (" + max + ")");
        }
        if (body == null || need > body.length) {
            long cap = Math.min(max, Math.max(need, body == null ? CHUNKED_INITIAL : body.length * 2L));
            long old = body == null ? 0 : body.length;
            // the new buffer, and the old one while it is copied
            if (!memory.take(cap)) {
                return Outcome.refuse(Outcome.Code.of(memory.refusal()), memory.detail());
            }
            byte[] grown = new byte[(int) cap];
            if (body != null) {
                System.arraycopy(body, 0, grown, 0, length);
            }
            body = grown;
            charged = cap;
            memory.give(old);
        }
        b.getBytes(b.readerIndex(), body, length, n);
        length += n;
        return null;
    }

    /** Bytes reserved for the body buffer (given back once it is decoded). */
    long bodyCharge() {
        return body == null ? 0 : charged;
    }

    /**
     * The body was read (decoded, or inflated): its buffer goes back to this event loop's {@link BodyBuffers} and its
     * reservation to the budget. On the event loop that received it.
     */
    void bodyDone() {
        memory.give(bodyCharge());
        BodyBuffers.give(body);
        body = null;
        charged = 0;
    }

    /** Drops the body and everything reserved: the request was refused or is done. */
    void release() {
        BodyBuffers.give(body);
        body = null;
        charged = 0;
        length = 0;
        memory.releaseAll();
    }
}
