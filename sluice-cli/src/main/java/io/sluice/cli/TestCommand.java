package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.testing.Captured;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice test FILE|DIR...}: runs config unit tests (see docs/config-tests.md) and prints {@code PASS name} or
 * {@code FAIL name} with what was expected and what arrived. Exit 0 when every test passed,
 * {@value Main#EXIT_TESTS_FAILED} when one failed, {@value Main#EXIT_CONFIG} when a test file or its config is wrong.
 */
@Command(name = "test", mixinStandardHelpOptions = true,
        description = "Run config unit tests: each FILE (or every *.test.yaml under DIR) feeds messages to a config's "
                + "consumers or streams and checks what reaches its producers or streams.")
final class TestCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE|DIR", arity = "1..*")
    List<Path> paths;

    private int passed;
    private int failed;
    private int broken;

    @Override
    public Integer call() throws Exception {
        for (Path file : testFiles()) {
            try {
                runFile(file);
            } catch (ConfigException e) {
                broken++;
                Main.stderr.println("sluice test: config error: " + e.getMessage());
            }
        }
        Main.stdout.println(passed + " passed, " + failed + " failed" + (broken == 0 ? "" : ", " + broken
                + " file" + (broken == 1 ? "" : "s") + " with errors"));
        return broken > 0 ? Main.EXIT_CONFIG : failed > 0 ? Main.EXIT_TESTS_FAILED : 0;
    }

    /** The files named, and the {@code *.test.yaml} files under the directories named, each sorted. */
    private List<Path> testFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (!Files.isDirectory(p)) {
                files.add(p);
                continue;
            }
            try (Stream<Path> found = Files.walk(p)) {
                List<Path> tests = found.filter(f -> f.getFileName().toString().endsWith(ConfigTestFile.SUFFIX))
                        .sorted().toList();
                if (tests.isEmpty()) {
                    throw new ConfigException(p + ": no *" + ConfigTestFile.SUFFIX + " file in it");
                }
                files.addAll(tests);
            }
        }
        return files;
    }

    private void runFile(Path file) throws Exception {
        ConfigTestFile tests = ConfigTestFile.parse(file);
        List<PluginConfig> configs = new ConfigLoader(PluginRegistry.defaultRegistry(), tests.env())
                .loadFile(tests.config());
        ValidateCommand.check(configs);
        Main.stdout.println(file + " (" + tests.config().getFileName() + ")");
        ConfigTestRun run = new ConfigTestRun(configs);
        for (ConfigTestCase c : tests.cases()) {
            report(c, run.run(c), Main.stdout);
        }
    }

    private void report(ConfigTestCase c, ConfigTestRun.Outcome outcome, PrintStream out) {
        List<String> lines = new ArrayList<>();
        if (outcome.problem() != null) {
            lines.add(outcome.problem());
        }
        for (TestExpectation e : c.expectations()) {
            List<Captured> got = outcome.arrived().get(e.target());
            List<String> failures = e.check(got);
            if (!failures.isEmpty()) {
                failures.forEach(f -> lines.add(e.target() + ": " + f));
                lines.add(arrived(e.target(), got));
            }
        }
        if (lines.isEmpty()) {
            passed++;
            out.println("PASS " + c.name());
            return;
        }
        failed++;
        out.println("FAIL " + c.name());
        lines.forEach(l -> out.println(indent(l, "  ")));
        if (!outcome.log().isBlank()) {
            out.println("  the pipeline logged:");
            out.print(indent(outcome.log().stripTrailing(), "    "));
            out.println();
        }
    }

    /** The messages that did reach a target, so that a failure shows what came instead. */
    private static String arrived(String target, List<Captured> got) {
        StringBuilder b = new StringBuilder("what reached ").append(target);
        b.append(" (").append(got.size()).append("):");
        for (int i = 0; i < got.size(); i++) {
            Captured m = got.get(i);
            b.append("\n  [").append(i).append("] ").append(TestExpectation.quote(m.payload()));
            if (!m.fields().isEmpty()) {
                b.append("  metadata ").append(m.fields());
            }
            b.append("  (stream ").append(m.stream()).append(')');
        }
        return b.toString();
    }

    private static String indent(String text, String by) {
        return by + text.replace("\n", "\n" + by);
    }
}
