package io.sluice.otlp.codec;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.util.Arrays;

/**
 * The {@link MessageKeys#category} of every field of every message of a batch, worked out once per encoding:
 * grouping and writing look at each field half a dozen times (a hash and a comparison per level, then the record),
 * and deciding a key's category was 40% of encoding before it was kept here. One flat int array, reused.
 */
final class Categories {
    private int[] cats = new int[1024];
    private int[] base = new int[64];
    private int used;

    /** Forgets the last batch; message indexes up to {@code messages} may follow. */
    void reset(int messages) {
        if (base.length < messages) {
            base = new int[Math.max(messages, base.length * 2)];
        }
        used = 0;
    }

    /** Works out the categories of message {@code index}'s fields. */
    void add(int index, Message m) {
        base[index] = used;
        if (!m.hasMetadata()) {
            return;
        }
        Metadata md = m.metadata();
        int n = md.size();
        if (used + n > cats.length) {
            cats = Arrays.copyOf(cats, Math.max(used + n, cats.length * 2));
        }
        for (int i = 0; i < n; i++) {
            cats[used++] = MessageKeys.category(md, i);
        }
    }

    /** Where message {@code index}'s categories start: field {@code i}'s is {@code at(base(index) + i)}. */
    int base(int index) {
        return base[index];
    }

    int at(int position) {
        return cats[position];
    }
}
