package io.sluice.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice graph PATH...}: the pipeline as DOT or Mermaid. */
@Command(name = "graph", mixinStandardHelpOptions = true,
        description = "Print the pipeline in PATH (several files and directories are merged) as a DOT (Graphviz) or Mermaid graph.")
final class GraphCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Config files, or directories of *.yaml/*.yml files.")
    List<Path> paths;

    @Option(names = "--format", paramLabel = "dot|mermaid", description = "Output format (default dot).")
    String format = "dot";

    @Override
    public Integer call() {
        Graph g = Graph.of(ConfigSource.of(paths).load());
        if (format.equalsIgnoreCase("mermaid")) {
            Main.stdout.print(g.mermaid());
        } else if (format.equalsIgnoreCase("dot")) {
            Main.stdout.print(g.dot());
        } else {
            Main.stderr.println("sluice graph: --format must be dot or mermaid");
            return Main.EXIT_CONFIG;
        }
        return 0;
    }
}
