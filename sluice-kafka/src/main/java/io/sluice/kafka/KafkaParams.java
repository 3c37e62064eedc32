package io.sluice.kafka;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * The parameters {@code consumer.Kafka} and {@code producer.Kafka} share, under Gollum 0.6's names, and their
 * translation into Kafka client properties. Gollum was built on sarama; where a sarama setting has a Java client
 * counterpart it is mapped, where it has none it is accepted (so a Gollum config runs unchanged) and documented
 * as ignored. {@code Settings} passes any client property through and wins over everything else, which is how
 * batching, TLS and SASL options beyond Gollum's reach the client.
 */
public final class KafkaParams {
    public static final Param<List<String>> SERVERS = Param.strings("Servers", List.of("localhost:9092"),
            "Brokers to bootstrap from (host:port); ideally several, any one of them is enough to start.");
    public static final Param<String> CLIENT_ID = Param.string("ClientId", "",
            "client.id sent to the brokers (quotas, logs). Empty: \"sluice-\" plus the plugin id.");
    public static final Param<String> VERSION = Param.string("Version", "",
            "Gollum's protocol version; ignored: the Java client negotiates versions with the broker.");
    public static final Param<Integer> SERVER_TIMEOUT_SEC = Param.integer("ServerTimeoutSec", 30,
            "Longest wait for a connection to a broker to be set up (socket.connection.setup.timeout.max.ms).");
    public static final Param<Integer> MAX_OPEN_REQUESTS = Param.integer("MaxOpenRequests", 5,
            "Requests in flight per broker connection (max.in.flight.requests.per.connection, producer); at most 5"
                    + " with idempotence.");
    public static final Param<Integer> METADATA_REFRESH_MS = Param.integer("MetadataRefreshMs", 300000,
            "How often cluster metadata is refreshed (metadata.max.age.ms); also how fast a TopicPattern sees new"
                    + " topics.");
    public static final Param<Integer> ELECT_RETRIES = Param.integer("ElectRetries", 3,
            "Gollum's metadata retries; ignored: the Java client retries metadata until its timeouts.");
    public static final Param<Integer> ELECT_TIMEOUT_MS = Param.integer("ElectTimeoutMs", 250,
            "Back-off between retries while a leader is elected (retry.backoff.ms).");
    public static final Param<Boolean> TLS_ENABLE = Param.bool("TlsEnable", false,
            "Talks TLS to the brokers (security.protocol SSL, or SASL_SSL with SaslEnable).");
    public static final Param<String> TLS_KEY_LOCATION = Param.string("TlsKeyLocation", "",
            "PEM file with the client's private key (PKCS#8) for TLS client authentication.");
    public static final Param<String> TLS_CERTIFICATE_LOCATION = Param.string("TlsCertificateLocation", "",
            "PEM file with the client's certificate chain for TLS client authentication.");
    public static final Param<String> TLS_CA_LOCATION = Param.string("TlsCaLocation", "",
            "PEM file with the CA certificates that signed the brokers' certificates; empty uses the JVM's trust store.");
    public static final Param<String> TLS_SERVER_NAME = Param.string("TlsServerName", "",
            "Gollum's expected server name; ignored: the Java client verifies the host name it connects to.");
    public static final Param<Boolean> TLS_INSECURE_SKIP_VERIFY = Param.bool("TlsInsecureSkipVerify", false,
            "Skips host name verification (ssl.endpoint.identification.algorithm empty). The chain is still checked.");
    public static final Param<Boolean> SASL_ENABLE = Param.bool("SaslEnable", false,
            "Authenticates with SASL (security.protocol SASL_PLAINTEXT, or SASL_SSL with TlsEnable).");
    public static final Param<String> SASL_MECHANISM = Param.string("SaslMechanism", "PLAIN",
            "PLAIN (Gollum's only one), SCRAM-SHA-256 or SCRAM-SHA-512.");
    public static final Param<String> SASL_USERNAME = Param.string("SaslUsername", "", "SASL user name.");
    public static final Param<String> SASL_USER = Param.string("SaslUser", "",
            "Older Gollum spelling of SaslUsername.");
    public static final Param<String> SASL_PASSWORD = Param.string("SaslPassword", "", "SASL password.");
    public static final Param<Map<String, String>> SETTINGS = Param.stringMap("Settings",
            "Kafka client properties passed through as they are (e.g. ssl.truststore.location, sasl.jaas.config,"
                    + " linger.ms); they win over every other parameter.");

    private KafkaParams() {
    }

    /** The shared parameters, in the order the reference lists them. */
    public static List<Param<?>> common() {
        return List.of(SERVERS, CLIENT_ID, VERSION, SERVER_TIMEOUT_SEC, MAX_OPEN_REQUESTS, METADATA_REFRESH_MS,
                ELECT_RETRIES, ELECT_TIMEOUT_MS, TLS_ENABLE, TLS_KEY_LOCATION, TLS_CERTIFICATE_LOCATION,
                TLS_CA_LOCATION, TLS_SERVER_NAME, TLS_INSECURE_SKIP_VERIFY, SASL_ENABLE, SASL_MECHANISM,
                SASL_USERNAME, SASL_USER, SASL_PASSWORD, SETTINGS);
    }

    /** The shared parameters followed by a plugin's own, for its spec. */
    public static Param<?>[] with(List<Param<?>> own) {
        List<Param<?>> all = new ArrayList<>(common());
        all.addAll(own);
        return all.toArray(new Param<?>[0]);
    }

    /** Client properties from the shared parameters; the caller adds its own and then {@link #applySettings}. */
    public static Properties clientProperties(PluginConfig c) {
        Properties p = new Properties();
        List<String> servers = c.get(SERVERS);
        if (servers.isEmpty()) {
            throw c.error(SERVERS, "needs at least one broker (host:port)");
        }
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", servers));
        String clientId = c.get(CLIENT_ID);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId.isEmpty() ? "sluice-" + c.id() : clientId);
        int setupMs = Math.max(1, c.get(SERVER_TIMEOUT_SEC)) * 1000;
        p.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, String.valueOf(setupMs));
        p.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, String.valueOf(Math.min(10000, setupMs)));
        p.put(CommonClientConfigs.METADATA_MAX_AGE_CONFIG, String.valueOf(c.get(METADATA_REFRESH_MS)));
        p.put(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, String.valueOf(c.get(ELECT_TIMEOUT_MS)));
        security(c, p);
        return p;
    }

    /** Applies {@code Settings} last, so a user can override any mapped value. */
    public static void applySettings(PluginConfig c, Properties p) {
        p.putAll(c.get(SETTINGS));
    }

    private static void security(PluginConfig c, Properties p) {
        boolean tls = c.get(TLS_ENABLE);
        boolean sasl = c.get(SASL_ENABLE);
        if (!tls && !sasl) {
            return;
        }
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, tls ? (sasl ? "SASL_SSL" : "SSL") : "SASL_PLAINTEXT");
        if (tls) {
            String ca = c.get(TLS_CA_LOCATION);
            if (!ca.isEmpty()) {
                // PEM read inline: the Java client's PEM trust store takes the certificates as a property value.
                p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
                p.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, read(c, TLS_CA_LOCATION));
            }
            String key = c.get(TLS_KEY_LOCATION);
            String cert = c.get(TLS_CERTIFICATE_LOCATION);
            if (key.isEmpty() != cert.isEmpty()) {
                throw c.error(key.isEmpty() ? TLS_KEY_LOCATION : TLS_CERTIFICATE_LOCATION,
                        "TlsKeyLocation and TlsCertificateLocation go together: set both or neither");
            }
            if (!key.isEmpty()) {
                p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
                p.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, read(c, TLS_KEY_LOCATION));
                p.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, read(c, TLS_CERTIFICATE_LOCATION));
            }
            if (c.get(TLS_INSECURE_SKIP_VERIFY)) {
                p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
            }
        }
        if (sasl) {
            String mechanism = c.get(SASL_MECHANISM).toUpperCase(java.util.Locale.ROOT);
            String module;
            if (mechanism.equals("PLAIN")) {
                module = "org.apache.kafka.common.security.plain.PlainLoginModule";
            } else if (mechanism.startsWith("SCRAM-")) {
                module = "org.apache.kafka.common.security.scram.ScramLoginModule";
            } else {
                throw c.error(SASL_MECHANISM, "expected PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, found '" + mechanism + "'");
            }
            String user = c.get(SASL_USERNAME).isEmpty() ? c.get(SASL_USER) : c.get(SASL_USERNAME);
            p.put(SaslConfigs.SASL_MECHANISM, mechanism);
            p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + jaasEscape(user)
                    + "\" password=\"" + jaasEscape(c.get(SASL_PASSWORD)) + "\";");
        }
    }

    private static String jaasEscape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String read(PluginConfig c, Param<String> param) {
        try {
            return Files.readString(Path.of(c.get(param)), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw c.error(param, "cannot read " + c.get(param) + ": " + e.getMessage());
        }
    }
}
