package io.sluice.otlp.codec;

/** TEMPORARY stand-in for the otlp-decode branch's exception (replaced on merge): malformed OTLP. */
public final class OtlpFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public OtlpFormatException(String message) {
        super(message);
    }
}
