package io.sluice.hec.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.core.json.Utf8;

/**
 * Fuzz target for sluice-hec's own JSON scanner, which finds where each event of an /event body ends and
 * unescapes its strings. The contract: {@link HecJsonScanner#skipValue} returns a position inside the input or
 * {@link HecJsonScanner#ERROR} with a reason, never throws. Differential check against the core scanner, which
 * implements the same grammar but takes any bytes in strings: what sluice-hec accepts, core accepts too, and
 * what core accepts as valid UTF-8 sluice-hec accepts unless it is nested deeper than its limit. And core's
 * scanner as the encoder uses it for EventFormat auto (UTF-8 checked, 512 levels) decides as sluice-hec's
 * {@link HecJsonScanner#isJsonContainer} did, but for nesting: core counts empty containers toward the depth.
 */
class HecJsonScannerFuzzTest {
    private static final int MAX_DEPTH = 512; // consumer.HEC's MaxDepth default

    private final HecJsonScanner hec = new HecJsonScanner(MAX_DEPTH);
    private final io.sluice.core.json.JsonScanner core = new io.sluice.core.json.JsonScanner();
    private final io.sluice.core.json.JsonScanner strict = new io.sluice.core.json.JsonScanner(MAX_DEPTH, true);

    @FuzzTest(maxDuration = "5m")
    void skipValue(byte[] input) {
        int end = hec.skipValue(input, 0, input.length);
        boolean whole = end != HecJsonScanner.ERROR && HecJsonScanner.ws(input, end, input.length) == input.length;
        if (end == HecJsonScanner.ERROR) {
            assertThat(hec.error()).isNotNull();
        } else {
            assertThat(end).isBetween(1, input.length);
        }
        boolean coreOk = core.scanValue(input, 0, input.length);
        if (whole) {
            assertThat(coreOk).as("core rejects what sluice-hec accepts: %s", core.errorReason()).isTrue();
        } else if (coreOk && Utf8.isValid(input, 0, input.length)) {
            assertThat(hec.error()).as("sluice-hec rejects valid JSON").startsWith("nested deeper than");
        }
        if (input.length > 1 && (input[0] == '{' || input[0] == '[')) {
            boolean strictOk = strict.scanValue(input, 0, input.length);
            if (strictOk != hec.isJsonContainer(input, 0, input.length)) {
                assertThat(strictOk).as("core rejects what sluice-hec accepts").isFalse();
                assertThat(strict.errorReason()).isEqualTo(io.sluice.core.json.JsonScanner.TOO_DEEP);
            }
        }
        if (whole && core.kind() == io.sluice.core.json.JsonFields.STRING) {
            int open = core.valueStart() - 1;
            byte[] text = hec.text(input, open, core.valueEnd());
            assertThat(hec.textLength()).isBetween(0, core.valueEnd() - open);
            assertThat(text.length).isGreaterThanOrEqualTo(hec.textOffset() + hec.textLength());
        }
    }
}
