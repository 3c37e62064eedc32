package io.sluice.forward.codec;

import java.io.IOException;

/**
 * A Forward frame (or a msgpack value inside one) is malformed or not allowed.
 *
 * <p>It is an {@link IOException} so that transport code can treat a bad peer like a broken
 * connection. {@link #offset()} is the byte offset, counted from the start of the frame, where the
 * problem was found; the message reads {@code "at offset N: reason"}.
 */
public class ForwardProtocolException extends IOException {
    /** Serialization version. */
    private static final long serialVersionUID = 1L;

    /** Offset from the start of the frame. */
    private final long offset;
    /** The reason without the offset. */
    private final String reason;

    /**
     * Creates an exception.
     *
     * @param offset byte offset from the start of the frame
     * @param reason what is wrong, for a human
     */
    public ForwardProtocolException(long offset, String reason) {
        this(offset, reason, null);
    }

    /**
     * Creates an exception with a cause.
     *
     * @param offset byte offset from the start of the frame
     * @param reason what is wrong, for a human
     * @param cause  the underlying error, may be null
     */
    public ForwardProtocolException(long offset, String reason, Throwable cause) {
        super("at offset " + offset + ": " + reason, cause);
        this.offset = offset;
        this.reason = reason;
    }

    /** @return byte offset from the start of the frame where the problem was found */
    public long offset() {
        return offset;
    }

    /** @return the reason, without the offset */
    public String reason() {
        return reason;
    }
}
