package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonStrings;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code format.ExtractJSON}: replaces a JSON object with the value of one of its fields, as text. Field may be
 * a path ({@code a/b}, numeric segments index arrays). A missing field gives empty content. Strings are
 * unescaped; numbers are printed as Go's {@code FormatFloat(v, 'f', Precision)} would, except that integers
 * are kept exactly when Precision is -1 (Go rounds them to float64); true/false as such, null as Go's
 * {@code <nil>}, objects and arrays as their JSON. TrimValues trims white space around the result. Content that
 * is not a JSON object is dropped to the fallback stream with the parse error.
 */
public final class ExtractJSON extends SimpleFormatter {
    public static final Param<String> FIELD = Param.string("Field", "", "The key (or a/b path) to extract.");
    public static final Param<Boolean> TRIM_VALUES = Param.bool("TrimValues", true,
            "Trims white space at both ends of the extracted value.");
    public static final Param<Integer> PRECISION = Param.integer("Precision", -1,
            "Decimal places for numbers; -1 means as few as needed.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.ExtractJSON",
            "Extracts one value from a JSON object as the new payload (or ApplyTo's field).")
            .params(params(FIELD, TRIM_VALUES, PRECISION))
            .factory(ExtractJSON::new);

    private static final byte[] NIL = "<nil>".getBytes(StandardCharsets.US_ASCII);

    private final byte[][] path;
    /**
     * The field as a metadata key, when it can be read straight from a pending object's fields
     * ({@link PendingObject}): a single key that needs no escaping, so its bytes are those the object would show.
     */
    private final Metadata.Key pendingKey;
    private final boolean trim;
    private final int precision;
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();
    private final byte[] digits = new byte[11];
    private byte[] scratch = new byte[128];

    public ExtractJSON(PluginConfig config) {
        super(config);
        String[] parts = config.get(FIELD).split("/", -1);
        this.path = Arrays.stream(parts).map(p -> p.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        this.pendingKey = path.length == 1 && JsonStrings.isPlain(path[0], 0, path[0].length)
                ? new Metadata.Key(parts[0]) : null;
        this.trim = config.get(TRIM_VALUES);
        this.precision = config.get(PRECISION);
    }

    @Override
    protected Result apply(Message m) {
        if (pendingKey != null && source.isPayload() && m.pending() instanceof PendingObject pending
                && extractPending(m, pending.fields())) {
            return Result.CONTINUE;
        }
        source.read(m);
        byte[] b = source.buf;
        int start = source.off;
        int end = start + source.len;
        JsonFields members = MetadataJson.object(source, m, scanner, fields);
        if (members == null) {
            return FormatErrors.invalidJson(m, scanner, digits);
        }
        if (!find(b, members)) {
            target.write(m, b, start, 0, Metadata.STRING);
            return Result.CONTINUE;
        }
        if (scanner.kind() == JsonFields.STRING && !scanner.valueEscaped()) {
            // A plain string is written from where it lies (the payload itself, when that is the source; the
            // copy handles the overlap), without going through the scratch buffer.
            int vs = scanner.valueStart();
            int ve = scanner.valueEnd();
            if (trim) {
                vs = Whitespace.skipLeading(b, vs, ve);
                ve = Whitespace.skipTrailing(b, vs, ve);
            }
            target.write(m, b, vs, ve - vs, Metadata.STRING);
            return Result.CONTINUE;
        }
        int n = render(b);
        int s = 0;
        if (trim) {
            s = Whitespace.skipLeading(scratch, 0, n);
            n = Whitespace.skipTrailing(scratch, s, n);
        }
        target.write(m, scratch, s, n - s, Metadata.STRING);
        return Result.CONTINUE;
    }

    /**
     * Extracts the field from the fields of a pending object, giving what {@link #apply} would give from the
     * object once written; false (nothing done) for a string the writer would escape, which takes the written
     * path instead.
     */
    private boolean extractPending(Message m, Metadata md) {
        int i = md.indexOf(pendingKey);
        if (i < 0) {
            target.write(m, NIL, 0, 0, Metadata.STRING);
            return true;
        }
        byte[] a = md.arena();
        int vo = md.rawValueOffset(i);
        int vl = md.rawValueLength(i);
        byte kind = md.kind(i);
        int n;
        if (kind == Metadata.STRING) {
            if (md.isEscaped(i)) {
                ensure(vl);
                n = JsonStrings.unescape(a, vo, vl, scratch, 0);
            } else if (md.isRawJson(i) || JsonStrings.isPlain(a, vo, vl)) {
                writeTrimmed(m, a, vo, vo + vl);
                return true;
            } else {
                return false;
            }
        } else if (kind == Metadata.NUMBER) {
            n = number(a, vo, vl);
        } else if (kind == Metadata.NULL) {
            n = copy(NIL, 0, NIL.length);
        } else {
            n = copy(a, vo, vl);
        }
        writeTrimmed(m, scratch, 0, n);
        return true;
    }

    private void writeTrimmed(Message m, byte[] b, int s, int e) {
        if (trim) {
            s = Whitespace.skipLeading(b, s, e);
            e = Whitespace.skipTrailing(b, s, e);
        }
        target.write(m, b, s, e - s, Metadata.STRING);
    }

    /** Walks the path; leaves the value found as the scanner's last value. */
    private boolean find(byte[] b, JsonFields members) {
        int i = members.lastIndexOf(b, path[0], 0, path[0].length);
        if (i < 0) {
            return false;
        }
        scanner.select(members, i);
        for (int s = 1; s < path.length; s++) {
            int vs = scanner.valueStart();
            int ve = scanner.valueEnd();
            int index = b[vs] == '[' ? index(path[s]) : -1;
            boolean ok = b[vs] == '['
                    ? scanner.findElement(b, vs, ve, index, fields)
                    : scanner.kind() == JsonFields.OBJECT && scanner.findMember(b, vs, ve, path[s], 0, path[s].length, fields);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static int index(byte[] s) {
        int v = 0;
        if (s.length == 0 || s.length > 9) {
            return -1;
        }
        for (byte c : s) {
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + c - '0';
        }
        return v;
    }

    /** Writes the found value as text into the scratch buffer; returns its length. */
    private int render(byte[] b) {
        int vs = scanner.valueStart();
        int vl = scanner.valueEnd() - vs;
        switch (scanner.kind()) {
            case JsonFields.STRING:
                ensure(vl);
                return scanner.valueEscaped() ? JsonStrings.unescape(b, vs, vl, scratch, 0) : copy(b, vs, vl);
            case JsonFields.NUMBER:
                return number(b, vs, vl);
            case JsonFields.NULL:
                return copy(NIL, 0, NIL.length);
            default:
                return copy(b, vs, vl);
        }
    }

    private int number(byte[] b, int vs, int vl) {
        if (precision < 0 && isInteger(b, vs, vl)) {
            return copy(b, vs, vl);
        }
        String text = new String(b, vs, vl, StandardCharsets.US_ASCII);
        BigDecimal v = new BigDecimal(Double.toString(Double.parseDouble(text)));
        String out = precision < 0 ? v.stripTrailingZeros().toPlainString() : v.setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        byte[] bytes = out.getBytes(StandardCharsets.US_ASCII);
        return copy(bytes, 0, bytes.length);
    }

    private static boolean isInteger(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
                return false;
            }
        }
        return true;
    }

    private int copy(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, scratch, 0, len);
        return len;
    }

    private void ensure(int n) {
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
    }
}
