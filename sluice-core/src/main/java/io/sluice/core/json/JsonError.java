package io.sluice.core.json;

/**
 * Why {@link JsonScanner} rejected its input: one constant per place in the grammar where it can stop. Two texts
 * each. {@link #reason()} is what {@link JsonScanner#errorReason()} has always said (the formatters write it into
 * the event, so it stays as it is, several places sharing one text); {@link #detail()} tells those places apart
 * (a string left open, a key missing), as consumer.HEC logs a rejected event.
 */
public enum JsonError {
    /** A value, or what follows one, expected where the input ends. */
    END_OF_INPUT(JsonScanner.UNEXPECTED_END, "unexpected end of data"),
    /** The input ends inside a string (or right after its backslash). */
    END_IN_STRING(JsonScanner.UNEXPECTED_END, "unterminated string"),
    /** The input ends inside a backslash-u escape. */
    END_IN_UNICODE_ESCAPE(JsonScanner.UNEXPECTED_END, "invalid \\u escape"),
    /** The input ends where an object's key should be. */
    END_BEFORE_KEY(JsonScanner.UNEXPECTED_END, "expected a key string"),
    /** The input ends where the colon after a key should be. */
    END_BEFORE_COLON(JsonScanner.UNEXPECTED_END, "expected ':'"),
    /** The input ends inside {@code true}, {@code false} or {@code null}. */
    END_IN_LITERAL(JsonScanner.BAD_LITERAL, "unexpected end of data"),
    EXPECTED_OBJECT(JsonScanner.EXPECTED_OBJECT, JsonScanner.EXPECTED_OBJECT),
    EXPECTED_ARRAY(JsonScanner.EXPECTED_ARRAY, JsonScanner.EXPECTED_ARRAY),
    EXPECTED_KEY(JsonScanner.EXPECTED_KEY, "expected a key string"),
    EXPECTED_COLON(JsonScanner.EXPECTED_COLON, "expected ':'"),
    /** A byte that starts no value. */
    EXPECTED_VALUE(JsonScanner.EXPECTED_VALUE, "unexpected character"),
    EXPECTED_COMMA_OR_BRACE(JsonScanner.EXPECTED_COMMA_OR_BRACE, "expected ',' or a closing bracket"),
    EXPECTED_COMMA_OR_BRACKET(JsonScanner.EXPECTED_COMMA_OR_BRACKET, "expected ',' or a closing bracket"),
    CONTROL_CHARACTER(JsonScanner.CONTROL_CHARACTER, JsonScanner.CONTROL_CHARACTER),
    /** A backslash followed by a byte that starts no escape. */
    BAD_ESCAPE(JsonScanner.BAD_ESCAPE, "invalid escape"),
    /** A backslash-u not followed by four hex digits. */
    BAD_UNICODE_ESCAPE(JsonScanner.BAD_ESCAPE, "invalid \\u escape"),
    BAD_NUMBER(JsonScanner.BAD_NUMBER, JsonScanner.BAD_NUMBER),
    BAD_LITERAL(JsonScanner.BAD_LITERAL, JsonScanner.BAD_LITERAL),
    TRAILING_DATA(JsonScanner.TRAILING_DATA, JsonScanner.TRAILING_DATA),
    /** Nested deeper than the scanner's limit (consumer.HEC adds the limit to the detail). */
    TOO_DEEP(JsonScanner.TOO_DEEP, "nested deeper than"),
    BAD_UTF8(JsonScanner.BAD_UTF8, "invalid UTF-8");

    private final String reason;
    private final String detail;

    JsonError(String reason, String detail) {
        this.reason = reason;
        this.detail = detail;
    }

    /** The text {@link JsonScanner#errorReason()} reports (one of its constants). */
    public String reason() {
        return reason;
    }

    /** The precise text: which part of the grammar was broken. */
    public String detail() {
        return detail;
    }
}
