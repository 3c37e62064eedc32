package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Sluice config the project ships passes {@code sluice validate}: the examples (the tarball's conf/),
 * the Kubernetes agent and aggregator configs under deploy/, and the tarball's CDS training run. Kubernetes
 * objects (files with a top-level {@code apiVersion:}) in the same folders are not Sluice configs and are skipped, nor
 * are the configs' unit tests ({@code *.test.yaml}, which ConfigTestCommandTest runs).
 */
class DeployConfigsTest {
    /** Module folder relative paths: surefire runs in sluice-cli/. */
    private static final List<Path> FOLDERS = List.of(Path.of("..", "deploy"), Path.of("..", "examples"),
            Path.of("..", "sluice-dist", "src"));
    private static final Pattern KUBERNETES_OBJECT = Pattern.compile("(?m)^apiVersion:");

    @Test
    void everyShippedConfigValidates() throws IOException {
        List<Path> configs = shippedConfigs();
        assertThat(configs.stream().map(p -> p.getFileName().toString()))
                .contains("agent.yaml", "aggregator.yaml", "quickstart.yaml", "cds-training.yaml");
        List<String> failures = new ArrayList<>();
        for (Path config : configs) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Main.execute(new String[] {"validate", config.toString()},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            if (code != 0) {
                failures.add(config + ": exit " + code + "\n" + err.toString(StandardCharsets.UTF_8));
            } else {
                assertThat(out.toString(StandardCharsets.UTF_8)).contains(": ok");
            }
        }
        assertThat(failures).as("configs that do not validate").isEmpty();
    }

    private static List<Path> shippedConfigs() throws IOException {
        List<Path> configs = new ArrayList<>();
        for (Path folder : FOLDERS) {
            assertThat(folder).isDirectory();
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path p : files.filter(Files::isRegularFile).sorted().collect(Collectors.toList())) {
                    String name = p.getFileName().toString();
                    // NAME.test.yaml files are the configs' unit tests (sluice test), not configs.
                    boolean sluiceConfig = (name.endsWith(".yaml") || name.endsWith(".yml")
                            || (name.endsWith(".conf") && p.startsWith(FOLDERS.get(1))))
                            && !name.endsWith(ConfigTestFile.SUFFIX);
                    if (sluiceConfig && !KUBERNETES_OBJECT.matcher(Files.readString(p)).find()) {
                        configs.add(p);
                    }
                }
            }
        }
        return configs;
    }
}
