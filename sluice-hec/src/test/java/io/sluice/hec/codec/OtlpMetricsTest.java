package io.sluice.hec.codec;

import static io.sluice.hec.codec.OtlpLogsTest.assertEvents;
import static io.sluice.hec.codec.OtlpLogsTest.encode;
import static io.sluice.hec.codec.OtlpMessages.metric;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * OTLP metric data points through producer.SplunkHEC's encoder, against the OTel Collector's splunkhec exporter:
 * the inputs and expected events of its {@code metricdata_to_splunk_test.go} ({@code Test_metricDataToSplunk},
 * {@code Test_mergeEventsToMultiMetricFormat}, {@code TestMergeEvents}, {@code TestTimestampFormat*}; case names in
 * the comments), re-typed. Single-metric events are compared parsed and byte for byte; merged multi-metric events
 * parsed (this encoder appends the measurements after the dimensions, Go sorts them in).
 */
class OtlpMetricsTest {
    /** time.Unix(1574092046, 11 ms): tsMSecs 1574092046.011. */
    private static final long TS = 1574092046L * 1_000_000_000L + 11_000_000L;
    private static final String T = "\"time\":1574092046.011,";

    private static HecFormat.Builder single() {
        return HecFormat.builder().gzip(false);
    }

    private static HecFormat.Builder multi() {
        return HecFormat.builder().gzip(false).multiMetric(true);
    }

    /** newMetricsWithResources: resource attributes k0=v0, k1=v1. */
    private static OtlpMessages.Builder withResources(Batch b, String name) {
        return metric(b, name).resource("k0", "v0").resource("k1", "v1");
    }

    /** The resource of int_gauge and double_gauge: metadata and k0, k1. */
    private static OtlpMessages.Builder withMetadata(Batch b, String name) {
        return metric(b, name).resource("com.splunk.source", "mysource").resource("host.name", "myhost")
                .resource("com.splunk.sourcetype", "mysourcetype").resource("com.splunk.index", "myindex")
                .resource("k0", "v0").resource("k1", "v1");
    }

    private static String gauge(String head, String name, String value) {
        return "{" + head + "\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"k1\":\"v1\",\"metric_name:" + name + "\":"
                + value + ",\"metric_type\":\"Gauge\"}}";
    }

    @Test
    void nanAndInfiniteGaugeValues() { // "nan_gauge_value", "+Inf_gauge_value", "-Inf_gauge_value"
        Batch b = new BatchPool(4).acquire();
        withResources(b, "gauge_with_dims").type("gauge").value(Double.NaN).time(TS);
        withResources(b, "gauge_with_dims").type("gauge").value(Double.POSITIVE_INFINITY).time(TS);
        withResources(b, "gauge_with_dims").type("gauge").value(Double.NEGATIVE_INFINITY).time(TS);
        String head = T + "\"host\":\"unknown\",";
        assertEvents(encode(b, single()),
                gauge(head, "gauge_with_dims", "\"NaN\""),
                gauge(head, "gauge_with_dims", "\"+Inf\""),
                gauge(head, "gauge_with_dims", "\"-Inf\""));
    }

    @Test
    void intAndDoubleGauge() { // "int_gauge", "double_gauge": host, source, sourcetype, index from the resource
        Batch b = new BatchPool(4).acquire();
        withMetadata(b, "gauge_int_with_dims").type("gauge").value(123L).time(TS);
        withMetadata(b, "gauge_double_with_dims").type("gauge").value(1234.5678).time(TS);
        String head = T + "\"host\":\"myhost\",\"source\":\"mysource\",\"sourcetype\":\"mysourcetype\",\"index\":\"myindex\",";
        assertEvents(encode(b, single()),
                gauge(head, "gauge_int_with_dims", "123"),
                gauge(head, "gauge_double_with_dims", "1234.5678"));
    }

    @Test
    void customConfigMapping() { // "custom_config_mapping": other resource attributes for the metadata
        Batch b = new BatchPool(4).acquire();
        metric(b, "gauge_double_with_dims").resource("mysource", "mysource2").resource("myhost", "myhost2")
                .resource("mysourcetype", "mysourcetype2").resource("myindex", "myindex2").resource("k0", "v0")
                .resource("k1", "v1").type("gauge").value(1234.5678).time(TS);
        HecFormat.Builder f = single().otelSourcetypeAttribute("mysourcetype").otelSourceAttribute("mysource")
                .otelHostAttribute("myhost").otelIndexAttribute("myindex");
        assertEvents(encode(b, f), gauge(T + "\"host\":\"myhost2\",\"source\":\"mysource2\",\"sourcetype\":\"mysourcetype2\","
                + "\"index\":\"myindex2\",", "gauge_double_with_dims", "1234.5678"));
    }

    private static String hist(String measure, String le) {
        return "{" + T + "\"host\":\"unknown\",\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"k1\":\"v1\","
                + (le == null ? "" : "\"le\":\"" + le + "\",") + measure + ",\"metric_type\":\"Histogram\"}}";
    }

    @Test
    void histogram() { // "histogram": _sum, _count, then cumulative _bucket per bound and +Inf
        Batch b = new BatchPool(4).acquire();
        withResources(b, "double_histogram_with_dims").type("histogram").time(TS)
                .histogram("{\"count\":7,\"sum\":23.0,\"bucketCounts\":[4,2,3,5],\"explicitBounds\":[1.0,2.0,4.0]}");
        String n = "\"metric_name:double_histogram_with_dims";
        assertEvents(encode(b, single()),
                hist(n + "_sum\":23", null),
                hist(n + "_count\":7", null),
                hist(n + "_bucket\":4", "1"),
                hist(n + "_bucket\":6", "2"),
                hist(n + "_bucket\":9", "4"),
                hist(n + "_bucket\":14", "+Inf"));
    }

    @Test
    void histogramNoUpperBound() { // "histogram_no_upper_bound": counts not one longer than bounds: no buckets
        Batch b = new BatchPool(4).acquire();
        withResources(b, "double_histogram_with_dims").type("histogram").time(TS)
                .histogram("{\"count\":7,\"sum\":23.0,\"bucketCounts\":[4,2,3],\"explicitBounds\":[1.0,2.0,4.0]}");
        String n = "\"metric_name:double_histogram_with_dims";
        assertEvents(encode(b, single()), hist(n + "_sum\":23", null), hist(n + "_count\":7", null));
    }

    @Test
    void histogramWithoutOrWithNanSumAndOddBounds() { // HasSum() false or NaN: no _sum; le as FormatFloat(b, 'g')
        Batch b = new BatchPool(4).acquire();
        withResources(b, "h").type("histogram").time(TS)
                .histogram("{\"count\":\"3\",\"bucketCounts\":[\"1\",\"1\",\"1\"],\"explicitBounds\":[0.00001,2500000.0]}");
        withResources(b, "h").type("histogram").time(TS).histogram("{\"count\":0,\"sum\":\"NaN\"}");
        assertEvents(encode(b, single()),
                hist("\"metric_name:h_count\":3", null),
                hist("\"metric_name:h_bucket\":1", "1e-05"),
                hist("\"metric_name:h_bucket\":2", "2.5e+06"),
                hist("\"metric_name:h_bucket\":3", "+Inf"),
                hist("\"metric_name:h_count\":0", null));
    }

    @Test
    void intAndDoubleSum() { // "int_sum", "double_sum"
        Batch b = new BatchPool(4).acquire();
        withResources(b, "int_sum_with_dims").type("sum").value(62L).time(TS);
        withResources(b, "double_sum_with_dims").type("sum").value(62.0).time(TS);
        String f = "{" + T + "\"host\":\"unknown\",\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"k1\":\"v1\",";
        assertEvents(encode(b, single()),
                f + "\"metric_name:int_sum_with_dims\":62,\"metric_type\":\"Sum\"}}",
                f + "\"metric_name:double_sum_with_dims\":62,\"metric_type\":\"Sum\"}}");
    }

    @Test
    void summary() { // "summary": _sum, _count, then _<quantile> with qt
        Batch b = new BatchPool(4).acquire();
        withResources(b, "summary").type("summary").time(TS).summary("{\"count\":2,\"sum\":42.0,\"quantileValues\":"
                + "[{\"quantile\":0.5,\"value\":34.0},{\"quantile\":0.6,\"value\":45.0}]}");
        String f = "{" + T + "\"host\":\"unknown\",\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"k1\":\"v1\",";
        assertEvents(encode(b, single()),
                f + "\"metric_name:summary_sum\":42,\"metric_type\":\"Summary\"}}",
                f + "\"metric_name:summary_count\":2,\"metric_type\":\"Summary\"}}",
                f + "\"metric_name:summary_0.5\":34,\"metric_type\":\"Summary\",\"qt\":\"0.5\"}}",
                f + "\"metric_name:summary_0.6\":45,\"metric_type\":\"Summary\",\"qt\":\"0.6\"}}");
    }

    @Test
    void unknownTypeAndExponentialHistogramAreSkipped() { // "unknown_type"; ExponentialHistogram: "unsupported type"
        Batch b = new BatchPool(4).acquire();
        withResources(b, "unknown_with_dims");
        withResources(b, "exp").type("exponential_histogram").time(TS)
                .exponentialHistogram("{\"count\":1,\"scale\":0,\"zeroCount\":1}");
        HecEncoder enc = encode(b, single());
        assertThat(enc.events()).isZero();
        assertThat(enc.skippedMessages()).isEqualTo(2);
        assertThat(enc.failedMessages()).isZero();
    }

    @Test
    void gaugeEmptyDataPoint() { // "gauge_empty_data_point": an event without a measurement, as the exporter makes
        Batch b = new BatchPool(4).acquire();
        withResources(b, "gauge_with_dims").type("gauge");
        assertEvents(encode(b, single()),
                "{\"host\":\"unknown\",\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"k1\":\"v1\",\"metric_type\":\"Gauge\"}}");
    }

    @Test
    void pointAttributesAreStringDimensionsAndKeepTheirMetadataKeys() {
        // populateAttributes: v.AsString(), and no host/source/... lookup for a point's own attributes.
        Batch b = new BatchPool(4).acquire();
        metric(b, "g").resource("r.int", 5L).resource("com.splunk.hec.access_token", "t").type("gauge").value(1.5)
                .attr("host.name", "pointhost").attr("d", 2.0).attr("b", true).attr("m", new OtlpMessages.Json("{\"z\":1,\"a\":[1.0]}"))
                .attr("bytes", OtlpMessages.bytes("aGk=")).attr("nil", null).attr("metric_type", "mine");
        assertEvents(encode(b, single()),
                "{\"host\":\"unknown\",\"event\":\"metric\",\"fields\":{\"b\":\"true\",\"bytes\":\"aGk=\",\"d\":\"2\","
                        + "\"host.name\":\"pointhost\",\"m\":\"{\\\"a\\\":[1],\\\"z\\\":1}\",\"metric_name:g\":1.5,"
                        + "\"metric_type\":\"Gauge\",\"nil\":\"\",\"r.int\":\"5\"}}");
    }

    @Test
    void timestampFormat() { // TestTimestampFormat, ...Rounding, ...RoundingWithNanos, TestNilTimeWhenTimestampIsZero
        Batch b = new BatchPool(4).acquire();
        metric(b, "a").type("gauge").value(1L).time(32001000345L);
        metric(b, "b").type("gauge").value(1L).time(32001999345L);
        metric(b, "c").type("gauge").value(1L).time(Long.parseUnsignedLong("9999999999991500001")); // past 2^63
        metric(b, "d").type("gauge").value(1L).time(0);
        List<String> lines = Arrays.asList(encode(b, single()).eventsText().split("\n"));
        assertThat(lines.get(0)).startsWith("{\"time\":32.001,\"host\"");
        assertThat(lines.get(1)).startsWith("{\"time\":32.002,\"host\"");
        assertThat(lines.get(2)).startsWith("{\"time\":9999999999.992,\"host\"");
        assertThat(lines.get(3)).startsWith("{\"host\"");
    }

    // ------------------------------------------------------------------------------ UseMultiMetricFormat

    private static OtlpMessages.Builder hostGauge(Batch b, String host, String name, Object v) {
        return metric(b, name).resource("host.name", host).resource("com.splunk.source", "source")
                .resource("com.splunk.sourcetype", "sourcetype").resource("com.splunk.index", "index")
                .attr("foo", "bar").type("gauge").value(v).time(TS);
    }

    @Test
    void twoEventsThatCanMerge() { // Test_mergeEventsToMultiMetricFormat "two events that can merge"
        Batch b = new BatchPool(4).acquire();
        hostGauge(b, "host", "mem", 123L);
        hostGauge(b, "host", "othermem", 1233.4);
        assertParsed(encode(b, multi()), "{" + T + "\"host\":\"host\",\"source\":\"source\",\"sourcetype\":\"sourcetype\","
                + "\"index\":\"index\",\"event\":\"metric\",\"fields\":{\"foo\":\"bar\",\"metric_name:mem\":123,"
                + "\"metric_name:othermem\":1233.4,\"metric_type\":\"Gauge\"}}");
    }

    @Test
    void twoEventsThatCannotMerge() { // "two events that cannot merge": hosts differ
        Batch b = new BatchPool(4).acquire();
        hostGauge(b, "host", "mem", 123L);
        hostGauge(b, "host2", "othermem", 1233.4);
        String tail = ",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"index\":\"index\",\"event\":\"metric\","
                + "\"fields\":{\"foo\":\"bar\",";
        assertParsed(encode(b, multi()),
                "{" + T + "\"host\":\"host\"" + tail + "\"metric_name:mem\":123,\"metric_type\":\"Gauge\"}}",
                "{" + T + "\"host\":\"host2\"" + tail + "\"metric_name:othermem\":1233.4,\"metric_type\":\"Gauge\"}}");
    }

    @Test
    void sameFieldsDifferentValueKeepsBoth() {
        // "two events with the same fields, but different metric value, last value wins": the exporter overwrites
        // the first value in its map. Here the second starts an event of its own, as for every other message, so
        // that HEC receives both points of the series rather than one value silently replacing another.
        Batch b = new BatchPool(4).acquire();
        hostGauge(b, "host", "mem", 123L);
        hostGauge(b, "host", "mem", 1233.4);
        String head = "{" + T + "\"host\":\"host\",\"source\":\"source\",\"sourcetype\":\"sourcetype\",\"index\":\"index\","
                + "\"event\":\"metric\",\"fields\":{\"foo\":\"bar\",";
        assertParsed(encode(b, multi()),
                head + "\"metric_name:mem\":123,\"metric_type\":\"Gauge\"}}",
                head + "\"metric_name:mem\":1233.4,\"metric_type\":\"Gauge\"}}");
    }

    @Test
    void mergeEvents() { // TestMergeEvents: two gauges of one resource, no time, host ""
        Batch b = new BatchPool(4).acquire();
        for (String[] p : new String[][] {{"otel.collector.test", "3411"}, {"otel.collector.test2", "26059"}}) {
            metric(b, p[0]).resource("host.name", "").resource("IF-Azure", "azure-env").resource("k8s.cluster.name", "devops-uat")
                    .resource("k8s.namespace.name", "splunk-collector-tests").resource("k8s.node.name", "myk8snodename")
                    .resource("k8s.pod.name", "my-otel-collector-pod").resource("metricsIndex", "test_metrics")
                    .resource("metricsPlatform", "unset").resource("resourceAttrs", "NO").resource("testNumber", "number42")
                    .resource("testRun", "42").type("gauge").value(Long.parseLong(p[1]));
        }
        assertParsed(encode(b, multi()), "{\"host\":\"\",\"event\":\"metric\",\"fields\":{\"IF-Azure\":\"azure-env\","
                + "\"k8s.cluster.name\":\"devops-uat\",\"k8s.namespace.name\":\"splunk-collector-tests\","
                + "\"k8s.node.name\":\"myk8snodename\",\"k8s.pod.name\":\"my-otel-collector-pod\","
                + "\"metric_name:otel.collector.test\":3411,\"metric_name:otel.collector.test2\":26059,"
                + "\"metric_type\":\"Gauge\",\"metricsIndex\":\"test_metrics\",\"metricsPlatform\":\"unset\","
                + "\"resourceAttrs\":\"NO\",\"testNumber\":\"number42\",\"testRun\":\"42\"}}");
    }

    @Test
    void histogramsMergePerBucketAcrossMessages() {
        // The exporter hashes each event without its metric_name:* fields: a histogram's _sum and _count share an
        // event, each le is an event of its own, and a second histogram of the same series joins them all.
        Batch b = new BatchPool(4).acquire();
        for (String name : new String[] {"h1", "h2"}) {
            withResources(b, name).type("histogram").time(TS)
                    .histogram("{\"count\":3,\"sum\":6.5,\"bucketCounts\":[1,2],\"explicitBounds\":[2.0]}");
        }
        withResources(b, "g").type("gauge").value(1L).time(TS); // metric_type differs: not merged with them
        HecEncoder enc = encode(b, multi());
        String f = "{" + T + "\"host\":\"unknown\",\"event\":\"metric\",\"fields\":{\"k0\":\"v0\",\"k1\":\"v1\",";
        assertParsed(enc,
                f + "\"metric_name:h1_sum\":6.5,\"metric_name:h1_count\":3,\"metric_name:h2_sum\":6.5,"
                        + "\"metric_name:h2_count\":3,\"metric_type\":\"Histogram\"}}",
                f + "\"le\":\"2\",\"metric_name:h1_bucket\":1,\"metric_name:h2_bucket\":1,\"metric_type\":\"Histogram\"}}",
                f + "\"le\":\"+Inf\",\"metric_name:h1_bucket\":3,\"metric_name:h2_bucket\":3,\"metric_type\":\"Histogram\"}}",
                f + "\"metric_name:g\":1,\"metric_type\":\"Gauge\"}}");
        // A failed request fails every message with an event in it; each histogram sits in all three events.
        enc.plan();
        enc.failRequest(0, 400, 6, "Invalid data format");
        assertThat(enc.failedMessages()).isEqualTo(3);
    }

    private static void assertParsed(HecEncoder enc, String... expected) {
        List<String> lines = Arrays.asList(enc.eventsText().split("\n"));
        assertThat(lines).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertThat(JsonValues.parse(lines.get(i))).as("event %d: %s", i, lines.get(i))
                    .isEqualTo(JsonValues.parse(expected[i]));
        }
    }
}
