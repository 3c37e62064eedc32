package io.sluice.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One real KRaft node (broker and controller in one) inside this JVM, on 127.0.0.1, for tests and the
 * benchmark script: no Docker here. Its ports are picked once and kept, so {@link #stop()} followed by
 * {@link #restart()} brings the same broker back at the same address with its log intact, which is what a
 * client sees when a broker restarts.
 *
 * <p>Sized for a busy two-core machine: few threads, one replica, no initial rebalance delay, small segments.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private final Path dir;
    private final int brokerPort;
    private final int controllerPort;
    private final Map<String, String> overrides;
    /** Settings of an SSL listener (without the {@code listener.name.ssl.} prefix), or empty for none. */
    private final Map<String, String> ssl;
    private final int sslPort;
    private final String clusterId = Uuid.randomUuid().toString();
    private boolean formatted;
    private KafkaRaftServer server;

    private EmbeddedKafka(Path dir, Map<String, String> overrides, Map<String, String> ssl) {
        this.dir = dir;
        this.overrides = overrides;
        this.ssl = ssl;
        this.brokerPort = freePort();
        this.controllerPort = freePort();
        this.sslPort = ssl.isEmpty() ? 0 : freePort();
    }

    /** Formats a fresh log directory under a new temporary folder and starts the node. */
    public static EmbeddedKafka start(Map<String, String> overrides) {
        return start(overrides, Map.of());
    }

    /**
     * A node that also listens with SSL on {@link #sslBootstrap()}; {@code ssl} holds that listener's
     * {@code ssl.*} settings (key store, trust store, {@code ssl.client.auth}). The plaintext listener stays for
     * the broker's own clients (admin, readiness).
     */
    public static EmbeddedKafka startWithSsl(Map<String, String> ssl) {
        return start(Map.of(), ssl);
    }

    private static EmbeddedKafka start(Map<String, String> overrides, Map<String, String> ssl) {
        try {
            EmbeddedKafka k = new EmbeddedKafka(Files.createTempDirectory("sluice-kafka-"), overrides, ssl);
            k.restart();
            return k;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A node with the default settings. */
    public static EmbeddedKafka startDefault() {
        return start(Map.of());
    }

    /** bootstrap.servers for clients. */
    public String bootstrap() {
        return "127.0.0.1:" + brokerPort;
    }

    /** bootstrap.servers for clients of the SSL listener. */
    public String sslBootstrap() {
        return "127.0.0.1:" + sslPort;
    }

    /** Starts (or restarts) the node and waits until it answers. */
    public synchronized void restart() {
        KafkaConfig config = new KafkaConfig(properties());
        if (!formatted) {
            format(config);
            formatted = true;
        }
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        awaitReady();
    }

    /** Stops the node, keeping its data, as a broker that is shut down (not killed). */
    public synchronized void stop() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    /** Creates a topic and waits until it exists. */
    public void createTopic(String name, int partitions) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + name, e);
        }
    }

    /** An admin client for this node (the caller closes it). */
    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        return Admin.create(p);
    }

    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> all = new ArrayList<>();
            files.sorted(Comparator.reverseOrder()).forEach(all::add);
            for (Path f : all) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // A leftover temporary folder is not worth failing a test for.
        }
    }

    private Properties properties() {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        String sslListener = sslPort == 0 ? "" : ",SSL://127.0.0.1:" + sslPort;
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort + sslListener);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + sslListener);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" + (sslPort == 0 ? "" : ",SSL:SSL"));
        for (Map.Entry<String, String> e : ssl.entrySet()) {
            p.put("listener.name.ssl." + e.getKey(), e.getValue());
        }
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("log.dirs", dir.resolve("data").toString());
        p.put("metadata.log.dir", dir.resolve("meta").toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.partitions", "1");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        p.put("num.replica.fetchers", "1");
        p.put("log.segment.bytes", String.valueOf(8 * 1024 * 1024));
        p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        p.put("controlled.shutdown.enable", "true");
        p.put("auto.create.topics.enable", "true");
        p.putAll(overrides);
        return p;
    }

    private void format(KafkaConfig config) {
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(1)
                    .setClusterId(clusterId)
                    .setControllerListenerName("CONTROLLER")
                    .setMetadataLogDirectory(config.metadataLogDir())
                    .addDirectory(dir.resolve("data").toString())
                    .addDirectory(config.metadataLogDir())
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format " + dir, e);
        }
    }

    /** Polls the cluster description until the broker is registered and serving, or fails after 60 s. */
    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try (Admin admin = admin()) {
                if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("broker did not come up within 60 s", last);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs a node until killed, printing its bootstrap address: the benchmark script's broker. */
    public static void main(String[] args) throws Exception {
        Map<String, String> o = new java.util.HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq > 0) {
                o.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        String topic = o.remove("topic");
        int partitions = Integer.parseInt(o.getOrDefault("partitions", "6"));
        o.remove("partitions");
        EmbeddedKafka k = start(o);
        if (topic != null) {
            k.createTopic(topic, partitions);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(k::close));
        System.out.println("BOOTSTRAP " + k.bootstrap());
        System.out.flush();
        Thread.currentThread().join();
    }
}
