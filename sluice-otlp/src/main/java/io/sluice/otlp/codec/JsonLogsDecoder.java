package io.sluice.otlp.codec;

/** TEMPORARY stand-in for the otlp-decode branch's decoder (replaced on merge): decodes nothing. */
public final class JsonLogsDecoder {
    public int decode(byte[] buf, int off, int len, RecordSink sink) throws OtlpFormatException {
        throw new OtlpFormatException("stand-in decoder");
    }

    public static int countRecords(byte[] buf, int off, int len) {
        return 0;
    }
}
