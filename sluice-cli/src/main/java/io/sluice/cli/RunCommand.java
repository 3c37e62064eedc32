package io.sluice.cli;

import io.sluice.core.pipeline.Log;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice run FILE}. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Run the pipeline in FILE until its consumers end or Ctrl-C.")
final class RunCommand implements Callable<Integer> {
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
        return PipelineProcess.runFile(file, logLevel, !noStats, runOptions);
    }
}
