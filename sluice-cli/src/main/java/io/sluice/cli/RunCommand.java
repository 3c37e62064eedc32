package io.sluice.cli;

import io.sluice.core.pipeline.Log;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice run PATH...}. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the pipeline in PATH (several files and directories are merged) until its consumers end or Ctrl-C.")
final class RunCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PATH", arity = "1..*",
            description = "Gollum-style YAML config files, or directories of *.yaml/*.yml files.")
    List<Path> paths;

    @Option(names = {"-ll", "--loglevel"}, paramLabel = "N", description = "Log level 0-3.")
    int logLevel = Log.INFO;

    @Option(names = "--no-stats", description = "Do not print the live stats line.")
    boolean noStats;

    @CommandLine.Mixin
    RunOptions runOptions = new RunOptions();

    @Override
    public Integer call() throws Exception {
        return PipelineProcess.runFiles(paths, logLevel, !noStats, runOptions);
    }
}
