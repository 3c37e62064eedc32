package io.sluice.hec.codec;

import io.sluice.core.message.GzipWriter;
import java.util.Arrays;

/**
 * Cuts an encoder's events into requests of at most {@code MaxContentLength} bytes as sent: plain requests are
 * slices of the event buffer (no copy), gzip requests are compressed into a second reused buffer with sync flushes
 * that keep the compressed size provably under the limit. Also halves a request the collector refused as too
 * large (413). Events that cannot fit any request are marked failed in the {@link Events} table.
 */
final class RequestPlanner {
    /** Feed the deflater in slices of this size, so that JNI calls are per 64 KiB, not per event. */
    private static final int FEED_SLICE = 64 * 1024;

    private final HecFormat format;
    private final Events ev;
    private final ByteOut zipped;
    private final GzipWriter gzip;
    /** The events' bytes, as of the last {@link #plan}. */
    private ByteOut raw;

    // Requests: event range and where their bytes are.
    private int requests;
    private int[] reqFirstEv = new int[64];
    private int[] reqEndEv = new int[64];
    private int[] reqOff = new int[64];
    private int[] reqLen = new int[64];

    RequestPlanner(HecFormat format, Events ev) {
        this.format = format;
        this.ev = ev;
        this.gzip = format.gzip ? new GzipWriter(format.gzipLevel) : null;
        this.zipped = format.gzip ? new ByteOut(64 * 1024) : null;
    }

    /** Forgets the requests planned. */
    void clear() {
        requests = 0;
    }

    /** Cuts the events written into {@code raw} into requests that each fit {@code MaxContentLength} as sent. */
    void plan(ByteOut raw) {
        this.raw = raw;
        requests = 0;
        if (zipped != null) {
            zipped.clear();
            planGzip();
        } else {
            planPlain();
        }
    }

    private void planPlain() {
        int max = format.maxContentLength;
        int[] evEnd = ev.end;
        int events = ev.count;
        int first = 0;
        for (int e = 0; e < events; e++) {
            if (evEnd[e] - ev.start(first) > max) {
                if (e > first) {
                    addRequest(first, e, ev.start(first), ev.start(e) - ev.start(first));
                }
                first = e;
                if (evEnd[e] - ev.start(e) > max) {
                    ev.failEvent(e, 0, -1, "event of " + (evEnd[e] - ev.start(e)) + " bytes exceeds MaxContentLength ("
                            + max + ")");
                    first = e + 1;
                }
            }
        }
        if (first < events) {
            addRequest(first, events, ev.start(first), evEnd[events - 1] - ev.start(first));
        }
    }

    /**
     * Greedy gzip packing with a guaranteed bound: an event is added while the exact compressed size after the
     * last sync flush plus the worst-case size of everything fed since stays under the limit; when it would not,
     * a sync flush makes the size exact again, and only if it still does not fit does the request end.
     */
    private void planGzip() {
        int max = format.maxContentLength - 8; // room for the trailer
        ByteOut out = zipped;
        byte[] src = raw.array();
        int[] evEnd = ev.end;
        int events = ev.count;
        int e = 0;
        while (e < events) {
            int reqStart = out.length();
            int first = e;
            gzip.begin(out);
            int fedTo = ev.start(e);
            int pending = 0;
            for (; e < events; e++) {
                int len = evEnd[e] - ev.start(e);
                if (out.length() - reqStart + GzipWriter.bound(pending + len) > max) {
                    if (pending > 0) {
                        gzip.feed(out, src, fedTo, ev.start(e) - fedTo);
                        fedTo = ev.start(e);
                        gzip.syncFlush(out);
                        pending = 0;
                    }
                    if (out.length() - reqStart + GzipWriter.bound(len) > max) {
                        if (e > first) {
                            break; // the request is full
                        }
                        // Alone in its request and maybe too big even compressed: try it.
                        gzip.feed(out, src, ev.start(e), len);
                        gzip.finish(out);
                        if (out.length() - reqStart <= format.maxContentLength) {
                            addRequest(e, e + 1, reqStart, out.length() - reqStart);
                        } else {
                            out.setLength(reqStart);
                            ev.failEvent(e, 0, -1, "event of " + len + " bytes exceeds MaxContentLength ("
                                    + format.maxContentLength + ") even compressed");
                        }
                        e++;
                        first = -1;
                        break;
                    }
                }
                pending += len;
                if (evEnd[e] - fedTo >= FEED_SLICE) {
                    gzip.feed(out, src, fedTo, evEnd[e] - fedTo);
                    fedTo = evEnd[e];
                }
            }
            if (first >= 0 && e > first) {
                gzip.feed(out, src, fedTo, evEnd[e - 1] - fedTo);
                gzip.finish(out);
                addRequest(first, e, reqStart, out.length() - reqStart);
            } else if (first >= 0) {
                out.setLength(reqStart);
            }
        }
    }

    /** Compresses (or slices) events {@code [first, end)} as one request, ignoring the size limit. */
    private void buildRequest(int first, int end) {
        int from = ev.start(first);
        int len = ev.end[end - 1] - from;
        if (zipped == null) {
            addRequest(first, end, from, len);
            return;
        }
        int reqStart = zipped.length();
        gzip.begin(zipped);
        gzip.feed(zipped, raw.array(), from, len);
        gzip.finish(zipped);
        addRequest(first, end, reqStart, zipped.length() - reqStart);
    }

    /** See {@link HecEncoder#split}. */
    int split(int r) {
        int first = reqFirstEv[r];
        int end = reqEndEv[r];
        if (end - first < 2) {
            return -1;
        }
        int mid = (first + end) >>> 1;
        int at = requests;
        buildRequest(first, mid);
        buildRequest(mid, end);
        return at;
    }

    private void addRequest(int first, int end, int off, int len) {
        if (requests == reqFirstEv.length) {
            int cap = requests * 2;
            reqFirstEv = Arrays.copyOf(reqFirstEv, cap);
            reqEndEv = Arrays.copyOf(reqEndEv, cap);
            reqOff = Arrays.copyOf(reqOff, cap);
            reqLen = Arrays.copyOf(reqLen, cap);
        }
        reqFirstEv[requests] = first;
        reqEndEv[requests] = end;
        reqOff[requests] = off;
        reqLen[requests] = len;
        requests++;
    }

    /** Marks every message of request {@code r} failed (see {@link HecEncoder#failRequest}). */
    void failRequest(int r, int status, int code, String text) {
        for (int e = reqFirstEv[r]; e < reqEndEv[r]; e++) {
            ev.failEvent(e, status, code, text);
        }
    }

    int requests() {
        return requests;
    }

    /** The array of the compressed request bodies (when {@link #compressed()}). */
    byte[] zippedArray() {
        return zipped.array();
    }

    int offset(int r) {
        return reqOff[r];
    }

    int length(int r) {
        return reqLen[r];
    }

    int events(int r) {
        return reqEndEv[r] - reqFirstEv[r];
    }

    boolean compressed() {
        return zipped != null;
    }

    /** Frees the native deflater. */
    void close() {
        if (gzip != null) {
            gzip.close();
        }
    }
}
