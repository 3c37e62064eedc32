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
    /** A sink that refuses every other frame the first time it is offered, as a spent memory budget does. */
    private final class Refusing implements Framer.Sink {
        int offers;
        int refused;

        @Override
        public boolean admit(int len) {
            if (offers++ % 2 == 0) {
                refused++;
                return false;
            }
            return true;
        }

        @Override
        public void frame(byte[] b, int off, int len, boolean truncated) throws InterruptedException {
            sink.frame(b, off, len, truncated);
        }
    }

    @Test
    void refusedFramesStayPendingAndComeOutOnceInOrderInEveryMode() throws Exception {
        record Case(Framer.Mode mode, int size, int max, String in, List<String> expected) {
        }
        List<Case> cases = List.of(
                new Case(Framer.Mode.DELIMITER, 1, 8, "one\r\ntwo\nxxxxxxxxxxxx\n\nlast", List.of("one", "two", "xxxxxxxx", "", "last")),
                new Case(Framer.Mode.OCTET, 1, 4, "3 abc10 0123456789<1>x\n2 zz", List.of("abc", "0123", "<1>x", "zz")),
                new Case(Framer.Mode.OCTET, 1, 32, "99999999999999 bogus\n4 fine", List.of("99999999999999 bogus", "fine")),
                new Case(Framer.Mode.FIXED, 3, 1024, "abcdefgh", List.of("abc", "def", "gh")));
        for (Case c : cases) {
            frames.clear();
            cut.clear();
            Refusing refusing = new Refusing();
            Framer f = new Framer(c.mode(), bytes("\n"), 0, c.size(), c.max(), 0);
            byte[] own = new byte[256];
            f.useBuffer(own, java.nio.ByteBuffer.wrap(own));
            byte[] in = bytes(c.in());
            java.nio.ByteBuffer t = f.readTarget();
            t.put(in);
            int rounds = 0;
            while (!f.finish(refusing)) {
                assertThat(++rounds).as("%s makes progress", c.mode()).isLessThan(100);
            }
            assertThat(frames).as("%s", c.mode()).containsExactlyElementsOf(c.expected());
            assertThat(refusing.refused).as("%s: each frame refused once", c.mode()).isEqualTo(c.expected().size());
            assertThat(f.pending()).isZero();
        }
    }

    @Test
    void anUnfinishedFrameMovesBetweenBuffersIntact() throws Exception {
        Framer f = new Framer(Framer.Mode.DELIMITER, bytes("\n"), 0, 1, 1024, 0);
        assertThat(f.capacity()).isZero();
        byte[] shared = new byte[64];
        java.nio.ByteBuffer sharedView = java.nio.ByteBuffer.wrap(shared);
        f.useBuffer(shared, sharedView);
        sharedView.put(bytes("first\nsec"));
        f.drain(sink);
        assertThat(f.pending()).isEqualTo(3);
        byte[] own = new byte[8];
        f.useBuffer(own, java.nio.ByteBuffer.wrap(own));
        java.util.Arrays.fill(shared, (byte) 'X'); // the shared buffer is reused by others
        f.useBuffer(shared, sharedView);
        sharedView.put(bytes("ond\n"));
        f.drain(sink);
        assertThat(frames).containsExactly("first", "second");
        assertThat(f.pending()).isZero();
    }
}
