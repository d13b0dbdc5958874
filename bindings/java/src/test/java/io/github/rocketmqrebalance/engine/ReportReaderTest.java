package io.github.rocketmqrebalance.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.rocketmqrebalance.internal.Native;
import io.github.rocketmqrebalance.NativeAllocateMessageQueueAveragely;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reader against the core's example reports, which fill every field the core can report. */
class ReportReaderTest {
    @BeforeAll
    static void loadTheLibrary() {
        new NativeAllocateMessageQueueAveragely().strategyId(); // the strategies' registration loads the native library
    }

    @Test
    void everyFieldTheCoreReportsIsRead() {
        RoundReport round = ReportReader.round(Native.reportExample(0));
        assertTrue(round.released.get(0).lockLost);
        assertEquals(1, round.deferred.get(0).waitingMs);
        assertEquals("x", round.skipped.get(0).detail);
        assertEquals(2, round.warnings.size());
        assertEquals(1, ReportReader.lock(Native.reportExample(1)).warnings.size());
        QueueState state = ReportReader.held(Native.reportExample(2)).values().iterator().next();
        assertEquals(Long.valueOf(5), state.deferredSinceMs);
    }

    /** A field added to a report without its reader fails at once, naming the field. */
    @Test
    void aFieldTheReaderDoesNotReadIsRefused() {
        String round = Native.reportExample(0);
        for (String object : new String[] {"{\"topic\"", "{\"queue\""}) {
            String widened = round.replaceFirst(java.util.regex.Pattern.quote(object), "{\"added_in_rust\":1," + object.substring(1));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ReportReader.round(widened));
            assertTrue(e.getMessage().contains("added_in_rust"), e.getMessage());
        }
        String lock = Native.reportExample(1).replaceFirst("\\{", "{\"added_in_rust\":1,");
        assertThrows(IllegalStateException.class, () -> ReportReader.lock(lock));
    }
}
