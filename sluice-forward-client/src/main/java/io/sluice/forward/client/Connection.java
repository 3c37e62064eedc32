package io.sluice.forward.client;

import io.sluice.forward.codec.MsgPackReader;
import io.sluice.forward.codec.ValueType;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One TCP (or TLS) connection to a Forward server, after the optional handshake. Writes whole
 * frames; reads acks. Writing and reading may happen on two threads (the emitter's sender and ack
 * reader), but each of them on one thread only.
 */
final class Connection implements Closeable {
    private final Socket socket;
    private final OutputStream out;
    private final ResponseReader responses;

    private Connection(Socket socket, InputStream in, OutputStream out, int maxResponseBytes) {
        this.socket = socket;
        this.out = out;
        this.responses = new ResponseReader(in, maxResponseBytes);
    }

    /**
     * Connects, starts TLS if configured and runs the handshake if a shared key is set.
     *
     * @param cfg     the configuration
     * @param noDelay TCP_NODELAY unless the configuration sets it
     * @return an open connection
     */
    static Connection open(ForwardConfig cfg, boolean noDelay) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(cfg.tcpNoDelay() != null ? cfg.tcpNoDelay() : noDelay);
            socket.setKeepAlive(true);
            socket.connect(new InetSocketAddress(cfg.host(), cfg.port()),
                    (int) cfg.connectTimeout().toMillis());
            socket = wrapTls(cfg, socket);
            Connection c = new Connection(socket, socket.getInputStream(), socket.getOutputStream(),
                    cfg.maxResponseBytes());
            if (cfg.sharedKey() != null) {
                c.handshake(cfg);
            }
            return c;
        } catch (IOException | RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    private static Socket wrapTls(ForwardConfig cfg, Socket plain) throws IOException {
        if (cfg.sslSocketFactory() == null) {
            return plain;
        }
        SSLSocket tls = (SSLSocket) cfg.sslSocketFactory().createSocket(plain, cfg.host(), cfg.port(), true);
        if (cfg.verifyHostname()) {
            // SSLSocket checks only the chain by default; without this any trusted cert would do.
            SSLParameters params = tls.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(params);
        }
        tls.setSoTimeout((int) cfg.ackTimeout().toMillis());
        tls.startHandshake();
        tls.setSoTimeout(0);
        return tls;
    }

    private void handshake(ForwardConfig cfg) throws IOException {
        socket.setSoTimeout((int) cfg.ackTimeout().toMillis());
        Handshake.run(cfg, responses, out);
        socket.setSoTimeout(0);
    }

    /**
     * Writes bytes and flushes.
     *
     * @param b   bytes
     * @param off start
     * @param len count
     */
    void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        out.flush();
    }

    /**
     * Reads the next ack from the server.
     *
     * @param timeoutMs how long to wait, 0 for ever
     * @return the acknowledged chunk id, or null for a reply that is not an ack
     * @throws SocketTimeoutException when nothing whole arrived in time
     */
    String readAck(int timeoutMs) throws IOException {
        socket.setSoTimeout(timeoutMs);
        MsgPackReader r = responses.next();
        if (r.nextType() != ValueType.MAP) {
            return null;
        }
        String ack = null;
        int n = r.readMapHeader();
        for (int i = 0; i < n; i++) {
            int keyStart = r.position();
            boolean isAck = r.nextType() == ValueType.STRING && r.readStringEquals("ack");
            if (!isAck && r.position() == keyStart) {
                r.skipValue(); // a non-str key
            }
            if (isAck && r.nextType() == ValueType.STRING) {
                ack = r.readString();
            } else {
                r.skipValue();
            }
        }
        return ack;
    }

    /** @return the socket, for its options */
    Socket socket() {
        return socket;
    }

    /** @return whether the socket has not been closed locally */
    boolean isOpen() {
        return !socket.isClosed();
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing a broken connection; nothing more to do
        }
    }
}
