package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code format.Replace}: replaces every occurrence of Search with ReplaceWith, as Go's
 * {@code bytes.ReplaceAll} (an empty Search inserts ReplaceWith before every character and at the end).
 */
public final class Replace extends SimpleFormatter {
    public static final Param<String> SEARCH = Param.string("Search", "", "The string to search for.");
    public static final Param<String> REPLACE_WITH = Param.string("ReplaceWith", "",
            "The string every occurrence of Search is replaced with.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Replace",
            "Replaces all occurrences of a string with another.")
            .params(params(SEARCH, REPLACE_WITH))
            .factory(Replace::new);

    private final byte[] search;
    private final byte[] with;
    private byte[] scratch = new byte[256];

    public Replace(PluginConfig config) {
        super(config);
        this.search = config.get(SEARCH).getBytes(StandardCharsets.UTF_8);
        this.with = config.get(REPLACE_WITH).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        byte[] b = source.buf;
        int end = source.off + source.len;
        int w = 0;
        int from = source.off;
        if (search.length == 0) {
            w = put(w, with, 0, with.length);
            while (from < end) {
                int next = runeEnd(b, from, end);
                w = put(w, b, from, next - from);
                w = put(w, with, 0, with.length);
                from = next;
            }
        } else {
            for (int at; (at = Splitter.indexOf(b, from, end, search)) >= 0; from = at + search.length) {
                w = put(w, b, from, at - from);
                w = put(w, with, 0, with.length);
            }
            w = put(w, b, from, end - from);
        }
        target.write(m, scratch, 0, w, Metadata.STRING);
        return Result.CONTINUE;
    }

    private static int runeEnd(byte[] b, int from, int end) {
        int i = from + 1;
        while (i < end && (b[i] & 0xC0) == 0x80 && i - from < 4) {
            i++;
        }
        return i;
    }

    private int put(int at, byte[] src, int off, int len) {
        if (at + len > scratch.length) {
            scratch = Arrays.copyOf(scratch, Math.max(at + len, scratch.length * 2));
        }
        System.arraycopy(src, off, scratch, at, len);
        return at + len;
    }
}
