package io.sluice.kafka;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.tls.TlsSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * The Kafka plugins' TLS and SASL settings as kafka-clients properties: {@code security.protocol}, the TLS/*
 * group (with Gollum's {@code Tls*} aliases) as {@code ssl.*}, the {@code Sasl*} settings as a JAAS line.
 * kafka-clients builds its own SSL context and reads the files once, at start: unlike Sluice's own listeners and
 * clients, a Kafka plugin does not pick up a rotated certificate until it restarts.
 */
final class KafkaSecurity {
    private KafkaSecurity() {
    }

    /** Sets security.protocol and the ssl.* and sasl.* properties from the TLS/* group and the Sasl* settings. */
    static void apply(PluginConfig c, Properties p) {
        // Checked as every plugin's TLS is (files load, keys match, versions and suites exist), so that a mistake
        // is a config error naming its key; the context built is not used: kafka-clients builds its own.
        // Gollum's TlsEnable: false is its off switch, whatever Tls* files are named beside it (the group would
        // turn TLS on for a CA file alone): a Gollum config keeps meaning what it meant.
        boolean gollumOff = c.isSet(KafkaParams.TLS_ENABLE) && !c.get(KafkaParams.TLS_ENABLE)
                && !c.isSet(TlsSettings.ENABLE);
        TlsSettings tls = gollumOff ? null : TlsSettings.from(c, TlsSettings.Role.CLIENT, KafkaParams.TLS_ALIASES);
        boolean tlsOn = tls != null && tls.enabled();
        boolean sasl = c.get(KafkaParams.SASL_ENABLE);
        if (!tlsOn && !sasl) {
            return;
        }
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, tlsOn ? (sasl ? "SASL_SSL" : "SSL") : "SASL_PLAINTEXT");
        if (tlsOn) {
            tlsProperties(c, tls, p);
        }
        if (sasl) {
            String mechanism = c.get(KafkaParams.SASL_MECHANISM);
            String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            String user = c.get(KafkaParams.SASL_USERNAME).isEmpty() ? c.get(KafkaParams.SASL_USER)
                    : c.get(KafkaParams.SASL_USERNAME);
            p.put(SaslConfigs.SASL_MECHANISM, mechanism);
            p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + jaasEscape(user)
                    + "\" password=\"" + jaasEscape(c.get(KafkaParams.SASL_PASSWORD)) + "\";");
        }
    }

    /** The TLS/* group as kafka-clients' {@code ssl.*} properties (read once: see the class comment). */
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
            for (TlsSettings.Alias a : KafkaParams.TLS_ALIASES) {
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
