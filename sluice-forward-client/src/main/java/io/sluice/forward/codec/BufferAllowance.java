package io.sluice.forward.codec;

/**
 * Asked before a decoder's reused buffer grows (the gzip output of a CompressedPackedForward frame), so a server
 * can count that memory against a budget and refuse it. Told when the buffer shrinks back.
 */
public interface BufferAllowance {
    /** Grants everything: a client or a test that counts nothing. */
    BufferAllowance UNLIMITED = new BufferAllowance() {
        @Override
        public void grow(long bytes) {
        }

        @Override
        public void shrink(long bytes) {
        }
    };

    /**
     * Called before a buffer grows by {@code bytes}. To refuse, throw: {@link DecodeSuspendedException} when there
     * is no room now (the decode stops and can be resumed with {@link ForwardDecoder#resume}), or any other
     * unchecked exception to fail the decode.
     */
    void grow(long bytes);

    /** A buffer shrank by {@code bytes}, granted earlier through {@link #grow}. */
    void shrink(long bytes);
}
