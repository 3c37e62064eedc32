package io.sluice.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Go time layouts (format.Timestamp, ProcessJSON's time directives) as Java patterns. */
class GoLayoutTest {
    @Test
    void translatesGollumDefaultsAndQuotesLiterals() {
        assertThat(GoLayout.parse("2006-01-02 15:04:05 MST | ").javaPattern()).isEqualTo("yyyy'-'MM'-'dd' 'HH':'mm':'ss' 'z' | '");
        assertThat(GoLayout.parse("2006-01-02T15:04:05.000Z07:00").javaPattern()).isEqualTo("yyyy'-'MM'-'dd'T'HH':'mm':'ss.SSSXXX");
        assertThat(GoLayout.parse("Jan _2 03:04:05PM").javaPattern()).isEqualTo("MMM' 'ppd' 'hh':'mm':'ssa");
        assertThat(GoLayout.parse("it's 15h").javaPattern()).isEqualTo("'it''s 'HH'h'");
        assertThat(GoLayout.parse("05.000000").fractionDigits()).isEqualTo(6);
    }
}
