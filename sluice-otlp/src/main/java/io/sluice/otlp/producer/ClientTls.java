package io.sluice.otlp.producer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.File;
import java.io.IOException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The client side of the {@code TLS/*} settings on Netty with the JDK's provider: trusted CAs (or the JVM's),
 * an optional client certificate, the name to verify and send as SNI, ALPN {@code h2} for gRPC.
 */
final class ClientTls {
    private final SslContext context;
    private final String serverName;
    private final boolean verify;

    /**
     * @param caFile     PEM of the CAs to trust; empty: the JVM's trust store
     * @param certFile   PEM client certificate chain for mutual TLS, or empty
     * @param keyFile    PEM PKCS#8 key of {@code certFile}
     * @param serverName name to verify and send as SNI
     * @param insecure   accept any certificate and name (tests only)
     * @param h2         offer HTTP/2 by ALPN (gRPC), else HTTP/1.1
     */
    ClientTls(String caFile, String certFile, String keyFile, String serverName, boolean insecure, boolean h2)
            throws IOException {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
        if (insecure) {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE);
        } else if (!caFile.isEmpty()) {
            b.trustManager(new File(caFile));
        }
        if (!certFile.isEmpty()) {
            b.keyManager(new File(certFile), new File(keyFile));
        }
        b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                h2 ? ApplicationProtocolNames.HTTP_2 : ApplicationProtocolNames.HTTP_1_1));
        try {
            this.context = b.build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IOException("TLS settings: " + e.getMessage(), e);
        }
        this.serverName = serverName;
        this.verify = !insecure;
    }

    /** A handler for a new connection to {@code port}, checking the server's name unless verification is off. */
    SslHandler newHandler(ByteBufAllocator alloc, int port) {
        SslHandler h = context.newHandler(alloc, serverName, port);
        SSLEngine engine = h.engine();
        SSLParameters p = engine.getSSLParameters();
        p.setEndpointIdentificationAlgorithm(verify ? "HTTPS" : null);
        engine.setSSLParameters(p);
        return h;
    }
}
