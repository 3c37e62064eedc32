package io.sluice.forward.client;

import io.sluice.forward.codec.TimeFormat;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;

/**
 * How to reach a Forward server and speak to it: address, timeouts, acks, retries, TLS and the
 * optional shared-key handshake. Immutable; built with {@link #builder()}. Used by both
 * {@link ForwardClient} and {@link ForwardEmitter}.
 *
 * <p>Defaults: {@code 127.0.0.1:24224}, connect timeout 5 s, no ack, ack timeout 10 s, EventTime,
 * 3 retries with backoff from 100 ms doubling to at most 5 s, plain TCP (TLS, when enabled,
 * verifies the server certificate and host name), no handshake.
 */
public final class ForwardConfig {
    private final String host;
    private final int port;
    private final Duration connectTimeout;
    private final boolean requireAck;
    private final Duration ackTimeout;
    private final TimeFormat timeFormat;
    private final int maxRetries;
    private final Duration retryBackoff;
    private final Duration maxRetryBackoff;
    private final SSLSocketFactory sslSocketFactory;
    private final boolean verifyHostname;
    private final String sharedKey;
    private final String selfHostname;
    private final String username;
    private final String password;
    private final int maxResponseBytes;
    private final Boolean tcpNoDelay;

    private ForwardConfig(Builder b) {
        host = b.host;
        port = b.port;
        connectTimeout = b.connectTimeout;
        requireAck = b.requireAck;
        ackTimeout = b.ackTimeout;
        timeFormat = b.timeFormat;
        maxRetries = b.maxRetries;
        retryBackoff = b.retryBackoff;
        maxRetryBackoff = b.maxRetryBackoff;
        sslSocketFactory = b.sslSocketFactory;
        verifyHostname = b.verifyHostname;
        sharedKey = b.sharedKey;
        selfHostname = b.selfHostname;
        username = b.username;
        password = b.password;
        maxResponseBytes = b.maxResponseBytes;
        tcpNoDelay = b.tcpNoDelay;
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return server host name or address */
    public String host() {
        return host;
    }

    /** @return server port */
    public int port() {
        return port;
    }

    /** @return TCP connect timeout */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return whether each frame carries a chunk id and waits for the server's ack */
    public boolean requireAck() {
        return requireAck;
    }

    /** @return how long to wait for an ack (and for handshake replies) */
    public Duration ackTimeout() {
        return ackTimeout;
    }

    /** @return how event times are encoded */
    public TimeFormat timeFormat() {
        return timeFormat;
    }

    /** @return reconnect-and-resend attempts after a failed send ({@link ForwardClient} only) */
    public int maxRetries() {
        return maxRetries;
    }

    /** @return delay before the first retry; doubled after each failure */
    public Duration retryBackoff() {
        return retryBackoff;
    }

    /** @return cap on the retry delay */
    public Duration maxRetryBackoff() {
        return maxRetryBackoff;
    }

    long backoffNanos(int attempt) {
        return Math.min(retryBackoff.toNanos() << Math.min(attempt, 20), maxRetryBackoff.toNanos());
    }

    /** @return factory for TLS sockets, or null for plain TCP */
    public SSLSocketFactory sslSocketFactory() {
        return sslSocketFactory;
    }

    /** @return whether TLS checks that the server certificate names {@link #host()} */
    public boolean verifyHostname() {
        return verifyHostname;
    }

    /** @return shared key for the HELO/PING/PONG handshake, or null for none */
    public String sharedKey() {
        return sharedKey;
    }

    /** @return this client's host name, sent in PING */
    public String selfHostname() {
        return selfHostname;
    }

    /** @return user name for handshake user authentication, or "" */
    public String username() {
        return username;
    }

    /** @return password for handshake user authentication, or "" */
    public String password() {
        return password;
    }

    /** @return largest server reply accepted (acks and handshake messages are small) */
    public int maxResponseBytes() {
        return maxResponseBytes;
    }

    /**
     * Whether each write leaves as its own TCP segment at once (TCP_NODELAY), or null when not set: then the sender
     * decides. {@link ForwardClient} without acks leaves Nagle's algorithm on, as fluent-logger-java's socket does,
     * so the kernel coalesces its small one-event frames into full segments instead of sending one per call (at
     * the cost of at most one round trip of delay for a frame behind an unacknowledged one). With acks, and in
     * {@link ForwardEmitter}, which writes whole chunks, each write goes at once: a chunk's last segment must not
     * wait for a delayed TCP ACK.
     *
     * @return the TCP_NODELAY setting, or null for the sender's default
     */
    public Boolean tcpNoDelay() {
        return tcpNoDelay;
    }

    /** Builds a {@link ForwardConfig}. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 24224;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private boolean requireAck;
        private Duration ackTimeout = Duration.ofSeconds(10);
        private TimeFormat timeFormat = TimeFormat.EVENT_TIME;
        private int maxRetries = 3;
        private Duration retryBackoff = Duration.ofMillis(100);
        private Duration maxRetryBackoff = Duration.ofSeconds(5);
        private SSLSocketFactory sslSocketFactory;
        private boolean verifyHostname = true;
        private String sharedKey;
        private String selfHostname = defaultHostname();
        private String username = "";
        private String password = "";
        private int maxResponseBytes = 64 * 1024;
        private Boolean tcpNoDelay;

        private Builder() {
        }

        private static String defaultHostname() {
            String h = System.getenv("HOSTNAME");
            return h == null || h.isEmpty() ? "localhost" : h;
        }

        /**
         * @param host server host
         * @return this
         */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host);
            return this;
        }

        /**
         * @param port server port
         * @return this
         */
        public Builder port(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * @param timeout TCP connect timeout
         * @return this
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * @param requireAck send a chunk id with each frame and wait for its ack
         * @return this
         */
        public Builder requireAck(boolean requireAck) {
            this.requireAck = requireAck;
            return this;
        }

        /**
         * @param timeout how long to wait for an ack
         * @return this
         */
        public Builder ackTimeout(Duration timeout) {
            this.ackTimeout = positive(timeout, "ackTimeout");
            return this;
        }

        /**
         * @param format EventTime (default) or integer seconds for v0 peers
         * @return this
         */
        public Builder timeFormat(TimeFormat format) {
            this.timeFormat = Objects.requireNonNull(format);
            return this;
        }

        /**
         * @param retries resend attempts after a failure, 0 for none
         * @return this
         */
        public Builder maxRetries(int retries) {
            if (retries < 0) {
                throw new IllegalArgumentException("maxRetries must be >= 0");
            }
            this.maxRetries = retries;
            return this;
        }

        /**
         * @param initial delay before the first retry
         * @param max     cap on the doubled delay
         * @return this
         */
        public Builder retryBackoff(Duration initial, Duration max) {
            this.retryBackoff = Objects.requireNonNull(initial);
            this.maxRetryBackoff = Objects.requireNonNull(max);
            return this;
        }

        /**
         * Uses TLS with the JVM's default SSL context.
         *
         * @return this
         */
        public Builder tls() {
            return tls((SSLSocketFactory) SSLSocketFactory.getDefault());
        }

        /**
         * @param context TLS context (trust store, client keys)
         * @return this
         */
        public Builder tls(SSLContext context) {
            return tls(context.getSocketFactory());
        }

        /**
         * @param factory TLS socket factory, or null for plain TCP
         * @return this
         */
        public Builder tls(SSLSocketFactory factory) {
            this.sslSocketFactory = factory;
            return this;
        }

        /**
         * Turns TLS host name verification off (it is on by default): only for test setups whose
         * certificate does not name the host; the certificate chain is still verified.
         *
         * @param verify whether the server certificate must name the host
         * @return this
         */
        public Builder verifyHostname(boolean verify) {
            this.verifyHostname = verify;
            return this;
        }

        /**
         * Enables the v1 handshake (server sends HELO, client PING, server PONG).
         *
         * @param sharedKey    the key configured on the server
         * @param selfHostname this client's host name as the server should see it
         * @return this
         */
        public Builder handshake(String sharedKey, String selfHostname) {
            this.sharedKey = Objects.requireNonNull(sharedKey);
            this.selfHostname = Objects.requireNonNull(selfHostname);
            return this;
        }

        /**
         * Adds user authentication to the handshake.
         *
         * @param username user name
         * @param password password
         * @return this
         */
        public Builder credentials(String username, String password) {
            this.username = Objects.requireNonNull(username);
            this.password = Objects.requireNonNull(password);
            return this;
        }

        /**
         * @param bytes largest server reply accepted
         * @return this
         */
        public Builder maxResponseBytes(int bytes) {
            this.maxResponseBytes = bytes;
            return this;
        }

        /**
         * @param noDelay set TCP_NODELAY (send each write at once) or leave Nagle's algorithm on; unset, the
         *                sender decides (see {@link ForwardConfig#tcpNoDelay()})
         * @return this
         */
        public Builder tcpNoDelay(boolean noDelay) {
            this.tcpNoDelay = noDelay;
            return this;
        }

        /** @return the configuration */
        public ForwardConfig build() {
            return new ForwardConfig(this);
        }

        private static Duration positive(Duration d, String name) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return d;
        }
    }
}
