package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/** {@code format.Base64Encode}: encodes the content as padded base64 (RFC 4648 unless Dictionary is set). */
public final class Base64Encode extends SimpleFormatter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Base64Encode",
            "Encodes the payload (or ApplyTo's field) as base64.")
            .params(params(Base64.DICTIONARY, Base64.BASE64_DICTIONARY))
            .factory(Base64Encode::new);

    private final Base64 codec;

    public Base64Encode(PluginConfig config) {
        super(config);
        this.codec = new Base64(config);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        int n = codec.encode(source.buf, source.off, source.len);
        target.write(m, codec.buffer(), 0, n, Metadata.STRING);
        return Result.CONTINUE;
    }
}
