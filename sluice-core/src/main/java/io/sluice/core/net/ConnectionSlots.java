package io.sluice.core.net;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connections a listener serves at once ({@code MaxConnections}): a connection takes a slot when accepted and
 * gives it back when it closes; one beyond the cap is refused before any handler (or TLS handshake) runs.
 */
public final class ConnectionSlots {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    /** At most {@code max} connections at once. */
    public ConnectionSlots(int max) {
        this.max = max;
    }

    /** Takes a slot for {@code ch}, given back when it closes; false, with nothing taken, when all are in use. */
    public boolean take(Channel ch) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    /** Open connections (those refused not counted). */
    public int open() {
        return open.get();
    }

    /** The cap. */
    public int max() {
        return max;
    }

    /**
     * Refuses a connection that got no slot: writes {@code answer} (a whole response, see
     * {@link io.sluice.core.net.http.HttpResponses#raw}) and closes, or closes at once when it is null.
     */
    public static void refuse(Channel ch, byte[] answer) {
        if (answer == null) {
            ch.close();
        } else {
            ch.writeAndFlush(Unpooled.wrappedBuffer(answer)).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
