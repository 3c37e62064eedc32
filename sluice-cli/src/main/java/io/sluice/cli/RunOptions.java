package io.sluice.cli;

import io.sluice.core.admin.AdminServer;
import io.sluice.core.config.ConfigException;
import io.sluice.core.message.MemoryBudget;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options shared by {@code sluice -c} and {@code sluice run} (and recognised by {@link QuickRun} without picocli). */
final class RunOptions {
    @Option(names = {"--admin", "-m"}, paramLabel = "HOST:PORT",
            description = "Admin endpoint (/metrics /health /ready /api/plugins, /api/tap when turned on); default "
                    + "127.0.0.1:9696, port 0 picks one.")
    String admin = "127.0.0.1:" + AdminServer.DEFAULT_PORT;

    @Option(names = "--no-admin", description = "Do not start the admin endpoint.")
    boolean noAdmin;

    @Option(names = "--admin-token", paramLabel = "TOKEN",
            description = "Bearer token the admin endpoint requires on every path but /health and /ready (also "
                    + "turns /api/tap on); default SLUICE_ADMIN_TOKEN. A command line is visible to every user of "
                    + "the host: prefer --admin-token-file or the variable.")
    String adminToken;

    @Option(names = "--admin-token-file", paramLabel = "FILE", description = "Read the admin token from FILE.")
    Path adminTokenFile;

    @Option(names = "--admin-tls-cert", paramLabel = "FILE",
            description = "Serve the admin endpoint over HTTPS with this certificate (PEM chain, or PKCS#12), re-read "
                    + "when it changes; with --admin-tls-key.")
    String adminTlsCert;

    @Option(names = "--admin-tls-key", paramLabel = "FILE", description = "PEM private key of --admin-tls-cert.")
    String adminTlsKey;

    @Option(names = "--admin-tls-ca", paramLabel = "FILE",
            description = "Require admin clients to present a certificate from these CAs (mutual TLS).")
    String adminTlsCa;

    @Option(names = "--admin-tap",
            description = "Serve /api/tap (it streams message payloads) without a token; off unless this or a token is set.")
    boolean adminTap;

    @Option(names = "--watch-config",
            description = "Reload the config when its file changes (SIGHUP and POST /api/reload always reload).")
    boolean watchConfig;

    @Option(names = "--log-format", paramLabel = "plain|json", description = "Log line format (default plain).")
    String logFormat = "plain";

    @Option(names = "--memory-limit", paramLabel = "SIZE",
            description = "Memory budget every input reserves from before it reads (256m, 1g); default "
                    + "SLUICE_MEMORY_LIMIT, else the config's top-level MemoryLimit, else 40%% of the heap.")
    String memoryLimit = System.getenv("SLUICE_MEMORY_LIMIT");

    MemoryBudget memory() {
        if (memoryLimit == null || memoryLimit.isBlank()) {
            return MemoryBudget.ofHeapShare();
        }
        try {
            return new MemoryBudget(MemoryBudget.parseSize(memoryLimit));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--memory-limit: " + e.getMessage());
        }
    }
}
