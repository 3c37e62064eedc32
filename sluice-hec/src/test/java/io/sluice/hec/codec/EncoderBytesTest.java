package io.sluice.hec.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Pins the encoder's output bytes: a seeded corpus (escapes, control bytes, UTF-8 and invalid bytes, JSON and
 * non-JSON payloads, every metadata kind, odd timestamps, oversized events) is encoded under several formats
 * and the SHA-256 of every request body, with the request boundaries, must not change. The digests were taken
 * from the encoder before it was optimised, so a speed-up that changes one byte fails here.
 */
class EncoderBytesTest {
    private static final String[] KEYS = {"host", "source", "sourcetype", "index", "custom", "otel.log.name", "k\"q",
        "n", "ok", "tags", "nothing", "héllo", "hos", "indexx", "metric_nam"};
    private static final byte[] KINDS = {Metadata.STRING, Metadata.NUMBER, Metadata.BOOLEAN, Metadata.NULL, Metadata.JSON};

    private static byte[] text(Random r, int max) {
        int len = r.nextInt(max + 1);
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            int pick = r.nextInt(20);
            b[i] = switch (pick) {
                case 0 -> (byte) r.nextInt(0x20);          // control bytes
                case 1 -> '"';
                case 2 -> '\\';
                case 3 -> (byte) (0x80 + r.nextInt(0x80)); // high bytes, valid UTF-8 or not
                case 4 -> '/';
                default -> (byte) (' ' + r.nextInt(95));
            };
        }
        return b;
    }

    private static final String[] JSON = {"{\"a\":[1,2,{\"b\":null}]}", "[1,-2.5e3,\"\\u00e9\"]", "{\"x\":\"y\"}", "{bad",
        "[", "{\"a\":1} trailing", "{}", "[]"};

    static Batch corpus(long seed, int n) {
        Random r = new Random(seed);
        Batch b = new BatchPool(n).acquire();
        long[] times = {0, 1_000_000L, 1796002770_166598000L, 1_000_000_000L, -1_500_000_000L, 123_456_789L,
            9_999_999_999_999_999L, 1L, 1796002770_000000001L};
        for (int i = 0; i < n; i++) {
            Message m = b.add();
            int kind = r.nextInt(10);
            if (kind < 3) {
                m.setPayload(JSON[r.nextInt(JSON.length)]);
            } else if (kind == 3) {
                m.setPayload(text(r, 3000)); // sometimes over the small MaxEventSize below
            } else {
                m.setPayload(text(r, 120));
            }
            m.setTimestamp(r.nextInt(3) == 0 ? times[r.nextInt(times.length)] : r.nextLong() >>> 4);
            int fields = r.nextInt(8);
            for (int f = 0; f < fields; f++) {
                String k = KEYS[r.nextInt(KEYS.length)];
                byte kd = KINDS[r.nextInt(KINDS.length)];
                String v = switch (kd) {
                    case Metadata.NUMBER -> r.nextInt(4) == 0 ? "" : Integer.toString(r.nextInt());
                    case Metadata.BOOLEAN -> r.nextBoolean() ? "true" : "false";
                    case Metadata.NULL -> "null";
                    case Metadata.JSON -> "[\"a\",{\"b\":2}]";
                    default -> new String(text(r, 24), StandardCharsets.ISO_8859_1);
                };
                byte[] vb = kd == Metadata.STRING ? text(r, 24) : v.getBytes(StandardCharsets.US_ASCII);
                m.metadata().set(k.getBytes(StandardCharsets.UTF_8), vb, kd);
            }
        }
        return b;
    }

    /** The OTel benchmark's metric shape: 4+2 dimensions, one gauge, all times distinct. */
    static Batch metrics(int n, boolean sameTimeRuns) {
        Batch b = new BatchPool(n).acquire();
        for (int i = 0; i < n; i++) {
            Message m = b.add();
            m.setPayload("metric");
            long t = sameTimeRuns ? (i / 3) : i;
            m.setTimestamp(t * 1_000_000_000L + t * 1_000_000L);
            for (String k : new String[] {"k/n0", "k/n1", "k/r0", "k/r1", "k0", "k1"}) {
                m.metadata().set(k.getBytes(StandardCharsets.UTF_8), ("v" + k).getBytes(StandardCharsets.UTF_8),
                        Metadata.STRING);
            }
            m.metadata().set(("metric_name:g" + (i % 3)).getBytes(StandardCharsets.UTF_8),
                    Double.toString(i * 1.25).getBytes(StandardCharsets.UTF_8), Metadata.NUMBER);
            if (i % 5 == 0) {
                m.metadata().set("metric_name:x".getBytes(StandardCharsets.UTF_8), "7".getBytes(StandardCharsets.UTF_8),
                        Metadata.NUMBER);
            }
        }
        return b;
    }

    /** SHA-256 over every request's bytes and boundaries, plus every failure reason. */
    static String digest(HecEncoder enc, Batch b) throws Exception {
        enc.encode(b);
        enc.plan();
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        for (int r = 0; r < enc.requests(); r++) {
            d.update(enc.requestArray(r), enc.requestOffset(r), enc.requestLength(r));
            d.update((byte) '|');
            d.update(Integer.toString(enc.requestEvents(r)).getBytes(StandardCharsets.US_ASCII));
        }
        for (int i = 0; i < b.size(); i++) {
            String f = enc.failure(i);
            d.update((i + ":" + f).getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static HecFormat.Builder plain() {
        return HecFormat.builder().gzip(false).maxContentLength(1 << 30);
    }

    @Test
    void outputBytesAreUnchanged() throws Exception {
        Batch logs = corpus(42, 3000);
        List<Object[]> cases = List.of(
                new Object[] {"auto", plain(), logs,
                    "d5fa1f3d7938754416a4a9c861f4ab975d1e581dc9eb66a3affaa117bfe520ee"},
                new Object[] {"defaults+string+fields", plain().host("h\"1").source("src").sourcetype("st").index("main")
                        .eventFormat(HecFormat.EventFormat.STRING).fields(List.of("custom", "n", "héllo", "host")), logs,
                    "2d7947aacbcd63422feaa8a4a867bf63b20f19836f48576169ac2979af05672f"},
                new Object[] {"json", plain().eventFormat(HecFormat.EventFormat.JSON), logs,
                    "a780ef2ac9dc0620a1544d16b2c97ab4587b3d08d1c01f24968b8b840c6c1dd7"},
                new Object[] {"limits", HecFormat.builder().gzip(false).maxContentLength(4096).maxEventSize(2500), logs,
                    "e732fa3ae9af6b2269c8618a9793f9653eadda364413f45280da623098a480b8"},
                new Object[] {"gzip6", HecFormat.builder().gzip(true).gzipLevel(6).maxContentLength(8192), logs,
                    "913c6de193b65d1632b5aecafd6f900e815173972b8b17e5ed43be3d557b3680"},
                new Object[] {"gzip1-2M", HecFormat.builder().gzip(true).gzipLevel(1), logs,
                    "efc57d3f222c929c7cb381d2f650072a6b713c176b713796b77074cfc0e382e4"},
                new Object[] {"raw", plain().raw(true), logs,
                    "675c0c924dc65abf6cbac70cd1bdccf8b7380c8e661f61190de388662c11dab2"},
                new Object[] {"metrics", plain(), metrics(500, true),
                    "90e66ffdfcf9166c944d30e1c79bff9f26cbc3c8d4094c844f5f4d5f9f1311ab"},
                new Object[] {"multi", plain().multiMetric(true), metrics(500, false),
                    "9455f467379285d6f009aa099de2bc99f6b111c05f14a8290adc152b30c2b8f7"},
                new Object[] {"multi-runs", plain().multiMetric(true), metrics(500, true),
                    "43672b0e05561e9cbf0ff1f971249838bfff8d2c7558af92d0ffd5cde7ba18ec"});
        StringBuilder report = new StringBuilder();
        for (Object[] c : cases) {
            HecEncoder enc = new HecEncoder(((HecFormat.Builder) c[1]).build());
            // Twice: the second run reuses every buffer, which must not change a byte either.
            String first = digest(enc, (Batch) c[2]);
            String second = digest(enc, (Batch) c[2]);
            enc.close();
            report.append(c[0]).append(' ').append(first).append('\n');
            assertThat(second).as(c[0] + " (reused encoder)").isEqualTo(first);
        }
        System.out.println(report);
        for (Object[] c : cases) {
            assertThat(report.toString()).as((String) c[0]).contains(c[0] + " " + c[3]);
        }
    }
}
