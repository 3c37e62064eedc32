package io.sluice.core.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;

/**
 * The {@code TLS/*} group on Netty: the group's JDK context as a Netty {@link SslContext} (so that ALPN works
 * through Netty's negotiation handlers), and handlers whose engines carry the group's versions, suites, client
 * authentication and name check. One context serves every connection; certificate reloads happen inside it.
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
        io.netty.handler.ssl.ClientAuth auth = switch (settings.clientAuth()) {
            case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
            case REQUEST -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
            case REQUIRE -> io.netty.handler.ssl.ClientAuth.REQUIRE;
        };
        String[] suites = settings.cipherSuites();
        this.context = new JdkSslContext(settings.context(), client, suites == null ? null : Arrays.asList(suites),
                IdentityCipherSuiteFilter.INSTANCE, apn, client ? io.netty.handler.ssl.ClientAuth.NONE : auth,
                settings.protocols(), false);
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
