package io.sluice.core.tls;

import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The CAs of {@code TLS/CAFile}, re-read when the file changes (a CA rotation adds the new CA before the old one
 * goes). Checks go to the JDK's PKIX trust manager, which also verifies the peer's name when the engine asks for
 * it ({@code endpointIdentificationAlgorithm}).
 */
final class ReloadingTrustManager extends X509ExtendedTrustManager {
    private final String caFile;
    private final String password;
    private final FileStamp stamp;
    private final TlsEvents events;
    private volatile X509ExtendedTrustManager current;

    ReloadingTrustManager(String caFile, String password, TlsEvents events) throws Exception {
        this.caFile = caFile;
        this.password = password;
        this.events = events;
        this.stamp = new FileStamp(caFile);
        this.current = load();
    }

    private X509ExtendedTrustManager load() throws Exception {
        List<X509Certificate> cas = KeyMaterial.trusted(caFile, password);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        int i = 0;
        for (X509Certificate c : cas) {
            ks.setCertificateEntry("ca" + i++, c);
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(ks);
        for (TrustManager m : f.getTrustManagers()) {
            if (m instanceof X509ExtendedTrustManager x) {
                return x;
            }
        }
        throw new IllegalStateException("no X509ExtendedTrustManager");
    }

    private X509ExtendedTrustManager fresh() {
        if (stamp.changed()) {
            try {
                current = load();
                events.reloaded(caFile);
            } catch (Exception e) {
                stamp.forceNextCheck();
                events.reloadFailed(caFile, e);
            }
        }
        return current;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        fresh().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        fresh().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        fresh().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        fresh().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        fresh().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        fresh().checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return fresh().getAcceptedIssuers();
    }
}
