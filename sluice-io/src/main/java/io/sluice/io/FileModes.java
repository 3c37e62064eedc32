package io.sluice.io;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The octal permission settings of the file and socket plugins ({@code Permissions: "0644"}), as the file system
 * takes them.
 */
public final class FileModes {
    private FileModes() {
    }

    /**
     * The octal mode {@code param} holds ({@code 0770} or {@code 770}).
     *
     * @param example a mode to name in the error, the parameter's default
     * @throws RuntimeException a config error when it is not an octal mode
     */
    public static String octal(PluginConfig config, Param<String> param, String example) {
        String v = config.get(param);
        if (!v.matches("0?[0-7]{3}")) {
            throw config.error(param, "expected an octal mode such as " + example + ", found '" + v + "'");
        }
        return v;
    }

    /** "0770" to "rwxrwx---". */
    public static String rwx(String octal) {
        int mode = Integer.parseInt(octal, 8);
        StringBuilder b = new StringBuilder(9);
        for (int shift = 6; shift >= 0; shift -= 3) {
            int bits = (mode >> shift) & 7;
            b.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
        }
        return b.toString();
    }

    /** Creates {@code dir} and its missing parents with {@code rwx} where the file system has POSIX permissions. */
    public static void createDirectories(Path dir, String rwx) throws IOException {
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(rwx)));
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(dir);
        }
    }
}
