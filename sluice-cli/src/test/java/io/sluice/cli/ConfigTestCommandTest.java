package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice test}: the examples' tests pass (this is how CI runs them), failures show expected and actual. */
class ConfigTestCommandTest {
    private static final Path EXAMPLES = Path.of("..", "examples");
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static Path resource(String name) throws Exception {
        return Path.of(ConfigTestCommandTest.class.getResource("/config-tests/" + name).toURI());
    }

    @Test
    void everyExampleHasTestsAndTheyAllPass() throws Exception {
        List<Path> configs;
        try (Stream<Path> files = Files.walk(EXAMPLES)) {
            configs = files.filter(f -> f.toString().matches(".*\\.(yaml|conf)") && !isTest(f)).sorted().toList();
        }
        assertThat(configs).hasSizeGreaterThanOrEqualTo(17);
        for (Path config : configs) {
            assertThat(testsOf(config)).as("tests of " + config).exists();
        }

        int exit = run("test", EXAMPLES.toString());

        assertThat(exit).as(out() + err()).isZero();
        assertThat(out()).doesNotContain("FAIL");
        int cases = 0;
        for (Path config : configs) {
            for (ConfigTestCase c : ConfigTestFile.parse(testsOf(config)).cases()) {
                assertThat(out()).contains("PASS " + c.name() + System.lineSeparator());
                cases++;
            }
        }
        assertThat(out()).contains(cases + " passed, 0 failed");
    }

    private static boolean isTest(Path f) {
        return f.getFileName().toString().endsWith(ConfigTestFile.SUFFIX);
    }

    /** {@code x.test.yaml} next to {@code x.yaml} or {@code x.conf}. */
    private static Path testsOf(Path config) {
        String name = config.getFileName().toString();
        return config.resolveSibling(name.substring(0, name.lastIndexOf('.')) + ConfigTestFile.SUFFIX);
    }

    @Test
    void modulatorsRoutersAndStreamsRunAsInThePipeline() throws Exception {
        assertThat(run("test", resource("routing.test.yaml").toString())).as(out() + err()).isZero();
        assertThat(out()).contains("PASS consumer modulators, then the router's filter, then the producer's",
                "PASS a stream input skips the consumer's modulators",
                "PASS a message's own stream overrides the consumer's; watching a stream leaves round robin alone",
                "3 passed, 0 failed");
    }

    @Test
    void aFailingTestExitsNonZeroAndShowsExpectedAndActual() throws Exception {
        int exit = run("test", resource("failing.test.yaml").toString());

        assertThat(exit).isEqualTo(Main.EXIT_TESTS_FAILED);
        assertThat(out()).contains("PASS passes", "FAIL expects the wrong payload",
                "producer Out: message 0: payload differs",
                "expected: 'out:keep this'",
                "actual:   'out:<keep this>'",
                "what reached producer Out (1):",
                "[0] 'out:<keep this>'",
                "1 passed, 1 failed");
        assertThat(out()).doesNotContain("producer Dropped");
    }

    @Test
    void countAndAbsenceFailuresListWhatArrived(@TempDir Path dir) throws Exception {
        Path tests = Files.writeString(dir.resolve("t.test.yaml"), "Config: " + resource("routing.yaml") + "\n"
                + "Tests:\n  - Name: counts\n    Input: {Consumer: In, Messages: [keep a, drop b]}\n"
                + "    Expect:\n      - {Producer: Out, Count: 3}\n      - {Producer: Dropped, Absent: true}\n"
                + "      - {Stream: nowhere, Equals: x}\n");

        assertThat(run("test", tests.toString())).isEqualTo(Main.EXIT_TESTS_FAILED);
        assertThat(out()).contains("FAIL counts", "producer Out: expected 3 messages, got 1",
                "[0] 'out:<keep a>'", "producer Dropped: expected nothing, got 1 message", "[0] '<drop b>'",
                "stream nowhere: expected messages, got none", "what reached stream nowhere (0):");
    }

    /** The stand-ins open no socket and write no file: a port in use and a file path stay untouched. */
    @Test
    void consumersAndProducersAreReplacedAndEnvFillsTheConfig(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Path out = dir.resolve("out").resolve("events.ndjson");
            Files.writeString(dir.resolve("edges.yaml"), "In:\n  Type: consumer.HEC\n  Address: 127.0.0.1:"
                    + taken.getLocalPort() + "\n  Tokens: [t]\n  Streams: ${S:?set S}\n"
                    + "Out:\n  Type: producer.File\n  Streams: ${S}\n  File: " + out + "\n");
            Path tests = Files.writeString(dir.resolve("edges.test.yaml"), "Env: {S: events}\nTests:\n"
                    + "  - Name: through\n    Input: {Consumer: In, Messages: [hello]}\n"
                    + "    Expect: {Producer: Out, Payloads: [hello]}\n");

            assertThat(run("test", tests.toString())).as(out() + err()).isZero();
            assertThat(out()).contains("PASS through");
            assertThat(out).doesNotExist();
        }
    }

    @Test
    void mistakesInATestFileAreConfigErrorsNamingTheSpot(@TempDir Path dir) throws Exception {
        Path config = resource("routing.yaml");
        Path misspelt = Files.writeString(dir.resolve("a.test.yaml"), "Config: " + config + "\nTests:\n"
                + "  - Name: x\n    Input: {Consumer: In, Messages: [a]}\n    Expct: [{Producer: Out}]\n");
        Path unknownConsumer = Files.writeString(dir.resolve("b.test.yaml"), "Config: " + config + "\nTests:\n"
                + "  - Name: y\n    Input: {Consumer: Inn, Messages: [a]}\n    Expect: [{Producer: Out}]\n");
        Files.writeString(dir.resolve("broken.yaml"), "In:\n  Type: consumer.Console\n  Streams: s\n  Modulatorz: []\n"
                + "Out:\n  Type: producer.Null\n  Streams: s\n");
        Path brokenConfig = Files.writeString(dir.resolve("broken.test.yaml"),
                "Tests:\n  - Name: z\n    Input: {Consumer: In, Messages: [a]}\n    Expect: [{Producer: Out}]\n");

        assertThat(run("test", misspelt.toString())).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err()).contains("a.test.yaml: test 0 'x': unknown key 'Expct' (did you mean 'Expect'?)");
        assertThat(run("test", unknownConsumer.toString())).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err()).contains("test 'y': no enabled consumer 'Inn' in the config (did you mean 'In'?)");
        assertThat(run("test", brokenConfig.toString())).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err()).contains("broken.yaml:4", "Modulatorz");
    }
}
