package io.sluice.cli;

import io.sluice.core.admin.AdminServer;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice top}. */
@Command(name = "top", mixinStandardHelpOptions = true, description = "Live view of a running sluice: rates, queues, errors per plugin.")
final class TopCommand implements Callable<Integer> {
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
        boolean terminal = System.console() != null && Main.stdout == System.out;
        return new Top(url, token.resolve(), Main.stdout, terminal).run(interval, iterations);
    }
}
