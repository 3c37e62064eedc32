package io.sluice.core.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Certificates and private keys read from the files users have: PEM (certificate chains; PKCS#8 keys, encrypted
 * or not; PKCS#1 RSA keys as {@code openssl genrsa} writes them) and PKCS#12 / JKS stores. JDK only, so that every
 * module (Netty-based or not) reads keys the same way.
 */
final class KeyMaterial {
    private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "DSA"};

    private KeyMaterial() {
    }

    /** A private key and the certificate chain it signs for. */
    record Identity(PrivateKey key, X509Certificate[] chain) {
    }

    /** Whether a file is a key store (PKCS#12 or JKS) rather than PEM, by its name. */
    static boolean isStore(String file) {
        String f = file.toLowerCase(Locale.ROOT);
        return f.endsWith(".p12") || f.endsWith(".pfx") || f.endsWith(".jks") || f.endsWith(".keystore");
    }

    /** The identity in {@code certFile} (PEM chain with {@code keyFile}, or a store holding both). */
    static Identity identity(String certFile, String keyFile, String password) throws IOException, GeneralSecurityException {
        if (isStore(certFile)) {
            KeyStore ks = store(certFile, password);
            for (String alias : Collections.list(ks.aliases())) {
                if (ks.isKeyEntry(alias)) {
                    Key k = ks.getKey(alias, password.toCharArray());
                    Certificate[] chain = ks.getCertificateChain(alias);
                    if (k instanceof PrivateKey pk && chain != null && chain.length > 0) {
                        return new Identity(pk, Arrays.copyOf(chain, chain.length, X509Certificate[].class));
                    }
                }
            }
            throw new GeneralSecurityException(certFile + " holds no private key with its certificate");
        }
        List<X509Certificate> chain = certificates(certFile);
        if (chain.isEmpty()) {
            throw new GeneralSecurityException(certFile + " holds no PEM certificate");
        }
        return new Identity(privateKey(keyFile, password), chain.toArray(new X509Certificate[0]));
    }

    /** The certificates in a PEM file or a store (its trusted entries). */
    static List<X509Certificate> trusted(String caFile, String password) throws IOException, GeneralSecurityException {
        if (isStore(caFile)) {
            KeyStore ks = store(caFile, password);
            List<X509Certificate> out = new ArrayList<>();
            for (String alias : Collections.list(ks.aliases())) {
                if (ks.getCertificate(alias) instanceof X509Certificate c) {
                    out.add(c);
                }
            }
            return out;
        }
        List<X509Certificate> out = certificates(caFile);
        if (out.isEmpty()) {
            throw new GeneralSecurityException(caFile + " holds no PEM certificate");
        }
        return out;
    }

    private static KeyStore store(String file, String password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance(file.toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            ks.load(in, password.isEmpty() ? null : password.toCharArray());
        }
        return ks;
    }

    private static List<X509Certificate> certificates(String file) throws IOException, GeneralSecurityException {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        List<X509Certificate> out = new ArrayList<>();
        for (byte[] der : blocks(Files.readString(Path.of(file), StandardCharsets.US_ASCII), "CERTIFICATE")) {
            out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der)));
        }
        return out;
    }

    private static PrivateKey privateKey(String file, String password) throws IOException, GeneralSecurityException {
        String pem = Files.readString(Path.of(file), StandardCharsets.US_ASCII);
        List<byte[]> plain = blocks(pem, "PRIVATE KEY");
        if (!plain.isEmpty()) {
            return pkcs8(plain.get(0));
        }
        List<byte[]> encrypted = blocks(pem, "ENCRYPTED PRIVATE KEY");
        if (!encrypted.isEmpty()) {
            if (password.isEmpty()) {
                throw new GeneralSecurityException(file + " is encrypted: set TLS/KeyPassword");
            }
            return pkcs8(decrypt(encrypted.get(0), password));
        }
        List<byte[]> rsa = blocks(pem, "RSA PRIVATE KEY");
        if (!rsa.isEmpty()) {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Pkcs1.toPkcs8(rsa.get(0))));
        }
        throw new GeneralSecurityException(file + " holds no PEM private key (PKCS#8 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY'"
                + " or 'RSA PRIVATE KEY'; convert others with: openssl pkcs8 -topk8 -nocrypt)");
    }

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String alg : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(spec);
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                // not this algorithm: try the next
            }
        }
        throw new GeneralSecurityException("unsupported private key algorithm");
    }

    private static byte[] decrypt(byte[] der, String password) throws IOException, GeneralSecurityException {
        EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
        // PBES2 names its real algorithm in its parameters ("PBEWithHmacSHA256AndAES_256"), as Netty reads it too.
        String alg = info.getAlgParameters() == null ? info.getAlgName() : info.getAlgParameters().toString();
        SecretKeyFactory f = SecretKeyFactory.getInstance(alg);
        Cipher c = Cipher.getInstance(alg);
        c.init(Cipher.DECRYPT_MODE, f.generateSecret(new PBEKeySpec(password.toCharArray())), info.getAlgParameters());
        return info.getKeySpec(c).getEncoded();
    }

    /** The DER bodies of every {@code -----BEGIN label-----} block, ignoring text around them. */
    static List<byte[]> blocks(String pem, String label) {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        List<byte[]> out = new ArrayList<>();
        int at = pem.indexOf(begin);
        while (at >= 0) {
            int stop = pem.indexOf(end, at);
            if (stop < 0) {
                break;
            }
            out.add(Base64.getMimeDecoder().decode(pem.substring(at + begin.length(), stop)));
            at = pem.indexOf(begin, stop);
        }
        return out;
    }

    /** PKCS#1 RSA keys wrapped as PKCS#8, which is all the JDK's KeyFactory reads. */
    static final class Pkcs1 {
        private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
                (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

        private Pkcs1() {
        }

        static byte[] toPkcs8(byte[] pkcs1) {
            byte[] octets = tlv(0x04, pkcs1);
            byte[] version = {0x02, 0x01, 0x00};
            byte[] body = new byte[version.length + RSA_ALGORITHM.length + octets.length];
            System.arraycopy(version, 0, body, 0, version.length);
            System.arraycopy(RSA_ALGORITHM, 0, body, version.length, RSA_ALGORITHM.length);
            System.arraycopy(octets, 0, body, version.length + RSA_ALGORITHM.length, octets.length);
            return tlv(0x30, body);
        }

        private static byte[] tlv(int tag, byte[] value) {
            int n = value.length;
            byte[] len = n < 0x80 ? new byte[] {(byte) n}
                    : n < 0x100 ? new byte[] {(byte) 0x81, (byte) n}
                    : n < 0x10000 ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
                    : new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
            byte[] out = new byte[1 + len.length + n];
            out[0] = (byte) tag;
            System.arraycopy(len, 0, out, 1, len.length);
            System.arraycopy(value, 0, out, 1 + len.length, n);
            return out;
        }
    }
}
