package io.sluice.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads line-oriented output back, independently of {@link LineEscaper}: split, unescape, parse strictly. */
public final class Lines {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private Lines() {
    }

    /** Splits at LF only (the record separator); every line must end with one. */
    public static List<byte[]> split(byte[] out) {
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == '\n') {
                lines.add(java.util.Arrays.copyOfRange(out, start, i));
                start = i + 1;
            }
        }
        if (start != out.length) {
            throw new AssertionError("output does not end with a newline: " + new String(out, start, out.length - start,
                    StandardCharsets.UTF_8));
        }
        return lines;
    }

    /** Reverses the documented plain-text escapes: \\ \n \r \xHH; any other backslash is itself. */
    public static byte[] unescapeText(byte[] line) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < line.length; i++) {
            int c = line[i] & 0xFF;
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw new AssertionError("raw control byte " + c + " in a plain line");
            }
            if (c == '\\' && i + 1 < line.length) {
                int e = line[i + 1];
                if (e == '\\') {
                    b.write('\\');
                    i++;
                    continue;
                } else if (e == 'n') {
                    b.write('\n');
                    i++;
                    continue;
                } else if (e == 'r') {
                    b.write('\r');
                    i++;
                    continue;
                } else if (e == 'x' && i + 3 < line.length) {
                    b.write(Integer.parseInt(new String(line, i + 2, 2, StandardCharsets.US_ASCII), 16));
                    i += 3;
                    continue;
                }
            }
            b.write(c);
        }
        return b.toByteArray();
    }

    /**
     * Parses one NDJSON line strictly (one object, nothing after it, valid UTF-8) and returns the string value of
     * {@code field}.
     */
    public static String jsonField(byte[] line, String field) throws IOException {
        for (byte x : line) {
            if ((x & 0xFF) < 0x20) {
                throw new AssertionError("raw control byte " + (x & 0xFF) + " in a JSON line");
            }
        }
        String value = null;
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new AssertionError("not an object: " + new String(line, StandardCharsets.UTF_8));
            }
            int depth = 1;
            while (depth > 0) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    depth++;
                } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    depth--;
                } else if (t == JsonToken.VALUE_STRING && depth == 1 && field.equals(p.currentName())) {
                    value = p.getText();
                }
            }
            if (p.nextToken() != null) {
                throw new AssertionError("more after the object: " + new String(line, StandardCharsets.UTF_8));
            }
        }
        return value;
    }
}
