package io.sluice.otlp.codec;

import io.sluice.core.message.Batch;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.Message;

/** A sink collecting decoded messages into one large batch, for tests. */
final class Decoded implements RecordSink {
    final Batch batch = new BatchPool(100_000).acquire();

    @Override
    public Message next() {
        return batch.add();
    }

    int size() {
        return batch.size();
    }

    Message get(int i) {
        return batch.get(i);
    }
}
