package io.sluice.core.tls;

import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager that re-reads its certificate and key when their files change, so that a rotated certificate is
 * served to the next handshake while open connections keep theirs. Aliases carry the generation they came from:
 * a handshake that chose its alias just before a reload still gets the matching key and chain.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private final String certFile;
    private final String keyFile;
    private final String password;
    private final FileStamp stamp;
    private final TlsEvents events;
    private volatile Generation current;
    private volatile Generation previous;

    private record Generation(int number, X509ExtendedKeyManager keys) {
    }

    ReloadingKeyManager(String certFile, String keyFile, String password, TlsEvents events) throws Exception {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.password = password;
        this.events = events;
        this.stamp = new FileStamp(certFile, keyFile);
        this.current = new Generation(0, load());
        this.previous = current;
    }

    private X509ExtendedKeyManager load() throws Exception {
        KeyMaterial.Identity id = KeyMaterial.identity(certFile, keyFile, password);
        char[] pw = "sluice".toCharArray();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("sluice", id.key(), pw, id.chain());
        KeyManagerFactory f = KeyManagerFactory.getInstance("SunX509");
        f.init(ks, pw);
        for (KeyManager m : f.getKeyManagers()) {
            if (m instanceof X509ExtendedKeyManager x) {
                return x;
            }
        }
        throw new IllegalStateException("no X509ExtendedKeyManager");
    }

    /** Reads the files again if they changed; a bad new pair leaves the old one serving. */
    private Generation fresh() {
        if (stamp.changed()) {
            try {
                Generation next = new Generation(current.number() + 1, load());
                previous = current;
                current = next;
                events.reloaded(certFile);
            } catch (Exception e) {
                // half-written files during a copy are normal: keep serving the old pair and look again
                stamp.forceNextCheck();
                events.reloadFailed(certFile, e);
            }
        }
        return current;
    }

    private String tag(Generation g, String alias) {
        return alias == null ? null : g.number() + ":" + alias;
    }

    private X509ExtendedKeyManager keysOf(String alias) {
        int colon = alias == null ? -1 : alias.indexOf(':');
        if (colon < 0) {
            return null;
        }
        Generation c = current;
        String n = alias.substring(0, colon);
        if (n.equals(Integer.toString(c.number()))) {
            return c.keys();
        }
        Generation p = previous;
        return n.equals(Integer.toString(p.number())) ? p.keys() : null;
    }

    private static String bare(String alias) {
        return alias.substring(alias.indexOf(':') + 1);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        Generation g = fresh();
        return tag(g, g.keys().chooseEngineServerAlias(keyType, issuers, engine));
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        Generation g = fresh();
        return tag(g, g.keys().chooseServerAlias(keyType, issuers, socket));
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        Generation g = fresh();
        return tag(g, g.keys().chooseEngineClientAlias(keyType, issuers, engine));
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        Generation g = fresh();
        return tag(g, g.keys().chooseClientAlias(keyType, issuers, socket));
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        X509ExtendedKeyManager k = keysOf(alias);
        return k == null ? null : k.getCertificateChain(bare(alias));
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        X509ExtendedKeyManager k = keysOf(alias);
        return k == null ? null : k.getPrivateKey(bare(alias));
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return tagAll(fresh(), fresh().keys().getClientAliases(keyType, issuers));
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return tagAll(fresh(), fresh().keys().getServerAliases(keyType, issuers));
    }

    private String[] tagAll(Generation g, String[] aliases) {
        return aliases == null ? null : Arrays.stream(aliases).map(a -> tag(g, a)).toArray(String[]::new);
    }
}
