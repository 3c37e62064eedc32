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

    /** UTF-8 bytes of a handshake string. */
    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
