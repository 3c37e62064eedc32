package io.sluice.core.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Metadata against a LinkedHashMap model: random sets, removals, renames, range sets, clears and copies over a
 * key space far wider than the 64 bits of the lookup filter, so keys share filter bits and removed keys leave
 * stale bits behind. After every step each key of the space must be found exactly when the model has it, with
 * the model's value, in the model's order.
 */
class MetadataTest {
    private static final int KEYS = 300;

    @Test
    void behavesLikeAnOrderedMapUnderRandomOperations() {
        SplittableRandom r = new SplittableRandom(7);
        List<String> space = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            // Lengths 1..40 exercise every branch of the word-at-a-time hash.
            String base = ("k" + i + "_").repeat(12);
            space.add(base.substring(0, 1 + r.nextInt(40)) + i);
        }
        Metadata md = new Metadata();
        Map<String, String> model = new LinkedHashMap<>();
        for (int step = 0; step < 20_000; step++) {
            String key = space.get(r.nextInt(KEYS));
            int op = r.nextInt(100);
            if (op < 45) {
                String v = "v" + step;
                md.setString(key, v);
                model.put(key, v);
            } else if (op < 65) {
                int i = md.indexOf(key);
                assertThat(i >= 0).isEqualTo(model.containsKey(key));
                if (i >= 0) {
                    md.remove(i);
                    model.remove(key);
                }
            } else if (op < 80) {
                renameInBoth(md, model, key, space.get(r.nextInt(KEYS)));
            } else if (op < 92) {
                Metadata.Key k = new Metadata.Key(key);
                byte[] v = ("r" + step).getBytes(StandardCharsets.UTF_8);
                int at = md.appendToArena(v, 0, v.length);
                md.setKeyRange(k, at, v.length, Metadata.STRING, false);
                model.put(key, "r" + step);
            } else if (op < 96) {
                Metadata copy = new Metadata();
                copy.setString("stale", "x");
                copy.copyFrom(md);
                md = copy;
            } else if (op < 97) {
                md.clear();
                model.clear();
            }
            if (step % 97 == 0 || op >= 92) {
                assertSame(md, model, space);
            }
        }
        assertSame(md, model, space);
    }

    private static void renameInBoth(Metadata md, Map<String, String> model, String from, String to) {
        int i = md.indexOf(from);
        assertThat(i >= 0).isEqualTo(model.containsKey(from));
        if (i < 0 || from.equals(to)) {
            return;
        }
        md.rename(i, new Metadata.Key(to));
        // The renamed field keeps its place; a field already named `to` is removed.
        Map<String, String> next = new LinkedHashMap<>();
        String value = model.get(from);
        for (Map.Entry<String, String> e : model.entrySet()) {
            if (e.getKey().equals(to)) {
                continue;
            }
            next.put(e.getKey().equals(from) ? to : e.getKey(), e.getKey().equals(from) ? value : e.getValue());
        }
        model.clear();
        model.putAll(next);
    }

    private static void assertSame(Metadata md, Map<String, String> model, List<String> space) {
        assertThat(md.size()).isEqualTo(model.size());
        List<String> keys = new ArrayList<>(model.keySet());
        for (int i = 0; i < md.size(); i++) {
            assertThat(md.key(i)).isEqualTo(keys.get(i));
            assertThat(md.value(i)).isEqualTo(model.get(keys.get(i)));
        }
        for (String k : space) {
            int i = md.indexOf(k);
            int j = md.indexOf(new Metadata.Key(k));
            assertThat(i).as(k).isEqualTo(j);
            assertThat(i >= 0).as(k).isEqualTo(model.containsKey(k));
            if (i >= 0) {
                assertThat(md.value(i)).isEqualTo(model.get(k));
            }
        }
    }
}
