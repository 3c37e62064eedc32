package io.sluice.forward.codec;

/**
 * A frame declares (in a header) more bytes than the configured maximum. Raised as soon as the
 * header is seen, so the frame never has to be buffered whole.
 */
public final class FrameTooLargeException extends ForwardProtocolException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** The configured limit. */
    private final long maxFrameBytes;

    /**
     * @param offset        offset of the header that declared the oversized length
     * @param declaredEnd   the frame length implied by that header (a lower bound)
     * @param maxFrameBytes the configured limit
     */
    public FrameTooLargeException(long offset, long declaredEnd, long maxFrameBytes) {
        super(offset, "frame needs at least " + declaredEnd + " bytes, more than the limit of "
                + maxFrameBytes);
        this.maxFrameBytes = maxFrameBytes;
    }

    /** @return the configured limit that was exceeded */
    public long maxFrameBytes() {
        return maxFrameBytes;
    }
}
