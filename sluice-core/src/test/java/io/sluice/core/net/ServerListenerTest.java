package io.sluice.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.sluice.core.testing.ConnectLoop;
import io.sluice.core.testing.PipelineHarness;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Listeners handed over under a {@link ListenerHandover#hold()}: each test server answers every connection with
 * its own letter, so a client sees which server accepted it.
 */
@Timeout(60)
class ServerListenerTest {
    private final List<EventLoopGroup> groups = new ArrayList<>();

    @AfterEach
    void shutdown() {
        groups.forEach(g -> g.shutdownGracefully(0, 1, TimeUnit.SECONDS));
    }

    @Test
    void aServerStoppedUnderAHoldLeavesItsSocketToTheNextOneAndNoConnectionIsRefused() throws Exception {
        EventLoopGroup workersA = group();
        ServerListener a = ServerListener.bind("127.0.0.1", 0, 128, answering(workersA, 'A'), "");
        int port = a.localAddress().getPort();
        assertThat(answer(port)).isEqualTo('A');
        ServerListener b;
        try (ConnectLoop loop = new ConnectLoop(port)) {
            loop.awaitMore(20);
            Socket early;
            try (ListenerHold hold = ListenerHandover.hold()) {
                a.close();
                workersA.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly(); // as a stopping server does
                assertThat(a.isActive()).isFalse();
                early = new Socket("127.0.0.1", port); // parked: the kernel still completes the connection
                loop.awaitMore(20);
                b = ServerListener.bind("127.0.0.1", port, 128, answering(group(), 'B'), "");
            }
            loop.awaitMore(20);
            assertThat(loop.refused()).isZero();
            early.setSoTimeout(10_000);
            assertThat((char) early.getInputStream().read()).as("a connection made while parked goes to B")
                    .isEqualTo('B');
            early.close();
        }
        assertThat(b.isActive()).isTrue();
        assertThat(b.localAddress().getPort()).isEqualTo(port);
        assertThat(answer(port)).isEqualTo('B');
        b.close();
        ConnectLoop.awaitRefused(port);
    }

    @Test
    void outsideAHoldClosingFreesThePort() throws Exception {
        ServerListener a = ServerListener.bind("127.0.0.1", 0, 128, answering(group(), 'A'), "");
        int port = a.localAddress().getPort();
        a.close();
        assertThat(a.closeFuture().isDone()).isTrue();
        ConnectLoop.awaitRefused(port);
        try (ServerSocket again = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void theLastHoldClosesWhatNobodyTookAndThatIsNotALoss() throws Exception {
        ServerListener a = ServerListener.bind("127.0.0.1", 0, 128, answering(group(), 'A'), "");
        int port = a.localAddress().getPort();
        AtomicReference<Throwable> lost = new AtomicReference<>();
        a.onLost(() -> false, lost::set);
        ListenerHold outer = ListenerHandover.hold();
        try {
            try (ListenerHold inner = ListenerHandover.hold()) {
                a.close();
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                assertThat(s.isConnected()).as("still parked while the outer hold is open").isTrue();
            }
        } finally {
            outer.close();
        }
        outer.close(); // twice is harmless: the count must not go below zero
        ConnectLoop.awaitRefused(port);
        assertThat(lost.get()).isNull();
        assertThat(ListenerHandover.holding()).isFalse();
    }

    @Test
    void aSocketClosedUnderItsServerIsReportedLost() throws Exception {
        ServerListener a = ServerListener.bind("127.0.0.1", 0, 128, answering(group(), 'A'), "");
        AtomicReference<Throwable> lost = new AtomicReference<>();
        a.onLost(() -> false, lost::set);
        a.channel().close().syncUninterruptibly();
        PipelineHarness.await("the loss reported", 10_000, () -> lost.get() != null);
        assertThat(a.closeFuture().isDone()).isTrue();
        assertThat(a.isActive()).isFalse();
    }

    @Test
    void anAddressInUseIsNamed() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> ServerListener.bind("127.0.0.1", taken.getLocalPort(), 128,
                    answering(group(), 'A'), " (test)"))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + taken.getLocalPort() + " (test): ");
        }
    }

    private EventLoopGroup group() {
        EventLoopGroup g = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        groups.add(g);
        return g;
    }

    /** A server that writes {@code letter} to every connection and closes it. */
    private static ChildSetup answering(EventLoopGroup workers, char letter) {
        return new ChildSetup(workers, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {(byte) letter}))
                        .addListener(ChannelFutureListener.CLOSE);
            }
        }));
    }

    private static char answer(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            return (char) s.getInputStream().read();
        }
    }
}
