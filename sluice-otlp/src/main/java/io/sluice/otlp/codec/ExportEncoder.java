package io.sluice.otlp.codec;

import io.sluice.core.message.Batch;
import io.sluice.core.message.Message;

/**
 * What {@link LogsEncoder} and {@link MetricsEncoder} share: the batch's messages of one signal grouped by resource
 * and scope ({@link Groups}, {@link Scopes}), wherever they are in the batch and in the order they first appear,
 * and written as the export request's {@code ResourceLogs}/{@code ScopeLogs} or {@code ResourceMetrics}/{@code
 * ScopeMetrics} nesting, whose field numbers are the same for both signals. A subclass picks its messages
 * ({@link #add}), may group below the scope ({@link #hash}, {@link #same}) and writes what a scope holds
 * ({@link #items}).
 *
 * <p>One encoder per thread; it reuses its buffers, so encoding allocates nothing per message once they have grown.
 */
abstract class ExportEncoder {
    // Export*ServiceRequest.resource_*; Resource*.resource, scope_*, schema_url; Scope*.scope.
    private static final int RESOURCES = 1;
    private static final int RESOURCE = 1;
    private static final int SCOPES = 2;
    private static final int SCHEMA_URL = 3;
    private static final int SCOPE = 1;

    final ProtoWriter out = new ProtoWriter(64 * 1024);
    final Values values = new Values();
    final Categories cats = new Categories();
    final Scopes scopes = new Scopes(values, cats);
    final Groups groups;
    private Batch batch;
    private int start;
    private int[] signals = new int[64];

    /** {@code levels}: resource and scope, and any level the subclass groups by below them. */
    ExportEncoder(int levels) {
        groups = new Groups(levels, this);
    }

    /**
     * Encodes the messages of this encoder's signal among {@code batch[from, to)} as one request, written from
     * offset {@code start} of {@link #buffer()} (room for a frame header such as gRPC's). Returns the number of log
     * records or data points, 0 when there is none.
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
            Message m = batch.get(i);
            int s = MessageKeys.signal(m);
            signals[i] = s;
            add(i, m, s);
        }
        out.reset(start);
        for (int r = groups.firstRoot(); r >= 0; r = groups.next(r)) {
            resource(r);
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

    /** Takes message {@code i} (its {@link MessageKeys#signal} is {@code signal}) into {@link #groups} if it is of this signal. */
    abstract void add(int i, Message m, int signal);

    /** Writes the content of the scope group {@code s}: its records, or its metrics. */
    abstract void items(int s);

    /** Entry {@code e}'s hash at grouping level {@code level}: resource and scope here. */
    int hash(int level, int e) {
        return scopes.hash(level, message(e), signal(e), base(e));
    }

    /** Whether entries {@code a} and {@code b} are equal at grouping level {@code level}: resource and scope here. */
    boolean same(int level, int a, int b) {
        return scopes.same(level, message(a), signal(a), base(a), message(b), signal(b), base(b));
    }

    final Message message(int e) {
        return batch.get(groups.message(e));
    }

    /** The signal of entry {@code e}'s message, found once per message per batch. */
    final int signal(int e) {
        return signals[groups.message(e)];
    }

    /** Where the field categories of entry {@code e}'s message start in {@link #cats}. */
    final int base(int e) {
        return cats.base(groups.message(e));
    }

    private void resource(int r) {
        int rep = groups.representative(r);
        out.begin(RESOURCES);
        scopes.resource(out, RESOURCE, message(rep), signal(rep), base(rep));
        for (int s = groups.firstChild(r); s >= 0; s = groups.next(s)) {
            int scope = groups.representative(s);
            out.begin(SCOPES);
            scopes.scope(out, SCOPE, message(scope), signal(scope), base(scope));
            items(s);
            scopes.schemaUrl(out, SCHEMA_URL, message(scope), signal(scope), MessageKeys.SCOPE);
            out.end();
        }
        scopes.schemaUrl(out, SCHEMA_URL, message(rep), signal(rep), MessageKeys.RESOURCE);
        out.end();
    }
}
