package io.sluice.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The registry itself: what is parked when, under which address, and what a taker of another kind gets. */
class ListenerHandoverTest {
    @Test
    void nothingIsParkedOutsideAHoldNorAtPortZero() throws Exception {
        try (ServerSocketChannel ch = ServerSocketChannel.open()) {
            ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress bound = (InetSocketAddress) ch.getLocalAddress();
            assertThat(ListenerHandover.park(ListenerHandover.at("tcp", bound), ch)).isFalse();
            assertThat(ListenerHandover.at("tcp", new InetSocketAddress("127.0.0.1", 0))).isNull();
            assertThat(ListenerHandover.at("tcp", InetSocketAddress.createUnresolved("no.such.host", 80))).isNull();
        }
    }

    @Test
    void tcpAndUdpOnOnePortAreTwoAddresses() throws Exception {
        try (ListenerHold hold = ListenerHandover.hold();
                ServerSocketChannel tcp = ServerSocketChannel.open();
                DatagramChannel udp = DatagramChannel.open()) {
            tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress at = (InetSocketAddress) tcp.getLocalAddress();
            udp.bind(at);
            assertThat(ListenerHandover.park(ListenerHandover.at("tcp", at), tcp)).isTrue();
            assertThat(ListenerHandover.park(ListenerHandover.at("udp", at), udp)).isTrue();
            assertThat(ListenerHandover.take(ListenerHandover.at("udp", at), DatagramChannel.class)).isSameAs(udp);
            assertThat(ListenerHandover.take(ListenerHandover.at("tcp", at), ServerSocketChannel.class)).isSameAs(tcp);
            assertThat(ListenerHandover.take(ListenerHandover.at("tcp", at), ServerSocketChannel.class)).isNull();
        }
    }

    @Test
    void aTakerOfAnotherKindGetsTheAddressFreedAndBindsAfresh() throws Exception {
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ListenerHold hold = ListenerHandover.hold()) {
            ServerSocketChannel plain = ServerSocketChannel.open();
            plain.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            InetSocketAddress at = (InetSocketAddress) plain.getLocalAddress();
            assertThat(ListenerHandover.park(ListenerHandover.at("tcp", at), plain)).isTrue();
            // a java.nio listener (consumer.Socket) replaced by a Netty one (consumer.HEC) on the same port
            ServerListener netty = ServerListener.bind("127.0.0.1", at.getPort(), 16,
                    new ChildSetup(workers, ch -> { }), "");
            assertThat(plain.isOpen()).isFalse();
            assertThat(netty.localAddress().getPort()).isEqualTo(at.getPort());
            netty.close();
        } finally {
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
