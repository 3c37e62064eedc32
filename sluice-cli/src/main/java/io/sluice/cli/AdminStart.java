package io.sluice.cli;

import io.sluice.core.Daemon;
import io.sluice.core.admin.AdminServer;
import io.sluice.core.config.ConfigException;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.ReloadResult;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The admin endpoint, started on its own thread while the pipeline starts: nothing in the pipeline waits for it,
 * and its classes and thread cost a share of the start (the JDK server's about 30 ms of a start that is otherwise
 * about 120 ms; Netty's, cold and without a class data archive, several hundred ms on a 2-CPU machine).
 * The address is checked here, so a malformed one is still a config error before anything runs.
 */
final class AdminStart {
    private final Thread thread;
    private volatile AdminServer server;

    private AdminStart(Pipeline pipeline, AdminServer.Settings settings, NettyTls tls, String address, Log log) {
        thread = Daemon.start("admin-start", () -> server = start(pipeline, settings, tls, address, log));
    }

    /** Waits for the start to finish, then stops the server if it started. */
    void close() throws InterruptedException {
        thread.join();
        AdminServer s = server;
        if (s != null) {
            s.close();
        }
    }

    /** Checks the address and the token before anything runs, so that a mistake in either is a config error. */
    static AdminStart start(Pipeline pipeline, RunOptions options, Log log, Supplier<ReloadResult> reload) {
        String address = options.admin;
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw new ConfigException("--admin: expected HOST:PORT, found '" + address + "'");
        }
        String host = address.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException("--admin: port must be a number, found '" + address.substring(colon + 1) + "'");
        }
        AdminServer.Settings settings = new AdminServer.Settings();
        settings.host = host;
        settings.port = port;
        settings.token = AdminToken.resolve(options.adminToken, options.adminTokenFile, System.getenv());
        settings.tap = options.adminTap;
        settings.reload = reload;
        return new AdminStart(pipeline, settings, adminTls(options), address, log);
    }

    /** The admin endpoint's TLS: the TLS/* group from the --admin-tls-* options, or null for plain HTTP. */
    private static NettyTls adminTls(RunOptions options) {
        if (options.adminTlsCert == null && options.adminTlsKey == null && options.adminTlsCa == null) {
            return null;
        }
        Map<String, Object> keys = new HashMap<>();
        keys.put("TLS/Enable", true);
        if (options.adminTlsCert != null) {
            keys.put("TLS/CertFile", options.adminTlsCert);
        }
        if (options.adminTlsKey != null) {
            keys.put("TLS/KeyFile", options.adminTlsKey);
        }
        if (options.adminTlsCa != null) {
            keys.put("TLS/CAFile", options.adminTlsCa);
            keys.put("TLS/ClientAuth", "require");
        }
        return new NettyTls(TlsSettings.of("admin", TlsSettings.Role.SERVER, keys));
    }

    /** A busy admin port is not worth refusing to run the pipeline for: warn and go on without it. */
    private static AdminServer start(Pipeline pipeline, AdminServer.Settings settings, NettyTls tls, String address,
                                     Log log) {
        try {
            return AdminServer.start(pipeline, settings, tls == null ? null : tls.context(), log);
        } catch (IOException | RuntimeException e) {
            log.warn("admin endpoint " + address + " not started: " + e.getMessage() + " (use --admin HOST:PORT or --no-admin)");
            return null;
        }
    }
}
