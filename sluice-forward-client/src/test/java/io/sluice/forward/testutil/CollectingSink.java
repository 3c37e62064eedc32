package io.sluice.forward.testutil;

import io.sluice.forward.codec.EventSink;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.RecordView;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Keeps every decoded event and option set, for assertions. */
public final class CollectingSink implements EventSink {
    /** One decoded event. */
    public record Event(String tag, long seconds, int nanos, Map<String, Object> record,
                        Map<String, Object> metadata, byte[] raw, String chunk) {
    }

    /** One frame's options. */
    public record Options(String chunk, long size, String compressed) {
    }

    public final List<Event> events = new ArrayList<>();
    public final List<Options> options = new ArrayList<>();
    private String chunk;

    @Override
    public void onOptions(String chunk, long size, String compressed) {
        this.chunk = chunk;
        options.add(new Options(chunk, size, compressed));
    }

    @Override
    public void onEvent(String tag, long epochSeconds, int nanos, RecordView record) {
        try {
            events.add(new Event(tag, epochSeconds, nanos, record.toMap(),
                    record.hasMetadata() ? record.metadata() : null, record.toBytes(), chunk));
        } catch (ForwardProtocolException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the records only */
    public List<Map<String, Object>> records() {
        return events.stream().map(Event::record).toList();
    }
}
