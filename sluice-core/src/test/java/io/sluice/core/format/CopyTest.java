package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import io.sluice.core.message.Message;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.Copy: Gollum's doc example and tests, then Sluice's own cases. */
class CopyTest {
    /**
     * Gollum's doc: "copies the payload to the field key" (the example then hashes the key with
     * format.Identifier, which Sluice does not have).
     */
    @Test
    void gollumDocExample_payloadToTheKeyField() {
        Message m = message("payload");
        mod("format.Copy", Map.of("Target", "key")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("payload");
        assertThat(m.payloadString()).isEqualTo("payload");
    }

    /** Gollum's TestCopyReplace, TestCopyAppend and TestCopyPrepend: a field onto the payload. */
    @Test
    void gollumTests_fieldOntoThePayloadInEachMode() {
        Message replace = message("not applied");
        replace.metadata().setString("foo", "foo");
        mod("format.Copy", Map.of("Source", "foo")).modulate(replace);
        assertThat(replace.payloadString()).isEqualTo("foo");
        Message append = message("test");
        append.metadata().setString("foo", "foo");
        mod("format.Copy", Map.of("Source", "foo", "Mode", "append", "Separator", " ")).modulate(append);
        assertThat(append.payloadString()).isEqualTo("test foo");
        Message prepend = message("test");
        prepend.metadata().setString("foo", "foo");
        mod("format.Copy", Map.of("Source", "foo", "Mode", "prepend")).modulate(prepend);
        assertThat(prepend.payloadString()).isEqualTo("footest");
    }

    /** Gollum's TestCopyMetadataIntegrity and TestCopyPayloadIntegrity: the copy is not shared with its source. */
    @Test
    void gollumTests_theCopyIsIndependentOfItsSource() {
        Message m = message("payload");
        mod("format.Copy", Map.of("Target", "foo")).modulate(m);
        m.setPayload("xxx");
        assertThat(m.metadata().getString("foo")).isEqualTo("payload");
        Message n = message("");
        n.metadata().setString("foo", "metadata");
        mod("format.Copy", Map.of("Source", "foo")).modulate(n);
        n.metadata().setString("foo", "xxx");
        assertThat(n.payloadString()).isEqualTo("metadata");
    }

    @Test
    void modesAndSeparator() {
        Message m = message("payload");
        mod("format.Copy", Map.of("Target", "key")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("payload");
        mod("format.Copy", Map.of("Target", "key", "Mode", "append", "Separator", "-")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("payload-payload");
        m.setPayload("P");
        mod("format.Copy", Map.of("Target", "key", "Mode", "PREPEND", "Separator", "+")).modulate(m);
        assertThat(m.metadata().getString("key")).isEqualTo("P+payload-payload");
        mod("format.Copy", Map.of("Source", "key", "Mode", "append")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("PP+payload-payload");
        assertThatThrownBy(() -> mod("format.Copy", Map.of("Mode", "merge"))).isInstanceOf(ConfigException.class);
    }

    @Test
    void nestedSourcePathsAreReadable() {
        Message m = message("a:b");
        mod("format.SplitToFields", Map.of("Target", "v", "Delimiter", ":", "Fields", List.of("x", "y"))).modulate(m);
        mod("format.Copy", Map.of("Source", "v/y")).modulate(m);
        assertThat(m.payloadString()).isEqualTo("b");
    }
}
