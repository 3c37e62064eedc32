package io.sluice.forward.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.forward.codec.BufferAllowance;
import io.sluice.forward.codec.ForwardDecoder;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.FrameScanner;
import io.sluice.forward.codec.RecordView;
import java.util.Map;

/**
 * Fuzz targets for what consumer.Forward reads from a connection, through the path a connection takes: the
 * stream cut into frames by {@link FrameScanner} (as {@code FrameDecoder} does), each frame decoded by
 * {@link ForwardDecoder} (Message, Forward, PackedForward, CompressedPackedForward, options) and each record
 * mapped to a message by {@link RecordMapper}; and the server's side of the shared-key handshake (the PING check;
 * the client's side is {@code io.sluice.forward.client.HandshakeFuzzTest}). Limits are consumer.Forward's defaults.
 *
 * <p>The contract: a frame decodes, or the decode throws {@link ForwardProtocolException} (which the connection
 * reports as a malformed or too-large frame); a PING is accepted or refused with a PONG, never an exception.
 * A record mapped to JSON is one valid JSON object.
 */
class ForwardFuzzTest {
    /** consumer.Forward's MaxMessageSize and MaxDecompressedSize defaults. */
    private static final long MAX_MESSAGE_SIZE = ForwardConsumer.MAX_MESSAGE_SIZE.defaultValue();
    private static final long MAX_DECOMPRESSED_SIZE = ForwardConsumer.MAX_DECOMPRESSED_SIZE.defaultValue();

    /** JSON bytes per msgpack byte, at most (a control character in a non-string key's text becomes 7). */
    private static final long MAX_JSON_GROWTH = 12;

    private final ForwardDecoder decoder = new ForwardDecoder(MAX_DECOMPRESSED_SIZE);
    private final RecordMapper json = new RecordMapper(RecordMapper.PayloadMode.JSON, "", true, "_meta.");
    private final Message message = new BatchPool(1).acquire().add();
    private final JsonScanner scanner = new JsonScanner();

    @FuzzTest(maxDuration = "5m")
    void frames(byte[] stream) {
        decoder.allowance(BufferAllowance.UNLIMITED);
        FrameScanner frames = new FrameScanner(MAX_MESSAGE_SIZE);
        int at = 0;
        try {
            while (at < stream.length) {
                int len = frames.scan(stream, at, stream.length - at);
                if (len < 0) {
                    return; // an unfinished frame: the connection waits for more
                }
                decoder.decode(stream, at, len, this::onEvent);
                at += len;
            }
        } catch (ForwardProtocolException e) {
            // The protocol's own error: the connection is closed as malformed (or too large).
        } finally {
            decoder.trim();
            json.trim();
        }
    }

    private void onEvent(String tag, long epochSeconds, int nanos, RecordView record) {
        assertThat(tag).isNotNull();
        assertThat(nanos).isBetween(0, 999_999_999);
        json.map(record.buffer(), record.offset(), record.length(), record.metadataOffset(), record.metadataLength(),
                message);
        // Whatever the record held (invalid UTF-8, NaN, binary, ext), the payload is one JSON value ...
        assertThat(scanner.scanValue(message.payload(), 0, message.length()))
                .as("JSON payload %s: %s", message.payloadString(), scanner.errorReason()).isTrue();
        // ... and a bounded multiple of the record: a byte becomes at most a few (an escape, "null", a double's
        // digits), so a small record cannot cost memory and CPU out of proportion.
        assertThat((long) message.length()).isLessThanOrEqualTo(MAX_JSON_GROWTH * record.length() + 64);
    }

    @FuzzTest(maxDuration = "5m")
    void serverHandshake(byte[] stream) {
        ServerHandshake handshake = new ServerHandshake("secret", "server", Map.of("alice", "pw"));
        FrameScanner frames = new FrameScanner(MAX_MESSAGE_SIZE);
        int len;
        try {
            len = frames.scan(stream, 0, stream.length);
        } catch (ForwardProtocolException e) {
            return; // not msgpack at all: the connection is closed before a PING is looked at
        }
        if (len < 0) {
            return;
        }
        ServerHandshake.Result r = handshake.ping(stream, 0, len);
        assertThat(r).isNotNull();
        assertThat(r.pong()).isNotEmpty();
        assertThat(r.ok() || !r.reason().isEmpty()).isTrue();
    }
}
