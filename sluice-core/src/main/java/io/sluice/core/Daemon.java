package io.sluice.core;

/** The project's background threads: daemons, so that none of them keeps the JVM running. */
public final class Daemon {
    private Daemon() {
    }

    /** Runs {@code task} on a new daemon thread named {@code name}, started; returns the thread. */
    public static Thread start(String name, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
