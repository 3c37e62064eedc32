package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.tls.TlsSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 19's bar: every network plugin, inbound and outbound, declares the same TLS/* keys (the one group in
 * core), and {@code sluice list} shows them for each.
 */
class TlsGroupListedTest {
    static final List<String> NETWORK = List.of("consumer.HEC", "producer.SplunkHEC", "consumer.Forward",
            "producer.Forward", "consumer.Socket", "consumer.Syslogd", "producer.Socket", "consumer.Kafka",
            "producer.Kafka", "consumer.OTLP", "producer.OTLP");

    @Test
    void everyNetworkPluginDeclaresTheWholeGroup() {
        List<String> group = new ArrayList<>();
        for (Param<?> p : TlsSettings.PARAMS) {
            group.add(p.name());
        }
        for (String type : NETWORK) {
            PluginSpec spec = PluginRegistry.defaultRegistry().find(type);
            assertThat(spec).as(type).isNotNull();
            List<String> tls = spec.params().keySet().stream().filter(k -> k.startsWith("TLS/")).toList();
            assertThat(tls).as(type).containsExactlyElementsOf(group);
            for (Param<?> p : TlsSettings.PARAMS) {
                assertThat(spec.params().get(p.name())).as(type + " " + p.name()).isSameAs(p);
            }
        }
    }

    @Test
    void listShowsTheGroupForEachOfThem() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        for (String type : NETWORK) {
            out.reset();
            assertThat(Main.execute(new String[] {"list", type}, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8))).as(err.toString(StandardCharsets.UTF_8)).isZero();
            String text = out.toString(StandardCharsets.UTF_8);
            for (Param<?> p : TlsSettings.PARAMS) {
                assertThat(text).as(type).contains(p.name());
            }
        }
    }
}
