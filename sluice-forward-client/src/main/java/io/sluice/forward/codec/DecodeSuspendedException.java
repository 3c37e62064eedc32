package io.sluice.forward.codec;

/**
 * Thrown by an {@link EventSink} (from {@code onEvent}, before it took anything of the event) or a
 * {@link BufferAllowance} that cannot take more now: {@link ForwardDecoder} remembers where it stopped and
 * rethrows it; {@link ForwardDecoder#resume} later continues with the event that was refused. One shared instance
 * without a stack trace: it is flow control, not an error.
 */
public final class DecodeSuspendedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The one instance. */
    public static final DecodeSuspendedException INSTANCE = new DecodeSuspendedException();

    private DecodeSuspendedException() {
        super("decode suspended: no room for the next event now", null, false, false);
    }
}
