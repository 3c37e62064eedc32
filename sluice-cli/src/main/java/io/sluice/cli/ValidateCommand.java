package io.sluice.cli;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.pipeline.Exposure;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Pipeline;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice validate PATH...}. */
@Command(name = "validate", mixinStandardHelpOptions = true, description = "Check PATH (types, keys, values, streams) "
        + "without starting anything; several files and directories are checked as the one pipeline they merge into.")
final class ValidateCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Config files, or directories of *.yaml/*.yml files.")
    List<Path> paths;

    @Override
    public Integer call() {
        ConfigSource source = ConfigSource.of(paths);
        List<PluginConfig> configs = source.load();
        List<String> warnings = check(configs);
        warnings.forEach(w -> Main.stderr.println("warning: " + w));
        Main.stdout.println(source + ": ok, " + configs.size() + " plugins"
                + (warnings.isEmpty() ? "" : ", " + warnings.size() + " warning" + (warnings.size() == 1 ? "" : "s")));
        return 0;
    }

    /**
     * The checks past loading that {@code sluice run} makes before it starts anything: each plugin's own and the
     * pipeline's (modulator chains). Throws a {@link ConfigException} with every error; returns the warnings.
     */
    static List<String> check(List<PluginConfig> configs) {
        // Making each plugin runs its own checks (regexes, formats) without starting it; every plugin is
        // checked, so that one run reports every error in the file.
        List<String> errors = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (PluginConfig c : configs) {
            try {
                Object plugin = c.spec().create(c);
                if (plugin instanceof Exposure.Listening l && c.get(PluginSpec.ENABLE)) {
                    l.listeners().forEach(listener -> warnings.addAll(Exposure.warnings(c.id(), listener)));
                }
            } catch (ConfigException e) {
                errors.add(e.getMessage());
            }
        }
        if (errors.size() == 1) {
            throw new ConfigException(errors.get(0));
        } else if (!errors.isEmpty()) {
            throw new ConfigException(errors.size() + " errors:\n  " + String.join("\n  ", errors));
        }
        new Pipeline(configs, PluginRegistry.defaultRegistry(), new Log(Main.stderr, Log.WARNING));
        return warnings;
    }
}
