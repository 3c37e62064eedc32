package io.sluice.cli;

import io.sluice.core.pipeline.Log;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
        Set<String> seen = new HashSet<>(); // each option but -c once, its spellings as one
        for (; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("-")) {
                // run's positional PATHs; anything else is for picocli
                if (!run || a.isEmpty()) {
                    return null;
                }
                q.paths.add(Path.of(a));
                continue;
            }
            boolean repeatable = a.equals("-c") || a.equals("--config");
            if (!repeatable && !seen.add(a.equals("-ll") ? "--loglevel" : a.equals("-m") ? "--admin" : a)) {
                return null;
            }
            switch (a) {
                case "--no-stats" -> q.noStats = true;
                case "--no-admin" -> q.options.noAdmin = true;
                case "--admin-tap" -> q.options.adminTap = true;
                default -> {
                    String value = i + 1 < args.length ? args[++i] : "";
                    if (value.isEmpty() || value.charAt(0) == '-') {
                        return null;
                    }
                    switch (a) {
                        case "-c", "--config" -> {
                            if (run) {
                                return null;
                            }
                            q.paths.add(Path.of(value));
                        }
                        case "-ll", "--loglevel" -> {
                            if (!digits(value)) {
                                return null;
                            }
                            q.logLevel = Integer.parseInt(value);
                        }
                        case "--admin", "-m" -> q.options.admin = value;
                        case "--admin-token" -> q.options.adminToken = value;
                        case "--admin-token-file" -> q.options.adminTokenFile = Path.of(value);
                        case "--log-format" -> q.options.logFormat = value;
                        case "--memory-limit" -> q.options.memoryLimit = value;
                        default -> {
                            return null;
                        }
                    }
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
