package io.sluice.io.socket;

import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Consumer;
import io.sluice.core.pipeline.ConsumerContext;
import io.sluice.core.pipeline.Exposure;
import java.util.List;

/**
 * A consumer that serves one {@link SocketServer}: {@link SocketConsumer} and {@link SyslogdConsumer}, which differ
 * only in how their settings become the server's. The socket is bound in {@link #open} (a port in use stops the
 * start), served in {@link #consume}, and closed by {@link #stop}.
 */
public abstract class ListeningConsumer extends Consumer implements Exposure.Listening {
    private final SocketServer server;
    private final String what;

    /** @param what the kind of listener, as the exposure check names it ("Socket", "Syslog") */
    ListeningConsumer(PluginConfig config, SocketServer.Settings settings, String what) {
        super(config);
        this.server = new SocketServer(config.id(), settings);
        this.what = what;
    }

    @Override
    public List<Exposure.Listener> listeners() {
        return server.listeners(what);
    }

    @Override
    public void open(ConsumerContext ctx) throws Exception {
        server.open(ctx);
    }

    @Override
    public void consume(ConsumerContext ctx) throws Exception {
        server.run(ctx);
    }

    @Override
    public boolean isReady() {
        return server.isReady();
    }

    @Override
    public void stop() {
        server.stop();
    }

    SocketServer server() {
        return server;
    }
}
