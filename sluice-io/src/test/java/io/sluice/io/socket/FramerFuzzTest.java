package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz target for {@link Framer}, which cuts what consumer.Socket and consumer.Syslogd read into frames, in every
 * partitioner mode with a configuration the plugins accept (delimiter of 1 to 3 bytes, offset, binary lengths of
 * 1, 2, 4 or 8 bytes, any MaxLineSize). The contract: frames lie inside the buffer and are at most MaxLineSize
 * (a fixed-size frame at most its size), nothing throws or hangs, and the frames do not depend on how the bytes
 * were split into reads.
 */
class FramerFuzzTest {
    private static final int[] BINARY_SIZES = {1, 2, 4, 8};

    @FuzzTest(maxDuration = "5m")
    void framing(FuzzedDataProvider data) throws InterruptedException {
        Framer.Mode mode = data.pickValue(Framer.Mode.values());
        byte[] delimiter = data.consumeBoolean() ? new byte[] {'\n'} : data.consumeBytes(3);
        if (delimiter.length == 0) {
            delimiter = new byte[] {' '};
        }
        int offset = data.consumeInt(0, 16);
        int size = mode == Framer.Mode.BINARY_LE || mode == Framer.Mode.BINARY_BE ? data.pickValue(BINARY_SIZES)
                : data.consumeInt(1, 64);
        int maxFrame = data.consumeInt(1, 4096);
        int initial = data.consumeInt(0, 256);
        int chunk = data.consumeInt(1, 512);
        byte[] stream = data.consumeRemainingAsBytes();

        // Fixed-size frames are never cut: the plugin's frame size wins over a smaller MaxLineSize.
        int longest = mode == Framer.Mode.FIXED ? Math.max(maxFrame, size) : maxFrame;
        List<Frame> whole = frames(new Framer(mode, delimiter, offset, size, maxFrame, Math.max(initial, 1)),
                stream, stream.length, longest, mode + " size " + size + " offset " + offset);
        List<Frame> split = frames(new Framer(mode, delimiter, offset, size, maxFrame, Math.max(initial, 1)),
                stream, chunk, longest, mode + " size " + size + " offset " + offset);
        assertThat(split).as("frames depend on how the reads split the stream: %s, delimiter %s, MaxLineSize %d, "
                + "reads of %d", mode, Arrays.toString(delimiter), maxFrame, chunk).isEqualTo(whole);
    }

    private static List<Frame> frames(Framer framer, byte[] stream, int chunk, int maxFrame, String what)
            throws InterruptedException {
        List<Frame> out = new ArrayList<>();
        Framer.Sink sink = (buf, off, len, truncated) -> {
            assertThat(off).isBetween(0, buf.length);
            assertThat(len).as("frame length, %s", what).isBetween(0, Math.min(maxFrame, buf.length - off));
            out.add(new Frame(Arrays.copyOfRange(buf, off, off + len), truncated));
        };
        for (int at = 0; at < stream.length; at += chunk) {
            framer.feed(stream, at, Math.min(chunk, stream.length - at), sink);
            // Never more than a frame and its header need (a buffer is at least 64 bytes, however small they are).
            assertThat(framer.capacity()).isLessThanOrEqualTo(Math.max(64, framer.capacityLimit()));
        }
        framer.finish(sink);
        return out;
    }

    private record Frame(byte[] bytes, boolean truncated) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && Arrays.equals(bytes, f.bytes) && truncated == f.truncated;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return (truncated ? "cut:" : "") + new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }
}
