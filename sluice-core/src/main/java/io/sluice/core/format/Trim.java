package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;

/**
 * {@code format.Trim}: removes everything up to and including the first LeftSeparator and everything from the
 * last RightSeparator on, then LeftOffset more bytes on the left and RightOffset more on the right:
 * {@code foo[bar[foo]bar]foo} with {@code [} and {@code ]} becomes {@code bar[foo]bar}. An empty separator is
 * ignored. Unlike Gollum (which searched the payload for LeftSeparator even with ApplyTo, and skipped only
 * one byte of it) the separator is searched in the content and skipped whole; offsets past the ends clamp
 * instead of panicking.
 */
public final class Trim extends SimpleFormatter {
    public static final Param<String> LEFT_SEPARATOR = Param.string("LeftSeparator", "",
            "Everything up to and including its first occurrence is removed; ignored when empty.");
    public static final Param<String> RIGHT_SEPARATOR = Param.string("RightSeparator", "",
            "Everything from its last occurrence on is removed; ignored when empty.");
    public static final Param<Integer> LEFT_OFFSET = Param.integer("LeftOffset", 0,
            "Bytes removed on the left in addition (after LeftSeparator).");
    public static final Param<Integer> RIGHT_OFFSET = Param.integer("RightOffset", 0,
            "Bytes removed on the right in addition (before RightSeparator).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Trim",
            "Removes data left of a separator and right of another.")
            .params(params(LEFT_SEPARATOR, RIGHT_SEPARATOR, LEFT_OFFSET, RIGHT_OFFSET))
            .factory(Trim::new);

    private final byte[] left;
    private final byte[] right;
    private final int leftOffset;
    private final int rightOffset;

    public Trim(PluginConfig config) {
        super(config);
        this.left = config.get(LEFT_SEPARATOR).getBytes(StandardCharsets.UTF_8);
        this.right = config.get(RIGHT_SEPARATOR).getBytes(StandardCharsets.UTF_8);
        this.leftOffset = config.get(LEFT_OFFSET);
        this.rightOffset = config.get(RIGHT_OFFSET);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        byte[] b = source.buf;
        int start = source.off;
        int end = start + source.len;
        if (right.length > 0) {
            int at = Splitter.lastIndexOf(b, start, end, right);
            if (at > start) {
                end = at;
            }
        }
        end = Math.max(start, end - rightOffset);
        if (left.length > 0) {
            int at = Splitter.indexOf(b, start, end, left);
            if (at >= 0) {
                start = at + left.length;
            }
        }
        start = Math.min(end, start + leftOffset);
        target.write(m, b, start, end - start, Metadata.STRING);
        return Result.CONTINUE;
    }
}
