package io.sluice.otlp.codec;

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
public final class MetricsEncoder extends ExportEncoder {
    private static final int LEVEL_METRIC = 2;
    // ScopeMetrics and Metric fields.
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
    private final PointJson json = new PointJson(out, values);

    /** An encoder with empty buffers. */
    public MetricsEncoder() {
        super(3);
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

    @Override
    void add(int i, Message m, int signal) {
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

    @Override
    int hash(int level, int e) {
        return level == LEVEL_METRIC ? metricHash(e) : super.hash(level, e);
    }

    @Override
    boolean same(int level, int a, int b) {
        return level == LEVEL_METRIC ? sameMetric(a, b) : super.same(level, a, b);
    }

    /** The first {@code metric_name:<x>} field from {@code from} on, or -1. */
    private static int measurement(Metadata md, int from) {
        for (int f = from; f < md.size(); f++) {
            if (MessageKeys.startsWith(md.arena(), md.keyOffset(f), md.keyLength(f), Keys.METRIC_VALUE_PREFIX)) {
                return f;
            }
        }
        return -1;
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
        return isHec(e) ? m.metadata().keyOffset(groups.field(e)) + Keys.METRIC_VALUE_PREFIX.length : 0;
    }

    private int nameLength(int e) {
        Message m = message(e);
        return isHec(e) ? m.metadata().keyLength(groups.field(e)) - Keys.METRIC_VALUE_PREFIX.length : m.length();
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

    @Override
    void items(int s) {
        for (int g = groups.firstChild(s); g >= 0; g = groups.next(g)) {
            metric(g);
        }
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
            if (type == SUM && mono >= 0
                    && Values.equals(md.arena(), md.valueOffset(mono), md.valueLength(mono), ValueText.TRUE)) {
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
        if (Values.equals(a, off, len, Keys.TYPE_SUM)) {
            return SUM;
        }
        if (Values.equals(a, off, len, Keys.TYPE_HISTOGRAM)) {
            return HISTOGRAM;
        }
        if (Values.equals(a, off, len, Keys.TYPE_EXPONENTIAL_HISTOGRAM)) {
            return EXPONENTIAL_HISTOGRAM;
        }
        return Values.equals(a, off, len, Keys.TYPE_SUMMARY) ? SUMMARY : GAUGE;
    }

    private void point(int type, int e, boolean hec) {
        Message m = message(e);
        Metadata md = m.metadata();
        switch (type) {
            case HISTOGRAM -> {
                common(m, base(e), 9, 8, 10);
                json.histogram(md, md.indexOf(K_HISTOGRAM));
            }
            case EXPONENTIAL_HISTOGRAM -> {
                common(m, base(e), 1, 11, 10);
                json.exponential(md, md.indexOf(K_EXPONENTIAL));
            }
            case SUMMARY -> {
                common(m, base(e), 7, -1, 8);
                json.summary(md, md.indexOf(K_SUMMARY));
            }
            default -> {
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
    }

    /** Attributes, start and time, exemplars and flags: the fields every kind of OTLP point has (numbers differ). */
    private void common(Message m, int base, int attributesField, int exemplarsField, int flagsField) {
        Metadata md = m.metadata();
        scopes.attributes(out, attributesField, md, base, MessageKeys.ATTRIBUTE, 0);
        long startTime = MessageKeys.number(md, md.indexOf(K_START), 0);
        if (startTime != 0) {
            out.fixed64Field(2, startTime);
        }
        if (m.timestamp() != 0) {
            out.fixed64Field(3, m.timestamp());
        }
        Scopes.varint(out, flagsField, md, md.indexOf(K_FLAGS));
        int x = md.indexOf(K_EXEMPLARS);
        if (x >= 0 && exemplarsField > 0) {
            json.exemplars(exemplarsField, md.arena(), md.valueOffset(x), md.valueLength(x));
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
        if (kind == Metadata.NUMBER && Text.isInteger(a, off, len, false)) {
            out.fixed64Field(6, Text.parseLong(a, off, len));
        } else if (kind == Metadata.NUMBER || Text.isNamedDouble(a, off, len)) {
            out.doubleField(4, Text.parseDouble(a, off, len));
        }
    }
}
