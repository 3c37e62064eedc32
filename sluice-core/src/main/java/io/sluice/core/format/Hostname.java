package io.sluice.core.format;

import io.sluice.core.config.Param;
import io.sluice.core.config.PluginConfig;
import io.sluice.core.config.PluginKind;
import io.sluice.core.config.PluginSpec;
import io.sluice.core.message.Message;
import io.sluice.core.message.Metadata;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** {@code format.Hostname}: prefixes the content with this machine's host name and Separator. */
public final class Hostname extends SimpleFormatter {
    public static final Param<String> SEPARATOR = Param.string("Separator", ":",
            "Put between the host name and the data.");
    public static final PluginSpec SPEC = PluginSpec.builder(PluginKind.MODULATOR, "format.Hostname",
            "Prefixes the message or a metadata field with the host name.")
            .params(params(SEPARATOR))
            .factory(Hostname::new);

    private final byte[] prefix;
    private byte[] scratch = new byte[256];

    public Hostname(PluginConfig config) {
        super(config);
        byte[] host = hostName().getBytes(StandardCharsets.UTF_8);
        byte[] sep = config.get(SEPARATOR).getBytes(StandardCharsets.UTF_8);
        this.prefix = Arrays.copyOf(host, host.length + sep.length);
        System.arraycopy(sep, 0, prefix, host.length, sep.length);
    }

    /** The host name, looked up once per process (the lookup may be slow); "unknown host" as Gollum if none. */
    static String hostName() {
        return Host.NAME;
    }

    /** Lazily initialised holder: the lookup happens on first use, once. */
    private static final class Host {
        static final String NAME = lookup();
    }

    private static String lookup() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isEmpty() ? "unknown host" : env;
        }
    }

    @Override
    protected Result apply(Message m) {
        source.read(m);
        if (source.isPayload() && target.isPayload()) {
            m.prepend(prefix, 0, prefix.length);
            return Result.CONTINUE;
        }
        int len = prefix.length + source.len;
        if (scratch.length < len) {
            scratch = new byte[Math.max(len, scratch.length * 2)];
        }
        System.arraycopy(prefix, 0, scratch, 0, prefix.length);
        System.arraycopy(source.buf, source.off, scratch, prefix.length, source.len);
        target.write(m, scratch, 0, len, Metadata.STRING);
        return Result.CONTINUE;
    }
}
