package io.sluice.io.socket;

import io.sluice.core.tls.TestCertificates;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Plain JDK TLS contexts for the peers of the plugins under test, built without Sluice's TLS code (so that a test
 * does not check the group against itself): key managers from a PKCS#12 file, trust from a PEM CA.
 */
final class JdkTls {
    private JdkTls() {
    }

    /** A context presenting {@code p12} (null: none) and trusting {@code caPem} (null: the JVM's trust store). */
    static SSLContext context(Path p12, Path caPem) throws Exception {
        KeyManagerFactory kmf = null;
        if (p12 != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(p12)) {
                ks.load(in, TestCertificates.PASSWORD.toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = null;
        if (caPem != null) {
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, null);
            try (InputStream in = Files.newInputStream(caPem)) {
                ts.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
        return ctx;
    }
}
