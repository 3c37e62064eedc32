package io.sluice.io;

import io.sluice.core.config.PluginProvider;
import io.sluice.core.config.PluginSpec;
import java.util.List;

/** The file and socket plugins; on the class path, they register through {@link java.util.ServiceLoader}. */
public final class IoPlugins implements PluginProvider {
    @Override
    public List<PluginSpec> plugins() {
        return List.of(
                io.sluice.io.file.FileConsumer.SPEC,
                io.sluice.io.file.FileProducer.SPEC,
                io.sluice.io.socket.SocketConsumer.SPEC,
                io.sluice.io.socket.SyslogdConsumer.SPEC,
                io.sluice.io.socket.SocketProducer.SPEC);
    }
}
