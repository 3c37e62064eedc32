package io.sluice.core.pipeline;

import java.util.List;

/**
 * What a {@link Pipeline#reload} did: the plugins it started, replaced and stopped (by id), or why it changed
 * nothing.
 *
 * @param ok whether the new config runs now (true also when it was the same as the running one)
 * @param added plugins that were not running before
 * @param replaced plugins whose settings changed: drained, stopped and started anew
 * @param removed plugins no longer in the config: drained and stopped
 * @param kept how many plugins kept running untouched
 * @param error why the reload was refused (the running pipeline is unchanged), or null
 */
public record ReloadResult(boolean ok, List<String> added, List<String> replaced, List<String> removed, int kept,
        String error) {

    /** A reload refused before anything changed. */
    public static ReloadResult failed(String error) {
        return new ReloadResult(false, List.of(), List.of(), List.of(), 0, error);
    }

    /** Whether any plugin was started or stopped. */
    public boolean changed() {
        return !added.isEmpty() || !replaced.isEmpty() || !removed.isEmpty();
    }

    /** One line for the log and the reload endpoint. */
    public String summary() {
        if (!ok && changed()) {
            return "reload failed part way (" + error + "); applied: added " + added + ", replaced " + replaced
                    + ", removed " + removed;
        }
        if (!ok) {
            return "reload failed, the running pipeline is unchanged: " + error;
        }
        if (!changed()) {
            return "reload: the config is unchanged (" + kept + " plugins kept)";
        }
        return "reloaded: added " + added + ", replaced " + replaced + ", removed " + removed + ", " + kept
                + " plugins kept running";
    }
}
