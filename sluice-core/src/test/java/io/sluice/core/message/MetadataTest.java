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

    /**
     * addDecodedFields and setDecodedRange with a known hash and checkFrom give what setDecodedRange field by field
     * gives, for distinct keys some of which the metadata already holds (replaced in place: first place, last value).
     */
    @Test
    void bulkAndHashedAddsGiveWhatSetDecodedRangeGives() {
        SplittableRandom r = new SplittableRandom(3);
        for (int round = 0; round < 2000; round++) {
            Metadata plain = new Metadata();
            Metadata bulk = new Metadata();
            Metadata hashed = new Metadata();
            int before = r.nextInt(12);
            for (int i = 0; i < before; i++) {
                String key = "k" + r.nextInt(40);
                for (Metadata md : new Metadata[] {plain, bulk, hashed}) {
                    md.setString(key, "p" + i);
                }
            }
            // A block of distinct keys: "k<n>" for distinct n below 40, some of them in the prefix.
            List<Integer> ns = new ArrayList<>();
            for (int n = 0; n < 40; n++) {
                ns.add(n);
            }
            java.util.Collections.shuffle(ns, new java.util.Random(round));
            int n = r.nextInt(20);
            byte[] src = new byte[1024];
            int used = 3; // fields start past the beginning of src
            int[] table = new int[6 * n];
            for (int i = 0; i < n; i++) {
                byte[] k = ("k" + ns.get(i)).getBytes(StandardCharsets.UTF_8);
                byte[] v = ("v" + round + "." + i).getBytes(StandardCharsets.UTF_8);
                table[6 * i] = used - 3;
                table[6 * i + 1] = k.length;
                System.arraycopy(k, 0, src, used, k.length);
                used += k.length;
                table[6 * i + 2] = used - 3;
                table[6 * i + 3] = v.length;
                System.arraycopy(v, 0, src, used, v.length);
                used += v.length;
                table[6 * i + 4] = i % 2 == 0 ? Metadata.STRING : Metadata.JSON;
                table[6 * i + 5] = Metadata.hash(k, 0, k.length);
            }
            int base = plain.appendToArena(src, 3, used - 3);
            int hashedBase = hashed.appendToArena(src, 3, used - 3);
            int checkFrom = hashed.size();
            for (int i = 0; i < n; i++) {
                int o = 6 * i;
                plain.setDecodedRange(base + table[o], table[o + 1], base + table[o + 2], table[o + 3],
                        (byte) table[o + 4]);
                hashed.setDecodedRange(hashedBase + table[o], table[o + 1], table[o + 5], hashedBase + table[o + 2],
                        table[o + 3], (byte) table[o + 4], checkFrom);
            }
            bulk.addDecodedFields(src, 3, used - 3, table, n);
            for (Metadata md : new Metadata[] {bulk, hashed}) {
                assertThat(md.size()).isEqualTo(plain.size());
                for (int i = 0; i < plain.size(); i++) {
                    assertThat(md.key(i)).isEqualTo(plain.key(i));
                    assertThat(md.value(i)).isEqualTo(plain.value(i));
                    assertThat(md.kind(i)).isEqualTo(plain.kind(i));
                    assertThat(md.indexOf(plain.key(i))).isEqualTo(i);
                }
            }
        }
    }
}
