package io.sluice.hec.consumer;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.RequestMemory;

/**
 * One HEC request being received: what its head said, and its body in a buffer reserved from the memory budget
 * before anything is read into it (twice the body for a plain one: the body and the events copied from it; once
 * for gzip, whose output is reserved as it is inflated). Event loop only.
 */
final class HecRequest {
    static final int HEALTH = 0;
    static final int EVENT = 1;
    static final int RAW = 2;
    static final int ACK = 3;
    static final int OTHER = 4;

    /** Receiving into a reserved buffer. */
    static final int RECEIVE = 0;
    /** Refused (or not ingested): the body is read and dropped, the answer is sent once it ended. */
    static final int SKIP = 1;
    /** Answered early with Connection: close; what still comes is dropped until the connection closes. */
    static final int LINGER = 2;

    /** A chunked body's first buffer. */
    static final int CHUNKED_INITIAL = 16 * 1024;

    final HttpRequest head;
    final QueryStringDecoder uri;
    final boolean keepAlive;
    final RequestMemory memory;
    int kind = OTHER;
    int mode = RECEIVE;
    HecStatus answer;
    byte[] answerBody;
    AckChannels.Channel ackChannel;
    /** The index rules of the request's token, or null (no token has any, or this one has none). */
    TokenIndexes indexRules;
    boolean gzip;
    int max;
    /** Bytes reserved per body byte: 2 for a plain body (the body and the events copied from it), 1 for gzip. */
    int perByte = 1;
    byte[] body;
    int length;
    long bodyCharged;
    long skipped;

    HecRequest(HttpRequest head, MemoryBudget budget) {
        this.head = head;
        this.uri = new QueryStringDecoder(head.uri());
        this.keepAlive = HttpUtil.isKeepAlive(head);
        this.memory = new RequestMemory(budget);
    }

    /** Reserves an announced body of {@code cl} bytes and takes a buffer for it; false when the budget said no. */
    boolean reserve(long cl, EventLoopState st) {
        if (!memory.take(cl * perByte)) {
            return false;
        }
        bodyCharged = cl;
        body = st.take((int) cl);
        return true;
    }

    /**
     * Copies {@code n} bytes of the body into the buffer, growing it (and its reservation) first for a chunked body;
     * false, with nothing copied, when the budget refused the growth. The caller checked {@link #max}.
     */
    boolean append(ByteBuf b, int n, EventLoopState st) {
        long need = (long) length + n;
        if (body == null || need > body.length) {
            byte[] old = body;
            long cap = Math.min(max, Math.max(need, old == null ? CHUNKED_INITIAL : old.length * 2L));
            long oldLen = old == null ? 0 : old.length;
            // the new buffer (and the events it will become), plus the old one while it is copied
            if (!memory.take((cap - bodyCharged) * perByte + oldLen)) {
                return false;
            }
            byte[] grown = st.take((int) cap);
            if (old != null) {
                System.arraycopy(old, 0, grown, 0, length);
                st.give(old);
            }
            memory.give(oldLen);
            body = grown;
            bodyCharged = cap;
        }
        b.getBytes(b.readerIndex(), body, length, n);
        length += n;
        return true;
    }

    /** Returns the body buffer (to the thread's spares) and everything reserved. */
    void release(EventLoopState st) {
        if (body != null) {
            st.give(body);
            body = null;
        }
        bodyCharged = 0;
        memory.releaseAll();
    }
}
