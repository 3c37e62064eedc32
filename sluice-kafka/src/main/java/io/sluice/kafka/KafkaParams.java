package io.sluice.kafka;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.tls.TlsSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The parameters {@code consumer.Kafka} and {@code producer.Kafka} share, under Gollum 0.6's names, and their
 * translation into Kafka client properties. Gollum was built on sarama; where a sarama setting has a Java client
 * counterpart it is mapped, where it has none it is accepted (so a Gollum config runs unchanged) and documented
 * as ignored. {@code Settings} passes any client property through and wins over everything else, which is how
 * batching, TLS and SASL options beyond Gollum's reach the client.
 *
 * <p>TLS is the {@code TLS/*} group every network plugin lists, with Gollum's {@code Tls*} names as aliases (not
 * deprecated), mapped to kafka-clients' {@code ssl.*} properties by {@link KafkaSecurity}.
 */
public final class KafkaParams {
    public static final Param<List<String>> SERVERS = Param.strings("Servers", List.of("localhost:9092"),
            "Brokers to bootstrap from (host:port); ideally several, any one of them is enough to start.");
    public static final Param<String> CLIENT_ID = Param.string("ClientId", "",
            "client.id sent to the brokers (quotas, logs). Empty: \"sluice-\" plus the plugin id.");
    public static final Param<String> VERSION = Param.string("Version", "",
            "Gollum's protocol version; ignored: the Java client negotiates versions with the broker.");
    public static final Param<Integer> SERVER_TIMEOUT_SEC = Param.seconds("ServerTimeoutSec", 30,
            "Longest wait for a connection to a broker to be set up (socket.connection.setup.timeout.max.ms).");
    public static final Param<Integer> MAX_OPEN_REQUESTS = Param.integer("MaxOpenRequests", 5,
            "Requests in flight per broker connection (max.in.flight.requests.per.connection, producer); at most 5"
                    + " with idempotence.");
    public static final Param<Integer> METADATA_REFRESH_MS = Param.millis("MetadataRefreshMs", 300000,
            "How often cluster metadata is refreshed (metadata.max.age.ms); also how fast a TopicPattern sees new"
                    + " topics.");
    public static final Param<Integer> ELECT_RETRIES = Param.integer("ElectRetries", 3,
            "Gollum's metadata retries; ignored: the Java client retries metadata until its timeouts.");
    public static final Param<Integer> ELECT_TIMEOUT_MS = Param.millis("ElectTimeoutMs", 250,
            "Back-off between retries while a leader is elected (retry.backoff.ms).");
    // Gollum's TLS names: aliases of the TLS/* group, read when the group's key is not set. Not deprecated: a
    // Gollum config keeps working as it is.
    public static final Param<Boolean> TLS_ENABLE = Param.bool("TlsEnable", false,
            "Gollum's name for TLS/Enable: talks TLS to the brokers (security.protocol SSL, or SASL_SSL with SaslEnable).");
    public static final Param<String> TLS_KEY_LOCATION = Param.string("TlsKeyLocation", "",
            "Gollum's name for TLS/KeyFile: the client's PEM private key (PKCS#8) for mutual TLS.");
    public static final Param<String> TLS_CERTIFICATE_LOCATION = Param.string("TlsCertificateLocation", "",
            "Gollum's name for TLS/CertFile: the client's PEM certificate chain for mutual TLS. The Kafka client "
                    + "reads its TLS files once, at start: a rotated certificate applies after a restart.");
    public static final Param<String> TLS_CA_LOCATION = Param.string("TlsCaLocation", "",
            "Gollum's name for TLS/CAFile: the CAs that signed the brokers' certificates (default: the JVM's).");
    public static final Param<String> TLS_SERVER_NAME = Param.string("TlsServerName", "",
            "Gollum's name for TLS/ServerName; accepted but not applied: the Kafka client checks each broker "
                    + "against the host name it connects to.");
    public static final Param<Boolean> TLS_INSECURE_SKIP_VERIFY = Param.bool("TlsInsecureSkipVerify", false,
            "Gollum's name for TLS/InsecureSkipVerify; for Kafka it skips the host name check only "
                    + "(ssl.endpoint.identification.algorithm empty): the chain is still checked.");

    /** Gollum's names and the group's keys they stand for. */
    static final TlsSettings.Alias[] TLS_ALIASES = {
        new TlsSettings.Alias(TLS_ENABLE, TlsSettings.ENABLE),
        new TlsSettings.Alias(TLS_KEY_LOCATION, TlsSettings.KEY_FILE),
        new TlsSettings.Alias(TLS_CERTIFICATE_LOCATION, TlsSettings.CERT_FILE),
        new TlsSettings.Alias(TLS_CA_LOCATION, TlsSettings.CA_FILE),
        new TlsSettings.Alias(TLS_SERVER_NAME, TlsSettings.SERVER_NAME),
        new TlsSettings.Alias(TLS_INSECURE_SKIP_VERIFY, TlsSettings.INSECURE_SKIP_VERIFY),
    };
    public static final Param<Boolean> SASL_ENABLE = Param.bool("SaslEnable", false,
            "Authenticates with SASL (security.protocol SASL_PLAINTEXT, or SASL_SSL with TlsEnable).");
    public static final Param<String> SASL_MECHANISM = Param.choice("SaslMechanism", "PLAIN",
            "PLAIN (Gollum's only one), SCRAM-SHA-256 or SCRAM-SHA-512.", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    public static final Param<String> SASL_USERNAME = Param.string("SaslUsername", "", "SASL user name.");
    public static final Param<String> SASL_USER = Param.string("SaslUser", "",
            "Older Gollum spelling of SaslUsername.");
    public static final Param<String> SASL_PASSWORD = Param.string("SaslPassword", "", "SASL password.");
    public static final Param<Map<String, String>> SETTINGS = Param.stringMap("Settings",
            "Kafka client properties passed through as they are (e.g. ssl.truststore.location, sasl.jaas.config,"
                    + " linger.ms); they win over every other parameter.");

    private KafkaParams() {
    }

    /** The shared parameters, in the order the reference lists them: the TLS/* group last. */
    public static List<Param<?>> common() {
        return List.of(TlsSettings.with(SERVERS, CLIENT_ID, VERSION, SERVER_TIMEOUT_SEC, MAX_OPEN_REQUESTS,
                METADATA_REFRESH_MS, ELECT_RETRIES, ELECT_TIMEOUT_MS, TLS_ENABLE, TLS_KEY_LOCATION,
                TLS_CERTIFICATE_LOCATION, TLS_CA_LOCATION, TLS_SERVER_NAME, TLS_INSECURE_SKIP_VERIFY, SASL_ENABLE,
                SASL_MECHANISM, SASL_USERNAME, SASL_USER, SASL_PASSWORD, SETTINGS));
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
        KafkaSecurity.apply(c, p);
        return p;
    }

    /** Applies {@code Settings} last, so a user can override any mapped value. */
    public static void applySettings(PluginConfig c, Properties p) {
        p.putAll(c.get(SETTINGS));
    }
}
