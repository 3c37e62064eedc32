package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code sluice test} file: the config it tests ({@code Config}, relative to the file; by default the file's
 * name without {@code .test}: {@code hec-relay.test.yaml} tests {@code hec-relay.yaml}), environment variables the
 * config is read with ({@code Env}, over the process's), and its cases ({@code Tests}).
 *
 * @param file the test file
 * @param config the config it tests
 * @param env the environment the config's {@code ${VAR}} are substituted from
 * @param cases the cases, in the file's order
 */
record ConfigTestFile(Path file, Path config, Map<String, String> env, List<ConfigTestCase> cases) {
    /** How test files end; a directory given to {@code sluice test} is searched for these. */
    static final String SUFFIX = ".test.yaml";

    /** Reads and checks a test file; a mistake in it is a {@link ConfigException} naming the spot. */
    static ConfigTestFile parse(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read test file: " + e.getMessage());
        }
        TestFileNode root = TestFileNode.of(ConfigLoader.readYaml(text, file.toString(), System.getenv()),
                file.toString()).only("Config", "Env", "Tests");
        Path dir = file.toAbsolutePath().getParent();
        String config = root.string("Config");
        Path configPath = dir.resolve(config != null ? config : defaultConfig(file));
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(root.strings("Env"));
        List<ConfigTestCase> cases = new ArrayList<>();
        List<Object> tests = root.items("Tests");
        for (int i = 0; i < tests.size(); i++) {
            cases.add(ConfigTestCase.parse(TestFileNode.of(tests.get(i), file + ": test " + i)));
        }
        if (cases.isEmpty()) {
            throw root.error("Tests: give at least one test");
        }
        return new ConfigTestFile(file, configPath, env, List.copyOf(cases));
    }

    private static String defaultConfig(Path file) {
        String name = file.getFileName().toString();
        int at = name.lastIndexOf(".test.");
        if (at < 0) {
            throw new ConfigException(file + ": name the config with Config: (the file's name has no .test. to "
                    + "derive it from)");
        }
        return name.substring(0, at) + name.substring(at + ".test".length());
    }
}
