package io.sluice.bench.forward;

import org.fluentd.logger.FluentLogger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Seed 003's {@code SingleMessage}: build and send one Message-mode event of 12 key/value pairs, no ack. One op is
 * one event. {@code sluiceClient} vs {@code fluentLogger} are synchronous sends (the event is in the socket when the
 * call returns); {@code sluiceEmitter} vs {@code fluency} are asynchronous emits, timed per burst until the server
 * has counted the whole burst.
 */
public class ForwardSingleMessage extends ForwardSends.WithClient {

    @State(Scope.Benchmark)
    public static class Logger {
        FluentLogger logger;

        @Setup(Level.Trial)
        public void setup(ServerProcess server) {
            logger = Senders.fluentLogger(server.port);
        }

        @TearDown(Level.Trial)
        public void close() {
            logger.close();
        }
    }

    @Benchmark
    public boolean fluentLogger(Logger s) {
        return s.logger.log(Records.TAG, Records.RECORD, System.currentTimeMillis() / 1000);
    }
}
