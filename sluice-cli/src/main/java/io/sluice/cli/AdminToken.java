package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The admin endpoint's bearer token, for {@code sluice run} (which requires it) and {@code sluice top} and
 * {@code sluice tap} (which send it): {@code --admin-token TOKEN}, else the content of
 * {@code --admin-token-file FILE}, else {@code SLUICE_ADMIN_TOKEN}. The file and the variable keep the token out of
 * the command line, which every user of the host can read.
 */
final class AdminToken {
    /** The environment variable read when neither option is given. */
    static final String ENV = "SLUICE_ADMIN_TOKEN";

    private AdminToken() {
    }

    /**
     * The token, or null when none is set (an empty {@value #ENV} counts as unset, as container tools write it).
     *
     * @throws ConfigException when both options are given, the file cannot be read, or the token is empty or not
     *                         one word of visible ASCII characters (it travels in an HTTP header)
     */
    static String resolve(String token, Path file, Map<String, String> env) {
        if (token != null && file != null) {
            throw new ConfigException("--admin-token and --admin-token-file: give one of them");
        }
        if (token != null) {
            return check(token, "--admin-token");
        }
        if (file != null) {
            return check(read(file), "--admin-token-file " + file);
        }
        String fromEnv = env.get(ENV);
        return fromEnv == null || fromEnv.isBlank() ? null : check(fromEnv.strip(), ENV);
    }

    /** The file's content without the line end an editor adds. */
    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new ConfigException("--admin-token-file: cannot read " + file + ": " + e.getMessage());
        }
    }

    private static String check(String token, String source) {
        if (token.isEmpty()) {
            throw new ConfigException(source + ": the admin token is empty");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                throw new ConfigException(source + ": the admin token must be one word of visible ASCII characters");
            }
        }
        return token;
    }
}
