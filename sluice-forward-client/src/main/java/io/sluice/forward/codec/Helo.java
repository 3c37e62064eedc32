package io.sluice.forward.codec;

/**
 * A server's HELO as the client side of the handshake reads it, and the PING that answers it: shared by the client
 * library and {@code producer.Forward}.
 *
 * @param nonce    the server's nonce
 * @param authSalt the salt for user authentication; empty when the server asks for none
 */
public record Helo(byte[] nonce, byte[] authSalt) {
    /** Reads the options map of {@code ["HELO", {nonce, auth, keepalive}]} at the reader's position. */
    public static Helo readOptions(MsgPackReader r) throws ForwardProtocolException {
        byte[] nonce = new byte[0];
        byte[] auth = new byte[0];
        int entries = r.readMapHeader();
        for (int i = 0; i < entries; i++) {
            String key = r.readString();
            if (key.equals("nonce")) {
                nonce = r.readBytes();
            } else if (key.equals("auth")) {
                auth = r.readBytes();
            } else {
                r.skipValue();
            }
        }
        return new Helo(nonce, auth);
    }

    /** The PING: the shared key digest, and the user name and password digest when the server asked for them. */
    public byte[] ping(String selfHostname, byte[] salt, String sharedKey, String username, String password) {
        MsgPackWriter w = new MsgPackWriter(512);
        w.writeArrayHeader(6);
        w.writeString("PING");
        w.writeString(selfHostname);
        w.writeBin(salt, 0, salt.length);
        w.writeString(Digests.sharedKey(salt, selfHostname, nonce, sharedKey));
        boolean userAuth = authSalt.length > 0;
        w.writeString(userAuth ? username : "");
        w.writeString(userAuth ? Digests.password(authSalt, username, password) : "");
        return w.toByteArray();
    }
}
