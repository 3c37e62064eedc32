package io.sluice.forward.consumer;

import io.sluice.core.message.MemoryBudget;
import io.sluice.core.pipeline.Log;
import io.sluice.core.pipeline.Rejection;
import io.sluice.forward.FrameDecoder;
import io.sluice.forward.OverBudgetException;
import io.sluice.forward.codec.ForwardProtocolException;
import io.sluice.forward.codec.FrameTooLargeException;
import io.sluice.forward.codec.PayloadTooLargeException;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import javax.net.ssl.SSLException;

/**
 * What a failure that closes a {@code consumer.Forward} connection is counted as: the {@link Rejection} reason and
 * message for what the peer sent (before the handshake, everything it gets wrong counts as AUTH), a rate-limited log
 * line for network errors and surprises.
 */
final class ConnectionErrors {
    private ConnectionErrors() {
    }

    /** Counts (or logs) {@code c}, which closes the connection from {@code peer}. */
    static void report(ForwardServer server, String peer, boolean authenticated, Throwable c, MemoryBudget budget) {
        String id = server.settings().id();
        if (c instanceof FrameDecoder.BufferLimitException) {
            server.context().reject(Rejection.AUTH, peer, "not authenticated and " + c.getMessage()
                    + " before the handshake; connection closed");
        } else if (c instanceof FrameTooLargeException f) {
            server.context().reject(authenticated ? Rejection.TOO_LARGE : Rejection.AUTH, peer,
                    "frame larger than MaxMessageSize (" + f.maxFrameBytes() + " bytes), refused at its header: "
                            + c.getMessage() + "; connection closed");
        } else if (c instanceof PayloadTooLargeException p) {
            server.context().reject(Rejection.TOO_LARGE, peer, "CompressedPackedForward payload larger than "
                    + "MaxDecompressedSize (" + p.maxBytes() + " bytes) once inflated; connection closed");
        } else if (c instanceof OverBudgetException) {
            server.context().reject(authenticated ? Rejection.TOO_LARGE : Rejection.AUTH, peer, c.getMessage()
                    + " (limit " + budget.limit() + " bytes); connection closed");
        } else if (c instanceof ForwardProtocolException) {
            server.context().reject(authenticated ? Rejection.MALFORMED : Rejection.AUTH, peer,
                    (authenticated ? "malformed Forward frame " : "malformed PING ") + c.getMessage()
                            + "; connection closed");
        } else if (c instanceof NotSslRecordException) {
            server.context().reject(Rejection.MALFORMED, peer, "TLS failed: " + c.getMessage() + "; connection closed");
        } else if (c instanceof SSLException) {
            server.context().reject(Rejection.AUTH, peer, "TLS failed: " + c.getMessage() + "; connection closed");
        } else if (c instanceof IOException) {
            server.log().limited(Log.DEBUG, id + ": connection error", id + ": connection from " + peer + " failed: " + c);
        } else {
            server.log().limited(Log.ERROR, id + ": unexpected error", id + ": closing connection from " + peer
                    + " after an unexpected error: " + c);
        }
    }

    /** Whether what an unauthenticated peer sent (not TLS, not the network) is a failed handshake attempt. */
    static boolean failsHandshake(Throwable c) {
        return c instanceof FrameDecoder.BufferLimitException || c instanceof FrameTooLargeException
                || c instanceof OverBudgetException || c instanceof ForwardProtocolException;
    }
}
