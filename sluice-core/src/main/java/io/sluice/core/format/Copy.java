package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code format.Copy}: copies Source to Target. Mode {@code replace} (default) overwrites the target, keeping
 * the source's kind (a number stays a number, an object an object); {@code append} and {@code prepend} join
 * target and source as text, with Separator between them.
 */
public final class Copy extends SimpleFormatter {
    public static final Param<Mode> MODE = Param.choice("Mode", Mode.REPLACE,
            "replace the target, or append or prepend to it.");
    public static final Param<String> SEPARATOR = Param.string("Separator", "",
            "With append or prepend: the text put between target and source.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Copy",
            "Copies the payload or a metadata field to the payload or another field.")
            .params(params(MODE, SEPARATOR))
            .factory(Copy::new);

    /** How the source reaches the target. */
    public enum Mode {
        REPLACE, APPEND, PREPEND;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Mode mode;
    private final byte[] separator;
    private byte[] scratch = new byte[256];

    public Copy(PluginConfig config) {
        super(config);
        this.separator = config.get(SEPARATOR).getBytes(StandardCharsets.UTF_8);
        this.mode = config.get(MODE);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        if (mode == Mode.REPLACE) {
            target.write(m, source.buf, source.off, source.len, target.isPayload() ? Metadata.STRING : source.kind);
            return Result.CONTINUE;
        }
        // Join in the scratch buffer: the source view may point into the target's own storage.
        int srcLen = source.len;
        ensure(srcLen);
        System.arraycopy(source.buf, source.off, scratch, 0, srcLen);
        target.read(m);
        int total = srcLen + separator.length + target.len;
        ensure(total + srcLen);
        int at = srcLen; // scratch[0, srcLen) holds the source
        if (mode == Mode.APPEND) {
            at = put(at, target.buf, target.off, target.len);
            at = put(at, separator, 0, separator.length);
            at = put(at, scratch, 0, srcLen);
        } else {
            at = put(at, scratch, 0, srcLen);
            at = put(at, separator, 0, separator.length);
            at = put(at, target.buf, target.off, target.len);
        }
        target.write(m, scratch, srcLen, at - srcLen, Metadata.STRING);
        return Result.CONTINUE;
    }

    private int put(int at, byte[] b, int off, int len) {
        System.arraycopy(b, off, scratch, at, len);
        return at + len;
    }

    private void ensure(int n) {
        if (scratch.length < n) {
            scratch = Arrays.copyOf(scratch, Math.max(n, scratch.length * 2));
        }
    }
}
