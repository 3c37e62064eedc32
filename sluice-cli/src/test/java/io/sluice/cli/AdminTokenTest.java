package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminTokenTest {
    @TempDir
    Path dir;

    @Test
    void theOptionWinsThenTheFileThenTheEnvironment() throws Exception {
        Path file = Files.writeString(dir.resolve("t"), "from-file\n");
        Map<String, String> env = Map.of(AdminToken.ENV, "from-env");
        assertThat(AdminToken.resolve("from-option", null, env)).isEqualTo("from-option");
        assertThat(AdminToken.resolve(null, file, env)).as("the line end stripped").isEqualTo("from-file");
        assertThat(AdminToken.resolve(null, null, env)).isEqualTo("from-env");
        assertThat(AdminToken.resolve(null, null, Map.of())).isNull();
        assertThat(AdminToken.resolve(null, null, Map.of(AdminToken.ENV, " "))).as("an empty variable is unset").isNull();
    }

    @Test
    void mistakesAreConfigErrors() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertThatThrownBy(() -> AdminToken.resolve("a", empty, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("give one");
        assertThatThrownBy(() -> AdminToken.resolve(null, empty, Map.of())).hasMessageContaining("empty");
        assertThatThrownBy(() -> AdminToken.resolve(null, dir.resolve("missing"), Map.of())).hasMessageContaining("cannot read");
        assertThatThrownBy(() -> AdminToken.resolve("two words", null, Map.of())).hasMessageContaining("one word");
        assertThatThrownBy(() -> AdminToken.resolve("", null, Map.of())).hasMessageContaining("empty");
    }
}
