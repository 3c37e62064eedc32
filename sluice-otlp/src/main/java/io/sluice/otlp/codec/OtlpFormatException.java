package io.sluice.otlp.codec;

/**
 * An OTLP request that cannot be decoded: malformed protobuf or JSON, invalid UTF-8, nesting too deep. The
 * message says what is wrong and where ("truncated at byte 123"); a server answers it with 400 (HTTP) or
 * INVALID_ARGUMENT (gRPC), as the Collector does. Thrown for input a peer controls, so it carries no stack
 * trace: filling one in would make every malformed request cost a stack walk.
 */
public final class OtlpFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    /** An error described by {@code message}. */
    public OtlpFormatException(String message) {
        super(message, null, false, false);
    }
}
