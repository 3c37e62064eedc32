package io.sluice.core.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * The {@code TLS/*} group on Netty: a Netty {@link SslContext} (so that ALPN works through Netty's negotiation
 * handlers) built from the group's reloading key and trust managers, and handlers whose engines carry the group's
 * versions, suites, client authentication and name check. One context serves every connection; certificate
 * reloads happen inside the key and trust managers.
 *
 * <p>The engine is BoringSSL (netty-tcnative) where it loads, the JDK's otherwise or when the system property
 * {@code sluice.tls.provider} is {@code jdk}: on consumer.HEC the JDK's engine cost three times the CPU of plain
 * HTTP, BoringSSL a fraction of that (BENCHMARKS.md, issue 19).
 */
public final class NettyTls {
    private final TlsSettings settings;
    private final SslContext context;

    /**
     * @param alpn the protocols to offer or accept by ALPN ("h2", "http/1.1"), or none
     */
    public NettyTls(TlsSettings settings, String... alpn) {
        this.settings = settings;
        ApplicationProtocolConfig apn = alpn.length == 0 ? ApplicationProtocolConfig.DISABLED
                : new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, Arrays.asList(alpn));
        boolean client = settings.role() == TlsSettings.Role.CLIENT;
        ClientAuth auth = client ? ClientAuth.NONE : switch (settings.clientAuth()) {
            case NONE -> ClientAuth.NONE;
            case REQUEST -> ClientAuth.OPTIONAL;
            case REQUIRE -> ClientAuth.REQUIRE;
        };
        String[] suites = settings.cipherSuites();
        List<String> ciphers = suites == null ? null : Arrays.asList(suites);
        this.context = openSsl() ? openSslContext(client, ciphers, apn, auth)
                : new JdkSslContext(settings.context(), client, ciphers, IdentityCipherSuiteFilter.INSTANCE, apn, auth,
                        settings.protocols(), false);
    }

    /** Whether BoringSSL serves: it loads here and nobody asked for the JDK's engine. */
    public static boolean openSsl() {
        return !"jdk".equalsIgnoreCase(System.getProperty("sluice.tls.provider", "")) && OpenSsl.isAvailable();
    }

    /** The engine's name, for the start line: "BoringSSL" or "JDK". */
    public static String providerName() {
        return openSsl() ? "BoringSSL" : "JDK";
    }

    private SslContext openSslContext(boolean client, List<String> ciphers, ApplicationProtocolConfig apn, ClientAuth auth) {
        SslContextBuilder b = client ? SslContextBuilder.forClient() : SslContextBuilder.forServer(settings.keyManager());
        if (client && settings.keyManager() != null) {
            b.keyManager(settings.keyManager());
        }
        if (settings.trustManager() != null) {
            b.trustManager(settings.trustManager());
        }
        b.sslProvider(SslProvider.OPENSSL).protocols(settings.protocols()).clientAuth(auth).applicationProtocolConfig(apn)
                .ciphers(ciphers, IdentityCipherSuiteFilter.INSTANCE);
        try {
            return b.build();
        } catch (SSLException e) {
            throw new IllegalStateException("TLS settings: " + e.getMessage(), e);
        }
    }

    /** The Netty context, for code that builds its own handlers (HTTP/2 ALPN helpers). */
    public SslContext context() {
        return context;
    }

    /** A handler for a new server connection. */
    public SslHandler serverHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    /** A handler for a new connection to {@code host:port}, checking the server's name unless verification is off. */
    public SslHandler clientHandler(ByteBufAllocator alloc, String host, int port) {
        SslHandler h = context.newHandler(alloc, settings.serverName(host), port);
        SSLEngine engine = h.engine();
        engine.setSSLParameters(settings.parameters(engine.getSSLParameters(), host));
        return h;
    }
}
