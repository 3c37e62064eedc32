package io.sluice.bench.net;

import io.sluice.bench.BenchDefaults;
import io.sluice.bench.hec.HecDiscardServer;
import io.sluice.bench.hec.HecPushBenchmark;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.message.Batch;
import io.sluice.core.pipeline.Producer;
import io.sluice.hec.producer.HecProducer;
import io.sluice.otlp.producer.OtlpProducer;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The outputs that post over HTTP/1.1, with their default settings, to a discarding server in this process over
 * loopback ({@link HecDiscardServer}: it answers HEC's JSON 200, which an OTLP exporter takes as plain success).
 * One op delivers one full batch of the HEC seed's NDJSON lines: producer.SplunkHEC (one event a line, requests cut
 * at its MaxContentLength) or producer.OTLP with {@code Protocol: http/protobuf} (one log record a line), plain or
 * gzip. Where {@link HecPushBenchmark} measures the encoder alone, this adds what each request costs on a real
 * socket: writing the header and body, reading and parsing the answer.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class HttpProducerBenchmark extends BenchDefaults {
    @Param({"SplunkHEC", "OTLP"})
    public String output;

    @Param({"false", "true"})
    public boolean gzip;

    private ServerSocket server;
    private Producer producer;
    private Batch batch;

    @Setup
    public void setup() throws Exception {
        server = HecDiscardServer.inProcess();
        Map<String, Object> cfg = new HashMap<>();
        cfg.put("Endpoint", "http://127.0.0.1:" + server.getLocalPort());
        if (output.equals("SplunkHEC")) {
            cfg.put("Token", "bench");
            cfg.put("Gzip", gzip);
            cfg.put("HealthCheck", false);
            producer = new HecProducer(PluginConfig.of("bench", "producer.SplunkHEC", cfg));
        } else {
            cfg.put("Protocol", "http/protobuf");
            cfg.put("Compression", gzip ? "gzip" : "none");
            producer = new OtlpProducer(PluginConfig.of("bench", "producer.OTLP", cfg));
        }
        producer.start(producerContext());
        batch = HecPushBenchmark.lines(BATCH);
    }

    @TearDown
    public void tearDown() throws Exception {
        producer.close();
        server.close();
    }

    @Benchmark
    public Batch deliver() throws Exception {
        producer.deliver(batch);
        return batch;
    }
}
