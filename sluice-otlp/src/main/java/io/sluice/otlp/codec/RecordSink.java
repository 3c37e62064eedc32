package io.sluice.otlp.codec;

import io.sluice.core.message.Message;

/** TEMPORARY stand-in for the otlp-decode branch's RecordSink (replaced on merge): where decoded records go. */
public interface RecordSink {
    /** A cleared message to fill with the next record or point. */
    Message next();
}
