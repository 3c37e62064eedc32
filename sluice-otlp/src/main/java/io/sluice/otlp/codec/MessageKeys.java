package io.sluice.otlp.codec;

import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;

/**
 * What each metadata key of a message is under {@link OtlpFields}: a resource attribute, part of the scope, a
 * field of the record or metric, a measurement or a record attribute; and which signal a message carries.
 * Keys are compared as bytes: nothing is allocated per message.
 */
final class MessageKeys {
    /** A record (or data point) attribute: any key the contract does not claim. */
    static final int ATTRIBUTE = 1;
    /** {@code resource.<key>}. */
    static final int RESOURCE_ATTRIBUTE = 1 << 1;
    /** {@code otlp.resource.*}. */
    static final int RESOURCE_OWN = 1 << 2;
    /** {@code scope.attributes.<key>}. */
    static final int SCOPE_ATTRIBUTE = 1 << 3;
    /** {@code scope.name}, {@code scope.version}, {@code otlp.scope.*}. */
    static final int SCOPE_OWN = 1 << 4;
    /** {@code otlp.metric.*}: what makes a metric besides its name. */
    static final int METRIC_OWN = 1 << 5;
    /** {@code metric_name:<name>}: a measurement. */
    static final int MEASUREMENT = 1 << 6;
    /** Any other {@code otlp.*} key: a field of the record or point. */
    static final int OWN = 1 << 7;

    static final int RESOURCE = RESOURCE_ATTRIBUTE | RESOURCE_OWN;
    static final int SCOPE = SCOPE_ATTRIBUTE | SCOPE_OWN;

    /** A message that is not OTLP's: a log record whose every field is an attribute. */
    static final int OTHER_LOG = 0;
    static final int OTLP_LOG = 1;
    static final int OTLP_METRIC = 2;
    /** A HEC metric ({@code metric_name:<x>} fields, no {@code otlp.signal}): one gauge point per measurement. */
    static final int HEC_METRIC = 3;

    private static final byte[] OTLP_PREFIX = Keys.b("otlp.");
    private static final byte[] OTLP_RESOURCE_PREFIX = Keys.b("otlp.resource.");
    private static final byte[] OTLP_SCOPE_PREFIX = Keys.b("otlp.scope.");
    private static final byte[] OTLP_METRIC_PREFIX = Keys.b("otlp.metric.");
    private static final Metadata.Key SIGNAL = new Metadata.Key(OtlpFields.SIGNAL);

    private MessageKeys() {
    }

    /** The signal of a message: {@link #OTLP_LOG}, {@link #OTLP_METRIC}, {@link #HEC_METRIC} or {@link #OTHER_LOG}. */
    static int signal(Message m) {
        if (!m.hasMetadata()) {
            return OTHER_LOG;
        }
        Metadata md = m.metadata();
        int s = md.indexOf(SIGNAL);
        if (s >= 0) {
            int off = md.valueOffset(s);
            int len = md.valueLength(s);
            if (Values.equals(md.arena(), off, len, Keys.METRIC)) {
                return OTLP_METRIC;
            }
            if (Values.equals(md.arena(), off, len, Keys.LOG)) {
                return OTLP_LOG;
            }
            return OTHER_LOG;
        }
        for (int i = 0; i < md.size(); i++) {
            if (startsWith(md.arena(), md.keyOffset(i), md.keyLength(i), Keys.METRIC_VALUE_PREFIX)) {
                return HEC_METRIC;
            }
        }
        return OTHER_LOG;
    }

    /**
     * The category of key {@code a[off, off+len)} in an OTLP message. Called for every field several times per
     * message, so it branches on the first byte (which rules out every prefix for most attribute keys) and then
     * compares one candidate prefix at a time.
     */
    static int category(byte[] a, int off, int len) {
        if (len == 0) {
            return ATTRIBUTE;
        }
        return switch (a[off]) {
            case 'r' -> startsWith(a, off, len, Keys.RESOURCE_PREFIX) ? RESOURCE_ATTRIBUTE : ATTRIBUTE;
            case 's' -> startsWith(a, off, len, Keys.SCOPE_ATTRIBUTE_PREFIX) ? SCOPE_ATTRIBUTE
                    : Values.equals(a, off, len, Keys.SCOPE_NAME) || Values.equals(a, off, len, Keys.SCOPE_VERSION)
                    ? SCOPE_OWN : ATTRIBUTE;
            case 'o' -> startsWith(a, off, len, OTLP_PREFIX) ? otlpCategory(a, off, len) : ATTRIBUTE;
            case 'm' -> startsWith(a, off, len, Keys.METRIC_VALUE_PREFIX) ? MEASUREMENT : ATTRIBUTE;
            default -> ATTRIBUTE;
        };
    }

    /** The category of a key that starts with {@code otlp.}, by what follows. */
    private static int otlpCategory(byte[] a, int off, int len) {
        if (startsWith(a, off, len, OTLP_RESOURCE_PREFIX)) {
            return RESOURCE_OWN;
        }
        if (startsWith(a, off, len, OTLP_SCOPE_PREFIX)) {
            return SCOPE_OWN;
        }
        return startsWith(a, off, len, OTLP_METRIC_PREFIX) ? METRIC_OWN : OWN;
    }

    /** The category of field {@code i}. */
    static int category(Metadata md, int i) {
        return category(md.arena(), md.keyOffset(i), md.keyLength(i));
    }

    /** A plain loop: the prefixes are short, and {@code Arrays.equals}' intrinsic costs more to set up than it saves. */
    static boolean startsWith(byte[] a, int off, int len, byte[] prefix) {
        if (len < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (a[off + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * A hash of the fields of {@code m} in the categories {@code mask}: keys, kinds and values, in order. The fields'
     * categories are {@code cats.at(base + i)}.
     */
    static int hash(Message m, Categories cats, int base, int mask) {
        if (!m.hasMetadata()) {
            return 0;
        }
        Metadata md = m.metadata();
        int h = 0;
        for (int i = 0; i < md.size(); i++) {
            if ((cats.at(base + i) & mask) != 0) {
                h = 31 * h + Metadata.hash(md.arena(), md.keyOffset(i), md.keyLength(i));
                int off = md.valueOffset(i);
                h = 31 * (31 * h + md.kind(i)) + Metadata.hash(md.arena(), off, md.valueLength(i));
            }
        }
        return h;
    }

    /**
     * Whether {@code a} and {@code b} hold the same fields (key, kind, value, in order) in the categories
     * {@code mask}; their categories start at {@code baseA} and {@code baseB} in {@code cats}.
     */
    static boolean same(Message a, int baseA, Message b, int baseB, Categories cats, int mask) {
        Metadata x = a.hasMetadata() ? a.metadata() : null;
        Metadata y = b.hasMetadata() ? b.metadata() : null;
        int i = next(x, cats, baseA, 0, mask);
        int j = next(y, cats, baseB, 0, mask);
        while (i >= 0 && j >= 0) {
            if (!sameField(x, i, y, j)) {
                return false;
            }
            i = next(x, cats, baseA, i + 1, mask);
            j = next(y, cats, baseB, j + 1, mask);
        }
        return i < 0 && j < 0;
    }

    static int next(Metadata md, Categories cats, int base, int from, int mask) {
        if (md == null) {
            return -1;
        }
        for (int i = from; i < md.size(); i++) {
            if ((cats.at(base + i) & mask) != 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean sameField(Metadata x, int i, Metadata y, int j) {
        if (x.kind(i) != y.kind(j) || x.keyLength(i) != y.keyLength(j)) {
            return false;
        }
        int xo = x.valueOffset(i);
        int yo = y.valueOffset(j);
        return java.util.Arrays.equals(x.arena(), x.keyOffset(i), x.keyOffset(i) + x.keyLength(i),
                y.arena(), y.keyOffset(j), y.keyOffset(j) + y.keyLength(j))
                && java.util.Arrays.equals(x.arena(), xo, xo + x.valueLength(i), y.arena(), yo, yo + y.valueLength(j));
    }

    /** Index of the field {@code key} in {@code m}, or -1. */
    static int find(Message m, Metadata.Key key) {
        return m.hasMetadata() ? m.metadata().indexOf(key) : -1;
    }

    /** The integer value of field {@code i} (a NUMBER, or a string of digits), or {@code dflt} when it is not one. */
    static long number(Metadata md, int i, long dflt) {
        if (i < 0) {
            return dflt;
        }
        int off = md.valueOffset(i);
        int len = md.valueLength(i);
        if (Text.isInteger(md.arena(), off, len, true) || Text.isInteger(md.arena(), off, len, false)) {
            return Text.parseLong(md.arena(), off, len);
        }
        return dflt;
    }
}
