package io.sluice.cli;

import io.sluice.core.Daemon;
import sun.misc.Signal;

/**
 * SIGINT and SIGTERM start a graceful stop; the process then exits 0 from main once everything is flushed.
 * A JVM shutdown hook would also work but makes the exit code 130/143 and races with System.exit.
 * A second Ctrl-C while stopping exits at once; a second signal within {@value #REPEAT_MILLIS} ms of the first is
 * the same request delivered twice (GNU timeout signals the process and then its group), not an impatient user.
 */
final class Signals {
    static final long REPEAT_MILLIS = 2000;
    private static volatile boolean stopping;
    private static volatile long firstNanos;

    private Signals() {
    }

    /**
     * SIGHUP reloads the config (on its own thread: a reload drains replaced producers). A second SIGHUP during a
     * reload waits for it, then reloads again.
     *
     * @return false when SIGHUP cannot be handled: the process started with it ignored (under {@code nohup}, say),
     *     which the JVM cannot undo
     */
    static boolean onReload(Runnable reload) {
        if (sighupIgnored()) {
            return false; // the JVM accepts a handler for it, and never calls it
        }
        try {
            Signal.handle(new Signal("HUP"), sig -> {
                Daemon.start("signal-reload", reload);
            });
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether this process started with SIGHUP ignored: bit 0 of SigIgn in /proc/self/status (Linux; else false). */
    static boolean sighupIgnored() {
        try {
            for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (l.startsWith("SigIgn:")) {
                    return (Long.parseLong(l.substring(7).trim(), 16) & 1) != 0;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // Not Linux: the handler is taken at its word.
        }
        return false;
    }

    static void onStop(Runnable stop) {
        for (String name : new String[] {"INT", "TERM"}) {
            try {
                Signal.handle(new Signal(name), sig -> {
                    if (stopping) {
                        if (System.nanoTime() - firstNanos < REPEAT_MILLIS * 1_000_000L) {
                            return;
                        }
                        System.err.println("sluice: second " + sig + ", exiting without draining");
                        Runtime.getRuntime().halt(130);
                    }
                    firstNanos = System.nanoTime();
                    stopping = true;
                    Daemon.start("signal-stop", stop);
                });
            } catch (IllegalArgumentException e) {
                // Signal not available on this platform: fall back to a shutdown hook.
                Runtime.getRuntime().addShutdownHook(new Thread(stop, "shutdown-hook"));
            }
        }
    }
}
