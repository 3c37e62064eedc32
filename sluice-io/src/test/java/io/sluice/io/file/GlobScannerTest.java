package io.sluice.io.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GlobScannerTest {
    @TempDir
    Path dir;

    private Path file(String name) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "x\n");
        return p;
    }

    @Test
    void globsMatchOneFolderOrAcrossFoldersAndTheBlackListLeavesPathsOut() throws Exception {
        Path a = file("a.log");
        Path b = file("b.log");
        file("c.txt");
        Path deep = file("x/y/deep.log");
        Path skipped = file("x/skip.log");
        Files.createDirectories(dir.resolve("folder.log"));

        assertThat(new GlobScanner(List.of(dir + "/*.log"), null).scan()).containsExactlyInAnyOrder(a, b);
        assertThat(new GlobScanner(List.of(dir + "/?.log"), null).scan()).containsExactlyInAnyOrder(a, b);
        assertThat(new GlobScanner(List.of(dir + "/**.log"), Pattern.compile("skip")).scan())
                .containsExactlyInAnyOrder(a, b, deep);
        assertThat(new GlobScanner(List.of(dir + "/x/*/*.log"), null).scan()).containsExactly(deep);
        // A plain path is a file or nothing; a folder named like a log is never read.
        assertThat(new GlobScanner(List.of(a.toString(), dir + "/missing.log", dir + "/folder.log"), null).scan())
                .containsExactly(a);
        assertThat(new GlobScanner(List.of(dir + "/none/*.log"), null).scan()).isEmpty();
        assertThat(skipped).exists();
    }

    @Test
    void wildcardsMakeAGlob() {
        assertThat(GlobScanner.isGlob("/var/log/*.log")).isTrue();
        assertThat(GlobScanner.isGlob("/var/log/app?.log")).isTrue();
        assertThat(GlobScanner.isGlob("/var/log/app[12].log")).isTrue();
        assertThat(GlobScanner.isGlob("/var/log/{a,b}.log")).isTrue();
        assertThat(GlobScanner.isGlob("/var/log/app.log")).isFalse();
    }
}
