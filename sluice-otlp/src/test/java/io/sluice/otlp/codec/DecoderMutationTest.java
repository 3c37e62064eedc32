package io.sluice.otlp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Hostile bytes, the cheap way a fuzzer starts: the corpus requests with random bytes flipped, inserted, deleted or
 * set to protobuf's and JSON's meaningful values, thousands of times with fixed seeds (more with
 * {@code -Dotlp.mutations=N}). Every decoder (and
 * every counter a server runs before decoding) either decodes or throws {@link OtlpFormatException}; nothing else
 * (an index out of bounds, a negative array size, a stack overflow) ever escapes, and a count that passes is the
 * number of messages decoded.
 */
class DecoderMutationTest {
    /** Per decoder; CI's share is a few seconds. {@code -Dotlp.mutations=1000000} for a long run. */
    private static final int ROUNDS = Integer.getInteger("otlp.mutations", 2_000);
    private static final byte[] PROTO_SPECIAL = {0, 1, 2, 5, 0x0a, 0x12, 0x1a, 0x22, 0x7f, (byte) 0x80, (byte) 0xff};
    private static final byte[] JSON_SPECIAL = "{}[]\",:\\0123456789eE.-+ntfu".getBytes(StandardCharsets.US_ASCII);

    interface Decode {
        int decode(byte[] b) throws OtlpFormatException;
    }

    interface Count {
        int count(byte[] b) throws OtlpFormatException;
    }

    @Test
    void mutatedLogsProtobuf() {
        LogsDecoder d = new LogsDecoder();
        run(OtlpCorpus.logs().toByteArray(), PROTO_SPECIAL, 1, b -> d.decode(b, 0, b.length, new Decoded()),
                b -> LogsDecoder.countRecords(b, 0, b.length));
    }

    @Test
    void mutatedMetricsProtobuf() {
        MetricsDecoder d = new MetricsDecoder();
        run(OtlpCorpus.metricsRequest().toByteArray(), PROTO_SPECIAL, 2, b -> d.decode(b, 0, b.length, new Decoded()),
                b -> MetricsDecoder.countPoints(b, 0, b.length));
    }

    @Test
    void mutatedLogsJson() {
        JsonLogsDecoder d = new JsonLogsDecoder();
        byte[] json = OtlpJson.of(OtlpCorpus.logs()).getBytes(StandardCharsets.UTF_8);
        run(json, JSON_SPECIAL, 3, b -> d.decode(b, 0, b.length, new Decoded()),
                b -> JsonLogsDecoder.countRecords(b, 0, b.length));
    }

    @Test
    void mutatedMetricsJson() {
        JsonMetricsDecoder d = new JsonMetricsDecoder();
        byte[] json = OtlpJson.of(OtlpCorpus.metricsRequest()).getBytes(StandardCharsets.UTF_8);
        run(json, JSON_SPECIAL, 4, b -> d.decode(b, 0, b.length, new Decoded()),
                b -> JsonMetricsDecoder.countPoints(b, 0, b.length));
    }

    private static void run(byte[] original, byte[] special, long seed, Decode decode, Count count) {
        SplittableRandom random = new SplittableRandom(seed);
        int decoded = 0;
        int refused = 0;
        for (int round = 0; round < ROUNDS; round++) {
            byte[] b = mutate(original, special, random);
            int counted;
            try {
                counted = count.count(b);
            } catch (OtlpFormatException e) {
                counted = -1;
            }
            try {
                int n = decode.decode(b);
                decoded++;
                if (counted >= 0) {
                    assertThat(n).as("round %d: decoded vs counted", round).isEqualTo(counted);
                }
            } catch (OtlpFormatException e) {
                refused++;
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("round " + round + " (seed " + seed + "): " + e, e);
            }
        }
        // Both outcomes happen: the mutations are neither all harmless nor all fatal.
        assertThat(decoded).isPositive();
        assertThat(refused).isPositive();
    }

    /** One to four edits: flip a bit, set a special byte, insert one, delete a run, duplicate a run. */
    private static byte[] mutate(byte[] original, byte[] special, SplittableRandom r) {
        byte[] b = original.clone();
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits && b.length > 2; e++) {
            int at = r.nextInt(b.length);
            switch (r.nextInt(5)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = special[r.nextInt(special.length)];
                case 2 -> {
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = special[r.nextInt(special.length)];
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 3 -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(16));
                    byte[] c = new byte[b.length - len];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + len, c, at, b.length - at - len);
                    b = c;
                }
                default -> {
                    int len = Math.min(b.length - at, 1 + r.nextInt(32));
                    byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, at + len);
                    System.arraycopy(b, at, c, at + len, b.length - at);
                    b = c;
                }
            }
        }
        return b;
    }
}
