package io.sluice.forward.consumer;

import io.sluice.forward.codec.Digests;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.MsgPackReader;
import io.sluice.forward.codec.MsgPackWriter;
import io.sluice.forward.codec.ValueType;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Map;

/**
 * The server side of the Forward v1 handshake (Fluentd's {@code <security>}): on connect the server sends
 * {@code ["HELO", {nonce, auth, keepalive}]}; the client answers {@code ["PING", hostname, salt,
 * sha512_hex(salt + hostname + nonce + shared_key), username, sha512_hex(auth_salt + username + password)]}; the
 * server checks both digests and replies {@code ["PONG", ok, reason, server_hostname, sha512_hex(salt +
 * server_hostname + nonce + shared_key)]}. A refused client gets {@code ok = false} and the reason, then the
 * connection is closed. One instance per connection.
 */
final class ServerHandshake {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String sharedKey;
    private final String serverHostname;
    private final Map<String, String> users;
    private final byte[] nonce = new byte[16];
    private final byte[] authSalt;

    /** What the PING check decided, and the PONG to send. */
    record Result(boolean ok, String reason, String clientHostname, byte[] pong) {
    }

    ServerHandshake(String sharedKey, String serverHostname, Map<String, String> users) {
        this.sharedKey = sharedKey;
        this.serverHostname = serverHostname;
        this.users = users;
        RANDOM.nextBytes(nonce);
        this.authSalt = users.isEmpty() ? new byte[0] : new byte[16];
        RANDOM.nextBytes(authSalt);
    }

    /** The HELO message the server sends first. */
    byte[] helo() {
        MsgPackWriter w = new MsgPackWriter(64);
        w.writeArrayHeader(2);
        w.writeString("HELO");
        w.writeMapHeader(3);
        w.writeString("nonce");
        w.writeBin(nonce, 0, nonce.length);
        w.writeString("auth");
        w.writeBin(authSalt, 0, authSalt.length);
        w.writeString("keepalive");
        w.writeBoolean(true);
        return w.toByteArray();
    }

    /** Checks a PING frame and builds the PONG. */
    Result ping(byte[] buf, int off, int len) {
        MsgPackReader r = new MsgPackReader().reset(buf, off, len, 0);
        String hostname = "";
        try {
            int n = r.readArrayHeader();
            if (n < 4 || r.nextType() != ValueType.STRING || !r.readStringEquals("PING")) {
                return refuse("expected PING as the first message (shared_key is required)", hostname, new byte[0]);
            }
            hostname = r.readString();
            byte[] salt = r.readBytes();
            String digest = r.readString();
            String username = n > 4 ? r.readString() : "";
            String passwordDigest = n > 5 ? r.readString() : "";
            if (!constantTimeEquals(digest, digest(salt, hostname))) {
                return refuse("shared_key mismatch", hostname, salt);
            }
            if (!users.isEmpty()) {
                String password = users.get(username);
                if (password == null || !constantTimeEquals(passwordDigest, Digests.password(authSalt, username, password))) {
                    return refuse("username/password mismatch", hostname, salt);
                }
            }
            return new Result(true, "", hostname, pong(true, "", salt));
        } catch (ForwardProtocolException e) {
            return refuse("malformed PING: " + e.getMessage(), hostname, new byte[0]);
        }
    }

    private Result refuse(String reason, String hostname, byte[] salt) {
        return new Result(false, reason, hostname, pong(false, reason, salt));
    }

    private byte[] pong(boolean ok, String reason, byte[] salt) {
        MsgPackWriter w = new MsgPackWriter(256);
        w.writeArrayHeader(5);
        w.writeString("PONG");
        w.writeBoolean(ok);
        w.writeString(reason);
        w.writeString(ok ? serverHostname : "");
        w.writeString(ok ? digest(salt, serverHostname) : "");
        return w.toByteArray();
    }

    private String digest(byte[] salt, String hostname) {
        return Digests.sharedKey(salt, hostname, nonce, sharedKey);
    }

    private static boolean constantTimeEquals(String a, String b) {
        return MessageDigest.isEqual(Digests.utf8(a), Digests.utf8(b));
    }
}
