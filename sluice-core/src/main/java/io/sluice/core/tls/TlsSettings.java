package io.sluice.core.tls;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.pipeline.Log;
import java.net.Socket;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The {@code TLS/*} settings group: declared once here and listed by every network plugin, inbound and outbound,
 * so that TLS reads the same everywhere. It builds one JDK {@link SSLContext} whose key and trust managers re-read
 * their files when they change (certificate rotation without a restart or a dropped connection), and configures
 * each engine or socket with the minimum version, cipher suites, client authentication and server-name check.
 * Netty plugins wrap the context with {@code NettyTls}; blocking ones use {@link #clientSocket}.
 * <p>Just over 400 lines: the ten declarations of the group, their checks per role (server or client) and the
 * deprecated spellings are one contract; key material, reloading and the Netty engine are their own classes.
 */
public final class TlsSettings {
    /** Which end of the connection a plugin is. */
    public enum Role {
        /** A listener: it has a certificate, may ask clients for theirs. */
        SERVER,
        /** A client: it checks the server's certificate, may present one. */
        CLIENT
    }

    /** The TLS/ClientAuth choices. */
    public enum ClientAuth {
        NONE, REQUEST, REQUIRE
    }

    public static final Param<Boolean> ENABLE = Param.bool("TLS/Enable", false,
            "Use TLS. Also on when TLS/CertFile is set (servers) or any TLS file is set (clients).");
    public static final Param<String> CERT_FILE = Param.string("TLS/CertFile", "",
            "Certificate: a PEM chain with TLS/KeyFile, or a PKCS#12 file (.p12/.pfx) holding key and chain. "
                    + "Servers: their certificate (turns TLS on). Clients: the one presented for mutual TLS. "
                    + "Re-read when the file changes.");
    public static final Param<String> KEY_FILE = Param.string("TLS/KeyFile", "",
            "PEM private key of TLS/CertFile: PKCS#8, encrypted PKCS#8 (with TLS/KeyPassword) or PKCS#1 RSA.");
    public static final Param<String> KEY_PASSWORD = Param.string("TLS/KeyPassword", "",
            "Password of an encrypted TLS/KeyFile or of a PKCS#12/JKS file; ${ENV_VAR} keeps it out of the file.");
    public static final Param<String> CA_FILE = Param.string("TLS/CAFile", "",
            "PEM CA certificates (or a PKCS#12/JKS trust store). Servers: client certificates must chain to them. "
                    + "Clients: the server's must (default: the JVM's trust store). Re-read when the file changes.");
    public static final Param<String> CLIENT_AUTH = Param.choice("TLS/ClientAuth", "none",
            "Servers: client certificates (mutual TLS): none, request (checked when sent) or require.", "none", "request",
            "require").alias("", "none").alias("optional", "request").alias("required", "require");
    public static final Param<String> MIN_VERSION = Param.choice("TLS/MinVersion", "1.2",
            "Lowest TLS version accepted.", "1.2", "1.3").alias("TLSv1.2", "1.2").alias("TLS1.2", "1.2")
            .alias("TLSv1.3", "1.3").alias("TLS1.3", "1.3");
    public static final Param<List<String>> CIPHER_SUITES = Param.strings("TLS/CipherSuites", List.of(),
            "Cipher suites allowed, by their IANA names (TLS 1.2; TLS 1.3 suites are all strong). "
                    + "Default: the JVM's.");
    public static final Param<String> SERVER_NAME = Param.string("TLS/ServerName", "",
            "Clients: the name the server's certificate must carry, also sent as SNI (default: the host connected to).");
    public static final Param<Boolean> INSECURE_SKIP_VERIFY = Param.bool("TLS/InsecureSkipVerify", false,
            "Clients: accept any server certificate and name. For tests only: it gives up what TLS is for.");

    /** Every key of the group, in the order {@code sluice list} shows them; plugins declare all of them. */
    public static final List<Param<?>> PARAMS = List.of(ENABLE, CERT_FILE, KEY_FILE, KEY_PASSWORD, CA_FILE,
            CLIENT_AUTH, MIN_VERSION, CIPHER_SUITES, SERVER_NAME, INSECURE_SKIP_VERIFY);

    private static final List<Param<?>> SERVER_ONLY = List.of(CLIENT_AUTH);
    private static final List<Param<?>> CLIENT_ONLY = List.of(SERVER_NAME, INSECURE_SKIP_VERIFY);

    /** The group alone, for TLS outside plugins (the admin endpoint). */
    private static final io.sluice.core.config.PluginSpec STANDALONE = io.sluice.core.config.PluginSpec
            .builder(io.sluice.core.config.PluginKind.MODULATOR, "TLS", "The TLS/* settings group.")
            .params(PARAMS.toArray(new Param<?>[0])).factory(c -> c);

    /**
     * The group from keys given outside a plugin ({@code "TLS/CertFile" -> path}), checked as a plugin's are.
     *
     * @param id names the owner in errors and reload lines ("admin")
     */
    public static TlsSettings of(String id, Role role, java.util.Map<String, Object> keys) {
        return from(PluginConfig.of(id, STANDALONE, keys), role);
    }

    /** An old spelling of a key, read when the {@code TLS/*} key is not set. */
    public record Alias(Param<?> old, Param<?> current) {
    }

    private final Role role;
    private final boolean enabled;
    private final ClientAuth clientAuth;
    private final String[] protocols;
    private final String[] cipherSuites;
    private final String serverName;
    private final boolean verify;
    private final TlsEvents events = new TlsEvents();
    /** Set once by {@link #from} before the settings are handed out; null when TLS is off. */
    private SSLContext context;
    private KeyManager keyManager;
    private TrustManager trustManager;

    private TlsSettings(Role role, boolean enabled, ClientAuth clientAuth, String[] protocols, String[] cipherSuites,
                        String serverName, boolean verify) {
        this.role = role;
        this.enabled = enabled;
        this.clientAuth = clientAuth;
        this.protocols = protocols;
        this.cipherSuites = cipherSuites;
        this.serverName = serverName;
        this.verify = verify;
    }

    /**
     * Plugin parameters with the group appended: {@code builder.params(TlsSettings.with(A, B))}; deprecated
     * spellings among {@code own} go last, after the group that replaces them.
     */
    public static Param<?>[] with(Param<?>... own) {
        List<Param<?>> all = new ArrayList<>();
        List<Param<?>> old = new ArrayList<>();
        for (Param<?> p : own) {
            (p.replacedBy() == null ? all : old).add(p);
        }
        all.addAll(PARAMS);
        all.addAll(old);
        return all.toArray(new Param<?>[0]);
    }

    /**
     * Reads and checks the group (loading the files now, so that a bad path or password is a config error naming
     * its key).
     *
     * @param aliases old spellings this plugin still reads (deprecated or Gollum's)
     */
    public static TlsSettings from(PluginConfig config, Role role, Alias... aliases) {
        return from(config, role, false, aliases);
    }

    /**
     * As {@link #from(PluginConfig, Role, Alias...)}, with TLS on whatever the keys say when {@code required} (a
     * client told {@code https://}).
     */
    public static TlsSettings from(PluginConfig config, Role role, boolean required, Alias... aliases) {
        Values v = new Values(config, aliases);
        for (Param<?> p : role == Role.SERVER ? CLIENT_ONLY : SERVER_ONLY) {
            if (v.isSet(p)) {
                throw config.error(p, p.name() + " applies to " + (role == Role.SERVER ? "clients" : "servers")
                        + "; this plugin is a " + role.name().toLowerCase(Locale.ROOT));
            }
        }
        String cert = v.string(CERT_FILE);
        String key = v.string(KEY_FILE);
        String ca = v.string(CA_FILE);
        String password = v.string(KEY_PASSWORD);
        boolean enabled = required || v.bool(ENABLE) || !cert.isEmpty() || (role == Role.CLIENT && !ca.isEmpty());
        if (!cert.isEmpty() && key.isEmpty() && !KeyMaterial.isStore(cert)) {
            throw config.error(KEY_FILE, "TLS/CertFile " + cert + " is PEM: set TLS/KeyFile too");
        }
        if (cert.isEmpty() && !key.isEmpty()) {
            throw config.error(CERT_FILE, "TLS/KeyFile needs TLS/CertFile");
        }
        ClientAuth auth = clientAuth(config, v.string(CLIENT_AUTH));
        if (role == Role.SERVER) {
            if (enabled && cert.isEmpty()) {
                throw config.error(CERT_FILE, "a TLS listener needs TLS/CertFile (and TLS/KeyFile)");
            }
            if (!enabled && (auth != ClientAuth.NONE || !ca.isEmpty())) {
                throw config.error(CLIENT_AUTH, "client certificates need TLS: set TLS/CertFile and TLS/KeyFile");
            }
            if (auth != ClientAuth.NONE && ca.isEmpty()) {
                throw config.error(CA_FILE, "TLS/ClientAuth " + auth.name().toLowerCase(Locale.ROOT)
                        + " needs TLS/CAFile, the CAs client certificates chain to");
            }
        }
        String[] protocols = protocols(config, v.string(MIN_VERSION));
        List<String> suites = v.strings(CIPHER_SUITES);
        boolean insecure = v.bool(INSECURE_SKIP_VERIFY);
        TlsSettings s = new TlsSettings(role, enabled, auth, protocols,
                suites.isEmpty() ? null : suites.toArray(new String[0]), v.string(SERVER_NAME), !insecure);
        if (!enabled) {
            return s;
        }
        try {
            s.load(cert, key, password, ca, insecure);
        } catch (Exception e) {
            throw config.error(cert.isEmpty() ? CA_FILE : CERT_FILE, "cannot load the TLS files: " + e.getMessage());
        }
        s.checkSuites(config);
        return s;
    }

    private void load(String cert, String key, String password, String ca, boolean insecure) throws Exception {
        keyManager = cert.isEmpty() ? null : new ReloadingKeyManager(cert, key, password, events);
        if (role == Role.CLIENT && insecure) {
            trustManager = new TrustAll();
        } else if (!ca.isEmpty()) {
            trustManager = new ReloadingTrustManager(ca, password, events);
        } else {
            trustManager = null; // the JVM's trust store
        }
        context = SSLContext.getInstance("TLS");
        context.init(keyManager == null ? null : new KeyManager[] {keyManager},
                trustManager == null ? null : new TrustManager[] {trustManager}, null);
    }

    /** The reloading key manager (null without a certificate), for TLS engines other than the JDK's. */
    public KeyManager keyManager() {
        return keyManager;
    }

    /** The trust manager of TLS/CAFile or TLS/InsecureSkipVerify, or null for the JVM's trust store. */
    public TrustManager trustManager() {
        return trustManager;
    }

    private void checkSuites(PluginConfig config) {
        if (cipherSuites == null) {
            return;
        }
        List<String> supported = Arrays.asList(context.getSupportedSSLParameters().getCipherSuites());
        for (String s : cipherSuites) {
            if (!supported.contains(s)) {
                throw config.error(CIPHER_SUITES, "unknown or unsupported cipher suite '" + s + "'");
            }
        }
    }

    private static ClientAuth clientAuth(PluginConfig config, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "none", "" -> ClientAuth.NONE;
            case "request", "optional" -> ClientAuth.REQUEST;
            case "require", "required" -> ClientAuth.REQUIRE;
            default -> throw config.error(CLIENT_AUTH, "expected none, request or require, found '" + value + "'");
        };
    }

    private static String[] protocols(PluginConfig config, String min) {
        String m = min.trim().toLowerCase(Locale.ROOT).replace("tlsv", "").replace("tls", "");
        return switch (m) {
            case "1.2" -> new String[] {"TLSv1.3", "TLSv1.2"};
            case "1.3" -> new String[] {"TLSv1.3"};
            default -> throw config.error(MIN_VERSION, "expected 1.2 or 1.3, found '" + min + "'");
        };
    }

    /** Whether TLS is on. */
    public boolean enabled() {
        return enabled;
    }

    /** The context (null when TLS is off); its handshakes always go through {@link #configure}. */
    public SSLContext context() {
        return context;
    }

    public Role role() {
        return role;
    }

    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** Versions enabled, newest first. */
    public String[] protocols() {
        return protocols.clone();
    }

    /** Cipher suites allowed, or null for the JVM's defaults. */
    public String[] cipherSuites() {
        return cipherSuites == null ? null : cipherSuites.clone();
    }

    /** Whether a client checks the server's certificate and name. */
    public boolean verifies() {
        return verify;
    }

    /** The name a client checks and sends: TLS/ServerName, else {@code host}. */
    public String serverName(String host) {
        return serverName.isEmpty() ? host : serverName;
    }

    /** Reports certificate reloads to the plugin's log from now on. */
    public void logTo(Log log, String id) {
        events.logTo(log, id);
    }

    /** A server engine or a client engine for {@code host:port}, configured by the group. */
    public SSLEngine newEngine(String host, int port) {
        SSLEngine e = role == Role.CLIENT ? context.createSSLEngine(serverName(host), port) : context.createSSLEngine();
        e.setUseClientMode(role == Role.CLIENT);
        e.setSSLParameters(parameters(e.getSSLParameters(), host));
        return e;
    }

    /** A connected client socket over {@code plain}, its handshake done, for blocking clients. */
    public SSLSocket clientSocket(Socket plain, String host, int port) throws java.io.IOException {
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(plain, serverName(host), port, true);
        s.setSSLParameters(parameters(s.getSSLParameters(), host));
        s.startHandshake();
        return s;
    }

    /** Applies the group to an engine's or socket's parameters (versions, suites, client auth, name check). */
    public SSLParameters parameters(SSLParameters p, String host) {
        p.setProtocols(protocols);
        if (cipherSuites != null) {
            p.setCipherSuites(cipherSuites);
        }
        if (role == Role.SERVER) {
            p.setNeedClientAuth(clientAuth == ClientAuth.REQUIRE);
            if (clientAuth == ClientAuth.REQUEST) {
                p.setWantClientAuth(true);
            }
        } else {
            p.setEndpointIdentificationAlgorithm(verify ? "HTTPS" : null);
            String name = serverName(host);
            if (name != null && !name.isEmpty() && Character.isLetter(name.charAt(0))) {
                p.setServerNames(List.of(new SNIHostName(name)));
            }
        }
        return p;
    }

    /** The config values, falling back to an alias's value when the group's key is not set. */
    private static final class Values {
        private final PluginConfig config;
        private final Alias[] aliases;

        Values(PluginConfig config, Alias[] aliases) {
            this.config = config;
            this.aliases = aliases;
        }

        private Param<?> source(Param<?> p) {
            if (!config.isSet(p)) {
                for (Alias a : aliases) {
                    if (a.current() == p && config.isSet(a.old())) {
                        return a.old();
                    }
                }
            }
            return p;
        }

        boolean isSet(Param<?> p) {
            return config.isSet(source(p));
        }

        String string(Param<String> p) {
            Object v = config.get(source(p));
            return v == null ? "" : v.toString().trim();
        }

        boolean bool(Param<Boolean> p) {
            return (Boolean) config.get(source(p));
        }

        @SuppressWarnings("unchecked")
        List<String> strings(Param<List<String>> p) {
            return (List<String>) config.get(source(p));
        }
    }

    /** TLS/InsecureSkipVerify: trusts every server (the engine's name check is off too). */
    private static final class TrustAll extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
