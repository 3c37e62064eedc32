package io.sluice.otlp.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.sluice.core.pipeline.Rejection;
import io.sluice.core.testing.Captured;
import io.sluice.core.testing.PipelineHarness;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS with the SDK's exporters over https: gRPC (ALPN h2) and HTTP with a self-signed server certificate made by
 * keytool (as sluice-forward's SecurityTest makes one), written as the PEM files TLS/CertFile and TLS/KeyFile take;
 * client certificates with TLS/ClientAuth require; bearer tokens from the SDK's headers.
 */
@Timeout(90)
class OtlpTlsTest {
    @TempDir
    static Path dir;
    static Pem server;
    static Pem client;

    /** A certificate and its PKCS#8 key as PEM files and bytes. */
    record Pem(Path cert, Path key, byte[] certBytes, byte[] keyBytes) {
    }

    private Harness h;

    @BeforeAll
    static void certificates() throws Exception {
        server = pem("server");
        client = pem("client");
    }

    /** keytool makes a self-signed EC key pair for 127.0.0.1; it is written out as PEM. */
    private static Pem pem(String name) throws Exception {
        Path store = dir.resolve(name + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=sluice-" + name,
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out)).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        byte[] cert = block("CERTIFICATE", ks.getCertificate(name).getEncoded());
        byte[] key = block("PRIVATE KEY", ks.getKey(name, "changeit".toCharArray()).getEncoded());
        Path c = Files.write(dir.resolve(name + ".crt"), cert);
        Path k = Files.write(dir.resolve(name + ".key"), key);
        return new Pem(c, k, cert, key);
    }

    private static byte[] block(String type, byte[] der) {
        return ("-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n").getBytes(StandardCharsets.US_ASCII);
    }

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    @Test
    void sdkExportersOverHttpsWithABearerToken() throws Exception {
        h = new Harness("tls", Map.of("TLS/CertFile", server.cert().toString(), "TLS/KeyFile", server.key().toString(),
                "BearerTokens", "t0ken"));
        assertThat(OtlpSdkExportTest.emitLog(OtlpGrpcLogRecordExporter.builder()
                .setEndpoint("https://127.0.0.1:" + h.grpcPort).setTrustedCertificates(server.certBytes())
                .addHeader("Authorization", "Bearer t0ken").build(), "over h2")).isTrue();
        assertThat(OtlpSdkExportTest.emitLog(OtlpHttpLogRecordExporter.builder()
                .setEndpoint("https://127.0.0.1:" + h.httpPort + "/v1/logs").setTrustedCertificates(server.certBytes())
                .addHeader("Authorization", "Bearer t0ken").build(), "over https")).isTrue();
        assertThat(h.received()).extracting(Captured::payload).containsExactly("over h2", "over https");
        // the right certificate, the wrong token
        assertThat(OtlpSdkExportTest.emitLog(OtlpGrpcLogRecordExporter.builder()
                .setEndpoint("https://127.0.0.1:" + h.grpcPort).setTrustedCertificates(server.certBytes())
                .addHeader("Authorization", "Bearer guess").build(), "refused")).isFalse();
        assertThat(h.stats().rejected(Rejection.AUTH)).isEqualTo(1);
        assertThat(h.received()).hasSize(2);
        h.awaitBudgetEmpty();
    }

    @Test
    void clientCertificatesWhenRequired() throws Exception {
        h = new Harness("mtls", Map.of("TLS/CertFile", server.cert().toString(), "TLS/KeyFile", server.key().toString(),
                "TLS/CAFile", client.cert().toString(), "TLS/ClientAuth", "require"));
        assertThat(OtlpSdkExportTest.emitLog(OtlpGrpcLogRecordExporter.builder()
                .setEndpoint("https://127.0.0.1:" + h.grpcPort).setTrustedCertificates(server.certBytes())
                .setClientTls(client.keyBytes(), client.certBytes()).build(), "with a client certificate")).isTrue();
        assertThat(OtlpSdkExportTest.emitLog(OtlpHttpLogRecordExporter.builder()
                .setEndpoint("https://127.0.0.1:" + h.httpPort + "/v1/logs").setTrustedCertificates(server.certBytes())
                .setRetryPolicy(null).build(), "without one")).isFalse();
        assertThat(h.received()).extracting(Captured::payload).containsExactly("with a client certificate");
        PipelineHarness.await("the failed handshake to be counted (auth)", 10_000,
                () -> h.stats().rejected(Rejection.AUTH) >= 1);
    }
}
