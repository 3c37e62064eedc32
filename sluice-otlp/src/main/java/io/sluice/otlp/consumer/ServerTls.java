package io.sluice.otlp.consumer;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.File;
import javax.net.ssl.SSLException;

/**
 * consumer.OTLP's TLS, from PEM files with the JDK's provider (as sluice-forward's {@code Tls}, which has no ALPN
 * and no client certificates): ALPN {@code h2} for the gRPC listener (with HTTP/2's cipher rules), {@code http/1.1}
 * for the OTLP/HTTP one, and client certificates checked against {@code TLS/CAFile} when {@code TLS/ClientAuth}
 * asks for them.
 */
final class ServerTls {
    private ServerTls() {
    }

    /** The TLS/ClientAuth values. */
    static ClientAuth clientAuth(String value) {
        return switch (value) {
            case "none" -> ClientAuth.NONE;
            case "request" -> ClientAuth.OPTIONAL;
            case "require" -> ClientAuth.REQUIRE;
            default -> throw new IllegalArgumentException("expected none, request or require, found '" + value + "'");
        };
    }

    /**
     * A server context.
     *
     * @param http2 true for the gRPC listener (ALPN h2), false for OTLP/HTTP (ALPN http/1.1)
     */
    static SslContext server(String certFile, String keyFile, String caFile, ClientAuth auth, boolean http2)
            throws SSLException {
        SslContextBuilder b = SslContextBuilder.forServer(new File(certFile), new File(keyFile))
                .sslProvider(SslProvider.JDK)
                .clientAuth(auth)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        http2 ? ApplicationProtocolNames.HTTP_2 : ApplicationProtocolNames.HTTP_1_1));
        if (!caFile.isEmpty()) {
            b.trustManager(new File(caFile));
        }
        if (http2) {
            b.ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
        }
        return b.build();
    }
}
