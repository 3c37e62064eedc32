package io.sluice.otlp.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.sluice.core.pipeline.PermanentDeliveryException;
import io.sluice.core.testing.PipelineHarness;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** producer.OTLP with TLS/*: gRPC (ALPN h2) against grpc-java, and https against the JDK's HTTPS server. */
@Timeout(60)
class TlsExportTest {
    private static final char[] PASS = "changeit".toCharArray();
    @TempDir
    static Path dir;
    private static KeyManagerFactory keys;
    private static Path ca;
    private static Path key;

    @BeforeAll
    static void makeCertificate() throws Exception {
        Path ks = dir.resolve("server.p12");
        run("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=sluice-test",
                "-ext", "SAN=ip:127.0.0.1,dns:otlp.test", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", ks.toString(), "-storepass", "changeit", "-keypass", "changeit");
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(ks.toFile())) {
            store.load(in, PASS);
        }
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASS);
        key = dir.resolve("key.pem");
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(store.getKey("server", PASS).getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        ca = dir.resolve("ca.pem");
        Files.writeString(ca, "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(store.getCertificate("server").getEncoded())
                + "\n-----END CERTIFICATE-----\n");
    }

    private static void run(String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out)).isZero();
    }

    private static OtlpProducer producer(Map<String, Object> settings) throws Exception {
        return Support.producer(new HashMap<>(settings), PipelineHarness.quietLog());
    }

    @Test
    void grpcOverTlsWithTheCaFileAndTheRightName() throws Exception {
        try (GrpcReceiver r = new GrpcReceiver(GrpcSslContexts.configure(SslContextBuilder.forServer(keys)).build())) {
            OtlpProducer p = producer(Map.of("Endpoint", "127.0.0.1:" + r.port(), "TLS/Enable", true, "TLS/CAFile", ca.toString()));
            try {
                p.deliver(GrpcExportTest.mixedLogs(3));
                assertThat(r.logRecords()).isEqualTo(3);
            } finally {
                p.close();
            }
            OtlpProducer named = producer(Map.of("Endpoint", "https://127.0.0.1:" + r.port(), "TLS/CAFile", ca.toString(),
                    "TLS/ServerName", "otlp.test"));
            try {
                named.deliver(GrpcExportTest.oneLog());
                assertThat(r.logRecords()).isEqualTo(4);
            } finally {
                named.close();
            }
        }
    }

    @Test
    void aCertificateForAnotherNameOrAnUnknownCaIsRefusedUnlessVerificationIsOff() throws Exception {
        try (GrpcReceiver r = new GrpcReceiver(GrpcSslContexts.configure(SslContextBuilder.forServer(keys)).build())) {
            OtlpProducer wrongName = producer(Map.of("Endpoint", "127.0.0.1:" + r.port(), "TLS/Enable", true,
                    "TLS/CAFile", ca.toString(), "TLS/ServerName", "elsewhere.test"));
            OtlpProducer unknownCa = producer(Map.of("Endpoint", "127.0.0.1:" + r.port(), "TLS/Enable", true));
            OtlpProducer insecure = producer(Map.of("Endpoint", "127.0.0.1:" + r.port(), "TLS/Enable", true,
                    "TLS/InsecureSkipVerify", true));
            try {
                assertThatThrownBy(() -> wrongName.deliver(GrpcExportTest.oneLog())).isInstanceOf(IOException.class)
                        .isNotInstanceOf(PermanentDeliveryException.class).hasMessageContaining("TLS handshake");
                assertThatThrownBy(() -> unknownCa.deliver(GrpcExportTest.oneLog())).isInstanceOf(IOException.class)
                        .hasMessageContaining("TLS handshake");
                insecure.deliver(GrpcExportTest.oneLog());
                assertThat(r.logRecords()).isEqualTo(1);
            } finally {
                wrongName.close();
                unknownCa.close();
                insecure.close();
            }
        }
    }

    @Test
    void mutualTlsWithTheClientCertificateAndKey() throws Exception {
        var server = GrpcSslContexts.configure(SslContextBuilder.forServer(keys).trustManager(ca.toFile())
                .clientAuth(io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.REQUIRE)).build();
        try (GrpcReceiver r = new GrpcReceiver(server)) {
            OtlpProducer without = producer(Map.of("Endpoint", "127.0.0.1:" + r.port(), "TLS/Enable", true, "TLS/CAFile", ca.toString()));
            OtlpProducer with = producer(Map.of("Endpoint", "127.0.0.1:" + r.port(), "TLS/Enable", true, "TLS/CAFile", ca.toString(),
                    "TLS/CertFile", ca.toString(), "TLS/KeyFile", key.toString()));
            try {
                assertThatThrownBy(() -> without.deliver(GrpcExportTest.oneLog())).isInstanceOf(IOException.class);
                with.deliver(GrpcExportTest.oneLog());
                assertThat(r.logRecords()).isEqualTo(1);
            } finally {
                without.close();
                with.close();
            }
        }
    }

    @Test
    void httpsWithTheCaFile() throws Exception {
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys.getKeyManagers(), null, null);
        server.setHttpsConfigurator(new HttpsConfigurator(ctx));
        java.util.concurrent.atomic.AtomicInteger posts = new java.util.concurrent.atomic.AtomicInteger();
        server.createContext("/v1/logs", ex -> {
            ex.getRequestBody().readAllBytes();
            posts.incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
        OtlpProducer p = producer(Map.of("Protocol", "http/protobuf", "Endpoint", "https://127.0.0.1:" + server.getAddress().getPort(),
                "TLS/CAFile", ca.toString()));
        try {
            p.deliver(GrpcExportTest.oneLog());
            p.deliver(GrpcExportTest.oneLog());
            assertThat(posts.get()).isEqualTo(2);
        } finally {
            p.close();
            server.stop(0);
        }
    }
}
