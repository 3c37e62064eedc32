package io.sluice.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.net.HostPort.Transport;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.Test;

class HostPortTest {
    @Test
    void readsEverySpellingUsersWrite() {
        HostPort a = HostPort.parse("127.0.0.1:24224");
        assertThat(a.transport()).isEqualTo(Transport.TCP);
        assertThat(a.host()).isEqualTo("127.0.0.1");
        assertThat(a.port()).isEqualTo(24224);
        assertThat(HostPort.parse(":8088").host()).isEqualTo("0.0.0.0");
        HostPort v6 = HostPort.parse("[::1]:4317");
        assertThat(v6.host()).isEqualTo("::1");
        assertThat(v6.authority()).isEqualTo("[::1]:4317");
        assertThat(HostPort.parse("tcp6://[::1]:5").toString()).isEqualTo("tcp://[::1]:5");
        HostPort udp = HostPort.parse("udp://0.0.0.0:514", Transport.TCP);
        assertThat(udp.transport()).isEqualTo(Transport.UDP);
        assertThat(udp.socketAddress()).isEqualTo(new InetSocketAddress("0.0.0.0", 514));
        HostPort unix = HostPort.parse("unix:///run/s.sock", Transport.TCP);
        assertThat(unix.path()).isEqualTo("/run/s.sock");
        assertThat(unix.socketAddress()).isEqualTo(UnixDomainSocketAddress.of("/run/s.sock"));
        assertThat(HostPort.parse("localhost:1", Transport.UDP).transport()).isEqualTo(Transport.UDP);
    }

    @Test
    void badAddressesSayWhatIsWrong() {
        assertThatThrownBy(() -> HostPort.parse("localhost")).hasMessageContaining("expected host:port");
        assertThatThrownBy(() -> HostPort.parse("host:http")).hasMessageContaining("port number");
        assertThatThrownBy(() -> HostPort.parse("host:70000")).hasMessageContaining("out of range");
        assertThatThrownBy(() -> HostPort.parse("sctp://host:1")).hasMessageContaining("unknown protocol 'sctp'");
        assertThatThrownBy(() -> HostPort.parse("unix://", Transport.TCP)).hasMessageContaining("needs a path");
        assertThatThrownBy(() -> HostPort.parse("udp://h:1")).hasMessageContaining("expected a TCP address");
    }
}
