package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code format.Flatten}: takes the nested object in the metadata field Source and sets one field per leaf,
 * named by joining the path with Separator: {@code tree: {a: {b: 1}}} gives {@code tree.a.b: 1}. Arrays are
 * leaves (kept as JSON), as in Gollum. The source field is kept; results go to the root, or below Target.
 * Objects nested deeper than {@value #MAX_DEPTH} levels are kept as JSON leaves.
 */
public final class Flatten extends SimpleFormatter {
    public static final Param<String> SEPARATOR = Param.string("Separator", ".", "Joins the keys of a path.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Flatten",
            "Moves all subkeys of a metadata tree to the root level, naming them by their path.")
            .params(params(SEPARATOR))
            .factory(Flatten::new);

    static final int MAX_DEPTH = 64;
    static final String NOT_AN_OBJECT = "flatten: source is not a JSON object";

    private final byte[] separator;
    private final byte[] prefix;
    private final Tree tree = new Tree();
    private final JsonScanner scanner = new JsonScanner();
    private final List<JsonFields> levels = new ArrayList<>();
    private byte[] key = new byte[128];
    private byte[] value = new byte[128];

    public Flatten(PluginConfig config) {
        super(config);
        if (source.isPayload()) {
            throw config.error(SOURCE, "must name a metadata field: Flatten works on a metadata tree");
        }
        this.separator = config.get(SEPARATOR).getBytes(StandardCharsets.UTF_8);
        byte[] src = source.name().getBytes(StandardCharsets.UTF_8);
        this.prefix = Arrays.copyOf(src, src.length + separator.length);
        System.arraycopy(separator, 0, prefix, src.length, separator.length);
    }

    @Override
    protected Result apply(Message m) {
        if (!source.read(m)) {
            return Result.CONTINUE;
        }
        byte[] b = source.buf;
        int start = source.off;
        int end = start + source.len;
        if (source.kind != Metadata.JSON || !scanner.scanObject(b, start, end, level(0))) {
            return FormatErrors.failed(m, NOT_AN_OBJECT);
        }
        Metadata out = tree.open(m, target);
        System.arraycopy(prefix, 0, ensureKey(prefix.length), 0, prefix.length);
        flatten(out, b, 0, prefix.length);
        tree.close(m, target);
        return Result.CONTINUE;
    }

    /** Sets a field per member of the object already scanned into level {@code depth}. */
    private void flatten(Metadata out, byte[] b, int depth, int keyLen) {
        JsonFields f = level(depth);
        for (int i = 0; i < f.size(); i++) {
            int kl = appendKey(b, f, i, keyLen);
            int vo = f.valueOffset(i);
            int vl = f.valueLength(i);
            if (f.kind(i) == JsonFields.OBJECT && depth + 1 < MAX_DEPTH && scanner.scanObject(b, vo, vo + vl, level(depth + 1))) {
                System.arraycopy(separator, 0, ensureKey(kl + separator.length), kl, separator.length);
                flatten(out, b, depth + 1, kl + separator.length);
            } else if (f.valueEscaped(i)) {
                int n = JsonStrings.unescape(b, vo, vl, ensureValue(vl), 0);
                out.set(key, 0, kl, value, 0, n, Metadata.STRING);
            } else {
                out.set(key, 0, kl, b, vo, vl, Kinds.toMetadata(f.kind(i)));
            }
        }
    }

    /** Appends member {@code i}'s (unescaped) key to the key buffer after {@code keyLen}; returns the new length. */
    private int appendKey(byte[] b, JsonFields f, int i, int keyLen) {
        int kl = f.keyLength(i);
        byte[] k = ensureKey(keyLen + kl);
        if (f.keyEscaped(i)) {
            return keyLen + JsonStrings.unescape(b, f.keyOffset(i), kl, k, keyLen);
        }
        System.arraycopy(b, f.keyOffset(i), k, keyLen, kl);
        return keyLen + kl;
    }

    private JsonFields level(int depth) {
        while (levels.size() <= depth) {
            levels.add(new JsonFields());
        }
        return levels.get(depth);
    }

    private byte[] ensureKey(int n) {
        if (key.length < n) {
            key = Arrays.copyOf(key, Math.max(n, key.length * 2));
        }
        return key;
    }

    private byte[] ensureValue(int n) {
        if (value.length < n) {
            value = new byte[Math.max(n, value.length * 2)];
        }
        return value;
    }
}
