package io.sluice.forward.client;

import io.sluice.forward.codec.Digests;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.Helo;
import io.sluice.forward.codec.MsgPackReader;
import io.sluice.forward.codec.ValueType;
import java.io.IOException;
import java.io.OutputStream;
import java.security.SecureRandom;

/**
 * The client side of the Forward v1 handshake: the server sends
 * {@code ["HELO", {nonce, auth, keepalive}]}, the client answers
 * {@code ["PING", self_hostname, shared_key_salt, sha512_hex(salt + self_hostname + nonce +
 * shared_key), username, sha512_hex(auth_salt + username + password)]}, and the server replies
 * {@code ["PONG", auth_ok, reason, server_hostname, sha512_hex(salt + server_hostname + nonce +
 * shared_key)]}, which proves the server knows the key too.
 */
final class Handshake {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Handshake() {
    }

    static void run(ForwardConfig cfg, ResponseReader in, OutputStream out) throws IOException {
        MsgPackReader r = in.next();
        int n = r.readArrayHeader();
        if (n < 2 || !r.readStringEquals("HELO")) {
            throw new ForwardProtocolException(0, "expected HELO from the server");
        }
        Helo helo = Helo.readOptions(r);
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        out.write(helo.ping(cfg.selfHostname(), salt, cfg.sharedKey(), cfg.username(), cfg.password()));
        out.flush();
        checkPong(cfg, in.next(), helo.nonce(), salt);
    }

    private static void checkPong(ForwardConfig cfg, MsgPackReader r, byte[] nonce, byte[] salt)
            throws IOException {
        int n = r.readArrayHeader();
        if (n < 5 || !r.readStringEquals("PONG")) {
            throw new ForwardProtocolException(0, "expected PONG from the server");
        }
        boolean ok = r.nextType() == ValueType.BOOLEAN && r.readBoolean();
        String reason = r.readString();
        if (!ok) {
            throw new ForwardAuthenticationException("server refused the handshake: " + reason);
        }
        String serverHost = r.readString();
        String digest = r.readString();
        if (!digest.equals(Digests.sharedKey(salt, serverHost, nonce, cfg.sharedKey()))) {
            throw new ForwardAuthenticationException("server " + serverHost
                    + " does not know the shared key (PONG digest mismatch)");
        }
    }

}
