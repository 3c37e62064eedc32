package io.sluice.cli;

import io.sluice.core.pipeline.Log;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command lines that run a pipeline, recognised without picocli: {@code sluice}, {@code sluice -c PATH} (repeatable)
 * and {@code sluice run PATH...}, each with the run options ({@code -ll N}, {@code --no-stats}, {@code --admin HOST:PORT},
 * {@code --no-admin}, {@code --admin-token TOKEN}, {@code --admin-token-file FILE}, {@code --admin-tap},
 * {@code --log-format F}, {@code --memory-limit SIZE}) written as separate words. Building
 * picocli's model of the command costs about 120–150 ms of a cold JVM, more than the rest of the start together,
 * and a pipeline run needs none of it. Anything else (help, other commands, {@code --opt=value}, a repeated option
 * other than {@code -c}, an unknown option, a value that is not a plain number) returns null, and picocli parses the
 * line as before, with its messages.
 */
final class QuickRun {
    private final List<Path> paths = new ArrayList<>();
    private boolean quickstart;
    private int logLevel = Log.INFO;
    private boolean noStats;
    private final RunOptions options = new RunOptions();

    private QuickRun() {
    }

    /** The run this command line asks for, or null when picocli should parse it. */
    static QuickRun parse(String[] args) {
        QuickRun q = new QuickRun();
        if (args.length == 0) {
            q.quickstart = true;
            return q;
        }
        int i = 0;
        boolean run = args[0].equals("run");
        if (run) {
            i = 1;
        }
        boolean seenLevel = false;
        boolean seenStats = false;
        boolean seenAdmin = false;
        boolean seenNoAdmin = false;
        boolean seenFormat = false;
        boolean seenLimit = false;
        boolean seenToken = false;
        boolean seenTokenFile = false;
        boolean seenTap = false;
        for (; i < args.length; i++) {
            String a = args[i];
            String value = i + 1 < args.length ? args[i + 1] : null;
            boolean hasValue = value != null && !value.isEmpty() && value.charAt(0) != '-';
            switch (a) {
                case "-c", "--config" -> {
                    if (run || !hasValue) {
                        return null;
                    }
                    q.paths.add(Path.of(value));
                    i++;
                }
                case "-ll", "--loglevel" -> {
                    if (seenLevel || !hasValue || !digits(value)) {
                        return null;
                    }
                    q.logLevel = Integer.parseInt(value);
                    seenLevel = true;
                    i++;
                }
                case "--no-stats" -> {
                    if (seenStats) {
                        return null;
                    }
                    q.noStats = seenStats = true;
                }
                case "--no-admin" -> {
                    if (seenNoAdmin) {
                        return null;
                    }
                    q.options.noAdmin = seenNoAdmin = true;
                }
                case "--admin", "-m" -> {
                    if (seenAdmin || !hasValue) {
                        return null;
                    }
                    q.options.admin = value;
                    seenAdmin = true;
                    i++;
                }
                case "--admin-token" -> {
                    if (seenToken || !hasValue) {
                        return null;
                    }
                    q.options.adminToken = value;
                    seenToken = true;
                    i++;
                }
                case "--admin-token-file" -> {
                    if (seenTokenFile || !hasValue) {
                        return null;
                    }
                    q.options.adminTokenFile = Path.of(value);
                    seenTokenFile = true;
                    i++;
                }
                case "--admin-tap" -> {
                    if (seenTap) {
                        return null;
                    }
                    q.options.adminTap = seenTap = true;
                }
                case "--log-format" -> {
                    if (seenFormat || !hasValue) {
                        return null;
                    }
                    q.options.logFormat = value;
                    seenFormat = true;
                    i++;
                }
                case "--memory-limit" -> {
                    if (seenLimit || !hasValue) {
                        return null;
                    }
                    q.options.memoryLimit = value;
                    seenLimit = true;
                    i++;
                }
                default -> {
                    // run's positional PATHs; anything else is for picocli
                    if (!run || a.isEmpty() || a.charAt(0) == '-') {
                        return null;
                    }
                    q.paths.add(Path.of(a));
                }
            }
        }
        if (q.paths.isEmpty()) {
            return null; // options without a file run the quickstart: rare enough to leave to picocli
        }
        return q;
    }

    private static boolean digits(String s) {
        if (s.length() > 9) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    int run() throws Exception {
        if (quickstart) {
            return PipelineProcess.runQuickstart(logLevel, !noStats, options);
        }
        return PipelineProcess.runFiles(paths, logLevel, !noStats, options);
    }

    /** The config files and directories given, in order; empty for the quickstart. */
    List<Path> paths() {
        return paths;
    }

    int logLevel() {
        return logLevel;
    }

    boolean stats() {
        return !noStats;
    }

    RunOptions options() {
        return options;
    }
}
