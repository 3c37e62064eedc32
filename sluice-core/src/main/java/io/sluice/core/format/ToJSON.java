package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code format.ToJSON}: writes the metadata (or the field named Root) as JSON to Target (the payload by
 * default), straight into a reusable buffer. Fields are written in the order they were set, not sorted as Go's
 * encoder does; strings still holding their original escapes are copied unchanged, so JSON parsed by
 * {@code format.JSON} comes back byte for byte. Ignore lists top-level keys to leave out.
 */
public final class ToJSON extends SimpleFormatter {
    public static final Param<String> ROOT = Param.string("Root", "",
            "The metadata field to write as JSON; empty writes all metadata.");
    public static final Param<List<String>> IGNORE = Param.strings("Ignore", List.of(),
            "Keys to leave out (top-level keys of the metadata, or of Root's object).");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.ToJSON",
            "Converts metadata (or the field Root) to JSON and stores it in Target (default: the payload).")
            .params(params(ROOT, IGNORE))
            .factory(ToJSON::new);

    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private final byte[] root;
    private final byte[][] ignore;
    private final JsonWriter writer = new JsonWriter();
    private final Metadata scratch = new Metadata();
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();

    public ToJSON(PluginConfig config) {
        super(config);
        String r = config.get(ROOT);
        this.root = r.isEmpty() ? null : r.getBytes(StandardCharsets.UTF_8);
        this.ignore = config.get(IGNORE).stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }

    @Override
    protected Result apply(Message m) {
        writer.reset();
        Metadata md = m.metadata();
        if (root == null) {
            MetadataJson.write(md, writer, ignore);
        } else {
            writeRoot(md, md.indexOf(root));
        }
        target.write(m, writer.buffer(), 0, writer.length(), Metadata.JSON);
        return Result.CONTINUE;
    }

    private void writeRoot(Metadata md, int i) {
        if (i < 0) {
            writer.raw(NULL, 0, NULL.length);
        } else if (ignore.length > 0 && md.kind(i) == Metadata.JSON
                && MetadataJson.load(scratch, md.arena(), md.valueOffset(i), md.valueLength(i), scanner, fields)) {
            MetadataJson.write(scratch, writer, ignore);
        } else {
            MetadataJson.value(md, i, writer);
        }
    }
}
