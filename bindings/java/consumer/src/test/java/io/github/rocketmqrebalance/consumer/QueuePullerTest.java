package io.github.rocketmqrebalance.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.PullCallback;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link QueuePuller} over a stand-in for the broker whose answers the test gives, in the order it
 * chooses: each queue's answers reach the sink in order and only for the current fetch, a seek
 * does not wait for the pull in flight, a pause lets the pull in flight land and issues no next
 * one, a stop drops what is in flight, failures are retried from the same offset.
 *
 * <p>That no pull was issued is shown without waiting on a clock: every pull is issued from the
 * puller's one thread in the order it was asked for, so once a pull of another queue, asked for
 * afterwards, has been issued, any pull asked for before it has been too ({@link #nothingMoreFor}).
 */
class QueuePullerTest {
    private static final MessageQueue MQ = new MessageQueue("T", "broker-a", 0);
    private static final long WAIT_S = 30;

    /** One pull the puller sent. */
    private static final class Sent {
        final MessageQueue mq;
        final long offset;
        final PullCallback callback;

        Sent(MessageQueue mq, long offset, PullCallback callback) {
            this.mq = mq;
            this.offset = offset;
            this.callback = callback;
        }
    }

    /** The broker: keeps every pull sent until the test answers it; can refuse the next send. */
    private static final class Broker implements QueuePuller.Wire {
        final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
        final AtomicInteger refuseNext = new AtomicInteger();

        @Override
        public void pull(MessageQueue mq, long offset, int max, PullCallback callback) throws Exception {
            if (refuseNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new java.io.IOException("connection refused (test)");
            }
            sent.add(new Sent(mq, offset, callback));
        }

        @Override
        public PullResult decode(MessageQueue mq, PullResult answer) {
            return answer;
        }

        /** The topic FILTERED's subscription filters; the others take every message. */
        @Override
        public boolean filters(MessageQueue mq) {
            return mq.getTopic().equals("FILTERED");
        }

        Sent next() throws InterruptedException {
            Sent s = sent.poll(WAIT_S, TimeUnit.SECONDS);
            assertNotNull(s, "a pull was sent within " + WAIT_S + " s");
            return s;
        }
    }

    private final Broker broker = new Broker();
    /** What the sink got, one "offset,offset,..." line per hand-over. */
    private final List<String> handedOver = Collections.synchronizedList(new ArrayList<>());
    /** The offsets each hand-over answers for, "from-to". */
    private final List<String> covered = Collections.synchronizedList(new ArrayList<>());
    /** What the engine was told is being fetched, "queueId#generation". */
    private final BlockingQueue<String> recorded = new LinkedBlockingQueue<>();
    private final QueuePuller puller = new QueuePuller(broker, "GID_TEST", (mq, messages, from, to, rt) -> {
        StringBuilder line = new StringBuilder();
        for (MessageExt m : messages) {
            line.append(line.length() == 0 ? "" : ",").append(m.getQueueOffset());
        }
        handedOver.add(line.toString());
        covered.add(from + "-" + to);
    }, () -> System.nanoTime() / 1_000_000, 32, 0, (mq, generation, at) -> recorded.add(mq.getQueueId() + "#" + generation));
    private int sentinels;

    @AfterEach
    void shutdown() {
        puller.shutdown();
    }

    private static PullResult found(long from, int count) {
        List<MessageExt> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            MessageExt m = new MessageExt();
            m.setTopic(MQ.getTopic());
            m.setQueueOffset(from + i);
            messages.add(m);
        }
        return new PullResult(PullStatus.FOUND, from + count, 0, from + count, messages);
    }

    private static PullResult none(PullStatus status, long next) {
        return new PullResult(status, next, 0, next, null);
    }

    /** Asserts no pull of {@link #MQ} is sent, beyond what the test already took. */
    private void nothingMoreFor() throws InterruptedException {
        MessageQueue sentinel = new MessageQueue("SENTINEL", "broker-a", sentinels++);
        puller.start(sentinel, 1, 0, 0);
        Sent s = broker.next();
        assertEquals(sentinel, s.mq, "no pull of " + MQ + " was sent before the sentinel's");
        puller.stop(sentinel, 1);
    }

    @Test
    void answersReachTheSinkInOrderAndEachPullStartsWhereTheLastEnded() throws Exception {
        puller.start(MQ, 1, 5, 0);
        Sent first = broker.next();
        assertEquals(5, first.offset);
        first.callback.onSuccess(found(5, 3));
        Sent second = broker.next();
        assertEquals(8, second.offset);
        second.callback.onSuccess(none(PullStatus.NO_NEW_MSG, 8));
        assertEquals(8, broker.next().offset);
        assertEquals(List.of("5,6,7"), handedOver);
        // Without a filter nothing is claimed about the offsets an answer left out.
        assertEquals(List.of("-1--1"), covered);
    }

    @Test
    void offsetsTheFilterPassedOverAreHandedOverAsCovered() throws Exception {
        MessageQueue filtered = new MessageQueue("FILTERED", "broker-a", 0);
        puller.start(filtered, 1, 5, 0);
        // Offsets 5..9 answered with 6 and 9 only: 5, 7 and 8 did not match the subscription.
        List<MessageExt> some = new ArrayList<>();
        for (long offset : new long[] {6, 9}) {
            MessageExt m = new MessageExt();
            m.setTopic(filtered.getTopic());
            m.setQueueOffset(offset);
            some.add(m);
        }
        broker.next().callback.onSuccess(new PullResult(PullStatus.FOUND, 10, 0, 20, some));
        // Then 10..14 with nothing for the filter: nothing to consume, but the offsets are passed.
        Sent second = broker.next();
        assertEquals(10, second.offset);
        second.callback.onSuccess(none(PullStatus.NO_MATCHED_MSG, 15));
        Sent third = broker.next();
        assertEquals(15, third.offset);
        // No new message: nothing handed over, nothing covered.
        third.callback.onSuccess(none(PullStatus.NO_NEW_MSG, 15));
        assertEquals(15, broker.next().offset);
        assertEquals(List.of("6,9", ""), handedOver);
        assertEquals(List.of("5-10", "10-15"), covered);
        puller.stop(filtered, 1);
    }

    @Test
    void aSeekSendsAPullAtOnceAndTheAnswerStillInFlightIsDropped() throws Exception {
        puller.start(MQ, 1, 0, 0);
        Sent parked = broker.next();
        AtomicInteger cleared = new AtomicInteger();
        puller.seek(MQ, 1, 100, cleared::incrementAndGet);
        Sent fresh = broker.next();
        assertEquals(100, fresh.offset, "the seek did not wait for the long poll in flight");
        assertEquals(1, cleared.get());
        parked.callback.onSuccess(found(0, 3));
        nothingMoreFor();
        assertEquals(List.of(), handedOver, "the answer of the fetch before the seek");
        fresh.callback.onSuccess(found(100, 1));
        assertEquals(101, broker.next().offset);
        assertEquals(List.of("100"), handedOver);
        // A seek for another generation of the queue is not this fetch's.
        puller.seek(MQ, 2, 0, cleared::incrementAndGet);
        nothingMoreFor();
        assertEquals(1, cleared.get());
    }

    @Test
    void aDelayedSeekSendsItsPullOnlyAfterTheDelayFromTheListenersPosition() throws Exception {
        // The listener could not consume what was fetched (its lock lapsed): fetch again from
        // where it is, later, even if no newer message ever shows the gap.
        puller.start(MQ, 1, 0, 0);
        Sent parked = broker.next();
        AtomicInteger cleared = new AtomicInteger();
        puller.seek(MQ, 1, 7, cleared::incrementAndGet, 3_000);
        assertEquals(1, cleared.get());
        // The sentinel, started after the seek, is pulled first: the seek's pull waits.
        nothingMoreFor();
        parked.callback.onSuccess(found(0, 3));
        Sent again = broker.next();
        assertEquals(MQ, again.mq);
        assertEquals(7, again.offset, "fetched again from the listener's position");
        assertEquals(List.of(), handedOver, "the answer of the fetch before the seek");
    }

    @Test
    void aPausedQueueLandsItsPullAndSendsNoNextUntilResumed() throws Exception {
        puller.start(MQ, 1, 0, 0);
        Sent inFlight = broker.next();
        puller.pause(MQ);
        inFlight.callback.onSuccess(found(0, 2));
        assertEquals(List.of("0,1"), handedOver);
        nothingMoreFor();
        puller.resume(MQ);
        assertEquals(2, broker.next().offset);
    }

    @Test
    void aStoppedFetchDropsItsAnswerAndPullsNoMore() throws Exception {
        puller.start(MQ, 1, 0, 0);
        Sent inFlight = broker.next();
        puller.stop(MQ, 2); // another generation's stop: not this fetch
        puller.stop(MQ, 1);
        inFlight.callback.onSuccess(found(0, 2));
        nothingMoreFor();
        assertEquals(List.of(), handedOver);
        // Taken again as a new generation: fetched from where that one starts.
        puller.start(MQ, 3, 2, 0);
        Sent again = broker.next();
        assertEquals(2, again.offset);
        again.callback.onSuccess(found(2, 1));
        assertEquals(List.of("2"), handedOver);
    }

    @Test
    void failedPullsAreSentAgainFromTheSameOffset() throws Exception {
        puller.start(MQ, 1, 7, 0);
        broker.next().callback.onException(new java.io.IOException("timeout (test)"));
        Sent retried = broker.next();
        assertEquals(7, retried.offset, "after an answer that failed");
        broker.refuseNext.set(1);
        retried.callback.onSuccess(found(7, 1));
        assertEquals(8, broker.next().offset, "after a send that failed");
        assertEquals(List.of("7"), handedOver);
    }

    @Test
    void anIllegalOffsetMovesToWhereTheBrokerPoints() throws Exception {
        puller.start(MQ, 1, 3, 0);
        broker.next().callback.onSuccess(none(PullStatus.OFFSET_ILLEGAL, 50));
        assertEquals(50, broker.next().offset);
        assertEquals(List.of(), handedOver);
    }

    @Test
    void theEngineIsToldWhichStatesAreBeingFetched() throws Exception {
        puller.start(MQ, 4, 0, 0);
        broker.next();
        String first = recorded.poll(WAIT_S, TimeUnit.SECONDS);
        assertTrue("0#4".equals(first), "recorded " + first);
    }

    @Test
    void aSuspendedPullerLandsThePullInFlightAndIssuesNoneUntilResumed() throws Exception {
        puller.start(MQ, 1, 0, 0);
        Sent inFlight = broker.next();
        puller.suspend();
        inFlight.callback.onSuccess(found(0, 2));
        assertEquals(List.of("0,1"), handedOver, "what was in flight is handed over, as the push consumer's suspend lets it");
        // A pull issued while suspended would be sent at once; none comes (nothing here waits on it to pass).
        assertNull(broker.sent.poll(1, TimeUnit.SECONDS), "no pull while suspended");
        puller.resume();
        assertEquals(2, broker.next().offset, "resumed where the last answer ended");
    }

    @Test
    void thePullIntervalFollowsOnlyAnAnswerWithMessages() throws Exception {
        QueuePuller slow = new QueuePuller(broker, "GID_TEST", (mq, messages, from, to, rt) -> handedOver.add(String.valueOf(messages.size())),
            () -> System.nanoTime() / 1_000_000, 32, 60_000, (mq, generation, at) -> { });
        try {
            slow.start(MQ, 1, 0, 0);
            broker.next().callback.onSuccess(none(PullStatus.NO_NEW_MSG, 0));
            Sent afterNothing = broker.next(); // at once: nothing came
            afterNothing.callback.onSuccess(found(0, 1));
            assertNull(broker.sent.poll(1, TimeUnit.SECONDS), "the next pull waits the 60 s interval");
            assertEquals(List.of("1"), handedOver);
        } finally {
            slow.shutdown();
        }
    }
}
