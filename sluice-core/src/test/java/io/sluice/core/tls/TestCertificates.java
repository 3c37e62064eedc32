package io.sluice.core.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;

/**
 * Certificates for TLS tests, made with the JDK's keytool (no library, nothing committed): a CA, and leaf
 * certificates it signs for 127.0.0.1 and localhost, written as PEM (chain, PKCS#8 key) and PKCS#12 as users keep
 * them. Shared by every module's TLS tests through core's test jar.
 */
public final class TestCertificates {
    public static final String PASSWORD = "changeit";

    private final Path dir;
    private final Path caStore;
    /** The CA certificate as PEM: what TLS/CAFile names. */
    public final Path caPem;

    /** A leaf: PEM chain (leaf then CA), PEM PKCS#8 key, PKCS#12 of both (password {@link #PASSWORD}). */
    public record Leaf(Path cert, Path key, Path p12, PrivateKey privateKey) {
    }

    private TestCertificates(Path dir, Path caStore, Path caPem) {
        this.dir = dir;
        this.caStore = caStore;
        this.caPem = caPem;
    }

    /** A new CA in {@code dir}. */
    public static TestCertificates ca(Path dir, String name) throws Exception {
        Path store = dir.resolve(name + "-ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "bc:c", "-validity", "30", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", PASSWORD);
        Path pem = dir.resolve(name + "-ca.pem");
        Files.writeString(pem, pem(load(store).getCertificate("ca")));
        return new TestCertificates(dir, store, pem);
    }

    /** A leaf signed by this CA, valid for 127.0.0.1 and localhost; {@code rsa} for an RSA key, else EC. */
    public Leaf leaf(String name, boolean rsa) throws Exception {
        Path store = dir.resolve(name + ".p12");
        List<String> gen = new ArrayList<>(List.of("-genkeypair", "-alias", "leaf", "-dname", "CN=" + name,
                "-validity", "30", "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD));
        gen.addAll(rsa ? List.of("-keyalg", "RSA", "-keysize", "2048") : List.of("-keyalg", "EC", "-groupname", "secp256r1"));
        keytool(gen.toArray(new String[0]));
        Path csr = dir.resolve(name + ".csr");
        Path crt = dir.resolve(name + ".crt.der");
        keytool("-certreq", "-alias", "leaf", "-keystore", store.toString(), "-storepass", PASSWORD, "-file", csr.toString());
        keytool("-gencert", "-alias", "ca", "-keystore", caStore.toString(), "-storepass", PASSWORD,
                "-infile", csr.toString(), "-outfile", crt.toString(), "-ext", "san=ip:127.0.0.1,dns:localhost",
                "-validity", "30");
        java.security.cert.CertificateFactory cf = java.security.cert.CertificateFactory.getInstance("X.509");
        Certificate leaf;
        try (InputStream in = Files.newInputStream(crt)) {
            leaf = cf.generateCertificate(in);
        }
        KeyStore ks = load(store);
        PrivateKey key = (PrivateKey) ks.getKey("leaf", PASSWORD.toCharArray());
        Certificate[] chain = {leaf, load(caStore).getCertificate("ca")};
        ks.setKeyEntry("leaf", key, PASSWORD.toCharArray(), chain);
        try (java.io.OutputStream out = Files.newOutputStream(store)) {
            ks.store(out, PASSWORD.toCharArray());
        }
        StringBuilder chainPem = new StringBuilder();
        for (Certificate c : chain) {
            chainPem.append(pem(c));
        }
        Path certPem = Files.writeString(dir.resolve(name + ".crt"), chainPem);
        Path keyPem = Files.writeString(dir.resolve(name + ".key"), block("PRIVATE KEY", key.getEncoded()));
        return new Leaf(certPem, keyPem, store, key);
    }

    /**
     * A JDK client context, independent of Sluice's TLS code (the peer in tests): trusts this CA, presents
     * {@code leaf} when it is not null.
     */
    public javax.net.ssl.SSLContext clientContext(Leaf leaf) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.KeyManagerFactory kmf = null;
        if (leaf != null) {
            kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(leaf.p12()), PASSWORD.toCharArray());
        }
        javax.net.ssl.SSLContext c = javax.net.ssl.SSLContext.getInstance("TLS");
        c.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return c;
    }

    /** {@code key} as an encrypted PKCS#8 PEM (PBES2, AES-256), as {@code openssl pkcs8 -topk8 -v2 aes256} writes. */
    public static String encryptedPem(PrivateKey key, String password) throws Exception {
        String alg = "PBEWithHmacSHA256AndAES_256";
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        PBEParameterSpec spec = new PBEParameterSpec(salt, 10_000, new javax.crypto.spec.IvParameterSpec(new byte[16]));
        Cipher c = Cipher.getInstance(alg);
        c.init(Cipher.ENCRYPT_MODE, SecretKeyFactory.getInstance(alg).generateSecret(new PBEKeySpec(password.toCharArray())), spec);
        byte[] encrypted = c.doFinal(key.getEncoded());
        // the cipher's parameters encode as PBES2's, which is the name EncryptedPrivateKeyInfo has an OID for
        AlgorithmParameters pbes2 = AlgorithmParameters.getInstance("PBES2");
        pbes2.init(c.getParameters().getEncoded());
        return block("ENCRYPTED PRIVATE KEY", new EncryptedPrivateKeyInfo(pbes2, encrypted).getEncoded());
    }

    /** The PKCS#1 body of an RSA PKCS#8 key, as {@code openssl genrsa -traditional} writes it. */
    public static String pkcs1Pem(PrivateKey rsa) {
        byte[] der = rsa.getEncoded();
        // PKCS#8: SEQUENCE { INTEGER 0, SEQUENCE algorithm, OCTET STRING pkcs1 }: skip to the octet string
        int at = skipHeader(der, 0);
        at = skipWhole(der, at); // version
        at = skipWhole(der, at); // algorithm
        int body = skipHeader(der, at);
        byte[] pkcs1 = java.util.Arrays.copyOfRange(der, body, der.length);
        return block("RSA PRIVATE KEY", pkcs1);
    }

    private static int skipHeader(byte[] der, int at) {
        int len = der[at + 1] & 0xff;
        return at + 2 + (len < 0x80 ? 0 : len & 0x7f);
    }

    private static int skipWhole(byte[] der, int at) {
        int first = der[at + 1] & 0xff;
        if (first < 0x80) {
            return at + 2 + first;
        }
        int n = first & 0x7f;
        int len = 0;
        for (int i = 0; i < n; i++) {
            len = len << 8 | der[at + 2 + i] & 0xff;
        }
        return at + 2 + n + len;
    }

    private static KeyStore load(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private static String pem(Certificate c) throws Exception {
        return block("CERTIFICATE", c.getEncoded());
    }

    static String block(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }
}
