package io.sluice.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice docs}: writes the plugin reference pages. */
@Command(name = "docs", mixinStandardHelpOptions = true,
        description = "Write the plugin reference (one Markdown page per plugin) into a directory.")
final class DocsCommand implements Callable<Integer> {
    @Option(names = "--out", paramLabel = "DIR", description = "Directory to write into (default docs/plugins).")
    Path out = Path.of("docs", "plugins");

    @Override
    public Integer call() throws IOException {
        int n = PluginDocs.write(out);
        Main.stdout.println("wrote " + n + " pages to " + out);
        return 0;
    }
}
