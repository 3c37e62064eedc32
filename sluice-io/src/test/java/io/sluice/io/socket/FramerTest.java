package io.sluice.io.socket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FramerTest {
    private final List<String> frames = new ArrayList<>();
    private final List<Boolean> cut = new ArrayList<>();
    private final Framer.Sink sink = (b, off, len, truncated) -> {
        frames.add(new String(b, off, len, StandardCharsets.UTF_8));
        cut.add(truncated);
    };

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void linesSplitAtEveryByteComeOutWhole() throws Exception {
        byte[] in = bytes("{\"a\":1}\r\nsecond line\n\nthird\n");
        for (int split = 1; split < in.length; split++) {
            frames.clear();
            Framer f = new Framer(Framer.Mode.DELIMITER, bytes("\n"), 0, 1, 1024, 64);
            f.feed(in, 0, split, sink);
            f.feed(in, split, in.length - split, sink);
            assertThat(frames).as("split at %d", split).containsExactly("{\"a\":1}", "second line", "", "third");
        }
    }

    @Test
    void overLongLinesAreCutFlaggedAndTheRestSkipped() throws Exception {
        Framer f = new Framer(Framer.Mode.DELIMITER, bytes("\n"), 0, 1, 8, 16);
        String longLine = "x".repeat(100);
        f.feed(bytes("short\n" + longLine + "\nafter\n"), 0, 6 + 101 + 6, sink);
        assertThat(frames).containsExactly("short", "xxxxxxxx", "after");
        assertThat(cut).containsExactly(false, true, false);
        assertThat(f.truncated()).isEqualTo(1);
    }

    @Test
    void aLastLineWithoutNewlineIsKeptWhenThePeerLeaves() throws Exception {
        Framer f = new Framer(Framer.Mode.DELIMITER, bytes("\n"), 0, 1, 1024, 64);
        f.feed(bytes("one\npart"), 0, 8, sink);
        assertThat(frames).containsExactly("one");
        f.finish(sink);
        assertThat(frames).containsExactly("one", "part");
        assertThat(f.unterminated()).isEqualTo(1);
    }

    @Test
    void octetCountingWithSpacesAndNewlinesInsideMessages() throws Exception {
        byte[] in = bytes("11 hello world5 a\nb c11 ab\ncd\nef gh");
        for (int split = 1; split < in.length; split++) {
            frames.clear();
            Framer f = new Framer(Framer.Mode.OCTET, bytes("\n"), 0, 1, 1024, 64);
            f.feed(in, 0, split, sink);
            f.feed(in, split, in.length - split, sink);
            assertThat(frames).as("split at %d", split).containsExactly("hello world", "a\nb c", "ab\ncd\nef gh");
        }
    }

    @Test
    void octetFallsBackToNewlinesAndSurvivesGarbageHeaders() throws Exception {
        Framer f = new Framer(Framer.Mode.OCTET, bytes("\n"), 0, 1, 32, 64);
        byte[] in = bytes("<13>plain line\n99999999999999 bogus\n4 fine");
        f.feed(in, 0, in.length, sink);
        assertThat(frames).containsExactly("<13>plain line", "99999999999999 bogus", "fine");
        assertThat(f.badHeaders()).isEqualTo(1);
    }

    @Test
    void octetFramesLongerThanTheMaximumAreCutAndSkipped() throws Exception {
        Framer f = new Framer(Framer.Mode.OCTET, bytes("\n"), 0, 1, 4, 64);
        f.feed(bytes("10 01234567893 abc"), 0, 18, sink);
        assertThat(frames).containsExactly("0123", "abc");
        assertThat(cut).containsExactly(true, false);
    }

    @Test
    void binaryAndFixedPartitioners() throws Exception {
        Framer be = new Framer(Framer.Mode.BINARY_BE, bytes("\n"), 0, 2, 1024, 64);
        be.feed(new byte[] {0, 3, 'a', 'b', 'c', 0, 1, 'z'}, 0, 8, sink);
        Framer fixed = new Framer(Framer.Mode.FIXED, bytes("\n"), 0, 3, 1024, 64);
        fixed.feed(bytes("abcdefgh"), 0, 8, sink);
        assertThat(frames).containsExactly("abc", "z", "abc", "def");
    }
}
