package io.sluice.core.format;

import static io.sluice.core.format.Fixtures.message;
import static io.sluice.core.format.Fixtures.mod;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.message.Message;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** format.SplitToFields: Gollum's doc example and tests, then Sluice's own cases. */
class SplitToFieldsTest {
    /** Gollum's doc: split by ":" into up to three fields first, second, third below the field values. */
    @Test
    void gollumDocExample_intoANestedTarget() {
        Message m = message("a:b:c:d");
        mod("format.SplitToFields", Map.of("Target", "values", "Delimiter", ":",
                "Fields", List.of("first", "second", "third"))).modulate(m);
        assertThat(m.metadata().getString("values")).isEqualTo("{\"first\":\"a\",\"second\":\"b\",\"third\":\"c\"}");
        assertThat(m.metadata().getString("values/second")).isNull(); // paths are for reading sources
    }

    /** Gollum's TestSplitToFieldsMoreValues and TestSplitToFieldsLessValues (default delimiter ","). */
    @Test
    void gollumTests_moreOrFewerValuesThanFields() {
        Message more = message("1,2,3,4");
        mod("format.SplitToFields", Map.of("Target", "values", "Fields", List.of("one", "two", "three"))).modulate(more);
        assertThat(more.metadata().getString("values")).isEqualTo("{\"one\":\"1\",\"two\":\"2\",\"three\":\"3\"}");
        Message less = message("1,2");
        mod("format.SplitToFields", Map.of("Target", "values", "Fields", List.of("one", "two", "three"))).modulate(less);
        assertThat(less.metadata().getString("values")).isEqualTo("{\"one\":\"1\",\"two\":\"2\"}");
    }

    @Test
    void intoTheRootAndByRunes() {
        Message few = message("x,y");
        mod("format.SplitToFields", Map.of("Fields", List.of("f1", "f2", "f3"))).modulate(few);
        assertThat(few.metadata().toString()).isEqualTo("{f1=x, f2=y}");
        Message runes = message("aé");
        mod("format.SplitToFields", Map.of("Delimiter", "", "Fields", List.of("c1", "c2"))).modulate(runes);
        assertThat(runes.metadata().toString()).isEqualTo("{c1=a, c2=é}");
    }
}
