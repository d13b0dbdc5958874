package io.github.rocketmqrebalance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
}
