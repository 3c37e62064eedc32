package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        PrintStream oldOut = System.out;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            return Main.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
        }
    }

    @Test
    void validateAcceptsEveryShippedExample() {
        for (String f : new String[] {"../examples/quickstart.yaml", "../examples/gollum/profile_raw.conf",
            "../examples/gollum/profile_format.conf", "../examples/gollum/profile_multi.conf"}) {
            assertThat(run("validate", f)).as(f + ": " + err).isZero();
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("quickstart.yaml: ok");
    }

    @Test
    void configErrorsExitWithCode2AndNameTheSpot(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.yaml"),
                "Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Runz: 3\nOut:\n  Type: producer.Null\n  Streams: s\n");
        assertThat(run("validate", bad.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("bad.yaml:4").contains("plugin 'Gen', key 'Runz'").contains("did you mean 'Runs'");
        err.reset();
        assertThat(run("-c", bad.toString())).isEqualTo(2);
        assertThat(run("-tc", bad.toString())).isEqualTo(2);
        assertThat(run("run", dir.resolve("missing.yaml").toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot read config");
    }

    private static final String GEN = "Gen:\n  Type: consumer.Profiler\n  Runs: 100\n  Batches: 2\n  Streams: s\n";
    private static final String OUT = "Out:\n  Type: producer.Benchmark\n  Streams: s\n";

    /** issue 21: a directory, or several files, are one pipeline to validate, graph and run. */
    @Test
    void aConfigInPiecesIsValidatedGraphedAndRunAsOnePipeline(@TempDir Path dir) throws Exception {
        Path confD = Files.createDirectories(dir.resolve("conf.d"));
        Path gen = Files.writeString(confD.resolve("10-gen.yaml"), GEN);
        Path out = Files.writeString(confD.resolve("20-out.yml"), OUT);
        assertThat(run("validate", confD.toString())).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(run("validate", gen.toString(), out.toString())).isZero();
        assertThat(run("-tc", gen.toString(), "-tc", out.toString())).isZero();
        assertThat(this.out.toString(StandardCharsets.UTF_8)).contains(confD + ": ok, 2 plugins")
                .contains(gen + " " + out + ": ok, 2 plugins");
        this.out.reset();
        assertThat(run("graph", gen.toString(), out.toString())).isZero();
        assertThat(this.out.toString(StandardCharsets.UTF_8)).contains("\"Gen\"").contains("\"Out\"");
        assertThat(run("-c", confD.toString(), "--no-stats", "--admin", "127.0.0.1:0")).isZero();
        assertThat(run("run", gen.toString(), out.toString(), "--no-stats", "--admin", "127.0.0.1:0")).isZero();
        assertThat(run("-c", gen.toString(), "-c", out.toString(), "--no-stats", "--no-admin", "--log-format=json"))
                .isZero(); // picocli's parse of a line QuickRun leaves to it
        assertThat(err.toString(StandardCharsets.UTF_8).split("Out: delivered 200 messages", -1)).hasSize(4);
    }

    @Test
    void piecesThatDisagreeAreAConfigErrorNamingBothFiles(@TempDir Path dir) throws Exception {
        Path a = Files.writeString(dir.resolve("a.yaml"), "MemoryLimit: 64m\n" + GEN + OUT);
        Path b = Files.writeString(dir.resolve("b.yaml"), OUT);
        assertThat(run("validate", a.toString(), b.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(b + ":2: plugin 'Out': defined twice: first at " + a + ":8");
        err.reset();
        Files.writeString(b, "MemoryLimit: 32m\n");
        assertThat(run("run", a.toString(), b.toString(), "--no-admin")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(b + ":1: MemoryLimit: 32m differs from 64m set at " + a + ":1");
        err.reset();
        assertThat(run("-c", dir.resolve("none").toString(), "-c", a.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("none: cannot read config");
        err.reset();
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThat(run("validate", empty.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(empty + ": no config files in the directory");
    }

    /** issue 19: a listener open to the network without TLS or authentication is named by validate, loopback is not. */
    @Test
    void validateWarnsAboutPublicListenersWithoutTlsOrAuthentication(@TempDir Path dir) throws Exception {
        Path open = Files.writeString(dir.resolve("open.yaml"),
                "Hec:\n  Type: consumer.HEC\n  Address: 0.0.0.0:8088\n  Streams: s\n"
                + "Fwd:\n  Type: consumer.Forward\n  Address: 0.0.0.0:24224\n  SharedKey: k\n  Streams: s\n"
                + "Otlp:\n  Type: consumer.OTLP\n  Streams: s\n"
                + "Syslog:\n  Type: consumer.Syslogd\n  Address: \"tcp://0.0.0.0:6514\"\n  Streams: s\n"
                + "Unix:\n  Type: consumer.Socket\n  Address: \"unix:///tmp/sluice-validate.sock\"\n  Streams: s\n"
                + "Out:\n  Type: producer.Null\n  Streams: s\n");
        assertThat(run("validate", open.toString())).isZero();
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("warning: Hec: HEC on 0.0.0.0:8088 accepts unauthenticated requests").contains("set Tokens")
                .contains("warning: Hec: HEC on 0.0.0.0:8088 takes plain text").contains("set TLS/CertFile")
                .contains("warning: Fwd: Forward on 0.0.0.0:24224 takes plain text")
                .doesNotContain("Fwd: Forward on 0.0.0.0:24224 accepts unauthenticated").doesNotContain("Otlp:")
                .contains("warning: Syslog: Syslog (tcp) on 0.0.0.0:6514 accepts unauthenticated requests")
                .contains("require client certificates (TLS/ClientAuth require)").doesNotContain("Unix:");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("ok, 6 plugins, 5 warnings");
    }

    @Test
    void validateReportsEveryErrorInTheFileNotOnlyTheFirst(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.yaml"),
                "Gen:\n  Type: consumer.Profiler\n  Streams: s\n  Runz: 3\n  Batches: many\n"
                + "Out:\n  Type: producer.Null\n  Streams: s\n  Chanel: 5\n"
                + "Check:\n  Type: consumer.Profiler\n  Streams: s\n  TemplateCount: 0\n"
                + "Check2:\n  Type: consumer.Profiler\n  Streams: s\n  Characters: \"\"\n");
        assertThat(run("validate", bad.toString())).isEqualTo(2);
        String text = err.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("4 errors").contains("key 'Runz'").contains("key 'Batches'").contains("key 'Chanel'")
                .contains("key 'TemplateCount'"); // a declared range is checked with the rest
        err.reset();
        Path checks = Files.writeString(dir.resolve("checks.yaml"),
                "Check:\n  Type: consumer.Profiler\n  Streams: s\n  Characters: \"\"\n"
                + "Check2:\n  Type: consumer.Profiler\n  Streams: s\n  Characters: \"\"\n"
                + "Out:\n  Type: producer.Null\n  Streams: s\n");
        assertThat(run("validate", checks.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("2 errors").contains("plugin 'Check', key 'Characters'")
                .contains("plugin 'Check2', key 'Characters'");
    }

    @Test
    void pluginCheckFailuresAreConfigErrorsToo(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.yaml"),
                "Gen:\n  Type: consumer.Profiler\n  Streams: s\n  TemplateCount: 0\nOut:\n  Type: producer.Null\n  Streams: s\n");
        assertThat(run("validate", bad.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("bad.yaml:4").contains("key 'TemplateCount'");
    }

    @Test
    void listShowsEveryPluginWithParametersAndDefaults() {
        assertThat(run("list")).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("consumer.Profiler", "producer.Benchmark", "router.RoundRobin", "format.Timestamp");
        assertThat(text).containsPattern("Runs\\s+10000\\s+Messages per batch");
        assertThat(text).containsPattern("Timestamp\\s+\"2006-01-02 15:04:05 MST \\| \"");
        out.reset();
        assertThat(run("-l")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("consumer.Profiler");
    }

    @Test
    void runsAFilePipelineToCompletion(@TempDir Path dir) throws Exception {
        Path conf = Files.writeString(dir.resolve("p.yaml"),
                "Gen:\n  Type: consumer.Profiler\n  Runs: 1000\n  Batches: 3\n  Streams: s\nOut:\n  Type: producer.Benchmark\n  Streams: s\n");
        assertThat(run("-c", conf.toString(), "--no-stats", "--admin", "127.0.0.1:0")).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Out: delivered 3,000 messages");
    }

    @Test
    void theMemoryBudgetComesFromTheFlagOverTheConfigOverTheHeapShare(@TempDir Path dir) throws Exception {
        Path conf = Files.writeString(dir.resolve("p.yaml"), "MemoryLimit: 48m\n"
                + "Gen:\n  Type: consumer.Profiler\n  Runs: 100\n  Batches: 1\n  Streams: s\nOut:\n  Type: producer.Benchmark\n  Streams: s\n");
        assertThat(run("-c", conf.toString(), "--no-stats", "--admin", "127.0.0.1:0")).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("memory budget 48 MiB");
        err.reset();
        assertThat(run("-c", conf.toString(), "--no-stats", "--admin", "127.0.0.1:0", "--memory-limit", "20m")).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("memory budget 20 MiB");
        err.reset();
        assertThat(run("-c", conf.toString(), "--no-stats", "--no-admin", "--memory-limit", "plenty")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--memory-limit").contains("plenty");
    }

    @Test
    void anUnreadableAdminTokenFileIsAConfigErrorAndAGoodOneTurnsTheTokenOn(@TempDir Path dir) throws Exception {
        Path conf = Files.writeString(dir.resolve("p.yaml"),
                "Gen:\n  Type: consumer.Profiler\n  Runs: 10\n  Batches: 1\n  Streams: s\nOut:\n  Type: producer.Benchmark\n  Streams: s\n");
        assertThat(run("-c", conf.toString(), "--no-stats", "--admin", "127.0.0.1:0", "--admin-token-file",
                dir.resolve("missing").toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--admin-token-file").contains("cannot read");
        err.reset();
        Path token = Files.writeString(dir.resolve("token"), "t0ken\n");
        assertThat(run("-c", conf.toString(), "--no-stats", "--admin", "127.0.0.1:0", "--admin-token-file", token.toString()))
                .isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("bearer token required but for /health /ready");
    }

    @Test
    void everySubcommandAnswersHelp() {
        for (String command : new String[] {"run", "validate", "list", "graph", "top", "tap"}) {
            out.reset();
            assertThat(run(command, "--help")).as(command + " --help: " + err).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).as(command + " --help").contains("Usage: sluice " + command);
            assertThat(err.toString(StandardCharsets.UTF_8)).as(command + " --help writes no warning").isEmpty();
        }
        out.reset();
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: sluice");
    }

    @Test
    void listNamesOnePluginOrRefusesAnUnknownOne() {
        assertThat(run("list", "consumer.Profiler")).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("consumer.Profiler").contains("Rate").doesNotContain("producer.Benchmark");
        assertThat(run("list", "consumer.Profilr")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("consumer.Profilr");
    }

    @Test
    void versionPrints() {
        assertThat(run("-v")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("sluice ");
    }
}
