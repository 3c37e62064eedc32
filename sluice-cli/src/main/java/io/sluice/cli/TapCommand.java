package io.sluice.cli;

import io.sluice.core.admin.AdminServer;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice tap PLUGIN}. */
@Command(name = "tap", mixinStandardHelpOptions = true, description = "Print sample messages (payload and metadata) "
        + "passing a consumer or producer; the running sluice serves them with --admin-tap or --admin-token.")
final class TapCommand implements Callable<Integer> {
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
        URI uri = URI.create(url.replaceAll("/+$", "") + "/api/tap?limit=" + limit + "&plugin="
                + URLEncoder.encode(plugin, StandardCharsets.UTF_8));
        HttpResponse<Stream<String>> r;
        try {
            r = HttpClient.newHttpClient().send(token.authorize(HttpRequest.newBuilder(uri)).build(),
                    HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            Main.stderr.println("sluice tap: cannot reach " + uri + ": " + e.getMessage());
            return 1;
        }
        if (r.statusCode() != 200) {
            Main.stderr.print("sluice tap: " + uri + " answered " + r.statusCode() + ": ");
            r.body().forEach(Main.stderr::println);
            return 1;
        }
        r.body().forEach(line -> {
            Main.stdout.println(line);
            Main.stdout.flush();
        });
        return 0;
    }
}
