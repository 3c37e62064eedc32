package io.sluice.hec.codec;

import io.sluice.core.json.Decimal;
import io.sluice.core.message.Metadata;
import io.sluice.core.message.OtlpFields;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The HEC events of an OTLP log record or metric data point (a message marked by {@code otlp.signal}, laid out
 * as {@link OtlpFields} says), mapped as the OpenTelemetry Collector's splunkhec exporter maps them
 * ({@code logdata_to_splunk.go}, {@code metricdata_to_splunk.go}). What it keeps from the exporter:
 * <ul>
 *   <li>host, source, sourcetype and index from the resource attributes and then (logs only) the record's
 *       attributes named by {@code otel_attrs_to_hec_metadata} ({@code host.name}, {@code com.splunk.*}), else the
 *       producer's Source/Sourcetype/Index; host falls back to the producer's Host and then, as in the exporter,
 *       to {@code unknown}. Those attributes and {@code com.splunk.hec.access_token} are not sent as fields
 *       (a metric point's own attributes are all sent, as the exporter does);</li>
 *   <li>a log's {@code time} is its time (else its observed time) rounded to the millisecond; {@code event} its
 *       body; {@code fields} span_id, trace_id, the severity under the configured keys, then resource and record
 *       attributes, maps flattened with dots, flat arrays kept and other arrays as their JSON text. A record
 *       without a body is skipped, silently as the exporter skips it (Splunk rejects empty events);</li>
 *   <li>a metric point's dimensions are its resource and point attributes as strings, with {@code metric_type}
 *       ({@code Gauge}, {@code Sum}, {@code Histogram}, {@code Summary}); a histogram becomes {@code _sum} (when
 *       set and not NaN), {@code _count} and cumulative {@code _bucket} events with {@code le} (the last
 *       {@code +Inf}); a summary {@code _sum}, {@code _count} and {@code _<quantile>} events with {@code qt};
 *       NaN and infinite values as {@code "NaN"}, {@code "+Inf"}, {@code "-Inf"}. Exponential histograms are
 *       skipped, as the exporter skips them ("unsupported type");</li>
 *   <li>{@code fields} keys in Go's map order (sorted), numbers as Go prints them, so that an event reads byte
 *       for byte as the exporter's, but for the newline after each event and Go's escaping of {@code <>&}.</li>
 * </ul>
 * Keys of scope attributes and the other {@code otlp.*} fields are not sent: the exporter ignores them too.
 * Everything is written through reused buffers; nothing is allocated per event once they have grown. The records
 * of a resource and scope carry the same keys in the same order: what depends only on the keys (which field is
 * what, a log record's sorted fields with their keys encoded) is kept from the last message and reused while a
 * word-wise check finds the same keys ({@link OtlpKeys#classify}, the log fields plan of {@link OtlpLogEvents}).
 *
 * <p>The mapping is in parts: {@link OtlpLogEvents} and {@link OtlpMetricEvents} map a record or a point, sharing
 * {@link OtlpKeys} (what each field is), {@link OtlpHeader} (time, host, source, sourcetype, index) and
 * {@link OtlpEntries} (the {@code fields} entries, attributes as the exporter writes them). This class holds what
 * they all use: which signal a message is, word-wise key compares, and Go's conversions of times and counts.
 */
final class OtlpEvents {
    /** {@link #signal}: not an OTLP message. */
    static final int NONE = 0;
    /** {@link #signal}: an OTLP log record. */
    static final int LOG = 1;
    /** {@link #signal}: an OTLP metric data point. */
    static final int METRIC = 2;

    private static final Metadata.Key SIGNAL = new Metadata.Key(OtlpFields.SIGNAL);
    private static final byte[] LOG_VALUE = ascii(OtlpFields.SIGNAL_LOG);
    private static final byte[] METRIC_VALUE = ascii(OtlpFields.SIGNAL_METRIC);
    /** The prefix of a resource attribute's key. */
    static final byte[] RESOURCE_PREFIX = ascii(OtlpFields.RESOURCE_PREFIX);
    /** The prefix of a metric point's value key, and of a measurement's HEC key. */
    static final byte[] METRIC_PREFIX = ascii(OtlpFields.METRIC_VALUE_PREFIX);

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private OtlpEvents() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@link #LOG}, {@link #METRIC} or {@link #NONE}, from the message's {@code otlp.signal}. */
    static int signal(Metadata md) {
        // consumer.OTLP writes it first: look there before searching (a search scans from the last field).
        byte[] k = SIGNAL.bytes();
        int i = md.size() > 0 && md.keyLength(0) == k.length && eq(md.arena(), md.keyOffset(0), k) ? 0 : md.indexOf(SIGNAL);
        if (i < 0) {
            return NONE;
        }
        if (is(md, i, LOG_VALUE)) {
            return LOG;
        }
        return is(md, i, METRIC_VALUE) ? METRIC : NONE;
    }

    static boolean is(Metadata md, int i, byte[] v) {
        return equal(md.arena(), md.valueOffset(i), md.valueLength(i), v);
    }

    static boolean equal(byte[] a, int off, int len, byte[] k) {
        return len == k.length && eq(a, off, k);
    }

    /**
     * Whether {@code a[off, off+k.length)} equals {@code k}, a word at a time: keys are short, and the library's
     * range compare costs more in its setup than in comparing them.
     */
    static boolean eq(byte[] a, int off, byte[] k) {
        return eq(a, off, k, k.length);
    }

    /** Whether {@code a[off, off+n)} equals {@code k[0, n)}, as {@link #eq(byte[], int, byte[])}. */
    static boolean eq(byte[] a, int off, byte[] k, int n) {
        if (n >= 8) {
            for (int i = 0; i < n - 8; i += 8) {
                if ((long) LONGS.get(a, off + i) != (long) LONGS.get(k, i)) {
                    return false;
                }
            }
            return (long) LONGS.get(a, off + n - 8) == (long) LONGS.get(k, n - 8); // the last word overlaps
        }
        if (n >= 4) {
            return (int) INTS.get(a, off) == (int) INTS.get(k, 0) && (int) INTS.get(a, off + n - 4) == (int) INTS.get(k, n - 4);
        }
        for (int i = 0; i < n; i++) {
            if (a[off + i] != k[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Milliseconds as the float64 seconds Go prints ({@code 1.001}, {@code 1433188255.5}, {@code 2}) at
     * {@code b[at]}, which has room for 32 bytes; returns the end.
     */
    static int putMillisAsSeconds(byte[] b, int at, long ms) {
        if (ms < 0) {
            b[at++] = '-';
            ms = -ms;
        }
        at = Decimal.putLong(b, at, ms / 1000);
        int frac = (int) (ms % 1000);
        if (frac != 0) {
            b[at++] = '.';
            b[at++] = (byte) ('0' + frac / 100);
            if (frac % 100 != 0) {
                b[at++] = (byte) ('0' + frac / 10 % 10);
                if (frac % 10 != 0) {
                    b[at++] = (byte) ('0' + frac % 10);
                }
            }
        }
        return at;
    }

    /** {@code float64(uint64)}: the unsigned value rounded to the nearest double, as Go converts it. */
    static double unsignedToDouble(long v) {
        if (v >= 0) {
            return v;
        }
        return (double) ((v >>> 1) | (v & 1)) * 2.0; // halve keeping a sticky bit, so the rounding stays exact
    }

    /** Go's {@code time.Duration(ts).Round(time.Millisecond)} in milliseconds: halves away from zero. */
    static long roundToMillis(long nanos) {
        long r = nanos % 1_000_000L;
        long d = nanos - r;
        if (nanos >= 0) {
            return (r + r < 1_000_000L ? d : d + 1_000_000L) / 1_000_000L;
        }
        return (-r - r < 1_000_000L ? d : d - 1_000_000L) / 1_000_000L;
    }

    /**
     * Unsigned byte order of two ranges, a word at a time; the last word overlaps the one before it (its first
     * bytes are known equal then, so its first difference is the first difference).
     */
    static int compareBytes(byte[] a, int ao, int al, byte[] b, int bo, int bl) {
        int n = Math.min(al, bl);
        if (n >= 8) {
            for (int i = 0; i < n - 8; i += 8) {
                long x = (long) LONGS.get(a, ao + i);
                long y = (long) LONGS.get(b, bo + i);
                if (x != y) {
                    return Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y));
                }
            }
            long x = (long) LONGS.get(a, ao + n - 8);
            long y = (long) LONGS.get(b, bo + n - 8);
            return x != y ? Long.compareUnsigned(Long.reverseBytes(x), Long.reverseBytes(y)) : al - bl;
        }
        if (n >= 4) {
            int x = (int) INTS.get(a, ao);
            int y = (int) INTS.get(b, bo);
            if (x == y) {
                x = (int) INTS.get(a, ao + n - 4);
                y = (int) INTS.get(b, bo + n - 4);
            }
            return x != y ? Integer.compareUnsigned(Integer.reverseBytes(x), Integer.reverseBytes(y)) : al - bl;
        }
        for (int i = 0; i < n; i++) {
            int c = (a[ao + i] & 0xFF) - (b[bo + i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return al - bl;
    }

    /** A non-negative decimal integer (a uint64 count, maybe quoted); wraps as Go's uint64 does. */
    static long parseLong(byte[] b, int off, int len) {
        long v = 0;
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c >= '0' && c <= '9') {
                v = v * 10 + (c - '0');
            } else if (c != '"') {
                break;
            }
        }
        return v;
    }
}
