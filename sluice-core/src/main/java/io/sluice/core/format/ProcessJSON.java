package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.json.JsonFields;
import io.sluice.core.json.JsonScanner;
import io.sluice.core.json.JsonWriter;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.util.List;

/**
 * {@code format.ProcessJSON} (Gollum 0.5): applies Directives, in order, to the fields of a JSON object and
 * writes the object back. A directive is {@code key:action[:parameter...]}; {@code \:} is a literal colon and
 * \n, \r, \t in parameters are expanded. Directives on a missing key, or on a value of the wrong type, do
 * nothing. Actions:
 * <ul>
 * <li>{@code rename:<new key>}</li>
 * <li>{@code remove} removes the field; {@code remove:<s>:<s>...} removes those strings from an array</li>
 * <li>{@code split:<delimiter>:<key>:<key>...} stores the parts of a string in the given fields (only if the
 * delimiter occurs)</li>
 * <li>{@code pick:<index>:<key>} stores an array element in a field (a negative index counts from the end)</li>
 * <li>{@code time:<from layout>:<to layout>} reformats a timestamp string (Go layouts)</li>
 * <li>{@code unixtimestamp:<s|ms|ns>:<to layout>} formats a number of seconds, milliseconds or nanoseconds</li>
 * <li>{@code replace:<old>:<new>}, {@code trim[:<characters>]} (default space and tab) on strings</li>
 * <li>{@code flatten[:<delimiter>]} moves an object's members (or an array's elements) to fields
 * {@code key<delimiter>member} and removes the field</li>
 * <li>{@code agent[:<field>...]} parses a user agent into {@code key_<field>} fields</li>
 * <li>{@code ip} keeps only the valid IP addresses of an array (a string becomes an array)</li>
 * <li>{@code geoip} needs a GeoIP database (GeoIPFile), which Sluice does not read: without one it does nothing,
 * as in Gollum</li>
 * </ul>
 * TrimValues then trims spaces around every string value. Fields keep their order (renamed ones their place);
 * new ones are appended; Go sorted them. The fast directives (rename, remove, split, TrimValues) work on byte
 * ranges and allocate nothing. Content that is not a JSON object is dropped to the fallback stream with the
 * parse error.
 *
 * <p>A payload result is left pending ({@link PendingObject}): written when something reads it, so that
 * format.ExtractJSON after this formatter reads its field from the fields directly.
 */
public final class ProcessJSON extends SimpleFormatter {
    public static final Param<List<String>> DIRECTIVES = Param.strings("Directives", List.of(),
            "Actions applied to the JSON fields, in order: key:action:parameters.");
    public static final Param<Boolean> TRIM_VALUES = Param.bool("TrimValues", true,
            "Trims spaces at both ends of every string value after processing.");
    public static final Param<String> GEOIP_FILE = Param.string("GeoIPFile", "",
            "A GeoIP database for the geoip directive; not supported by Sluice, must stay empty.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.ProcessJSON",
            "Modifies the fields of a JSON payload with a list of directives.")
            .params(params(DIRECTIVES, TRIM_VALUES, GEOIP_FILE))
            .factory(ProcessJSON::new);

    private static final byte[][] NONE = new byte[0][];

    private final Directive[] directives;
    private final boolean trimValues;
    private final Metadata values = new Metadata();
    private final JsonScanner scanner = new JsonScanner();
    private final JsonFields fields = new JsonFields();
    private final JsonWriter writer = new JsonWriter();
    private final Directive.Work work;
    private final byte[] digits = new byte[11];
    private final PendingObject pending = new PendingObject(values, writer);

    public ProcessJSON(PluginConfig config) {
        super(config);
        if (!config.get(GEOIP_FILE).isEmpty()) {
            throw config.error(GEOIP_FILE, "GeoIP databases are not supported; leave GeoIPFile empty");
        }
        List<String> list = config.get(DIRECTIVES);
        this.directives = new Directive[list.size()];
        for (int i = 0; i < directives.length; i++) {
            try {
                directives[i] = Directive.parse(list.get(i));
            } catch (IllegalArgumentException e) {
                throw config.error(DIRECTIVES, "'" + list.get(i) + "': " + e.getMessage());
            }
        }
        this.trimValues = config.get(TRIM_VALUES);
        this.work = new Directive.Work(values, scanner);
    }

    @Override
    protected Result apply(Message m) {
        if (directives.length == 0) {
            return Result.CONTINUE;
        }
        pending.flush(); // the previous message's payload may still be our fields
        source.read(m);
        values.clear();
        JsonFields members = MetadataJson.object(source, m, scanner, fields);
        if (members == null) {
            return FormatErrors.invalidJson(m, scanner, digits);
        }
        MetadataJson.merge(values, source.buf, source.off, source.len, members);
        for (Directive d : directives) {
            d.apply(work);
        }
        if (trimValues) {
            trimSpaces();
        }
        if (target.isPayload()) {
            // Written when read: format.ExtractJSON next takes its field from ours, and nothing is written.
            pending.defer(m);
        } else {
            writer.reset();
            MetadataJson.write(values, writer, NONE);
            target.write(m, writer.buffer(), 0, writer.length(), Metadata.STRING);
        }
        return Result.CONTINUE;
    }

    /** Gollum's TrimValues: strings.Trim(value, " ") on every string, by narrowing the range in place. */
    private void trimSpaces() {
        byte[] a = values.arena();
        for (int i = 0, n = values.size(); i < n; i++) {
            if (values.kind(i) != Metadata.STRING) {
                continue;
            }
            boolean raw = values.isRawJson(i) && !values.isEscaped(i);
            int s = values.valueOffset(i);
            int e = s + values.valueLength(i);
            int ts = s;
            int te = e;
            while (ts < te && a[ts] == ' ') {
                ts++;
            }
            while (te > ts && a[te - 1] == ' ') {
                te--;
            }
            if (ts != s || te != e) {
                values.setValueRange(i, ts, te - ts, Metadata.STRING, raw);
            }
        }
    }
}
