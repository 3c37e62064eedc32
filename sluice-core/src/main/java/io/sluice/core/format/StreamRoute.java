package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.pipeline.Modulator;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code format.StreamRoute}: reads a stream name from the front of the content, up to Delimiter, removes it
 * (with the delimiter) and moves the message to that stream. Without a delimiter nothing changes; with an
 * empty name only the delimiter is removed. StreamModulator formats (or filters) the name first: if one of
 * them drops it, the stream is left as it is.
 */
public final class StreamRoute extends SimpleFormatter {
    public static final Param<String> DELIMITER = Param.string("Delimiter", ":",
            "Ends the stream name at the start of the data.");
    public static final Param<List<PluginConfig>> STREAM_MODULATOR = Param.modulators("StreamModulator",
            "Modulators applied to the extracted stream name.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.StreamRoute",
            "Sets the message's stream from a prefix of its data, and removes the prefix.")
            .params(params(DELIMITER, STREAM_MODULATOR))
            .factory(StreamRoute::new);

    private final byte[] delimiter;
    private final Modulator[] nameModulators;
    private final Message name;
    private final StreamIds ids = new StreamIds();

    public StreamRoute(PluginConfig config) {
        super(config);
        this.delimiter = config.get(DELIMITER).getBytes(StandardCharsets.UTF_8);
        if (delimiter.length == 0) {
            throw config.error(DELIMITER, "must not be empty");
        }
        this.nameModulators = Modulator.of(config.get(STREAM_MODULATOR));
        this.name = new BatchPool(1).acquire().add(); // a private scratch message for the name
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        int at = Splitter.indexOf(source.buf, source.off, source.off + source.len, delimiter);
        if (at < 0) {
            return Result.CONTINUE;
        }
        int nameLen = at - source.off;
        if (nameLen > 0) {
            name.setPayload(source.buf, source.off, nameLen); // copied before the content is rewritten
        }
        int rest = at + delimiter.length;
        target.write(m, source.buf, rest, source.off + source.len - rest, Metadata.STRING);
        if (nameLen > 0 && nameAccepted()) {
            m.setStream(ids.id(name.payload(), 0, name.length()));
        }
        return Result.CONTINUE;
    }

    private boolean nameAccepted() {
        for (Modulator mod : nameModulators) {
            if (mod.modulate(name) != Result.CONTINUE) {
                return false;
            }
        }
        return true;
    }
}
