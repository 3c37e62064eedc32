package io.sluice.core.config;

/**
 * A configuration error found before anything starts. The message names the file, line, plugin id and key
 * so that a user can go straight to the mistake. The CLI exits with code 2 on it.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an error whose message is already complete. */
    public ConfigException(String message) {
        super(message);
    }

    /** Formats "file:line: plugin 'id', key 'Key': what". Any part may be null. */
    public static ConfigException at(String file, int line, String pluginId, String key, String what) {
        StringBuilder b = new StringBuilder();
        if (file != null) {
            b.append(file);
            if (line > 0) {
                b.append(':').append(line);
            }
            b.append(": ");
        }
        if (pluginId != null) {
            b.append("plugin '").append(pluginId).append('\'');
            if (key != null) {
                b.append(", key '").append(key).append('\'');
            }
            b.append(": ");
        }
        b.append(what);
        return new ConfigException(b.toString());
    }
}
