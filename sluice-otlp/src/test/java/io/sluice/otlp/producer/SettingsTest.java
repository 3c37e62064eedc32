package io.sluice.otlp.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** producer.OTLP's settings: defaults by protocol, endpoints, headers as a mapping or a list, refused values. */
class SettingsTest {
    private static PluginConfig config(Map<String, Object> settings) {
        return PluginConfig.of("o", "producer.OTLP", new HashMap<>(settings));
    }

    private static OtlpProducer.Endpoint endpoint(Map<String, Object> settings) {
        PluginConfig c = config(settings);
        return OtlpProducer.endpoint(c, !"http/protobuf".equals(c.get(OtlpProducer.PROTOCOL)));
    }

    @Test
    void registeredWithDefaultsByProtocol() {
        assertThat(PluginRegistry.defaultRegistry().find("producer.OTLP")).isNotNull();
        PluginConfig c = config(Map.of());
        assertThat(c.get(OtlpProducer.PROTOCOL)).isEqualTo("grpc");
        assertThat(c.get(OtlpProducer.COMPRESSION)).isEqualTo("gzip");
        assertThat(endpoint(Map.of())).isEqualTo(new OtlpProducer.Endpoint("127.0.0.1", 4317, "", false));
        assertThat(endpoint(Map.of("Protocol", "http/protobuf"))).isEqualTo(new OtlpProducer.Endpoint("127.0.0.1", 4318, "", false));
    }

    @Test
    void endpoints() {
        assertThat(endpoint(Map.of("Endpoint", "collector:4317"))).isEqualTo(new OtlpProducer.Endpoint("collector", 4317, "", false));
        assertThat(endpoint(Map.of("Endpoint", "https://collector"))).isEqualTo(new OtlpProducer.Endpoint("collector", 4317, "", true));
        assertThat(endpoint(Map.of("Endpoint", "[::1]:5317", "TLS/Enable", true)))
                .isEqualTo(new OtlpProducer.Endpoint("::1", 5317, "", true));
        assertThat(endpoint(Map.of("Protocol", "http/protobuf", "Endpoint", "https://otel.example.com/api/otlp")))
                .isEqualTo(new OtlpProducer.Endpoint("otel.example.com", 443, "/api/otlp", true));
        assertThatThrownBy(() -> endpoint(Map.of("Endpoint", "ftp://x"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("Endpoint");
    }

    @Test
    void refusedValues() {
        assertThatThrownBy(() -> new OtlpProducer(config(Map.of("Protocol", "http/json")))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected one of grpc, http/protobuf");
        assertThatThrownBy(() -> new OtlpProducer(config(Map.of("Compression", "zstd")))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected one of gzip, none");
        assertThatThrownBy(() -> new OtlpProducer(config(Map.of("TLS/CertFile", "c.pem")))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("set TLS/KeyFile too");
        assertThatThrownBy(() -> new OtlpProducer(config(Map.of("TLS/ClientAuth", "require")))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("applies to servers");
    }

    @Test
    void headersAsAMappingOrAListOfNameValue() {
        String yaml = "In:\n  Type: consumer.Console\n  Streams: s\n"
                + "A:\n  Type: producer.OTLP\n  Streams: s\n  Headers:\n    Authorization: Bearer x\n    X-Scope: a:b\n"
                + "B:\n  Type: producer.OTLP\n  Streams: s\n  Headers:\n    - Authorization: Bearer x\n    - \"X-Scope: a:b\"\n";
        List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(yaml, "t.yaml");
        Map<String, String> want = Map.of("Authorization", "Bearer x", "X-Scope", "a:b");
        assertThat(configs.get(1).get(OtlpProducer.HEADERS)).isEqualTo(want);
        assertThat(configs.get(2).get(OtlpProducer.HEADERS)).isEqualTo(want);
        assertThatThrownBy(() -> new ConfigLoader(PluginRegistry.defaultRegistry(), Map.of()).loadString(
                "In:\n  Type: consumer.Console\n  Streams: s\nA:\n  Type: producer.OTLP\n  Streams: s\n  Headers:\n    - nocolon\n",
                "t.yaml")).isInstanceOf(ConfigException.class).hasMessageContaining("Name: value");
    }
}
