package io.sluice.core.config;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/** "Did you mean" for misspelt keys and types, by edit distance. */
public final class Suggest {
    private Suggest() {
    }

    /** " (did you mean 'X'?)" when a candidate is close enough, else "". */
    public static String didYouMean(String wrong, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        String w = wrong.toLowerCase(Locale.ROOT);
        for (String c : candidates) {
            int d = distance(w, c.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        int allowed = Math.max(2, wrong.length() / 3);
        return best != null && bestDistance <= allowed ? " (did you mean '" + best + "'?)" : "";
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        Arrays.setAll(prev, j -> j);
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
