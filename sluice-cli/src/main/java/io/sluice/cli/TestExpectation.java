package io.sluice.cli;

import io.sluice.core.testing.Captured;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What a {@code sluice test} case expects at one producer or stream. {@code Absent} says nothing arrived,
 * {@code Count} how many messages arrived, {@code Payloads} every payload in order; {@code Equals}, {@code Contains},
 * {@code Matches} and {@code Metadata} hold for every message that arrived (at least one must), or for the one
 * at {@code Index} (0 is the first).
 *
 * @param producer the producer whose deliveries are checked (after its modulators), or null
 * @param stream the stream whose messages are checked (before its router's modulators), or null
 * @param absent whether nothing may arrive
 * @param count how many messages must arrive, or null
 * @param payloads every payload, in order, or null
 * @param index the message the per-message checks look at, or null for every one
 * @param equals the payload, or null
 * @param contains text the payload contains, or null
 * @param matches a regular expression found in the payload (anchor it with ^ and $ for the whole), or null
 * @param metadata fields the message has, with these values; a field whose value is null (written {@code ~}) it
 *     does not have
 */
record TestExpectation(String producer, String stream, boolean absent, Integer count, List<String> payloads,
                       Integer index, String equals, String contains, Pattern matches, Map<String, String> metadata) {

    /** An {@code Expect} mapping. */
    static TestExpectation parse(TestFileNode n) {
        n.only("Producer", "Stream", "Absent", "Count", "Payloads", "Index", "Equals", "Contains", "Matches",
                "Metadata");
        if (n.has("Producer") == n.has("Stream")) {
            throw n.error("name either Producer (what it delivers) or Stream (what reaches it)");
        }
        boolean absent = n.flag("Absent");
        if (absent && (n.has("Count") || n.has("Payloads") || n.has("Index") || n.has("Equals") || n.has("Contains")
                || n.has("Matches") || n.has("Metadata"))) {
            throw n.error("Absent: true checks that nothing arrived; it takes no other check");
        }
        Pattern matches = null;
        if (n.has("Matches")) {
            try {
                matches = Pattern.compile(n.string("Matches"));
            } catch (PatternSyntaxException e) {
                throw n.error("Matches: not a regular expression: " + e.getDescription());
            }
        }
        return new TestExpectation(n.string("Producer"), n.string("Stream"), absent, n.count("Count"),
                n.texts("Payloads"), n.count("Index"), n.string("Equals"), n.string("Contains"), matches,
                n.strings("Metadata"));
    }

    /** "producer Out" or "stream s", for reports. */
    String target() {
        return producer != null ? "producer " + producer : "stream " + stream;
    }

    /** What went wrong, one entry per broken expectation (each may span lines); empty when all hold. */
    List<String> check(List<Captured> got) {
        List<String> failures = new ArrayList<>();
        if (absent) {
            if (!got.isEmpty()) {
                failures.add("expected nothing, got " + messages(got.size()));
            }
            return failures;
        }
        if (count != null && got.size() != count) {
            failures.add("expected " + messages(count) + ", got " + got.size());
        }
        if (payloads != null) {
            checkPayloads(got, failures);
        }
        if (index != null) {
            if (index >= got.size()) {
                failures.add("expected a message at Index " + index + ", got " + messages(got.size()));
            } else {
                checkMessage(index, got.get(index), failures);
            }
        } else if (hasMessageChecks()) {
            if (got.isEmpty()) {
                failures.add("expected messages, got none");
            }
            for (int i = 0; i < got.size(); i++) {
                checkMessage(i, got.get(i), failures);
            }
        } else if (count == null && payloads == null && got.isEmpty()) {
            failures.add("expected messages, got none");
        }
        return failures;
    }

    private boolean hasMessageChecks() {
        return equals != null || contains != null || matches != null || !metadata.isEmpty();
    }

    private void checkPayloads(List<Captured> got, List<String> failures) {
        List<String> actual = got.stream().map(Captured::payload).toList();
        if (!actual.equals(payloads)) {
            StringBuilder b = new StringBuilder("payloads differ");
            b.append("\n  expected (").append(payloads.size()).append("):");
            payloads.forEach(p -> b.append("\n    ").append(quote(p)));
            b.append("\n  actual (").append(actual.size()).append("):");
            actual.forEach(p -> b.append("\n    ").append(quote(p)));
            failures.add(b.toString());
        }
    }

    private void checkMessage(int i, Captured m, List<String> failures) {
        String at = "message " + i + ": ";
        if (equals != null && !equals.equals(m.payload())) {
            failures.add(at + "payload differs\n  expected: " + quote(equals) + "\n  actual:   " + quote(m.payload()));
        }
        if (contains != null && !m.payload().contains(contains)) {
            failures.add(at + "payload does not contain " + quote(contains) + "\n  actual:   " + quote(m.payload()));
        }
        if (matches != null && !matches.matcher(m.payload()).find()) {
            failures.add(at + "payload does not match /" + matches.pattern() + "/\n  actual:   " + quote(m.payload()));
        }
        metadata.forEach((key, value) -> {
            String actual = m.fields().get(key);
            if (value == null && actual != null) {
                failures.add(at + "metadata " + key + " should be absent\n  actual:   " + quote(actual));
            } else if (value != null && !value.equals(actual)) {
                failures.add(at + "metadata " + key + " differs\n  expected: " + quote(value) + "\n  actual:   "
                        + (actual == null ? "(no such field)" : quote(actual)));
            }
        });
    }

    private static String messages(int n) {
        return n + (n == 1 ? " message" : " messages");
    }

    /** Text between single quotes, with line breaks and tabs visible so that a difference in them shows. */
    static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "'";
    }
}
