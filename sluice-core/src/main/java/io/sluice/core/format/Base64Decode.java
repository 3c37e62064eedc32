package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * {@code format.Base64Decode}: decodes padded base64 (RFC 4648 unless Dictionary is set). Content that is not
 * valid base64 is left unchanged and the message is dropped to the fallback stream with
 * {@value FormatErrors#FORMAT_ERROR} set (Gollum discarded it).
 */
public final class Base64Decode extends SimpleFormatter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Base64Decode",
            "Decodes base64 encoded messages.")
            .params(params(Base64.DICTIONARY, Base64.BASE64_DICTIONARY))
            .factory(Base64Decode::new);

    private final Base64 codec;

    public Base64Decode(PluginConfig config) {
        super(config);
        this.codec = new Base64(config);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        int n = codec.decode(source.buf, source.off, source.len);
        if (n < 0) {
            return FormatErrors.failed(m, Base64.ILLEGAL);
        }
        target.write(m, codec.buffer(), 0, n, Metadata.STRING);
        return Result.CONTINUE;
    }
}
