package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code sluice} command. With no arguments it runs the embedded quickstart pipeline; Gollum's flags
 * ({@code -c}, {@code -ll}, {@code -v}, {@code -l}) work as in Gollum. Exit codes: 0 done, 2 bad config, 1 failure.
 */
@Command(name = "sluice", mixinStandardHelpOptions = false, sortOptions = false,
        description = "A telemetry pipeline for logs and metrics. Runs Gollum configs unchanged.",
        subcommands = {Main.Run.class, Main.Validate.class, Main.ListPlugins.class, CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer> {
    static final int EXIT_CONFIG = 2;
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

    /** Entry point. */
    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit code (tests call this). */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        stdout = out;
        stderr = err;
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
            return runFile(config, logLevel, !noStats);
        }
        return runQuickstart(logLevel, !noStats);
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }

    static int runFile(Path file, int logLevel, boolean stats) throws Exception {
        return run(ConfigLoader.load(file), logLevel, stats);
    }

    static int runQuickstart(int logLevel, boolean stats) throws Exception {
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
        return run(configs, logLevel, stats);
    }

    static int run(List<PluginConfig> configs, int logLevel, boolean stats) throws Exception {
        Log log = new Log(stderr, logLevel);
        Pipeline pipeline = new Pipeline(configs, PluginRegistry.defaultRegistry(), log);
        Signals.onStop(() -> {
            log.info("stop requested: stopping consumers, draining queues, flushing producers");
            pipeline.stop();
        });
        StatsLine line = stats ? new StatsLine(pipeline, log) : null;
        pipeline.start();
        if (line != null) {
            line.start();
        }
        pipeline.awaitTermination();
        if (line != null) {
            line.stop();
        }
        log.info(pipeline.summary());
        return 0;
    }

    /** {@code sluice run FILE}. */
    @Command(name = "run", description = "Run the pipeline in FILE until its consumers end or Ctrl-C.")
    static final class Run implements Callable<Integer> {
        @Parameters(paramLabel = "FILE", description = "Gollum-style YAML config.")
        Path file;

        @Option(names = {"-ll", "--loglevel"}, paramLabel = "N", description = "Log level 0-3.")
        int logLevel = Log.INFO;

        @Option(names = "--no-stats", description = "Do not print the live stats line.")
        boolean noStats;

        @Override
        public Integer call() throws Exception {
            return runFile(file, logLevel, !noStats);
        }
    }

    /** {@code sluice validate FILE}. */
    @Command(name = "validate", description = "Check FILE (types, keys, values, streams) without starting anything.")
    static final class Validate implements Callable<Integer> {
        @Parameters(paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() {
            List<PluginConfig> configs = ConfigLoader.load(file);
            // Building the pipeline runs each plugin's own checks (regexes, formats) without starting it.
            new Pipeline(configs, PluginRegistry.defaultRegistry(), new Log(stderr, Log.WARNING));
            stdout.println(file + ": ok, " + configs.size() + " plugins");
            return 0;
        }
    }

    /** {@code sluice list}: the plugin reference, generated from the same declarations that parse configs. */
    @Command(name = "list", description = "List every plugin with its parameters and defaults.")
    static final class ListPlugins implements Callable<Integer> {
        @Override
        public Integer call() {
            StringBuilder b = new StringBuilder();
            for (PluginSpec spec : PluginRegistry.defaultRegistry().all()) {
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
