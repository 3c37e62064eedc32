package io.sluice.e2e;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Base of the tests: a temp directory, and every process and client started is closed after the test. */
abstract class ProcessTest {
    @TempDir
    Path dir;

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    SluiceProcess start(String name, String config, int... ports) throws Exception {
        SluiceProcess p = SluiceProcess.start(name, dir, config);
        opened.push(p);
        return p.awaitListening(ports);
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
