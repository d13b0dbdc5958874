package io.github.rocketmqrebalance.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The files the processes leave for the drivers under tests/e2e/drivers to poll. */
public final class StateFile {
    private StateFile() {
    }

    /** Writes through a temporary file and a rename, so a polling reader sees the old or the new text. */
    public static void writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
