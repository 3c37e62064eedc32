package io.sluice.otlp.codec;

import io.sluice.core.message.Message;

/**
 * Where a decoder puts what it decodes: it asks for one message per log record or data point and fills it.
 * The caller decides where messages live (a batch, a new batch when one is full) and how many it admits.
 */
public interface RecordSink {
    /** The next message to fill: empty (as {@code Batch.add()} hands it out), owned by the caller. */
    Message next();
}
