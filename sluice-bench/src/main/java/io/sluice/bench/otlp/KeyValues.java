package io.sluice.bench.otlp;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;

/** The OTLP values and attributes the benchmarks' requests are built of. */
public final class KeyValues {
    private KeyValues() {
    }

    public static AnyValue str(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    public static KeyValue string(String key, String value) {
        return kv(key, str(value));
    }

    public static KeyValue integer(String key, long value) {
        return kv(key, AnyValue.newBuilder().setIntValue(value).build());
    }

    public static KeyValue dbl(String key, double value) {
        return kv(key, AnyValue.newBuilder().setDoubleValue(value).build());
    }

    public static KeyValue bool(String key, boolean value) {
        return kv(key, AnyValue.newBuilder().setBoolValue(value).build());
    }

    private static KeyValue kv(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }
}
