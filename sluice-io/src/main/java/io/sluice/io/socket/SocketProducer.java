package io.sluice.io.socket;

import io.sluice.core.Bytes;
import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.Decimal;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.net.Connect;
import io.sluice.core.net.HostPort;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Producer;
import io.sluice.core.pipeline.ProducerContext;
import io.sluice.core.pipeline.RetryPolicy;
import io.sluice.core.tls.TlsSettings;
import io.sluice.io.LineEscaper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code producer.Socket}: sends each batch over TCP (optionally TLS, with the {@code TLS/*} group of every
 * network plugin: a client certificate for mutual TLS, CA and server-name checks, files re-read when rotated), UDP
 * or a unix stream socket, framed by a delimiter (newline) or RFC 6587 octet counting. A batch is encoded once into a
 * reused buffer and written with one call. When the connection fails the batch is sent again on a new connection,
 * after a backoff that doubles (with jitter) up to {@code Retry/MaxBackoffMs}; delivery waits meanwhile (the queue
 * fills and holds consumers back) rather than dropping. Without {@code Acknowledge}, TCP cannot tell what the peer read before a failure, so
 * a resend may duplicate lines: at least once, never lost silently.
 *
 * <p>With delimiter framing and a delimiter made of control bytes ({@code \n}, {@code \r\n}, {@code \0}), each
 * message is exactly one frame whatever its payload holds: control bytes inside it are escaped
 * ({@link LineEscaper}: JSON escapes in a JSON object, {@code \n}, {@code \r}, {@code \xHH} in text), so no payload
 * can end its frame early or forge another one. A delimiter of printable bytes is the user's to choose: payloads
 * go out as they are then.
 */
public final class SocketProducer extends Producer {
    public static final Param<String> ADDRESS = Param.string("Address", ":5880",
            "Where to send: tcp://host:port, udp://host:port, unix:///path, or host:port (TCP).");
    public static final Param<Integer> CONNECTION_BUFFER_SIZE_KB = Param.integer("ConnectionBufferSizeKB", 1024,
            "Socket send buffer in KB.");
    public static final Param<Integer> BATCH_MAX_COUNT = Param.integer("Batch/MaxCount", 8192,
            "Accepted for Gollum configs; each pipeline batch is written with one call.");
    public static final Param<Integer> BATCH_FLUSH_COUNT = Param.integer("Batch/FlushCount", 4096,
            "Accepted for Gollum configs.");
    public static final Param<Integer> BATCH_TIMEOUT_SEC = Param.seconds("Batch/TimeoutSec", 5,
            "Accepted for Gollum configs; batches are sent as they arrive.");
    public static final Param<String> ACKNOWLEDGE = Param.string("Acknowledge", "",
            "When set, the server must answer every batch with this text (TCP only); otherwise the batch is resent.");
    public static final Param<Integer> ACK_TIMEOUT_MS = Param.millis("AckTimeoutMs", 2000,
            "How long to wait to connect and for an acknowledgement.");
    public static final Param<String> FRAMING = Param.choice("Framing", "delimiter",
            "delimiter (each message followed by Delimiter unless it ends with it) or octet (RFC 6587 \"LEN SP MSG\").",
            "delimiter", "octet");
    public static final Param<String> DELIMITER = Param.string("Delimiter", "\\n",
            "Message delimiter for delimiter framing. When it is made of control bytes (\\n, \\r\\n, \\0), control bytes "
                    + "inside payloads are escaped (see sluice-io/README.md), so each message is exactly one frame.");
    /**
     * The reconnection backoff under its former names, read for one more release: Retry/BackoffMs and
     * Retry/MaxBackoffMs set it now; with neither key set it keeps this producer's own defaults (100 ms, at most 10 s).
     */
    public static final Param<Integer> RECONNECT_MIN_MS = Param.millis("ReconnectMinMs", 100,
            "First wait before reconnecting after a failure; doubles on each failure.")
            .deprecatedFor(PluginSpec.RETRY_BACKOFF_MS);
    public static final Param<Integer> RECONNECT_MAX_MS = Param.millis("ReconnectMaxMs", 10000,
            "Longest wait between reconnection attempts.").deprecatedFor(PluginSpec.RETRY_MAX_BACKOFF_MS);
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Socket",
            "Sends messages over TCP (TLS), UDP or unix sockets, newline or octet-counting framed.")
            .params(TlsSettings.with(ADDRESS, CONNECTION_BUFFER_SIZE_KB, BATCH_MAX_COUNT, BATCH_FLUSH_COUNT, BATCH_TIMEOUT_SEC,
                    ACKNOWLEDGE, ACK_TIMEOUT_MS, FRAMING, DELIMITER, RECONNECT_MIN_MS, RECONNECT_MAX_MS))
            .factory(SocketProducer::new);

    private final HostPort address;
    private final boolean octet;
    private final byte[] delimiter;
    /** Delimiter framing with a delimiter of control bytes: payloads are escaped so they cannot hold it. */
    private final boolean escape;
    /** The delimiter is LF: a payload's own trailing LF or CRLF is its line end. */
    private final boolean newline;
    private LineEscaper escaper = new LineEscaper(new AtomicLong());
    private final byte[] acknowledge;
    private final int ackTimeoutMs;
    private final int sendBuffer;
    /** How long to wait before each reconnection: doubling, with jitter, without end (delivery waits meanwhile). */
    private final RetryPolicy reconnect;
    /** The TLS/* group; connections use it when it is enabled. */
    private final TlsSettings tls;
    private byte[] out = new byte[64 * 1024];
    private int outLen;
    private final byte[] ackBuf;
    private Socket socket;
    private OutputStream stream;
    private InputStream input;
    private SocketChannel unix;
    private DatagramChannel udp;
    /** Failed attempts since the last batch went through. */
    private int failures;
    private long failingSince;
    private long resent;
    private Log log;

    public SocketProducer(PluginConfig config) {
        super(config);
        address = HostPort.of(config, ADDRESS, HostPort.Transport.TCP);
        octet = config.get(FRAMING).equals("octet");
        delimiter = Bytes.unescape(config.get(DELIMITER));
        if (delimiter.length == 0) {
            throw config.error(DELIMITER, "must not be empty");
        }
        escape = !octet && controlBytes(delimiter);
        newline = delimiter.length == 1 && delimiter[0] == '\n';
        String ack = config.get(ACKNOWLEDGE);
        acknowledge = ack.isEmpty() ? null : Bytes.unescape(ack);
        if (acknowledge != null && address.transport() != HostPort.Transport.TCP) {
            throw config.error(ACKNOWLEDGE, "acknowledgements need TCP");
        }
        ackBuf = acknowledge == null ? null : new byte[acknowledge.length];
        ackTimeoutMs = Math.max(1, config.get(ACK_TIMEOUT_MS));
        sendBuffer = Math.max(4, config.get(CONNECTION_BUFFER_SIZE_KB)) * 1024;
        reconnect = new RetryPolicy(RetryPolicy.FOREVER,
                config.groupOrOwn(PluginSpec.RETRY_BACKOFF_MS, RECONNECT_MIN_MS),
                config.groupOrOwn(PluginSpec.RETRY_MAX_BACKOFF_MS, RECONNECT_MAX_MS));
        tls = TlsSettings.from(config, TlsSettings.Role.CLIENT);
        if (tls.enabled() && address.transport() != HostPort.Transport.TCP) {
            throw config.error(TlsSettings.ENABLE, "TLS needs a tcp:// address");
        }
    }

    /** Whether every byte of the delimiter is one the escaping removes from payloads (tab is kept, so not tab). */
    private static boolean controlBytes(byte[] d) {
        for (byte b : d) {
            if (!((b >= 0 && b < 0x20 && b != '\t') || b == 0x7f)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void start(ProducerContext ctx) {
        this.log = ctx.log();
        if (tls.enabled()) {
            tls.logTo(ctx.log(), config.id());
        }
        this.escaper = new LineEscaper(ctx.stats().counter("sluice_invalid_utf8_total",
                "Invalid UTF-8 sequences in JSON payloads written as U+FFFD."));
    }

    @Override
    public void deliver(Batch batch) throws InterruptedException {
        encode(batch);
        while (true) {
            try {
                connect();
                send(batch);
                if (failingSince != 0) {
                    log.info(config.id() + ": connected to " + address + " again after "
                            + (System.nanoTime() - failingSince) / 1_000_000 + " ms");
                    failingSince = 0;
                }
                failures = 0;
                return;
            } catch (IOException e) {
                disconnect();
                if (failingSince == 0) {
                    failingSince = System.nanoTime();
                    log.error(config.id() + ": sending to " + address + " failed: " + e
                            + "; reconnecting with backoff, delivery is held back meanwhile");
                }
                resent++;
                reconnect.pause(failures++, e);
            }
        }
    }

    private void encode(Batch batch) {
        outLen = 0;
        if (address.transport() == HostPort.Transport.UDP) {
            return; // a datagram per message, sent from the payloads
        }
        for (int i = 0; i < batch.size(); i++) {
            Message m = batch.get(i);
            int len = m.length();
            byte[] p = m.payload();
            if (octet) {
                ensure(len + Decimal.MAX_LONG + 1);
                outLen = Decimal.putLong(out, outLen, len);
                out[outLen++] = ' ';
                System.arraycopy(p, 0, out, outLen, len);
                outLen += len;
            } else if (escape) {
                // The payload's own trailing delimiter (or LF/CRLF) ends its frame; everything before it is escaped.
                int body = newline ? LineEscaper.content(p, len) : endsWith(p, len, delimiter) ? len - delimiter.length : len;
                int escaped = escaper.measure(p, 0, body);
                ensure((escaped < 0 ? body : escaped) + delimiter.length);
                if (escaped < 0) {
                    System.arraycopy(p, 0, out, outLen, body);
                    outLen += body;
                } else {
                    outLen = escaper.write(p, 0, body, out, outLen);
                }
                System.arraycopy(delimiter, 0, out, outLen, delimiter.length);
                outLen += delimiter.length;
            } else {
                ensure(len + delimiter.length);
                System.arraycopy(p, 0, out, outLen, len);
                outLen += len;
                if (!endsWith(p, len, delimiter)) {
                    System.arraycopy(delimiter, 0, out, outLen, delimiter.length);
                    outLen += delimiter.length;
                }
            }
        }
    }

    private static boolean endsWith(byte[] p, int len, byte[] d) {
        return len >= d.length && Arrays.equals(p, len - d.length, len, d, 0, d.length);
    }

    private void ensure(int more) {
        if (outLen + more > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, outLen + more));
        }
    }

    private void connect() throws IOException {
        switch (address.transport()) {
            case UDP:
                if (udp == null) {
                    udp = DatagramChannel.open();
                    udp.connect(address.socketAddress());
                }
                break;
            case UNIX:
                if (unix == null) {
                    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                    try {
                        ch.connect(address.socketAddress());
                    } catch (IOException e) {
                        ch.close();
                        throw e;
                    }
                    unix = ch;
                }
                break;
            default:
                if (socket == null) {
                    Socket s = Connect.blocking(address.host(), address.port(), tls.enabled() ? tls : null,
                            ackTimeoutMs, sendBuffer);
                    socket = s;
                    stream = s.getOutputStream();
                    input = s.getInputStream();
                }
        }
    }

    private void send(Batch batch) throws IOException {
        switch (address.transport()) {
            case UDP:
                // One datagram per message: a datagram is the frame.
                for (int i = 0; i < batch.size(); i++) {
                    Message m = batch.get(i);
                    udp.write(ByteBuffer.wrap(m.payload(), 0, m.length()));
                }
                break;
            case UNIX: {
                ByteBuffer b = ByteBuffer.wrap(out, 0, outLen);
                while (b.hasRemaining()) {
                    unix.write(b);
                }
                break;
            }
            default:
                stream.write(out, 0, outLen);
                stream.flush();
                if (acknowledge != null) {
                    if (input.readNBytes(ackBuf, 0, ackBuf.length) < ackBuf.length) {
                        throw new IOException("connection closed before the acknowledgement");
                    }
                    if (!Arrays.equals(ackBuf, acknowledge)) {
                        throw new IOException("unexpected acknowledgement '" + new String(ackBuf, java.nio.charset.StandardCharsets.UTF_8) + "'");
                    }
                }
        }
    }

    private void disconnect() {
        try {
            if (socket != null) {
                socket.close();
            }
            if (unix != null) {
                unix.close();
            }
            if (udp != null) {
                udp.close();
            }
        } catch (IOException ignored) {
            // The connection is being thrown away.
        }
        socket = null;
        stream = null;
        input = null;
        unix = null;
        udp = null;
    }

    @Override
    public void close() {
        disconnect();
        if (resent > 0 && log != null) {
            log.info(config.id() + ": " + resent + " batches were sent again after connection failures");
        }
    }
}
