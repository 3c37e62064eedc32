package io.sluice.core.producer;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.pipeline.Producer;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes each message's payload as a line to stdout (or stderr). Only messages go to stdout, so
 * {@code sluice -c conf < in > out} is a clean filter. A newline is added unless the payload already ends
 * with one (as after Gollum's {@code format.Envelope}).
 */
public final class ConsoleProducer extends Producer {
    public static final Param<String> CONSOLE = Param.choice("Console", "stdout", "Where to write.", "stdout",
            "stderr");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.PRODUCER, "producer.Console",
            "Writes messages to stdout or stderr, one per line.")
            .params(CONSOLE)
            .factory(ConsoleProducer::new);

    private final OutputStream out;

    public ConsoleProducer(PluginConfig config) {
        super(config);
        FileDescriptor fd = config.get(CONSOLE).equals("stderr") ? FileDescriptor.err : FileDescriptor.out;
        this.out = new BufferedOutputStream(new FileOutputStream(fd), 64 * 1024);
    }

    /** Writes to the given stream (tests). */
    public ConsoleProducer(PluginConfig config, OutputStream out) {
        super(config);
        this.out = out;
    }

    @Override
    public void deliver(Batch batch) throws IOException {
        for (int i = 0; i < batch.size(); i++) {
            Message m = batch.get(i);
            int len = m.length();
            out.write(m.payload(), 0, len);
            if (len == 0 || m.payload()[len - 1] != '\n') {
                out.write('\n');
            }
        }
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.flush();
    }
}
