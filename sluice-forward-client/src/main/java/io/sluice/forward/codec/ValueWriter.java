package io.sluice.forward.codec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Java values written as msgpack through a {@link MsgPackWriter}'s primitives: records (string-keyed maps, keys
 * through a {@link KeyCache}), maps, collections and arrays, numbers in their shortest form, byte arrays as bin,
 * times as EventTime. One per writer, reused: writing a record allocates nothing.
 */
final class ValueWriter {
    private final MsgPackWriter out;
    private final RecordEntryWriter entryWriter = new RecordEntryWriter();

    ValueWriter(MsgPackWriter out) {
        this.out = out;
    }

    /** Writes a record: a map with string keys encoded through the cache. */
    void writeRecord(Map<String, ?> record, KeyCache keys) {
        out.writeMapHeader(record.size());
        // forEach with a reused consumer: HashMap and LinkedHashMap walk their tables without the entry-set
        // iterator that a for-each loop allocates per record (the one allocation left on the send path).
        RecordEntryWriter w = entryWriter;
        KeyCache previous = w.keys;
        w.keys = keys;
        try {
            record.forEach(w);
        } finally {
            w.keys = previous;
        }
    }

    /** Writes one record entry; reused, so writing a record allocates nothing. */
    private final class RecordEntryWriter implements BiConsumer<String, Object> {
        private KeyCache keys;

        @Override
        public void accept(String key, Object value) {
            out.writeString(key, keys);
            writeValue(value, keys);
        }
    }

    /** Writes any supported Java value (see {@link MsgPackWriter#writeValue}). */
    void writeValue(Object v, KeyCache keys) {
        if (v == null) {
            out.writeNil();
        } else if (v instanceof String s) {
            out.writeString(s);
        } else if (v instanceof Number n) {
            writeNumber(n);
        } else if (v instanceof Boolean b) {
            out.writeBoolean(b);
        } else if (v instanceof Map<?, ?> m) {
            writeMap(m, keys);
        } else if (v instanceof Collection<?> c) {
            writeCollection(c, keys);
        } else {
            writeOther(v, keys);
        }
    }

    private void writeOther(Object v, KeyCache keys) {
        if (v instanceof byte[] b) {
            out.writeBin(b, 0, b.length);
        } else if (v instanceof Object[] a) {
            out.writeArrayHeader(a.length);
            for (Object o : a) {
                writeValue(o, keys);
            }
        } else if (v instanceof EventTime t) {
            out.writeEventTime(t.seconds(), t.nanos());
        } else if (v instanceof Instant t) {
            out.writeEventTime(t.getEpochSecond(), t.getNano());
        } else if (v instanceof ExtValue x) {
            out.writeExtHeader(x.type(), x.data().length);
            out.writeRaw(x.data());
        } else {
            out.writeString(v.toString());
        }
    }

    private void writeNumber(Number n) {
        if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
            out.writeLong(n.longValue());
        } else if (n instanceof Double d) {
            out.writeDouble(d);
        } else if (n instanceof Float f) {
            out.writeFloat(f);
        } else if (n instanceof BigInteger b && b.bitLength() <= 64) {
            writeBigInteger(b);
        } else if (n instanceof BigDecimal || n instanceof BigInteger) {
            out.writeDouble(n.doubleValue());
        } else {
            out.writeLong(n.longValue()); // AtomicLong, LongAdder and other integral counters
        }
    }

    private void writeBigInteger(BigInteger b) {
        if (b.bitLength() < 64) {
            out.writeLong(b.longValue());
        } else if (b.signum() > 0) {
            out.writeUint64(b.longValue());
        } else {
            out.writeDouble(b.doubleValue());
        }
    }

    private void writeMap(Map<?, ?> m, KeyCache keys) {
        out.writeMapHeader(m.size());
        for (Map.Entry<?, ?> e : m.entrySet()) {
            Object k = e.getKey();
            if (k instanceof String s) {
                out.writeString(s, keys);
            } else {
                writeValue(k, keys);
            }
            writeValue(e.getValue(), keys);
        }
    }

    private void writeCollection(Collection<?> c, KeyCache keys) {
        out.writeArrayHeader(c.size());
        for (Object o : c) {
            writeValue(o, keys);
        }
    }
}
