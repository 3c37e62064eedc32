package io.sluice.cli;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The token {@code sluice top} and {@code sluice tap} send to an admin endpoint that requires one. */
final class ClientToken {
    @Option(names = "--admin-token", paramLabel = "TOKEN",
            description = "Bearer token of the admin endpoint (default SLUICE_ADMIN_TOKEN; prefer it or --admin-token-file).")
    String token;

    @Option(names = "--admin-token-file", paramLabel = "FILE", description = "Read the bearer token from FILE.")
    Path file;

    String resolve() {
        return AdminToken.resolve(token, file, System.getenv());
    }

    /** Adds {@code Authorization: Bearer} when a token is set. */
    HttpRequest.Builder authorize(HttpRequest.Builder b) {
        String t = resolve();
        return t == null ? b : b.header("Authorization", "Bearer " + t);
    }
}
