package io.sluice.hec.codec;

import static io.sluice.hec.codec.OtlpMessages.log;
import static io.sluice.hec.codec.OtlpMessages.metric;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * OtlpEvents keeps what it learnt from the last message's keys (their classification) and reuses it while the next
 * messages carry the same keys in the same order. Whatever the sequence, a batch must encode exactly as its
 * messages do one by one, each with a fresh encoder: keys that differ only in their middle bytes, in a short key,
 * in count, in order, between a log and a metric; groups with different resources; a value a formatter changed,
 * a key it renamed; the same encoder reused for the next batch.
 */
class OtlpLayoutCacheTest {
    private static HecFormat.Builder config() {
        return OtlpLogsTest.config();
    }

    /** The batch encoded at once, and each message alone with a fresh encoder: the same bytes. */
    private static void assertSameAsAlone(Batch b) {
        HecEncoder together = new HecEncoder(config().build());
        together.encode(b);
        assertThat(together.eventsText()).isEqualTo(alone(b));
    }

    private static String alone(Batch b) {
        StringBuilder want = new StringBuilder();
        for (int i = 0; i < b.size(); i++) {
            Batch one = new BatchPool(1).acquire();
            one.addCopy(b.get(i));
            HecEncoder enc = new HecEncoder(config().build());
            enc.encode(one);
            want.append(enc.eventsText());
        }
        return want.toString();
    }

    private static OtlpMessages.Builder record(Batch b, String resourceKey, String attrKey) {
        return log(b).resource(resourceKey, "r-" + resourceKey).resource("host.name", "rhost")
                .attr(attrKey, "v-" + attrKey).attr("custom", "c").body("line").time(1_000_000);
    }

    @Test
    void keysDifferingOnlyInPlacesAWordCompareCouldMiss() {
        Batch b = new BatchPool(16).acquire();
        // 21 bytes: first and last 8 bytes equal, the middle differs; then the configured keys' neighbours.
        record(b, "service.name", "com.splunk.sourcetype");
        record(b, "service.name", "com.splunK.sourcetype"); // byte 9: neither the first nor the last word
        record(b, "service.name", "com.splunk.sourcetype");
        record(b, "service.name", "host.name"); // 9 bytes: the host
        record(b, "service.name", "host.namf");
        record(b, "service.name", "ab"); // shorter than a word
        record(b, "service.name", "ac");
        record(b, "service.name", "com.splunk.index");
        record(b, "service.name", "com.splunk.indey");
        record(b, "service.name", "com.splunk.hec.access_token");
        record(b, "service.name", "com.splunk.Hec.access_token");
        record(b, "service.name", "com.splunk.hec.access_token");
        record(b, "service.name", "com.splunk.hec.access_tokeN");
        record(b, "service.nbme", "custom2");
        assertSameAsAlone(b);
    }

    @Test
    void groupsWithDifferentResources() {
        Batch b = new BatchPool(16).acquire();
        for (int i = 0; i < 3; i++) {
            log(b).resource("host.name", "a").resource("service.name", "svc-a").attr("k", i).body("x").time(1_000_000);
        }
        for (int i = 0; i < 3; i++) { // the same count and lengths, other keys
            log(b).resource("host.namx", "b").resource("service.namx", "svc-b").attr("k", i).body("y").time(2_000_000);
        }
        for (int i = 0; i < 2; i++) { // one key more, then one fewer
            log(b).resource("host.name", "c").resource("service.name", "svc-c").resource("extra", "e").attr("k", i)
                    .body("z").time(3_000_000);
        }
        log(b).resource("host.name", "d").attr("k", 9).body("w").time(4_000_000);
        assertSameAsAlone(b);
    }

    @Test
    void sameKeysInAnotherOrder() {
        Batch b = new BatchPool(4).acquire();
        log(b).attr("com.splunk.source", "s1").attr("custom", "c").body("x");
        log(b).attr("custom", "c").attr("com.splunk.source", "s2").body("x");
        assertSameAsAlone(b);
    }

    @Test
    void logsAndMetricsWithTheSameKeys() {
        Batch b = new BatchPool(8).acquire();
        metric(b, "cpu").resource("host.name", "h").type("gauge").value(1.5).time(1_000_000);
        metric(b, "cpu").resource("host.name", "h").type("gauge").value(2.5).time(1_000_000);
        log(b).resource("host.name", "h").attr("otlp.metric.type", "gauge").attr("metric_name:cpu", 3.5).body("x");
        metric(b, "cpu").resource("host.name", "h").type("gauge").value(4.5).time(1_000_000);
        assertSameAsAlone(b);
    }

    @Test
    void aFormatterChangedAValueOrRenamedAKey() {
        Batch b = new BatchPool(8).acquire();
        for (int i = 0; i < 4; i++) {
            log(b).resource("host.name", "h").resource("service.name", "svc").attr("a", i).body("x").time(1_000_000);
        }
        Metadata md1 = b.get(1).metadata();
        md1.setString("resource.host.name", "changed-host"); // a value: same keys
        Metadata md2 = b.get(2).metadata();
        md2.rename(md2.indexOf("resource.service.name"), "resource.service.namE".getBytes(StandardCharsets.UTF_8));
        Metadata md3 = b.get(3).metadata();
        md3.remove(md3.indexOf("a"));
        md3.setString("b", "added"); // one removed, one added: the same count
        assertSameAsAlone(b);
    }

    @Test
    void anEncoderReusedForTheNextBatch() {
        HecEncoder enc = new HecEncoder(config().build());
        Batch b1 = new BatchPool(4).acquire();
        log(b1).resource("host.name", "h1").attr("custom", "c").body("x");
        log(b1).resource("host.name", "h1").attr("custom", "c").body("x");
        enc.encode(b1);
        assertThat(enc.eventsText()).isEqualTo(alone(b1));
        Batch b2 = new BatchPool(4).acquire();
        log(b2).resource("host.namf", "h2").attr("custom", "d").body("y");
        log(b2).resource("host.name", "h3").attr("custom", "d").body("y");
        enc.encode(b2);
        assertThat(enc.eventsText()).isEqualTo(alone(b2));
        // The first batch's messages, their keys rewritten in place to another key of the same length.
        Message m = b1.get(0);
        Metadata md = m.metadata();
        md.rename(md.indexOf("custom"), "cust0m".getBytes(StandardCharsets.UTF_8));
        enc.encode(b1);
        assertThat(enc.eventsText()).isEqualTo(alone(b1));
        // Key bytes overwritten where they lie (same arena, offsets and lengths): host.name becomes host.nbme.
        for (int k = 0; k < b1.size(); k++) {
            Metadata mk = b1.get(k).metadata();
            int i = mk.indexOf("resource.host.name");
            mk.arena()[mk.keyOffset(i) + "resource.host.n".length()] = 'b';
        }
        enc.encode(b1);
        assertThat(enc.eventsText()).isEqualTo(alone(b1)).contains("\"host\":\"unknown\"");
    }

    @Test
    void theSameKeysWithValuesOfEveryKind() {
        // The fields plan (sorted keys, encoded once) holds while the keys do; a map or array among the values
        // becomes several fields or JSON text, and a value's kind decides how it is written.
        Object[] values = {"s", 7L, 1.5, 2.0, null, true, new OtlpMessages.Json("{\"m\":{\"n\":1},\"o\":\"p\"}"),
            new OtlpMessages.Json("[1,\"two\",[3]]"), "line\nbreak \"quoted\"", 1e300, -0.0, "s2"};
        Batch b = new BatchPool(32).acquire();
        for (Object v : values) {
            log(b).resource("custom", "from the resource").resource("zeta", v).severity("INFO", 9)
                    .ids("0102030405060708090a0b0c0d0e0f10", "0102030405060708").attr("span_id", v).attr("custom", v)
                    .attr("a.b", "x").body("x").time(1_000_000);
        }
        for (Object v : values) { // a body that is not a string, and no otlp.* fields
            log(b).resource("custom", "r").attr("k", v).body("kvlist", "{\"a\":1}").time(2_000_000);
        }
        assertSameAsAlone(b);
    }
}
