package io.sluice.otlp.codec;

import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;

/**
 * Rebuilds an OTLP {@code ExportMetricsServiceRequest} from metric messages, the inverse of consumer.OTLP's mapping
 * ({@link OtlpFields}): points with equal resource, scope and metric (name, type, unit, description, temporality,
 * monotonicity, metadata) share one {@code Metric}, wherever they are in the batch, in the order they first appear.
 *
 * <p>A HEC metric message ({@code metric_name:<x>} fields without {@code otlp.signal}) becomes one gauge point per
 * measurement, of the empty resource and scope, with every other field an attribute.
 *
 * <p>One encoder per thread; it reuses its buffers, so encoding allocates nothing per message once they have grown.
 */
public final class MetricsEncoder {
    private static final int LEVEL_METRIC = 2;
    // ExportMetricsServiceRequest, ResourceMetrics, ScopeMetrics and Metric fields.
    private static final int RESOURCE_METRICS = 1;
    private static final int SCOPE_METRICS = 2;
    private static final int SCHEMA_URL = 3;
    private static final int METRICS = 2;
    private static final int GAUGE = 5;
    private static final int SUM = 7;
    private static final int HISTOGRAM = 9;
    private static final int EXPONENTIAL_HISTOGRAM = 10;
    private static final int SUMMARY = 11;
    private static final int METADATA = 12;

    private static final Metadata.Key K_TYPE = new Metadata.Key(OtlpFields.METRIC_TYPE);
    private static final Metadata.Key K_DESCRIPTION = new Metadata.Key(OtlpFields.METRIC_DESCRIPTION);
    private static final Metadata.Key K_UNIT = new Metadata.Key(OtlpFields.METRIC_UNIT);
    private static final Metadata.Key K_METADATA = new Metadata.Key(OtlpFields.METRIC_METADATA);
    private static final Metadata.Key K_TEMPORALITY = new Metadata.Key(OtlpFields.METRIC_TEMPORALITY);
    private static final Metadata.Key K_MONOTONIC = new Metadata.Key(OtlpFields.METRIC_MONOTONIC);
    private static final Metadata.Key K_START = new Metadata.Key(OtlpFields.START_TIME);
    private static final Metadata.Key K_FLAGS = new Metadata.Key(OtlpFields.FLAGS);
    private static final Metadata.Key K_EXEMPLARS = new Metadata.Key(OtlpFields.EXEMPLARS);
    private static final Metadata.Key K_HISTOGRAM = new Metadata.Key(OtlpFields.HISTOGRAM);
    private static final Metadata.Key K_EXPONENTIAL = new Metadata.Key(OtlpFields.EXPONENTIAL_HISTOGRAM);
    private static final Metadata.Key K_SUMMARY = new Metadata.Key(OtlpFields.SUMMARY);
    private static final byte[] T_SUM = MessageKeys.bytes(OtlpFields.TYPE_SUM);
    private static final byte[] T_HISTOGRAM = MessageKeys.bytes(OtlpFields.TYPE_HISTOGRAM);
    private static final byte[] T_EXPONENTIAL = MessageKeys.bytes(OtlpFields.TYPE_EXPONENTIAL_HISTOGRAM);
    private static final byte[] T_SUMMARY = MessageKeys.bytes(OtlpFields.TYPE_SUMMARY);
    private static final byte[] TRUE = MessageKeys.bytes("true");
    // Member names of the JSON the contract keeps histograms, summaries and exemplars in (OTLP JSON's).
    private static final byte[] J_COUNT = MessageKeys.bytes("count");
    private static final byte[] J_SUM = MessageKeys.bytes("sum");
    private static final byte[] J_MIN = MessageKeys.bytes("min");
    private static final byte[] J_MAX = MessageKeys.bytes("max");
    private static final byte[] J_BUCKET_COUNTS = MessageKeys.bytes("bucketCounts");
    private static final byte[] J_EXPLICIT_BOUNDS = MessageKeys.bytes("explicitBounds");
    private static final byte[] J_SCALE = MessageKeys.bytes("scale");
    private static final byte[] J_ZERO_COUNT = MessageKeys.bytes("zeroCount");
    private static final byte[] J_ZERO_THRESHOLD = MessageKeys.bytes("zeroThreshold");
    private static final byte[] J_POSITIVE = MessageKeys.bytes("positive");
    private static final byte[] J_NEGATIVE = MessageKeys.bytes("negative");
    private static final byte[] J_OFFSET = MessageKeys.bytes("offset");
    private static final byte[] J_QUANTILE_VALUES = MessageKeys.bytes("quantileValues");
    private static final byte[] J_QUANTILE = MessageKeys.bytes("quantile");
    private static final byte[] J_VALUE = MessageKeys.bytes("value");
    private static final byte[] J_TIME = MessageKeys.bytes("timeUnixNano");
    private static final byte[] J_AS_DOUBLE = MessageKeys.bytes("asDouble");
    private static final byte[] J_AS_INT = MessageKeys.bytes("asInt");
    private static final byte[] J_SPAN_ID = MessageKeys.bytes("spanId");
    private static final byte[] J_TRACE_ID = MessageKeys.bytes("traceId");
    private static final byte[] J_FILTERED = MessageKeys.bytes("filteredAttributes");

    private final ProtoWriter out = new ProtoWriter(64 * 1024);
    private final Values values = new Values();
    private final Categories cats = new Categories();
    private final Scopes scopes = new Scopes(values, cats);
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields point = new JsonFields();
    private final JsonFields array = new JsonFields();
    private final JsonFields inner = new JsonFields();
    private final JsonFields innerArray = new JsonFields();
    private final JsonFields exemplars = new JsonFields();
    private final JsonFields exemplar = new JsonFields();
    private final Groups groups;
    private Batch batch;
    private int start;
    private int[] signals = new int[64];

    /** An encoder with empty buffers. */
    public MetricsEncoder() {
        groups = new Groups(3, new Groups.Identity() {
            @Override
            public int hash(int level, int e) {
                return level == LEVEL_METRIC ? metricHash(e) : scopes.hash(level, message(e), signal(e), base(e));
            }

            @Override
            public boolean same(int level, int a, int b) {
                return level == LEVEL_METRIC ? sameMetric(a, b)
                        : scopes.same(level, message(a), signal(a), base(a), message(b), signal(b), base(b));
            }
        });
    }

    /**
     * Whether the message is a metric point: {@code otlp.signal: metric}, or no {@code otlp.signal} and at least
     * one {@code metric_name:<x>} field (a HEC metric).
     */
    public static boolean isMetric(Message m) {
        int s = MessageKeys.signal(m);
        return s == MessageKeys.OTLP_METRIC || s == MessageKeys.HEC_METRIC;
    }

    /**
     * How many data points a message makes: one for an OTLP point, one per measurement for a HEC metric (each
     * repeating the message's other fields as its attributes), none for a log record.
     */
    public static int points(Message m) {
        int s = MessageKeys.signal(m);
        if (s == MessageKeys.OTLP_METRIC) {
            return 1;
        }
        if (s != MessageKeys.HEC_METRIC) {
            return 0;
        }
        int n = 0;
        Metadata md = m.metadata();
        for (int f = measurement(md, 0); f >= 0; f = measurement(md, f + 1)) {
            n++;
        }
        return n;
    }

    /**
     * Encodes the metric messages among {@code batch[from, to)} as one request, written from offset {@code start}
     * of {@link #buffer()}. Returns the number of data points, 0 when there is none.
     */
    public int encode(Batch batch, int from, int to, int start) {
        this.batch = batch;
        this.start = start;
        groups.clear();
        cats.reset(to);
        if (signals.length < to) {
            signals = new int[Math.max(to, signals.length * 2)];
        }
        for (int i = from; i < to; i++) {
            addPoints(i, batch.get(i));
        }
        out.reset(start);
        for (int r = groups.firstRoot(); r >= 0; r = groups.next(r)) {
            resourceMetrics(r);
        }
        this.batch = null;
        return groups.entries();
    }

    /** The buffer holding the request at {@code [start, start + length())}. */
    public byte[] buffer() {
        return out.buffer();
    }

    /** The request's length in bytes. */
    public int length() {
        return out.size() - start;
    }

    private void addPoints(int i, Message m) {
        int signal = MessageKeys.signal(m);
        signals[i] = signal;
        if (signal == MessageKeys.OTLP_METRIC || signal == MessageKeys.HEC_METRIC) {
            cats.add(i, m);
        }
        if (signal == MessageKeys.OTLP_METRIC) {
            groups.add(i, measurement(m.metadata(), 0));
        } else if (signal == MessageKeys.HEC_METRIC) {
            Metadata md = m.metadata();
            for (int f = measurement(md, 0); f >= 0; f = measurement(md, f + 1)) {
                groups.add(i, f);
            }
        }
    }

    /** The first {@code metric_name:<x>} field from {@code from} on, or -1. */
    private static int measurement(Metadata md, int from) {
        for (int f = from; f < md.size(); f++) {
            if (MessageKeys.startsWith(md.arena(), md.keyOffset(f), md.keyLength(f), MessageKeys.MEASUREMENT_PREFIX)) {
                return f;
            }
        }
        return -1;
    }

    private Message message(int e) {
        return batch.get(groups.message(e));
    }

    /** The signal of entry {@code e}'s message, found once per message per batch. */
    private int signal(int e) {
        return signals[groups.message(e)];
    }

    /** Where the field categories of entry {@code e}'s message start in {@link #cats}. */
    private int base(int e) {
        return cats.base(groups.message(e));
    }

    private boolean isHec(int e) {
        return signal(e) == MessageKeys.HEC_METRIC;
    }

    // The metric's name: an OTLP point's payload, a HEC measurement's key after "metric_name:".
    private byte[] nameArray(int e) {
        Message m = message(e);
        return isHec(e) ? m.metadata().arena() : m.payload();
    }

    private int nameOffset(int e) {
        Message m = message(e);
        return isHec(e) ? m.metadata().keyOffset(groups.field(e)) + MessageKeys.MEASUREMENT_PREFIX.length : 0;
    }

    private int nameLength(int e) {
        Message m = message(e);
        return isHec(e) ? m.metadata().keyLength(groups.field(e)) - MessageKeys.MEASUREMENT_PREFIX.length : m.length();
    }

    private int metricHash(int e) {
        int h = Metadata.hash(nameArray(e), nameOffset(e), nameLength(e));
        return 31 * h + (isHec(e) ? 1 : MessageKeys.hash(message(e), cats, base(e), MessageKeys.METRIC_OWN));
    }

    private boolean sameMetric(int a, int b) {
        boolean hec = isHec(a);
        if (hec != isHec(b) || nameLength(a) != nameLength(b)) {
            return false;
        }
        int ao = nameOffset(a);
        int bo = nameOffset(b);
        return java.util.Arrays.equals(nameArray(a), ao, ao + nameLength(a), nameArray(b), bo, bo + nameLength(b))
                && (hec || MessageKeys.same(message(a), base(a), message(b), base(b), cats, MessageKeys.METRIC_OWN));
    }

    private void resourceMetrics(int r) {
        int rep = groups.representative(r);
        out.begin(RESOURCE_METRICS);
        scopes.resource(out, 1, message(rep), signal(rep), base(rep));
        for (int s = groups.firstChild(r); s >= 0; s = groups.next(s)) {
            int scope = groups.representative(s);
            out.begin(SCOPE_METRICS);
            scopes.scope(out, 1, message(scope), signal(scope), base(scope));
            for (int g = groups.firstChild(s); g >= 0; g = groups.next(g)) {
                metric(g);
            }
            scopes.schemaUrl(out, SCHEMA_URL, message(scope), signal(scope), MessageKeys.SCOPE);
            out.end();
        }
        scopes.schemaUrl(out, SCHEMA_URL, message(rep), signal(rep), MessageKeys.RESOURCE);
        out.end();
    }

    private void metric(int g) {
        int repEntry = groups.representative(g);
        Message rep = message(repEntry);
        boolean hec = isHec(repEntry);
        out.begin(METRICS);
        out.stringField(1, nameArray(repEntry), nameOffset(repEntry), nameLength(repEntry));
        int type = GAUGE;
        if (!hec) {
            Metadata md = rep.metadata();
            Scopes.string(out, 2, md, md.indexOf(K_DESCRIPTION));
            Scopes.string(out, 3, md, md.indexOf(K_UNIT));
            type = type(md);
        }
        out.begin(type);
        for (int e = groups.firstChild(g); e >= 0; e = groups.nextEntry(e)) {
            out.begin(1);
            point(type, e, hec);
            out.end();
        }
        if (!hec) {
            Metadata md = rep.metadata();
            long temporality = MessageKeys.number(md, md.indexOf(K_TEMPORALITY), 0);
            if (temporality != 0 && type != GAUGE && type != SUMMARY) {
                out.varintField(2, temporality);
            }
            int mono = md.indexOf(K_MONOTONIC);
            if (type == SUM && mono >= 0 && Values.equals(md.arena(), md.valueOffset(mono), md.valueLength(mono), TRUE)) {
                out.boolField(3, true);
            }
        }
        out.end();
        if (!hec) {
            Metadata md = rep.metadata();
            int meta = md.indexOf(K_METADATA);
            if (meta >= 0) {
                values.objectMembers(out, METADATA, md.arena(), md.valueOffset(meta), md.valueLength(meta));
            }
        }
        out.end();
    }

    /** The field of the Metric's data oneof for {@code otlp.metric.type}; gauge when unset or unknown. */
    private static int type(Metadata md) {
        int t = md.indexOf(K_TYPE);
        if (t < 0) {
            return GAUGE;
        }
        byte[] a = md.arena();
        int off = md.valueOffset(t);
        int len = md.valueLength(t);
        if (Values.equals(a, off, len, T_SUM)) {
            return SUM;
        }
        if (Values.equals(a, off, len, T_HISTOGRAM)) {
            return HISTOGRAM;
        }
        if (Values.equals(a, off, len, T_EXPONENTIAL)) {
            return EXPONENTIAL_HISTOGRAM;
        }
        return Values.equals(a, off, len, T_SUMMARY) ? SUMMARY : GAUGE;
    }

    private void point(int type, int e, boolean hec) {
        Message m = message(e);
        Metadata md = m.metadata();
        switch (type) {
            case HISTOGRAM:
                common(m, base(e), 9, 8, 10);
                histogram(md, md.indexOf(K_HISTOGRAM));
                break;
            case EXPONENTIAL_HISTOGRAM:
                common(m, base(e), 1, 11, 10);
                exponential(md, md.indexOf(K_EXPONENTIAL));
                break;
            case SUMMARY:
                common(m, base(e), 7, -1, 8);
                summary(md, md.indexOf(K_SUMMARY));
                break;
            default:
                if (hec) {
                    hecAttributes(md, base(e));
                    if (m.timestamp() != 0) {
                        out.fixed64Field(3, m.timestamp());
                    }
                } else {
                    common(m, base(e), 7, 5, 8);
                }
                numberValue(md, groups.field(e));
        }
    }

    /** Attributes, start and time, exemplars and flags: the fields every kind of OTLP point has (numbers differ). */
    private void common(Message m, int base, int attributesField, int exemplarsField, int flagsField) {
        Metadata md = m.metadata();
        for (int i = 0; i < md.size(); i++) {
            if (cats.at(base + i) == MessageKeys.ATTRIBUTE) {
                values.keyValue(out, attributesField, md.arena(), md.keyOffset(i), md.keyLength(i), md, i);
            }
        }
        long startTime = MessageKeys.number(md, md.indexOf(K_START), 0);
        if (startTime != 0) {
            out.fixed64Field(2, startTime);
        }
        if (m.timestamp() != 0) {
            out.fixed64Field(3, m.timestamp());
        }
        long flags = MessageKeys.number(md, md.indexOf(K_FLAGS), 0);
        if (flags != 0) {
            out.varintField(flagsField, flags);
        }
        int x = md.indexOf(K_EXEMPLARS);
        if (x >= 0 && exemplarsField > 0) {
            exemplars(exemplarsField, md.arena(), md.valueOffset(x), md.valueLength(x));
        }
    }

    private void hecAttributes(Metadata md, int base) {
        for (int i = 0; i < md.size(); i++) {
            if (cats.at(base + i) != MessageKeys.MEASUREMENT) {
                values.keyValue(out, 7, md.arena(), md.keyOffset(i), md.keyLength(i), md, i);
            }
        }
    }

    /** A number point's value: as_double for a fraction, exponent or NaN/Infinity, else as_int. */
    private void numberValue(Metadata md, int f) {
        if (f < 0) {
            return; // a point without a value (flags say no recorded value)
        }
        byte[] a = md.arena();
        int off = md.valueOffset(f);
        int len = md.valueLength(f);
        byte kind = md.kind(f);
        if (kind == Metadata.NUMBER && !Text.isFraction(a, off, len) && Text.isInteger(a, off, len, false)) {
            out.fixed64Field(6, Text.parseLong(a, off, len));
        } else if (kind == Metadata.NUMBER || Text.isNamedDouble(a, off, len)) {
            out.doubleField(4, Text.parseDouble(a, off, len));
        }
    }

    private boolean scan(Metadata md, int i, JsonFields into) {
        return i >= 0 && scanner.scanObject(md.arena(), md.valueOffset(i), md.valueOffset(i) + md.valueLength(i), into);
    }

    private void histogram(Metadata md, int i) {
        if (!scan(md, i, point)) {
            return;
        }
        byte[] a = md.arena();
        fixed64(a, point, J_COUNT, 4);
        optionalDouble(a, point, J_SUM, 5);
        packedFixed64(a, point, J_BUCKET_COUNTS, 6);
        packedDouble(a, point, J_EXPLICIT_BOUNDS, 7);
        optionalDouble(a, point, J_MIN, 11);
        optionalDouble(a, point, J_MAX, 12);
    }

    private void exponential(Metadata md, int i) {
        if (!scan(md, i, point)) {
            return;
        }
        byte[] a = md.arena();
        fixed64(a, point, J_COUNT, 4);
        optionalDouble(a, point, J_SUM, 5);
        int scale = point.lastIndexOf(a, J_SCALE, 0, J_SCALE.length);
        if (scale >= 0) {
            out.sint32Field(6, (int) Text.parseLong(a, point.valueOffset(scale), point.valueLength(scale)));
        }
        fixed64(a, point, J_ZERO_COUNT, 7);
        buckets(a, point.lastIndexOf(a, J_POSITIVE, 0, J_POSITIVE.length), 8);
        buckets(a, point.lastIndexOf(a, J_NEGATIVE, 0, J_NEGATIVE.length), 9);
        optionalDouble(a, point, J_MIN, 12);
        optionalDouble(a, point, J_MAX, 13);
        optionalDouble(a, point, J_ZERO_THRESHOLD, 14);
    }

    /** Buckets {offset (sint32), bucket_counts (packed uint64)} from the JSON object of member {@code k}. */
    private void buckets(byte[] a, int k, int field) {
        if (k < 0 || point.kind(k) != JsonFields.OBJECT) {
            return;
        }
        int off = point.valueOffset(k);
        if (!scanner.scanObject(a, off, off + point.valueLength(k), inner)) {
            return;
        }
        out.begin(field);
        int o = inner.lastIndexOf(a, J_OFFSET, 0, J_OFFSET.length);
        if (o >= 0) {
            out.sint32Field(1, (int) Text.parseLong(a, inner.valueOffset(o), inner.valueLength(o)));
        }
        int c = inner.lastIndexOf(a, J_BUCKET_COUNTS, 0, J_BUCKET_COUNTS.length);
        if (c >= 0 && scanArray(a, inner, c, innerArray) && innerArray.size() > 0) {
            out.begin(2);
            for (int j = 0; j < innerArray.size(); j++) {
                out.varint64(Text.parseLong(a, innerArray.valueOffset(j), innerArray.valueLength(j)));
            }
            out.end();
        }
        out.end();
    }

    private void summary(Metadata md, int i) {
        if (!scan(md, i, point)) {
            return;
        }
        byte[] a = md.arena();
        fixed64(a, point, J_COUNT, 4);
        optionalDouble(a, point, J_SUM, 5);
        int q = point.lastIndexOf(a, J_QUANTILE_VALUES, 0, J_QUANTILE_VALUES.length);
        if (q < 0 || !scanArray(a, point, q, array)) {
            return;
        }
        for (int j = 0; j < array.size(); j++) {
            int off = array.valueOffset(j);
            if (array.kind(j) != JsonFields.OBJECT || !scanner.scanObject(a, off, off + array.valueLength(j), inner)) {
                continue;
            }
            out.begin(6);
            optionalDouble(a, inner, J_QUANTILE, 1);
            optionalDouble(a, inner, J_VALUE, 2);
            out.end();
        }
    }

    private void exemplars(int field, byte[] a, int off, int len) {
        if (!scanner.scanArray(a, off, off + len, exemplars)) {
            return;
        }
        for (int j = 0; j < exemplars.size(); j++) {
            int xo = exemplars.valueOffset(j);
            if (exemplars.kind(j) != JsonFields.OBJECT
                    || !scanner.scanObject(a, xo, xo + exemplars.valueLength(j), exemplar)) {
                continue;
            }
            out.begin(field);
            int f = exemplar.lastIndexOf(a, J_FILTERED, 0, J_FILTERED.length);
            if (f >= 0 && exemplar.kind(f) == JsonFields.OBJECT) {
                values.objectMembers(out, 7, a, exemplar.valueOffset(f), exemplar.valueLength(f));
            }
            fixed64(a, exemplar, J_TIME, 2);
            optionalDouble(a, exemplar, J_AS_DOUBLE, 3);
            int asInt = exemplar.lastIndexOf(a, J_AS_INT, 0, J_AS_INT.length);
            if (asInt >= 0) {
                out.fixed64Field(6, Text.parseLong(a, exemplar.valueOffset(asInt), exemplar.valueLength(asInt)));
            }
            hex(a, exemplar, J_SPAN_ID, 4);
            hex(a, exemplar, J_TRACE_ID, 5);
            out.end();
        }
    }

    private boolean scanArray(byte[] a, JsonFields f, int k, JsonFields into) {
        int off = f.valueOffset(k);
        return f.kind(k) == JsonFields.ARRAY && scanner.scanArray(a, off, off + f.valueLength(k), into);
    }

    /** A fixed64 field from member {@code key} (a number or a string of digits), when present. */
    private void fixed64(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0) {
            out.fixed64Field(field, Text.parseLong(a, f.valueOffset(k), f.valueLength(k)));
        }
    }

    /** A double field from member {@code key}, when present (presence matters: sum, min and max are optional). */
    private void optionalDouble(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0 && f.kind(k) != JsonFields.NULL) {
            out.doubleField(field, Text.parseDouble(a, f.valueOffset(k), f.valueLength(k)));
        }
    }

    private void packedFixed64(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0 && scanArray(a, f, k, array) && array.size() > 0) {
            out.tag(field, ProtoWriter.LEN);
            out.varint32(array.size() * 8);
            for (int j = 0; j < array.size(); j++) {
                out.fixed64(Text.parseLong(a, array.valueOffset(j), array.valueLength(j)));
            }
        }
    }

    private void packedDouble(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0 && scanArray(a, f, k, array) && array.size() > 0) {
            out.tag(field, ProtoWriter.LEN);
            out.varint32(array.size() * 8);
            for (int j = 0; j < array.size(); j++) {
                out.fixed64(Double.doubleToRawLongBits(Text.parseDouble(a, array.valueOffset(j), array.valueLength(j))));
            }
        }
    }

    private void hex(byte[] a, JsonFields f, byte[] key, int field) {
        int k = f.lastIndexOf(a, key, 0, key.length);
        if (k >= 0) {
            int n = values.hex(a, f.valueOffset(k), f.valueLength(k));
            if (n > 0) {
                out.bytesField(field, values.scratch(), 0, n);
            }
        }
    }
}
