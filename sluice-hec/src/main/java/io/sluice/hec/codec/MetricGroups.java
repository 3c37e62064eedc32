package io.sluice.hec.codec;

import io.sluice.core.message.Metadata;
import java.util.Arrays;

/**
 * Multi-metric bookkeeping for one {@link HecEncoder#encode()}: which metric event each event "prefix" (time,
 * host/source/sourcetype/index and dimensions: everything before the measurements) currently collects into, so
 * that measurements sharing a prefix merge wherever they are in the batch, as the OTel exporter merges data
 * points by time and dimensions. Prefixes are compared as the bytes the encoder wrote, found through an
 * open-addressing hash table.
 *
 * <p>Measurements that join an event which is no longer the last one written cannot be appended in place; they
 * are kept here as pieces (in {@link #extra}) chained per event, and the encoder splices them in with one copy
 * at the end. It also answers "does this event already hold this measurement name", so that two data points of
 * one series at one time go into two events rather than one event with a duplicate key (HEC keeps only one);
 * the names are indexed only once a second message joins an event, and keyed by hash: a collision only costs an
 * extra event, never a lost value. Every array is reused, so nothing is allocated per message once grown.
 */
final class MetricGroups {
    private static final long M1 = 0x9E3779B97F4A7C15L;

    /** Measurements waiting to be spliced into earlier events, back to back. */
    final ByteOut extra = new ByteOut(4096);

    // Groups: prefix (where the encoder wrote it), its hash, its current event.
    private int groups;
    private int[] table = new int[64]; // group + 1, 0 = empty
    private int mask;
    private int[] hash = new int[32];
    private int[] prefixOff = new int[32];
    private int[] prefixLen = new int[32];
    private int[] event = new int[32];

    // Per event (indexed like the encoder's events; only metric events are ever touched).
    private int[] lastMsg = new int[64];
    private int[] pieceHead = new int[64];
    private int[] pieceTail = new int[64];
    private int[] extraBytes = new int[64];
    private boolean[] namesIndexed = new boolean[64];
    private int pieces;
    private int[] pieceOff = new int[32];
    private int[] pieceLen = new int[32];
    private int[] pieceNext = new int[32];

    // Measurement names per event: (event, name hash) keys, valid when stamped with the current generation.
    private long[] nameKey = new long[64];
    private int[] nameGen = new int[64];
    private int generation;
    private int names;

    /** Forgets everything; room for {@code messages} messages' groups. */
    void clear(int messages) {
        groups = 0;
        pieces = 0;
        names = 0;
        extra.clear();
        int cap = Integer.highestOneBit(Math.max(32, messages) * 2 - 1) << 1;
        if (table.length < cap) {
            table = new int[cap];
        } else {
            Arrays.fill(table, 0, cap, 0);
        }
        mask = cap - 1;
        if (++generation == 0) { // wrapped: stale stamps could match again
            Arrays.fill(nameGen, 0);
            generation = 1;
        }
    }

    /** The group whose prefix equals {@code b[off, off+len)} (hash {@code h}), or -1. */
    int find(int h, byte[] b, int off, int len) {
        for (int slot = h & mask; ; slot = (slot + 1) & mask) {
            int g = table[slot] - 1;
            if (g < 0) {
                return -1;
            }
            if (hash[g] == h && prefixLen[g] == len
                    && Arrays.equals(b, off, off + len, b, prefixOff[g], prefixOff[g] + len)) {
                return g;
            }
        }
    }

    /** A new group for the prefix at {@code [off, off+len)} (hash {@code h}), collecting into event {@code e}. */
    void add(int h, int off, int len, int e) {
        if (groups == hash.length) {
            int cap = groups * 2;
            hash = Arrays.copyOf(hash, cap);
            prefixOff = Arrays.copyOf(prefixOff, cap);
            prefixLen = Arrays.copyOf(prefixLen, cap);
            event = Arrays.copyOf(event, cap);
        }
        int g = groups++;
        hash[g] = h;
        prefixOff[g] = off;
        prefixLen[g] = len;
        int slot = h & mask;
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = g + 1;
        setEvent(g, e);
    }

    /** Group {@code g} collects into event {@code e} from now on (a new event of the same prefix). */
    void setEvent(int g, int e) {
        event[g] = e;
    }

    /** The event group {@code g} currently collects into. */
    int event(int g) {
        return event[g];
    }

    // ------------------------------------------------------------------------------------------ events

    /** Event {@code e} was written with member node {@code mi} (the encoder's) as its only member so far. */
    void newEvent(int e, int mi) {
        if (e >= lastMsg.length) {
            int cap = Math.max(e + 1, lastMsg.length * 2);
            lastMsg = Arrays.copyOf(lastMsg, cap);
            pieceHead = Arrays.copyOf(pieceHead, cap);
            pieceTail = Arrays.copyOf(pieceTail, cap);
            extraBytes = Arrays.copyOf(extraBytes, cap);
            namesIndexed = Arrays.copyOf(namesIndexed, cap);
        }
        lastMsg[e] = mi;
        pieceHead[e] = -1;
        extraBytes[e] = 0;
        namesIndexed[e] = false;
    }

    /** The last member node merged into event {@code e}; the caller links the next one after it. */
    int lastMsg(int e) {
        return lastMsg[e];
    }

    void setLastMsg(int e, int mi) {
        lastMsg[e] = mi;
    }

    /** Bytes of measurements waiting to be spliced into event {@code e}. */
    int extraBytes(int e) {
        return extraBytes[e];
    }

    /** Whether any event has measurements waiting to be spliced in. */
    boolean hasPieces() {
        return pieces > 0;
    }

    /** Makes {@code extra[off, off+len)} a piece to splice into event {@code e}, after its earlier pieces. */
    void addPiece(int e, int off, int len) {
        if (pieces == pieceOff.length) {
            int cap = pieces * 2;
            pieceOff = Arrays.copyOf(pieceOff, cap);
            pieceLen = Arrays.copyOf(pieceLen, cap);
            pieceNext = Arrays.copyOf(pieceNext, cap);
        }
        int p = pieces++;
        pieceOff[p] = off;
        pieceLen[p] = len;
        pieceNext[p] = -1;
        if (pieceHead[e] < 0) {
            pieceHead[e] = p;
        } else {
            pieceNext[pieceTail[e]] = p;
        }
        pieceTail[e] = p;
        extraBytes[e] += len;
    }

    /** Appends event {@code e}'s pieces to {@code out}, in the order they came. */
    void writePieces(int e, ByteOut out) {
        byte[] src = extra.array();
        for (int p = pieceHead[e]; p >= 0; p = pieceNext[p]) {
            out.write(src, pieceOff[p], pieceLen[p]);
        }
    }

    // ------------------------------------------------------------------------------------------ names

    /** Whether event {@code e}'s names were indexed ({@link #addNames}); they are once a second message joins. */
    boolean namesIndexed(int e) {
        return namesIndexed[e];
    }

    /** Whether event {@code e} holds one of the measurement names of {@code md}. */
    boolean holdsName(int e, Metadata md) {
        for (int i = 0; i < md.size(); i++) {
            if (ReservedKeys.isMetric(md, i) && contains(key(e, md, i))) {
                return true;
            }
        }
        return false;
    }

    /** Records the measurement names of {@code md} as held by event {@code e}. */
    void addNames(int e, Metadata md) {
        namesIndexed[e] = true;
        for (int i = 0; i < md.size(); i++) {
            if (ReservedKeys.isMetric(md, i)) {
                insert(key(e, md, i));
            }
        }
    }

    /** Whether event {@code e} holds the measurement whose name hashes to {@code nameHash} (OTLP events). */
    boolean holdsName(int e, int nameHash) {
        return contains(((long) e << 32) | (nameHash & 0xFFFFFFFFL));
    }

    /**
     * Records one measurement name (by its hash) as held by event {@code e}, and its names as indexed: an OTLP
     * event's names are not in its message's metadata, so they are recorded as it is written.
     */
    void addName(int e, int nameHash) {
        namesIndexed[e] = true;
        insert(((long) e << 32) | (nameHash & 0xFFFFFFFFL));
    }

    private static long key(int e, Metadata md, int i) {
        return ((long) e << 32) | (Metadata.hash(md.arena(), md.keyOffset(i), md.keyLength(i)) & 0xFFFFFFFFL);
    }

    private static int slotOf(long k, int m) {
        long h = k * M1;
        return (int) (h ^ (h >>> 32)) & m;
    }

    private boolean contains(long k) {
        int m = nameKey.length - 1;
        for (int slot = slotOf(k, m); nameGen[slot] == generation; slot = (slot + 1) & m) {
            if (nameKey[slot] == k) {
                return true;
            }
        }
        return false;
    }

    private void insert(long k) {
        if ((names + 1) * 2 > nameKey.length) {
            growNames();
        }
        int m = nameKey.length - 1;
        int slot = slotOf(k, m);
        while (nameGen[slot] == generation) {
            if (nameKey[slot] == k) {
                return;
            }
            slot = (slot + 1) & m;
        }
        nameKey[slot] = k;
        nameGen[slot] = generation;
        names++;
    }

    private void growNames() {
        long[] oldKey = nameKey;
        int[] oldGen = nameGen;
        nameKey = new long[oldKey.length * 2];
        nameGen = new int[oldKey.length * 2];
        names = 0;
        for (int i = 0; i < oldKey.length; i++) {
            if (oldGen[i] == generation) {
                insert(oldKey[i]);
            }
        }
    }
}
