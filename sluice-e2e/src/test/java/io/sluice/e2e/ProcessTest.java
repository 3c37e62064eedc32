package io.sluice.e2e;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Base of the tests: a temp directory, and every process and client started is closed after the test. */
abstract class ProcessTest {
    @TempDir
    Path dir;

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    /**
     * The admin port of each process name started in this test. A restarted process takes its old one: with a
     * fresh ephemeral port, the system could hand it the port its own listener had before the restart (freed by
     * the stop), and the listener then failed to bind, as OverloadTest once saw.
     */
    private final Map<String, Integer> adminPorts = new HashMap<>();

    SluiceProcess start(String name, String config, int... ports) throws Exception {
        SluiceProcess p = SluiceProcess.start(name, dir, config, adminPort(name));
        opened.push(p);
        p.awaitListening(ports);
        adminPorts.put(name, p.adminPort());
        return p;
    }

    /** Starts a process with the launcher's JVM options (heap, GC, exit on OOM) and waits for its ports. */
    SluiceProcess startAsLaunched(String name, String config, int... ports) throws Exception {
        SluiceProcess p = launch(name, config);
        p.awaitListening(ports);
        adminPorts.put(name, p.adminPort());
        return p;
    }

    /** Starts a process with the launcher's JVM options and does not wait for it (it may exit at start). */
    SluiceProcess launch(String name, String config) throws Exception {
        SluiceProcess p = SluiceProcess.start(name, dir, config, adminPort(name), Launcher.jvmOptions());
        opened.push(p);
        return p;
    }

    /**
     * The admin port of the process called {@code name}: the one it had before (a restart keeps it), or a port no
     * other part of the test was given. Not 0: the admin endpoint binds before the pipeline's listeners, and the
     * kernel's pick for it could be a port the test chose for a listener and has not bound yet.
     */
    private int adminPort(String name) throws java.io.IOException {
        Integer known = adminPorts.get(name);
        return known != null ? known : E2e.freePort();
    }

    <T extends AutoCloseable> T open(T resource) {
        opened.push(resource);
        return resource;
    }

    @AfterEach
    void closeEverything() throws Exception {
        // Processes first (a sender's close may wait for a server), then the senders.
        for (AutoCloseable c : opened) {
            if (c instanceof SluiceProcess) {
                c.close();
            }
        }
        for (AutoCloseable c : opened) {
            if (!(c instanceof SluiceProcess)) {
                c.close();
            }
        }
        opened.clear();
    }
}
