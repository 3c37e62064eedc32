package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class QuickRunTest {
    @Test
    void takesTheRunLinesAndReadsThemAsPicocliDoes() {
        String[][] lines = {
            {"-c", "a.conf"},
            {"--config", "a.conf", "-ll", "3", "--no-stats"},
            {"-ll", "1", "-c", "a.conf", "--no-admin", "--log-format", "json", "--memory-limit", "64m"},
            {"-c", "a.conf", "--admin", "127.0.0.1:0"},
            {"-c", "a.conf", "-m", "0.0.0.0:9000"},
            {"-c", "a.conf", "--admin-token", "s3cret", "--admin-tap"},
            {"--admin-token-file", "/run/secrets/admin", "-c", "a.conf", "--admin", "0.0.0.0:9696"},
            {"-c", "conf.d", "--config", "b.yaml", "--no-stats", "-c", "c.yaml"},
        };
        for (String[] line : lines) {
            QuickRun q = QuickRun.parse(line);
            assertThat(q).as(String.join(" ", line)).isNotNull();
            Main m = new Main();
            new CommandLine(m).parseArgs(line);
            assertThat(q.paths()).isEqualTo(m.config);
            assertThat(q.logLevel()).isEqualTo(m.logLevel);
            assertThat(q.stats()).isEqualTo(!m.noStats);
            assertThat(q.options().admin).isEqualTo(m.runOptions.admin);
            assertThat(q.options().noAdmin).isEqualTo(m.runOptions.noAdmin);
            assertThat(q.options().logFormat).isEqualTo(m.runOptions.logFormat);
            assertThat(q.options().memoryLimit).isEqualTo(m.runOptions.memoryLimit);
            assertThat(q.options().adminToken).isEqualTo(m.runOptions.adminToken);
            assertThat(q.options().adminTokenFile).isEqualTo(m.runOptions.adminTokenFile);
            assertThat(q.options().adminTap).isEqualTo(m.runOptions.adminTap);
        }
    }

    @Test
    void takesTheRunSubcommand() {
        String[] line = {"run", "--no-stats", "b.yaml", "-ll", "0", "conf.d"};
        QuickRun q = QuickRun.parse(line);
        assertThat(q).isNotNull();
        RunCommand r = new RunCommand();
        new CommandLine(r).parseArgs(new String[] {"--no-stats", "b.yaml", "-ll", "0", "conf.d"});
        assertThat(q.paths()).isEqualTo(r.paths).containsExactly(Path.of("b.yaml"), Path.of("conf.d"));
        assertThat(q.logLevel()).isEqualTo(r.logLevel).isZero();
        assertThat(q.stats()).isEqualTo(!r.noStats).isFalse();
    }

    @Test
    void noArgumentsRunTheQuickstart() {
        assertThat(QuickRun.parse(new String[0])).isNotNull();
        assertThat(QuickRun.parse(new String[0]).paths()).isEmpty();
    }

    @Test
    void leavesEverythingElseToPicocli() {
        String[][] lines = {
            {"--help"}, {"-h"}, {"-v"}, {"--version"}, {"-l"}, {"list"}, {"validate", "a.conf"}, {"-tc", "a.conf"},
            {"run"}, {"run", "-h"}, {"run", "-c", "a.conf"},
            {"-c"}, {"--config=a.conf"}, {"-c", "a.conf", "-ll", "x"},
            {"-c", "a.conf", "-ll", "-1"}, {"-c", "a.conf", "-ll"}, {"-c", "a.conf", "--no-stats", "--no-stats"},
            {"-c", "a.conf", "--unknown"}, {"-c", "a.conf", "extra"}, {"-ll", "2"}, {"--no-stats"},
            {"-c", "a.conf", "-v"}, {"-c", "a.conf", "--admin"}, {"-c", "-ll"},
            {"-c", "a.conf", "--admin-token"}, {"-c", "a.conf", "--admin-token-file"}, {"-c", "a.conf", "--admin-tap", "--admin-tap"},
            {"-c", "a.conf", "--admin-token", "a", "--admin-token", "b"}, {"-c", "a.conf", "--admin-token=x"},
        };
        for (String[] line : lines) {
            assertThat(QuickRun.parse(line)).as(String.join(" ", line)).isNull();
        }
    }
}
