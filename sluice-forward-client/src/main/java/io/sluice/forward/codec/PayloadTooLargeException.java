package io.sluice.forward.codec;

/** A CompressedPackedForward payload inflates to more than the configured maximum. */
public final class PayloadTooLargeException extends ForwardProtocolException {
    private static final long serialVersionUID = 1L;

    private final long maxBytes;

    /**
     * @param offset   offset of the compressed payload in the frame
     * @param maxBytes the limit exceeded
     */
    public PayloadTooLargeException(long offset, long maxBytes) {
        super(offset, "gzip payload inflates to more than " + maxBytes + " bytes");
        this.maxBytes = maxBytes;
    }

    /** @return the limit that was exceeded */
    public long maxBytes() {
        return maxBytes;
    }
}
