package io.sluice.cli;

import io.sluice.core.config.PluginRegistry;
import io.sluice.core.config.PluginSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice list}: the plugin reference, generated from the same declarations that parse configs. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "List every plugin with its parameters and defaults.")
final class ListCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PLUGIN", arity = "0..*", description = "Plugin types to show (e.g. consumer.HEC); all when none.")
    List<String> types = List.of();

    @Override
    public Integer call() {
        StringBuilder b = new StringBuilder();
        List<PluginSpec> specs = new ArrayList<>();
        for (String type : types) {
            PluginSpec spec = PluginRegistry.defaultRegistry().find(type);
            if (spec == null) {
                Main.stderr.println("sluice list: unknown plugin type '" + type + "' (sluice list shows every type)");
                return Main.EXIT_CONFIG;
            }
            specs.add(spec);
        }
        for (PluginSpec spec : types.isEmpty() ? PluginRegistry.defaultRegistry().all() : specs) {
            b.append(spec.type()).append("  (").append(spec.kind().name().toLowerCase()).append(")\n");
            b.append("    ").append(spec.doc()).append('\n');
            spec.params().values().forEach(p -> b.append(
                    String.format("    %-20s %-14s %s%n", p.name(), p.defaultText(), p.doc())));
            b.append('\n');
        }
        Main.stdout.print(b);
        return 0;
    }
}
