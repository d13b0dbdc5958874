package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.rocketmqrebalance.internal.ExtractedLibrary;
import io.github.rocketmqrebalance.internal.Native;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

/** The library loads from the jar's resources, and jar, library and Cargo agree on the version. */
class LoaderTest {
    @Test
    void versionsAgree() throws Exception {
        String cargo = new String(Files.readAllBytes(Paths.get("../../Cargo.toml")), "UTF-8");
        Matcher m = Pattern.compile("(?m)^version = \"([^\"]+)\"").matcher(cargo);
        m.find();
        assertEquals(m.group(1), Native.VERSION, "jar version (pom.xml) vs Cargo.toml");
        assertEquals(m.group(1), Native.version(), "native library vs Cargo.toml");
    }

    @Test
    void errorsAreTheOriginalsExceptions() {
        List<MessageQueue> queues = Arrays.asList(new MessageQueue("T", "hz@b", 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new NativeAllocateMessageQueueConsistentHash().allocate("g", "", queues, Collections.singletonList("a")));
        assertEquals("currentCID is empty", e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> new NativeAllocateMessageQueueAveragely().allocate("g", "a", Collections.emptyList(), Collections.singletonList("a")));
        // MACHINE_ROOM with no idc set meets an idc@broker name: NullPointerException, as the original.
        assertThrows(NullPointerException.class,
            () -> new NativeAllocateMessageQueueByMachineRoom().allocate("g", "a", queues, Collections.singletonList("a")));
        assertThrows(NullPointerException.class, () -> new NativeAllocateMachineRoomNearby(null, Pairs.separators("-", "@")));
    }

    /**
     * One file per content, reused: what a JVM killed with kill -9 (no exit hooks) leaves is the
     * one file the next JVM loads again, not one more; a file of the same name with other bytes
     * (a torn or tampered copy) is replaced, never loaded.
     */
    @Test
    void theLibraryIsExtractedOncePerContent() throws Exception {
        File dir = Files.createTempDirectory("rmq-extract").toFile();
        byte[] library = "the library".getBytes("UTF-8");
        File first = ExtractedLibrary.extracted(library, dir, "libx-1.0", ".so");
        long written = first.lastModified();
        File again = ExtractedLibrary.extracted(library, dir, "libx-1.0", ".so");
        assertEquals(first, again);
        assertEquals(written, again.lastModified(), "reused, not written again");
        assertEquals(1, dir.listFiles().length);
        Files.write(first.toPath(), "torn".getBytes("UTF-8"));
        File repaired = ExtractedLibrary.extracted(library, dir, "libx-1.0", ".so");
        assertEquals(first, repaired);
        assertEquals("the library", new String(Files.readAllBytes(repaired.toPath()), "UTF-8"));
        File other = ExtractedLibrary.extracted("another build".getBytes("UTF-8"), dir, "libx-1.0", ".so");
        assertNotEquals(first, other);
        assertEquals(2, dir.listFiles().length, "no partial file is left behind");
        // This JVM loaded the jar's own library from the same folder, by the same rule.
        File[] loaded = ExtractedLibrary.defaultFolder().listFiles((d, name) -> name.startsWith("lib" + Native.LIBRARY + "-" + Native.VERSION + "-"));
        assertTrue(loaded != null && loaded.length >= 1, "the jar's library extracted to " + ExtractedLibrary.defaultFolder());
    }
}
