package io.sluice.core.format;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;

/**
 * {@code format.JSON}: parses the JSON object in Source (the payload by default) into metadata, into the root
 * when Target is empty (merging with fields already there; duplicate keys: the last wins, as in Go) or as one
 * nested object field named Target. The payload is left as it is.
 *
 * <p>Nothing is allocated per message: the document is validated by {@link JsonScanner}, copied once into the
 * metadata arena, and every field points into that copy; escaped strings are decoded only when read. A payload
 * that is not a JSON object is dropped to the fallback stream with {@value FormatErrors#JSON_ERROR} and
 * {@value FormatErrors#JSON_ERROR_OFFSET} set; no field is set from it.
 */
public final class JSON extends SimpleFormatter {
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.JSON",
            "Parses the JSON object in Source (default: the payload) into metadata (below Target if set).")
            .params(params())
            .factory(JSON::new);

    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();
    private final byte[] digits = new byte[11];

    public JSON(PluginConfig config) {
        super(config);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        byte[] b = source.buf;
        int off = source.off;
        int len = source.len;
        JsonFields members = MetadataJson.object(source, m, scanner, fields);
        if (members == null) {
            return FormatErrors.invalidJson(m, scanner, digits);
        }
        if (target.isPayload()) {
            MetadataJson.merge(m.metadata(), b, off, len, members);
        } else {
            target.write(m, b, off, len, Metadata.JSON);
        }
        return Result.CONTINUE;
    }
}
