package io.sluice.kafka;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.tls.TlsSettings;
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
 *
 * <p>TLS is the {@code TLS/*} group every network plugin lists, with Gollum's {@code Tls*} names as aliases (not
 * deprecated), mapped to kafka-clients' {@code ssl.*} properties. kafka-clients builds its own SSL context and
 * reads the files once, at start: unlike Sluice's own listeners and clients, a Kafka plugin does not pick up a
 * rotated certificate until it restarts.
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
        security(c, p);
        return p;
    }

    /** Applies {@code Settings} last, so a user can override any mapped value. */
    public static void applySettings(PluginConfig c, Properties p) {
        p.putAll(c.get(SETTINGS));
    }

    private static void security(PluginConfig c, Properties p) {
        // Checked as every plugin's TLS is (files load, keys match, versions and suites exist), so that a mistake
        // is a config error naming its key; the context built is not used: kafka-clients builds its own.
        // Gollum's TlsEnable: false is its off switch, whatever Tls* files are named beside it (the group would
        // turn TLS on for a CA file alone): a Gollum config keeps meaning what it meant.
        boolean gollumOff = c.isSet(TLS_ENABLE) && !c.get(TLS_ENABLE) && !c.isSet(TlsSettings.ENABLE);
        TlsSettings tls = gollumOff ? null : TlsSettings.from(c, TlsSettings.Role.CLIENT, TLS_ALIASES);
        boolean tlsOn = tls != null && tls.enabled();
        boolean sasl = c.get(SASL_ENABLE);
        if (!tlsOn && !sasl) {
            return;
        }
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, tlsOn ? (sasl ? "SASL_SSL" : "SSL") : "SASL_PLAINTEXT");
        if (tlsOn) {
            tlsProperties(c, tls, p);
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

    /**
     * The TLS/* group as kafka-clients' {@code ssl.*} properties. kafka-clients reads the files once, when the
     * client starts: a rotated certificate reaches Kafka connections at the next start, not sooner (the group's
     * reloading applies to Sluice's own listeners and clients).
     */
    static void tlsProperties(PluginConfig c, TlsSettings tls, Properties p) {
        String ca = value(c, TlsSettings.CA_FILE);
        String cert = value(c, TlsSettings.CERT_FILE);
        String key = value(c, TlsSettings.KEY_FILE);
        String password = value(c, TlsSettings.KEY_PASSWORD);
        if (!ca.isEmpty()) {
            p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, storeType(ca, "PEM"));
            p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca);
            if (!storeType(ca, "PEM").equals("PEM") && !password.isEmpty()) {
                p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, password);
            }
        }
        if (!cert.isEmpty()) {
            String type = storeType(cert, "PEM");
            if (type.equals("PEM")) {
                // Certificate and key in two files: kafka-clients takes them as values (its PEM keystore file
                // would need both in one file). Its PEM reader knows PKCS#8 only.
                String pem = read(c, TlsSettings.CERT_FILE, cert);
                String keyPem = read(c, TlsSettings.KEY_FILE, key);
                if (keyPem.contains("BEGIN RSA PRIVATE KEY") || keyPem.contains("BEGIN EC PRIVATE KEY")) {
                    throw c.error(TlsSettings.KEY_FILE, "the Kafka client reads PKCS#8 keys only; convert " + key
                            + " with: openssl pkcs8 -topk8 -nocrypt -in " + key);
                }
                p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
                p.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, pem);
                p.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, keyPem);
            } else {
                p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, type);
                p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, cert);
                p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, password);
            }
            if (!password.isEmpty()) {
                p.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, password);
            }
        }
        p.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, String.join(",", tls.protocols()));
        String[] suites = tls.cipherSuites();
        if (suites != null) {
            p.put(SslConfigs.SSL_CIPHER_SUITES_CONFIG, String.join(",", suites));
        }
        if (!tls.verifies()) {
            p.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
        }
    }

    /** A TLS/* key's value, or its Gollum alias's when only that is set. */
    private static String value(PluginConfig c, Param<String> key) {
        if (!c.isSet(key)) {
            for (TlsSettings.Alias a : TLS_ALIASES) {
                if (a.current() == key && c.isSet(a.old())) {
                    return String.valueOf(c.get(a.old())).trim();
                }
            }
        }
        return c.get(key).trim();
    }

    /** The kafka-clients store type of a file, by its name as the TLS/* group reads it. */
    private static String storeType(String file, String otherwise) {
        String f = file.toLowerCase(java.util.Locale.ROOT);
        if (f.endsWith(".p12") || f.endsWith(".pfx")) {
            return "PKCS12";
        }
        if (f.endsWith(".jks") || f.endsWith(".keystore")) {
            return "JKS";
        }
        return otherwise;
    }

    private static String read(PluginConfig c, Param<String> param, String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw c.error(param, "cannot read " + file + ": " + e.getMessage());
        }
    }

    private static String jaasEscape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

}
