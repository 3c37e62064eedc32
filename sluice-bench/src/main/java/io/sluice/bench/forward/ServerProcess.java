package io.sluice.bench.forward;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Starts {@link BenchServer} in a child JVM for one benchmark, and waits on its event count. */
@State(Scope.Benchmark)
public class ServerProcess {
    private Process process;
    private Socket control;
    private DataOutputStream controlOut;
    private InputStream controlIn;
    /** The port clients send to. */
    public int port;

    @Setup(Level.Trial)
    public void start() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(java, "-Xms256m", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                BenchServer.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        String[] ports = r.readLine().trim().split(" ");
        port = Integer.parseInt(ports[0]);
        control = new Socket();
        control.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(ports[1])));
        control.setTcpNoDelay(true);
        controlOut = new DataOutputStream(control.getOutputStream());
        controlIn = control.getInputStream();
    }

    /** Blocks until the server has counted {@code total} events since it started. */
    public void awaitEvents(long total) throws IOException {
        controlOut.writeLong(total);
        controlOut.flush();
        if (controlIn.read() != 1) {
            throw new IOException("bench server went away");
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        control.close();
        process.getOutputStream().close();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
