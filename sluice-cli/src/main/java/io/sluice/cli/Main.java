package io.sluice.cli;

import io.sluice.core.admin.AdminServer;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Exposure;
import io.sluice.core.tls.NettyTls;
import io.sluice.core.tls.TlsSettings;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import io.sluice.core.pipeline.StartException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code sluice} command. With no arguments it runs the embedded quickstart pipeline; Gollum's flags
 * ({@code -c}, {@code -ll}, {@code -v}, {@code -l}) work as in Gollum. Exit codes: 0 done, 2 bad config or a plugin
 * that cannot start (a port in use, a path that cannot be written), 1 failure, 70 a plugin failed while running.
 */
@Command(name = "sluice", mixinStandardHelpOptions = false, sortOptions = false,
        description = "A telemetry pipeline for logs and metrics. Runs Gollum configs unchanged.",
        subcommands = {Main.Run.class, Main.Validate.class, Main.ListPlugins.class, Main.GraphCommand.class, Main.TopCommand.class,
            Main.TapCommand.class, Main.Docs.class, CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer> {
    static final int EXIT_CONFIG = 2;
    /** A plugin thread failed while running (EX_SOFTWARE): the process ends rather than stay half-alive. */
    static final int EXIT_FAILED = 70;
    /** How long a failing process may take to drain before it is halted. */
    private static final long FAIL_DRAIN_MILLIS = 10_000;
    static final String QUICKSTART = "examples/quickstart.yaml";
    /** Where commands print; main() uses the process streams, tests their own. */
    private static PrintStream stdout = System.out;
    private static PrintStream stderr = System.err;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Run the pipeline in FILE.")
    Path config;

    @Option(names = {"-ll", "--loglevel"}, paramLabel = "N", description = "Log level: 0 error, 1 warning, 2 info (default), 3 debug.")
    int logLevel = Log.INFO;

    @Option(names = {"-tc", "--testconfig"}, paramLabel = "FILE", description = "Validate FILE and exit (as Gollum's -tc).")
    Path testConfig;

    @Option(names = {"-l", "--list"}, description = "List every plugin with its parameters and defaults.")
    boolean list;

    @Option(names = {"-v", "--version"}, description = "Print the version and exit.")
    boolean version;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
    boolean help;

    @Option(names = "--no-stats", description = "Do not print the live stats line every second.")
    boolean noStats;

    @CommandLine.Mixin
    RunOptions runOptions = new RunOptions();

    /** Options shared by {@code sluice -c} and {@code sluice run}. */
    static final class RunOptions {
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

    /** Entry point. */
    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit code (tests call this). */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        stdout = out;
        stderr = err;
        QuickRun quick = QuickRun.parse(args);
        if (quick != null) {
            return runQuick(quick, err);
        }
        return executeWithPicocli(args, out, err);
    }

    /** A run recognised by {@link QuickRun}; exceptions end it as picocli's handler below ends them. */
    private static int runQuick(QuickRun quick, PrintStream err) {
        try {
            return quick.run();
        } catch (ConfigException e) {
            err.println("sluice: config error: " + e.getMessage());
            return EXIT_CONFIG;
        } catch (Exception e) {
            err.println("sluice: " + e);
            return 1;
        }
    }

    private static int executeWithPicocli(String[] args, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof ConfigException) {
                err.println("sluice: config error: " + e.getMessage());
                return EXIT_CONFIG;
            }
            err.println("sluice: " + e);
            return 1;
        });
        return cl.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        if (version) {
            stdout.println("sluice " + version());
            return 0;
        }
        if (list) {
            return new ListPlugins().call();
        }
        if (testConfig != null) {
            Validate v = new Validate();
            v.file = testConfig;
            return v.call();
        }
        if (config != null) {
            return runFile(config, logLevel, !noStats, runOptions);
        }
        return runQuickstart(logLevel, !noStats, runOptions);
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }

    static int runFile(Path file, int logLevel, boolean stats, RunOptions options) throws Exception {
        ConfigLoader loader = new ConfigLoader(PluginRegistry.defaultRegistry(), System.getenv());
        List<PluginConfig> configs = loader.loadFile(file);
        if (loader.memoryLimit() != null && options.memoryLimit == null) {
            options.memoryLimit = Long.toString(loader.memoryLimit()); // the command line wins over the file
        }
        return run(configs, logLevel, stats, options);
    }

    static int runQuickstart(int logLevel, boolean stats, RunOptions options) throws Exception {
        String text;
        try (InputStream in = Main.class.getClassLoader().getResourceAsStream(QUICKSTART)) {
            if (in == null) {
                throw new IOException("embedded " + QUICKSTART + " missing from the jar");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        stderr.println("sluice: no config given, running the embedded " + QUICKSTART
                + " (Ctrl-C stops; sluice --help for more)");
        List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), System.getenv())
                .loadString(text, QUICKSTART);
        return run(configs, logLevel, stats, options);
    }

    static int run(List<PluginConfig> configs, int logLevel, boolean stats, RunOptions options) throws Exception {
        Log log = new Log(stderr, logLevel, options.logFormat.equalsIgnoreCase("json"));
        ThirdPartyLog.routeTo(log);
        Pipeline pipeline = new Pipeline(configs, PluginRegistry.defaultRegistry(), log, options.memory());
        log.info("memory budget " + (pipeline.memory().limit() >> 20) + " MiB (--memory-limit)");
        failFast(pipeline);
        AdminStart admin = options.noAdmin ? null : startAdmin(pipeline, options, log);
        Signals.onStop(() -> {
            log.info("stop requested: stopping consumers, draining queues, flushing producers");
            haltAfter(pipeline.stopDeadlineMillis(), "the graceful stop did not finish", 1);
            pipeline.stop();
        });
        StatsLine line = stats ? new StatsLine(pipeline, log) : null;
        try {
            pipeline.start();
        } catch (StartException e) {
            if (admin != null) {
                admin.close();
            }
            stderr.println("sluice: cannot start: " + e.getMessage());
            return EXIT_CONFIG;
        }
        if (line != null) {
            line.start();
        }
        pipeline.awaitTermination();
        if (line != null) {
            line.stop();
        }
        if (admin != null) {
            admin.close();
        }
        log.info(pipeline.summary());
        if (pipeline.failure() != null) {
            stderr.println("sluice: stopped because " + pipeline.failure());
            return EXIT_FAILED;
        }
        return 0;
    }

    /**
     * Never half-alive: an error that escapes any thread, or a plugin that reports itself failed, stops the
     * pipeline (draining what it can for {@value #FAIL_DRAIN_MILLIS} ms) and the process exits {@value #EXIT_FAILED}.
     * The launcher adds {@code -XX:+ExitOnOutOfMemoryError}, since after an OutOfMemoryError no recovery is safe.
     */
    private static void failFast(Pipeline pipeline) {
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> pipeline.fail("thread " + t.getName() + " died", e));
        pipeline.onFailure(reason -> {
            haltAfter(FAIL_DRAIN_MILLIS, reason + "; not drained", EXIT_FAILED);
            Thread stop = new Thread(pipeline::stop, "fail-stop");
            stop.setDaemon(true);
            stop.start();
        });
    }

    /**
     * The admin endpoint, started on its own thread while the pipeline starts: nothing in the pipeline waits for it,
     * and its classes and thread cost a share of the start (the JDK server's about 30 ms of a start that is otherwise
     * about 120 ms; Netty's, cold and without a class data archive, several hundred ms on a 2-CPU machine).
     * The address is checked here, so a malformed one is still a config error before anything runs.
     */
    private static final class AdminStart {
        private final Thread thread;
        private volatile AdminServer server;

        AdminStart(Pipeline pipeline, AdminServer.Settings settings, NettyTls tls, String address, Log log) {
            thread = new Thread(() -> server = startAdmin(pipeline, settings, tls, address, log), "admin-start");
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits for the start to finish, then stops the server if it started. */
        void close() throws InterruptedException {
            thread.join();
            AdminServer s = server;
            if (s != null) {
                s.close();
            }
        }
    }

    /** Checks the address and the token before anything runs, so that a mistake in either is a config error. */
    private static AdminStart startAdmin(Pipeline pipeline, RunOptions options, Log log) {
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
        return new AdminStart(pipeline, settings, adminTls(options), address, log);
    }

    /** The admin endpoint's TLS: the TLS/* group from the --admin-tls-* options, or null for plain HTTP. */
    private static NettyTls adminTls(RunOptions options) {
        if (options.adminTlsCert == null && options.adminTlsKey == null && options.adminTlsCa == null) {
            return null;
        }
        Map<String, Object> keys = new java.util.HashMap<>();
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
    private static AdminServer startAdmin(Pipeline pipeline, AdminServer.Settings settings, NettyTls tls, String address,
                                          Log log) {
        try {
            return AdminServer.start(pipeline, settings, tls == null ? null : tls.context(), log);
        } catch (IOException | RuntimeException e) {
            log.warn("admin endpoint " + address + " not started: " + e.getMessage() + " (use --admin HOST:PORT or --no-admin)");
            return null;
        }
    }

    /**
     * SIGTERM is always honoured: if the process is still running {@code millis} from now (a stop stuck on a
     * peer that never answers), it halts with {@code code}.
     */
    private static void haltAfter(long millis, String why, int code) {
        Thread halt = new Thread(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            stderr.println("sluice: " + why + " within " + millis + " ms, exiting");
            Runtime.getRuntime().halt(code);
        }, "halt-watchdog");
        halt.setDaemon(true);
        halt.start();
    }

    /** {@code sluice run FILE}. */
    @Command(name = "run", mixinStandardHelpOptions = true, description = "Run the pipeline in FILE until its consumers end or Ctrl-C.")
    static final class Run implements Callable<Integer> {
        @Parameters(paramLabel = "FILE", description = "Gollum-style YAML config.")
        Path file;

        @Option(names = {"-ll", "--loglevel"}, paramLabel = "N", description = "Log level 0-3.")
        int logLevel = Log.INFO;

        @Option(names = "--no-stats", description = "Do not print the live stats line.")
        boolean noStats;

        @CommandLine.Mixin
        RunOptions runOptions = new RunOptions();

        @Override
        public Integer call() throws Exception {
            return runFile(file, logLevel, !noStats, runOptions);
        }
    }

    /** {@code sluice validate FILE}. */
    @Command(name = "validate", mixinStandardHelpOptions = true, description = "Check FILE (types, keys, values, streams) without starting anything.")
    static final class Validate implements Callable<Integer> {
        @Parameters(paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() {
            List<PluginConfig> configs = ConfigLoader.load(file);
            // Making each plugin runs its own checks (regexes, formats) without starting it; every plugin is
            // checked, so that one run reports every error in the file.
            List<String> errors = new java.util.ArrayList<>();
            List<String> warnings = new java.util.ArrayList<>();
            for (PluginConfig c : configs) {
                try {
                    Object plugin = c.spec().create(c);
                    if (plugin instanceof Exposure.Listening l && c.get(io.sluice.core.config.PluginSpec.ENABLE)) {
                        for (Exposure.Listener listener : l.listeners()) {
                            warnings.addAll(Exposure.warnings(c.id(), listener));
                        }
                    }
                } catch (ConfigException e) {
                    errors.add(e.getMessage());
                }
            }
            if (errors.size() == 1) {
                throw new ConfigException(errors.get(0));
            } else if (!errors.isEmpty()) {
                throw new ConfigException(errors.size() + " errors:\n  " + String.join("\n  ", errors));
            }
            new Pipeline(configs, PluginRegistry.defaultRegistry(), new Log(stderr, Log.WARNING));
            for (String w : warnings) {
                stderr.println("warning: " + w);
            }
            stdout.println(file + ": ok, " + configs.size() + " plugins"
                    + (warnings.isEmpty() ? "" : ", " + warnings.size() + " warning" + (warnings.size() == 1 ? "" : "s")));
            return 0;
        }
    }

    /** {@code sluice graph FILE}: the pipeline as DOT or Mermaid. */
    @Command(name = "graph", mixinStandardHelpOptions = true, description = "Print the pipeline in FILE as a DOT (Graphviz) or Mermaid graph.")
    static final class GraphCommand implements Callable<Integer> {
        @Parameters(paramLabel = "FILE")
        Path file;

        @Option(names = "--format", paramLabel = "dot|mermaid", description = "Output format (default dot).")
        String format = "dot";

        @Override
        public Integer call() {
            Graph g = Graph.of(ConfigLoader.load(file));
            if (format.equalsIgnoreCase("mermaid")) {
                stdout.print(g.mermaid());
            } else if (format.equalsIgnoreCase("dot")) {
                stdout.print(g.dot());
            } else {
                stderr.println("sluice graph: --format must be dot or mermaid");
                return EXIT_CONFIG;
            }
            return 0;
        }
    }

    /** {@code sluice top}. */
    @Command(name = "top", mixinStandardHelpOptions = true, description = "Live view of a running sluice: rates, queues, errors per plugin.")
    static final class TopCommand implements Callable<Integer> {
        @Option(names = "--url", description = "Admin endpoint of the running sluice (default http://127.0.0.1:9696).")
        String url = "http://127.0.0.1:" + AdminServer.DEFAULT_PORT;

        @Option(names = "--interval", paramLabel = "MS", description = "Refresh interval in ms (default 1000).")
        long interval = 1000;

        @Option(names = {"-n", "--iterations"}, description = "Stop after N refreshes (default: until q or Ctrl-C).")
        int iterations;

        @CommandLine.Mixin
        ClientToken token = new ClientToken();

        @Override
        public Integer call() throws Exception {
            boolean terminal = System.console() != null && stdout == System.out;
            return new Top(url, token.resolve(), stdout, terminal).run(interval, iterations);
        }
    }

    /** {@code sluice tap PLUGIN}. */
    @Command(name = "tap", mixinStandardHelpOptions = true, description = "Print sample messages (payload and metadata) "
            + "passing a consumer or producer; the running sluice serves them with --admin-tap or --admin-token.")
    static final class TapCommand implements Callable<Integer> {
        @Parameters(paramLabel = "PLUGIN", description = "Id of a consumer or producer.")
        String plugin;

        @Option(names = "--limit", description = "How many messages (default 10).")
        int limit = 10;

        @Option(names = "--url", description = "Admin endpoint of the running sluice (default http://127.0.0.1:9696).")
        String url = "http://127.0.0.1:" + AdminServer.DEFAULT_PORT;

        @CommandLine.Mixin
        ClientToken token = new ClientToken();

        @Override
        public Integer call() throws Exception {
            java.net.URI uri = java.net.URI.create(url.replaceAll("/+$", "") + "/api/tap?limit=" + limit + "&plugin="
                    + java.net.URLEncoder.encode(plugin, StandardCharsets.UTF_8));
            java.net.http.HttpResponse<java.util.stream.Stream<String>> r;
            try {
                r = java.net.http.HttpClient.newHttpClient().send(token.authorize(java.net.http.HttpRequest.newBuilder(uri)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofLines());
            } catch (IOException e) {
                stderr.println("sluice tap: cannot reach " + uri + ": " + e.getMessage());
                return 1;
            }
            if (r.statusCode() != 200) {
                stderr.print("sluice tap: " + uri + " answered " + r.statusCode() + ": ");
                r.body().forEach(stderr::println);
                return 1;
            }
            r.body().forEach(line -> {
                stdout.println(line);
                stdout.flush();
            });
            return 0;
        }
    }

    /** The token {@code sluice top} and {@code sluice tap} send to an admin endpoint that requires one. */
    static final class ClientToken {
        @Option(names = "--admin-token", paramLabel = "TOKEN",
                description = "Bearer token of the admin endpoint (default SLUICE_ADMIN_TOKEN; prefer it or --admin-token-file).")
        String token;

        @Option(names = "--admin-token-file", paramLabel = "FILE", description = "Read the bearer token from FILE.")
        Path file;

        String resolve() {
            return AdminToken.resolve(token, file, System.getenv());
        }

        /** Adds {@code Authorization: Bearer} when a token is set. */
        java.net.http.HttpRequest.Builder authorize(java.net.http.HttpRequest.Builder b) {
            String t = resolve();
            return t == null ? b : b.header("Authorization", "Bearer " + t);
        }
    }

    /** {@code sluice docs}: writes the plugin reference pages. */
    @Command(name = "docs", mixinStandardHelpOptions = true,
            description = "Write the plugin reference (one Markdown page per plugin) into a directory.")
    static final class Docs implements Callable<Integer> {
        @Option(names = "--out", paramLabel = "DIR", description = "Directory to write into (default docs/plugins).")
        Path out = Path.of("docs", "plugins");

        @Override
        public Integer call() throws IOException {
            int n = PluginDocs.write(out);
            stdout.println("wrote " + n + " pages to " + out);
            return 0;
        }
    }

    /** {@code sluice list}: the plugin reference, generated from the same declarations that parse configs. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List every plugin with its parameters and defaults.")
    static final class ListPlugins implements Callable<Integer> {
        @Parameters(paramLabel = "PLUGIN", arity = "0..*", description = "Plugin types to show (e.g. consumer.HEC); all when none.")
        List<String> types = List.of();

        @Override
        public Integer call() {
            StringBuilder b = new StringBuilder();
            List<PluginSpec> specs = new java.util.ArrayList<>();
            for (String type : types) {
                PluginSpec spec = PluginRegistry.defaultRegistry().find(type);
                if (spec == null) {
                    stderr.println("sluice list: unknown plugin type '" + type + "' (sluice list shows every type)");
                    return EXIT_CONFIG;
                }
                specs.add(spec);
            }
            for (PluginSpec spec : types.isEmpty() ? PluginRegistry.defaultRegistry().all() : specs) {
                b.append(spec.type()).append("  (").append(spec.kind().name().toLowerCase()).append(")\n");
                b.append("    ").append(spec.doc()).append('\n');
                for (Param<?> p : spec.params().values()) {
                    b.append(String.format("    %-20s %-14s %s%n", p.name(), p.defaultText(), p.doc()));
                }
                b.append('\n');
            }
            stdout.print(b);
            return 0;
        }
    }
}
