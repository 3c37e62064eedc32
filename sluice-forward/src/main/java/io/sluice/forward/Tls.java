package io.sluice.forward;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds Netty {@link SslContext}s for the Forward plugins from files, with the JDK's TLS provider (no native
 * library, no BouncyCastle): a PKCS#12 or JKS key store, or PEM certificate and PKCS#8 key files.
 */
public final class Tls {
    private Tls() {
    }

    /**
     * A server context.
     *
     * @param keyStore      PKCS#12 or JKS file holding the server's key and certificate chain, or empty
     * @param storePassword its password
     * @param certFile      PEM certificate chain (when no key store is given)
     * @param keyFile       PEM PKCS#8 private key
     * @param keyPassword   the key's password, or empty when it is not encrypted
     */
    public static SslContext server(String keyStore, String storePassword, String certFile, String keyFile,
                                    String keyPassword) throws IOException, GeneralSecurityException {
        if (!keyStore.isEmpty()) {
            KeyStore ks = load(keyStore, storePassword);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, storePassword.toCharArray());
            return SslContextBuilder.forServer(kmf).build();
        }
        return SslContextBuilder.forServer(new File(certFile), new File(keyFile), keyPassword.isEmpty() ? null : keyPassword)
                .build();
    }

    /**
     * A client context.
     *
     * @param trustStore    PKCS#12 or JKS file of trusted certificates, or empty
     * @param storePassword its password
     * @param caFile        PEM file of trusted certificates (when no trust store is given), or empty for the JVM's
     *                      default trust
     */
    public static SslContext client(String trustStore, String storePassword, String caFile)
            throws IOException, GeneralSecurityException {
        SslContextBuilder b = SslContextBuilder.forClient();
        if (!trustStore.isEmpty()) {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(trustStore, storePassword));
            b.trustManager(tmf);
        } else if (!caFile.isEmpty()) {
            b.trustManager(new File(caFile));
        }
        return b.build();
    }

    private static KeyStore load(String file, String password) throws IOException, GeneralSecurityException {
        String type = file.endsWith(".jks") ? "JKS" : "PKCS12";
        KeyStore ks = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            ks.load(in, password.toCharArray());
        }
        return ks;
    }
}
