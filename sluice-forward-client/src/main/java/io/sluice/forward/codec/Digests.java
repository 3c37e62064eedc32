package io.sluice.forward.codec;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The SHA-512 hex digests of the Forward handshake (shared_key and password), used by clients and servers alike. */
public final class Digests {
    private Digests() {
    }

    /** Hex SHA-512 of the concatenated parts. */
    public static String sha512Hex(byte[]... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-512");
            for (byte[] p : parts) {
                md.update(p);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-512 is required of every JVM", e);
        }
    }

    /** The shared_key digest PING and PONG carry: hex SHA-512 of salt, hostname, nonce and shared key. */
    public static String sharedKey(byte[] salt, String hostname, byte[] nonce, String sharedKey) {
        return sha512Hex(salt, utf8(hostname), nonce, utf8(sharedKey));
    }

    /** The password digest a PING carries for user authentication: hex SHA-512 of auth salt, user, password. */
    public static String password(byte[] authSalt, String username, String password) {
        return sha512Hex(authSalt, utf8(username), utf8(password));
    }

    /** UTF-8 bytes of a handshake string. */
    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
