package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code format.SplitToFields}: splits Source at every Delimiter and stores the parts, in order, as the fields
 * named in Fields: in the metadata root when Target is empty, else in the nested object at Target. Surplus parts
 * are ignored; surplus fields are not set. When splitting a metadata field into the root, the parts point into
 * the field's bytes: nothing is copied.
 */
public final class SplitToFields extends SimpleFormatter {
    public static final Param<String> DELIMITER = Param.string("Delimiter", ",", "Where to split the data.");
    public static final Param<List<String>> FIELDS = Param.strings("Fields", List.of(),
            "Names of the fields the parts are stored in, in order.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.SplitToFields",
            "Splits data at a delimiter and stores the parts as metadata fields.")
            .params(params(DELIMITER, FIELDS))
            .factory(SplitToFields::new);

    private final byte[] delimiter;
    private final Metadata.Key[] fields;
    private final Tree tree = new Tree();
    private final Splitter splitter = new Splitter();

    public SplitToFields(PluginConfig config) {
        super(config);
        this.delimiter = config.get(DELIMITER).getBytes(StandardCharsets.UTF_8);
        this.fields = config.get(FIELDS).stream().map(Metadata.Key::new).toArray(Metadata.Key[]::new);
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        Metadata md = tree.open(m, target);
        int base = source.off;
        boolean raw = source.rawJson;
        if (source.buf != md.arena()) {
            base = md.appendToArena(source.buf, source.off, source.len);
        }
        int n = splitter.split(md.arena(), base, source.len, delimiter, fields.length);
        for (int i = 0; i < n; i++) {
            md.setKeyRange(fields[i], splitter.start(i), splitter.length(i), Metadata.STRING, raw);
        }
        tree.close(m, target);
        return Result.CONTINUE;
    }
}
