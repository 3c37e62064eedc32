package io.sluice.hec.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.core.message.BatchPool;
import io.sluice.core.message.GzipBody;
import io.sluice.core.message.MemoryBudget;
import io.sluice.core.message.RequestMemory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * Fuzz targets for consumer.HEC's request bodies, parsed the way {@code HecIngest.ingest} does with the default
 * settings (MaxBodySize, MaxDepth 512, MaxEventsPerRequest, event required): an /event body, a /raw body, and a
 * gzip body inflated by {@link GzipBody} first. The contract: the parser returns true, or false with a
 * {@link HecStatus} (the HTTP answer); {@link GzipBody} returns one of its results. Nothing throws.
 */
class EventParserFuzzTest {
    private static final HecServer.Settings SETTINGS = new HecServer.Settings();

    private final BatchPool pool = new BatchPool();
    private final BatchCollector out = new BatchCollector(pool::acquire);
    private static final byte[][] MAIN_ONLY = {"main".getBytes(StandardCharsets.US_ASCII)};
    private final EventParser parser = new EventParser(SETTINGS.maxDepth, SETTINGS.eventRequired);
    private final EventParser indexed = new EventParser(SETTINGS.maxDepth, false);
    private final GzipBody gzip = new GzipBody();

    @FuzzTest(maxDuration = "5m")
    void events(byte[] body) {
        parse(parser, body, body.length, false);
        parse(indexed, body, body.length, false); // Splunk_Send_Raw objects, an index allow-list
    }

    @FuzzTest(maxDuration = "5m")
    void raw(byte[] body) {
        parse(indexed, body, body.length, true);
    }

    /** The body as sent with Content-Encoding: gzip, whatever it holds. */
    @FuzzTest(maxDuration = "5m")
    void gzipBody(byte[] body) {
        inflateAndParse(body);
    }

    /** Any body, gzipped as a client would: the inflated events parse exactly as the plain body does. */
    @FuzzTest(maxDuration = "5m")
    void gzipRoundTrip(byte[] body) {
        boolean plain = parse(parser, body, body.length, false);
        int plainCount = out.count();
        out.releaseAll();
        if (body.length == 0) {
            return;
        }
        assertThat(gzip.inflate(gzip(body), 0, gzip(body).length, SETTINGS.maxBodySize,
                new RequestMemory(new MemoryBudget(1L << 30)))).isEqualTo(GzipBody.Result.OK);
        assertThat(parse(parser, gzip.output(), gzip.length(), false)).isEqualTo(plain);
        assertThat(out.count()).isEqualTo(plainCount);
        out.releaseAll();
        gzip.done();
    }

    private void inflateAndParse(byte[] body) {
        RequestMemory memory = new RequestMemory(new MemoryBudget(1L << 30));
        GzipBody.Result r = gzip.inflate(body, 0, body.length, SETTINGS.maxBodySize, memory);
        assertThat(r).isNotNull();
        if (r == GzipBody.Result.OK) {
            assertThat(gzip.length()).isBetween(0, SETTINGS.maxBodySize);
            parse(parser, gzip.output(), gzip.length(), false);
        } else if (r == GzipBody.Result.CORRUPT) {
            assertThat(gzip.error()).isNotNull();
        }
        gzip.done();
    }

    private boolean parse(EventParser p, byte[] b, int len, boolean raw) {
        out.releaseAll();
        out.limit(null, 0, SETTINGS.maxEventsPerRequest);
        EventParser.Defaults dflt = new EventParser.Defaults();
        dflt.index = "main".getBytes(StandardCharsets.US_ASCII);
        byte[][] indexes = p == indexed ? MAIN_ONLY : null; // an index allow-list, as a token's TokenIndexes give
        boolean ok = raw ? p.parseRaw(b, 0, len, out, dflt, indexes, 0) : p.parseEvents(b, 0, len, out, dflt, indexes, 0);
        if (ok) {
            assertThat(p.error()).isNull();
        } else {
            assertThat(p.error()).isNotNull();
        }
        if (!ok || raw) {
            out.releaseAll();
        }
        return ok;
    }

    private static byte[] gzip(byte[] b) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(bytes)) {
            z.write(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
