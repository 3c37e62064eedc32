package io.sluice.core.format;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** Gollum's formatters and filters: found by {@link java.util.ServiceLoader} through META-INF/services. */
public final class FormatPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(
                JSON.SPEC, ToJSON.SPEC, Move.SPEC, Copy.SPEC, Delete.SPEC, SplitToFields.SPEC, Flatten.SPEC,
                OverrideValue.SPEC, Replace.SPEC, RegExpFormatter.SPEC, Trim.SPEC, Base64Encode.SPEC, Base64Decode.SPEC,
                Hostname.SPEC, StreamRoute.SPEC, ProcessJSON.SPEC, ExtractJSON.SPEC,
                io.sluice.core.filter.RegExpFilter.SPEC, io.sluice.core.filter.Rate.SPEC, io.sluice.core.filter.Sample.SPEC,
                io.sluice.core.filter.Any.SPEC, io.sluice.core.filter.None.SPEC, io.sluice.core.filter.Stream.SPEC);
    }
}
