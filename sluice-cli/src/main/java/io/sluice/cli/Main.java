package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.pipeline.Log;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code sluice} command. With no arguments it runs the embedded quickstart pipeline; Gollum's flags
 * ({@code -c}, {@code -ll}, {@code -v}, {@code -l}) work as in Gollum. Exit codes: 0 done, 2 bad config or a plugin
 * that cannot start (a port in use, a path that cannot be written), 1 failure (a {@code sluice test} that failed
 * too), 70 a plugin failed while running.
 */
@Command(name = "sluice", mixinStandardHelpOptions = false, sortOptions = false,
        description = "A telemetry pipeline for logs and metrics. Runs Gollum configs unchanged.",
        subcommands = {RunCommand.class, ValidateCommand.class, ListCommand.class, GraphCommand.class, TopCommand.class,
            TapCommand.class, TestCommand.class, DocsCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer> {
    static final int EXIT_CONFIG = 2;
    /** A {@code sluice test} assertion failed: the generic failure code, as any command that failed. */
    static final int EXIT_TESTS_FAILED = 1;
    /** A plugin thread failed while running (EX_SOFTWARE): the process ends rather than stay half-alive. */
    static final int EXIT_FAILED = 70;
    /** Where commands print; main() uses the process streams, tests their own. */
    static PrintStream stdout = System.out;
    static PrintStream stderr = System.err;

    @Option(names = {"-c", "--config"}, paramLabel = "PATH", description = "Run the pipeline in PATH: a file, or a "
            + "directory of *.yaml/*.yml files; repeat to merge several into one pipeline.")
    List<Path> config;

    @Option(names = {"-ll", "--loglevel"}, paramLabel = "N", description = "Log level: 0 error, 1 warning, 2 info (default), 3 debug.")
    int logLevel = Log.INFO;

    @Option(names = {"-tc", "--testconfig"}, paramLabel = "PATH",
            description = "Validate PATH (a file or directory; repeatable, merged as -c) and exit (as Gollum's -tc).")
    List<Path> testConfig;

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

    /** Entry point. */
    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Runs the command line and returns the exit code (tests call this). */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        stdout = out;
        stderr = err;
        QuickRun quick = QuickRun.parse(args);
        return quick != null ? runQuick(quick, err) : executeWithPicocli(args, out, err);
    }

    /** A run recognised by {@link QuickRun}; exceptions end it as picocli's handler below ends them. */
    private static int runQuick(QuickRun quick, PrintStream err) {
        try {
            return quick.run();
        } catch (Exception e) {
            return failed(e, err);
        }
    }

    /** How a command that threw ends: a config error exits {@value #EXIT_CONFIG}, anything else 1. */
    private static int failed(Exception e, PrintStream err) {
        if (e instanceof ConfigException) {
            err.println("sluice: config error: " + e.getMessage());
            return EXIT_CONFIG;
        }
        err.println("sluice: " + e);
        return 1;
    }

    private static int executeWithPicocli(String[] args, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> failed(e, err));
        return cl.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        if (version) {
            stdout.println("sluice " + version());
            return 0;
        }
        if (list) {
            return new ListCommand().call();
        }
        if (testConfig != null) {
            ValidateCommand v = new ValidateCommand();
            v.paths = testConfig;
            return v.call();
        }
        if (config != null) {
            return PipelineProcess.runFiles(config, logLevel, !noStats, runOptions);
        }
        return PipelineProcess.runQuickstart(logLevel, !noStats, runOptions);
    }

    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }
}
