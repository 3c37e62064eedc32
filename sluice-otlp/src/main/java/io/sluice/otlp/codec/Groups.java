package io.sluice.otlp.codec;

import java.util.Arrays;

/**
 * Groups entries (a log record, a data point) by levels of identity: resource, then scope within the resource, then
 * (metrics) the metric within the scope. Entries with equal identity share a group wherever they are in the batch;
 * groups keep the order in which they first appear and entries their order within a group. Lookups go through an
 * open-addressing table of hashes, so a batch of many resources costs no more per entry than a batch of one.
 * Everything is held in int arrays reused from batch to batch.
 */
final class Groups {
    private final int levels;
    /** Tells entries apart at each level ({@link ExportEncoder#hash}, {@link ExportEncoder#same}). */
    private final ExportEncoder identity;
    // Entries: the message and field they come from, and the next entry of their group.
    private int entries;
    private int[] entryMessage = new int[64];
    private int[] entryField = new int[64];
    private int[] entryNext = new int[64];
    // Groups of all levels in one set of arrays: level, parent group, representative entry, hash, first and last child
    // (a group of the next level, or an entry at the last level), next sibling.
    private int groups;
    private int[] level = new int[16];
    private int[] parent = new int[16];
    private int[] rep = new int[16];
    private int[] hash = new int[16];
    private int[] first = new int[16];
    private int[] last = new int[16];
    private int[] sibling = new int[16];
    private int roots = -1;
    private int lastRoot = -1;
    private int[] table = new int[64];

    Groups(int levels, ExportEncoder identity) {
        this.levels = levels;
        this.identity = identity;
    }

    /** Forgets every entry and group, keeping the storage. */
    void clear() {
        entries = 0;
        groups = 0;
        roots = -1;
        lastRoot = -1;
        Arrays.fill(table, 0);
    }

    int entries() {
        return entries;
    }

    int message(int e) {
        return entryMessage[e];
    }

    int field(int e) {
        return entryField[e];
    }

    /** Adds an entry for field {@code field} (or -1) of message {@code message} to its groups. */
    void add(int message, int field) {
        int e = entries++;
        if (e == entryMessage.length) {
            int n = e * 2;
            entryMessage = Arrays.copyOf(entryMessage, n);
            entryField = Arrays.copyOf(entryField, n);
            entryNext = Arrays.copyOf(entryNext, n);
        }
        entryMessage[e] = message;
        entryField[e] = field;
        entryNext[e] = -1;
        int g = -1;
        for (int l = 0; l < levels; l++) {
            g = find(l, g, e);
        }
        if (first[g] < 0) {
            first[g] = e;
        } else {
            entryNext[last[g]] = e;
        }
        last[g] = e;
    }

    /** The first group of level 0, or -1. */
    int firstRoot() {
        return roots;
    }

    /** The next group of the same parent, or -1. */
    int next(int g) {
        return sibling[g];
    }

    /** The first child of group {@code g}: a group of the next level, or at the last level an entry; -1 if none. */
    int firstChild(int g) {
        return first[g];
    }

    /** The next entry of the same group, or -1. */
    int nextEntry(int e) {
        return entryNext[e];
    }

    /** The entry whose message represents group {@code g} (its first). */
    int representative(int g) {
        return rep[g];
    }

    private int find(int l, int parentGroup, int e) {
        int h = identity.hash(l, e) * 31 + parentGroup;
        int mask = table.length - 1;
        for (int slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
            int g = table[slot] - 1;
            if (g < 0) {
                g = create(l, parentGroup, e, h);
                table[slot] = g + 1;
                if (groups * 2 > table.length) {
                    rehash();
                }
                return g;
            }
            if (hash[g] == h && level[g] == l && parent[g] == parentGroup && identity.same(l, rep[g], e)) {
                return g;
            }
        }
    }

    private int create(int l, int parentGroup, int e, int h) {
        int g = groups++;
        if (g == level.length) {
            int n = g * 2;
            level = Arrays.copyOf(level, n);
            parent = Arrays.copyOf(parent, n);
            rep = Arrays.copyOf(rep, n);
            hash = Arrays.copyOf(hash, n);
            first = Arrays.copyOf(first, n);
            last = Arrays.copyOf(last, n);
            sibling = Arrays.copyOf(sibling, n);
        }
        level[g] = l;
        parent[g] = parentGroup;
        rep[g] = e;
        hash[g] = h;
        first[g] = -1;
        last[g] = -1;
        sibling[g] = -1;
        if (parentGroup < 0) {
            if (roots < 0) {
                roots = g;
            } else {
                sibling[lastRoot] = g;
            }
            lastRoot = g;
        } else if (first[parentGroup] < 0) {
            first[parentGroup] = g;
            last[parentGroup] = g;
        } else {
            sibling[last[parentGroup]] = g;
            last[parentGroup] = g;
        }
        return g;
    }

    private void rehash() {
        table = new int[table.length * 2];
        int mask = table.length - 1;
        for (int g = 0; g < groups; g++) {
            int slot = mix(hash[g]) & mask;
            while (table[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            table[slot] = g + 1;
        }
    }

    private static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
