package io.github.rocketmqrebalance.consumer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.github.rocketmqrebalance.engine.LockReport;
import io.github.rocketmqrebalance.engine.QueueState;
import io.github.rocketmqrebalance.engine.RebalanceConfig;
import io.github.rocketmqrebalance.engine.Rebalancer;
import io.github.rocketmqrebalance.engine.RoundReport;
import io.github.rocketmqrebalance.engine.TopicView;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.store.OffsetStore;
import org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore;
import org.apache.rocketmq.client.hook.ConsumeMessageHook;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.NamespaceUtil;
import org.apache.rocketmq.remoting.protocol.body.ConsumeStatus;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;

/**
 * A started {@link SafeOrderlyConsumer}: its parts built once, in the order each needs the one
 * before (the client, the offset store, the engine, the broker watch, the listener's side with its
 * fetching and consume pool, the engine's host, the offset commits), then its timers. The
 * rebalance thread runs every engine call (a round, lock renewal, periodic commit, broker restart
 * and the shutdown), one at a time, and nothing that waits on the NameServer: a round's view (the
 * routes from the NameServer, the member lists from the brokers) is read on the route thread,
 * which hands it to the rebalance thread. A NameServer out of reach can hold a lookup for seconds
 * at a time, retried every second; on the rebalance thread it held lock renewal and commits back
 * until the listener's 30 s lease ran out with nothing committed. The broker watch polls on its own
 * thread too (an unreachable broker may hold a poll for its whole timeout), through shutdown as
 * well: the releases shutdown waits on are fenced until their calls end ({@link ShutdownWait}).
 * Every other task is a no-op once shutdown began.
 */
final class RunningConsumer {
    private static final Logger LOG = Logger.getLogger(RunningConsumer.class.getName());
    private static final long UNBALANCED_RETRY_MS = 1_000;

    private final DefaultLitePullConsumer puller;
    private final ConsumerSettings settings;
    /** The topics the engine rebalances: the subscribed ones and the retry topic. */
    private final List<String> consumed;
    private final MQClientInstance client;
    private final OffsetStore offsets;
    private final Rebalancer rebalancer;
    private final ConsumeStatistics statistics;
    private final BrokerWatch watch;
    private final ListenerCalls calls;
    /** The group as the broker knows it (namespaced, if so). */
    private final String group;
    private final ClientHost host;
    private final OffsetCommits commits;
    /** Message tracing, or null. */
    private final MessageTrace trace;
    private final ScheduledExecutorService rebalanceThread;
    /** Reads each round's view, so that no engine call waits behind a lookup. */
    private final ExecutorService routeThread;
    /** A view is being read or waits to be: requests meanwhile are served by that one. */
    private final AtomicBoolean viewPending = new AtomicBoolean();
    private final ScheduledExecutorService watchThread;
    /** Brokers seen restarting while shutdown waits for listener calls: {@link ShutdownWait} tells the engine. */
    private final java.util.Queue<String> restartsWhileStopping = new ConcurrentLinkedQueue<>();
    /** A retry of an unbalanced round is scheduled; one is enough. */
    private final AtomicBoolean retryPending = new AtomicBoolean();
    private volatile boolean stopping;

    /**
     * Starts the client instance's consumer of the group ({@code puller}: it heartbeats with the
     * group's subscriptions and is assigned no queue, so it never pulls and commits nothing), then
     * builds the rest over it and starts the timers.
     */
    static RunningConsumer start(DefaultLitePullConsumer puller, ConsumerSettings settings, MessageListenerOrderly listener, boolean suspended)
        throws MQClientException {
        Map<String, MessageSelector> topics = settings.wireTopics();
        Map<String, SubscriptionData> subscriptions = GroupSubscriptions.of(settings.wireGroup(), topics);
        GroupSubscriptions.prepare(puller);
        puller.start();
        GroupSubscriptions.register(puller, topics, new ArrayList<>(subscriptions.keySet()));
        RunningConsumer running = new RunningConsumer(puller, settings, listener, subscriptions);
        if (suspended) {
            running.calls.suspend(); // before the first round dispatches a queue
        }
        running.scheduleTimers();
        return running;
    }

    private RunningConsumer(DefaultLitePullConsumer puller, ConsumerSettings settings, MessageListenerOrderly listener,
        Map<String, SubscriptionData> subscriptions) {
        this.puller = puller;
        this.settings = settings;
        this.consumed = new ArrayList<>(subscriptions.keySet());
        this.client = MQClientManager.getInstance().getOrCreateMQClientInstance(puller);
        // A lock or unlock that timed out during a partition must not land after the heal.
        AbortiveClose.install(client);
        // Every request names the group and topics as the broker knows them (namespaced, if so).
        this.group = settings.wireGroup();
        this.offsets = new RemoteBrokerOffsetStore(client, group);
        RebalanceConfig.Builder config = RebalanceConfig.builder(group, client.getClientId()).orderly(true).semantics(settings.semantics)
            .consumeFrom(settings.consumeFrom).consumeTimestampMs(settings.consumeTimestampMs());
        // The first pull of a queue just taken goes at once: Java waits 500 ms (its
        // dispatchPullRequest delay), which every handoff of a rolling restart paid; the lock is
        // held and the start offset read by then, so nothing is gained by waiting. A timing set
        // by the user wins.
        config.timing("pull_dispatch_delay_ms", 0);
        settings.timing.forEach(config::timing);
        this.rebalancer = new Rebalancer(config.build(), settings.strategy);
        consumed.forEach(rebalancer::subscribe);
        ConsumeLocks consumeLocks = new ConsumeLocks();
        this.statistics = new ConsumeStatistics(SafeOrderlyConsumer::nowMs);
        this.rebalanceThread = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "SafeOrderlyConsumer-rebalance-" + group));
        this.routeThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "SafeOrderlyConsumer-route-" + group));
        this.watch = new BrokerWatch(new BrokerProbe(client, group), this::onBrokerRestart, this::brokerReturned);
        List<ConsumeMessageHook> hooks = new ArrayList<>(settings.hooks);
        this.trace = settings.enableMsgTrace ? MessageTrace.create(settings.group, settings.traceTopic, settings.rpcHook, puller.isUseTLS(),
            NamespaceV2.get(puller)) : null;
        if (trace != null) {
            hooks.add(trace.hook());
        }
        this.calls = new ListenerCalls(listener, rebalancer, offsets, consumeLocks, SafeOrderlyConsumer::nowMs, watch::open, settings,
            new DeadLetters(client, group), statistics, new ConsumeHooks(hooks, group, settings.namespace, puller.getAccessChannel()),
            QueuePuller.over(client, group, subscriptions, puller.getBrokerSuspendMaxTimeMillis(), puller.getConsumerTimeoutMillisWhenSuspend()));
        this.host = new ClientHost(client, group, offsets, calls, consumeLocks, delay -> schedule(this::round, delay), watch::open);
        this.commits = new OffsetCommits(rebalancer, host, offsets, SafeOrderlyConsumer::nowMs, watch::open);
        this.watchThread = settings.brokerWatchIntervalMs > 0
            ? Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "SafeOrderlyConsumer-broker-watch-" + group))
            : null;
    }

    /** The trace dispatcher, the notice of changed ids, the running info for admin tools, and the periodic tasks. */
    private void scheduleTimers() {
        if (trace != null) {
            try {
                trace.start(puller.getNamesrvAddr(), puller.getAccessChannel());
            } catch (MQClientException e) {
                LOG.log(Level.WARNING, "the trace dispatcher did not start; consumption goes on untraced, as Java's", e);
            }
        }
        IdsChangedNotice.listen(client, group, () -> schedule(this::round, 0));
        RunningInfo.install(client, group, settings.strategy, settings.inForce(), () -> stopping ? null : new RunningInfo.State() {
            @Override
            public Map<MessageQueue, QueueState> held() {
                return rebalancer.held();
            }

            @Override
            public long committedOffset(MessageQueue mq) {
                return commits.listenerOffset(mq);
            }

            @Override
            public TreeMap<String, ConsumeStatus> status() {
                return statistics.table();
            }
        }, SafeOrderlyConsumer::nowMs);
        long every = settings.rebalanceIntervalMs;
        rebalanceThread.scheduleWithFixedDelay(this::round, 0, every, TimeUnit.MILLISECONDS);
        rebalanceThread.scheduleWithFixedDelay(this::renewLocks, every, every, TimeUnit.MILLISECONDS);
        rebalanceThread.scheduleWithFixedDelay(unlessStopping(commits::commitMoved, "offset commit"), settings.persistIntervalMs,
            settings.persistIntervalMs, TimeUnit.MILLISECONDS);
        if (watchThread != null) {
            watchThread.scheduleWithFixedDelay(this::watchBrokers, settings.brokerWatchIntervalMs, settings.brokerWatchIntervalMs, TimeUnit.MILLISECONDS);
        }
    }

    /** See {@link SafeOrderlyConsumer#suspend()}. */
    void suspend() {
        calls.suspend();
    }

    void resume() {
        calls.resume();
    }

    String clientId() {
        return rebalancer.config().clientId();
    }

    /** The queues held now (empty once shutdown began). */
    Map<MessageQueue, QueueState> held() {
        return stopping ? java.util.Collections.emptyMap() : rebalancer.held();
    }

    private Runnable unlessStopping(Runnable task, String what) {
        return () -> {
            if (stopping) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                LOG.log(Level.WARNING, what + " failed", t);
            }
        };
    }

    /** Polls on through shutdown, whose deferred releases the watch still fences. */
    private void watchBrokers() {
        try {
            Set<String> brokers = new TreeSet<>();
            rebalancer.held().keySet().forEach(mq -> brokers.add(mq.getBrokerName()));
            watch.poll(brokers);
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "broker watch failed", t);
        }
    }

    /** The rebalance thread handles a restart, or, while shutdown waits on it, the wait does. */
    private void onBrokerRestart(String broker) {
        if (stopping) {
            restartsWhileStopping.add(broker);
        } else {
            schedule(() -> brokerRestarted(broker), 0);
        }
    }

    /**
     * A broker restarted (its start time changed); its queues are fenced meanwhile. In this order:
     * this client's heartbeat, so the new broker lists it in the group again; the queues whose lock
     * it held locked again on the new broker, and the cached offsets of those granted committed
     * ({@link OffsetCommits#recommitLocked}); then {@code locks_lost}, and a round at once. The
     * engine holds those locks as it drops the states (fix 18), and its round gives back the ones
     * no longer this client's. A failure is retried a second later; the fence lifts only once the
     * engine has been told.
     */
    private void brokerRestarted(String broker) {
        if (stopping) {
            restartsWhileStopping.add(broker); // scheduled just before shutdown: the wait handles it
            return;
        }
        try {
            client.sendHeartbeatToAllBrokerWithLock();
            Set<MessageQueue> granted = commits.recommitLocked(broker);
            LockReport report = rebalancer.locksLost(broker, SafeOrderlyConsumer.nowMs(), host);
            LOG.warning("broker " + broker + " restarted: " + granted.size() + " queues locked and committed again, locks lost " + report.lost);
            watch.reopen(broker);
            schedule(this::round, 0);
        } catch (Throwable t) {
            LOG.log(Level.WARNING, "handling the restart of broker " + broker + " failed; retried in 1 s", t);
            schedule(() -> brokerRestarted(broker), 1_000);
        }
    }

    /**
     * A broker answers again after a silence, its lock table intact: renew at once (a renewal lost
     * on the way back left its queues unlocked in the engine, which waits for a granted one), then
     * a round for what the silence left unbalanced. The stock consumer waits for its next round too,
     * but its rounds come every 20 s whatever happens; ours would wait as long for the renewal.
     */
    private void brokerReturned(String broker) {
        LOG.info("broker " + broker + " answers again: its locks are renewed now");
        schedule(() -> commits.brokerKeptItsState(broker), 0);
        schedule(this::renewLocks, 0);
        schedule(this::round, 0);
    }

    private void schedule(Runnable task, long delayMs) {
        if (!rebalanceThread.isShutdown()) {
            try {
                rebalanceThread.schedule(task, delayMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                // shutdown() takes over from here
            }
        }
    }

    /**
     * The queues as the broker knows them: within a namespace, the lite-pull consumer answers
     * {@code fetchMessageQueues} with the namespace taken off each queue's topic.
     */
    private List<MessageQueue> wire(Collection<MessageQueue> fetched) {
        List<MessageQueue> queues = new ArrayList<>(fetched.size());
        for (MessageQueue q : fetched) {
            queues.add(new MessageQueue(NamespaceUtil.wrapNamespace(settings.namespace, q.getTopic()), q.getBrokerName(), q.getQueueId()));
        }
        return queues;
    }

    /**
     * Asks for a round: its view is read on the route thread, then the round runs on the rebalance
     * thread. Requests while a view is pending are served by that view, which is read after them.
     */
    private void round() {
        if (stopping || !viewPending.compareAndSet(false, true)) {
            return;
        }
        try {
            routeThread.execute(() -> {
                viewPending.set(false); // a request from here on needs a view read after it: another one
                unlessStopping(() -> {
                    Map<String, TopicView> views = readViews();
                    schedule(() -> round(views), 0);
                }, "reading the routes and members").run();
            });
        } catch (RejectedExecutionException shuttingDown) {
            viewPending.set(false);
        }
    }

    /** Every subscribed topic's queues (from the NameServer) and member list (from a broker); a part not read is null. */
    private Map<String, TopicView> readViews() {
        Map<String, TopicView> views = new LinkedHashMap<>();
        for (String topic : consumed) {
            List<MessageQueue> queues = null;
            try {
                Collection<MessageQueue> fetched = puller.fetchMessageQueues(topic);
                queues = fetched == null ? null : wire(fetched);
            } catch (MQClientException routeUnknown) {
                LOG.log(Level.FINE, "no route for " + topic, routeUnknown);
            }
            views.put(topic, new TopicView(queues, client.findConsumerIdList(topic, group)));
        }
        return views;
    }

    /** One round over every subscribed topic, on a view just read; a failure is logged and the next round repairs it. */
    private void round(Map<String, TopicView> views) {
        unlessStopping(() -> {
            boolean again = false;
            for (RoundReport report : rebalancer.rebalanceAll(views, SafeOrderlyConsumer.nowMs(), host)) {
                again |= !report.balanced || report.skippedRound != null;
                if (report.changed || !report.warnings.isEmpty()) {
                    LOG.info("round: " + report);
                } else if (!report.deferred.isEmpty()) {
                    LOG.fine("round: " + report); // a release waiting for a listener call, every retry
                }
            }
            // As Java's RebalanceService: an unbalanced round is tried again after 1 s, not 20 s. A
            // skipped one too (unlike Java): right after a broker restart its member list is empty
            // until the group's heartbeats arrive, and the queues whose locks were lost wait.
            if (again && retryPending.compareAndSet(false, true)) {
                schedule(() -> {
                    retryPending.set(false);
                    round();
                }, UNBALANCED_RETRY_MS);
            }
        }, "rebalance round").run();
    }

    private void renewLocks() {
        unlessStopping(() -> {
            LockReport report = rebalancer.lockAll(SafeOrderlyConsumer.nowMs(), host);
            if (!report.lost.isEmpty() || !report.warnings.isEmpty()) {
                LOG.warning("lock renewal: " + report);
            }
        }, "lock renewal").run();
    }

    /** See {@link SafeOrderlyConsumer#shutdown(long)}. */
    void shutdown(long awaitTerminateMillis) {
        long deadline = SafeOrderlyConsumer.nowMs() + Math.max(0, awaitTerminateMillis);
        try {
            rebalanceThread.submit(() -> {
                stopping = true;
                RoundReport[] last = new RoundReport[1];
                boolean deferred = ShutdownWait.await(new ShutdownWait.Engine() {
                    @Override
                    public boolean shutdown(long nowMs) {
                        last[0] = rebalancer.shutdown(nowMs, host);
                        return !last[0].deferred.isEmpty();
                    }

                    @Override
                    public void lockAll(long nowMs) {
                        try {
                            rebalancer.lockAll(nowMs, host);
                        } catch (RuntimeException e) {
                            LOG.log(Level.WARNING, "lock renewal during shutdown failed; retried at the next", e);
                        }
                    }

                    @Override
                    public void locksLost(String broker, long nowMs) {
                        try {
                            LockReport lost = rebalancer.locksLost(broker, nowMs, host);
                            watch.reopen(broker);
                            LOG.warning("broker " + broker + " restarted during shutdown: locks asked for again " + lost.lost);
                        } catch (RuntimeException e) {
                            LOG.log(Level.WARNING, "telling the engine that " + broker + " restarted failed", e);
                        }
                    }
                }, deadline, settings.rebalanceIntervalMs, SafeOrderlyConsumer::nowMs, Thread::sleep, restartsWhileStopping);
                if (deferred) {
                    LOG.warning("shutdown left queues to the broker's lock expiry: " + last[0].deferred);
                }
                return null;
            }).get();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "shutdown", e);
        } finally {
            stopping = true;
            routeThread.shutdownNow();
            rebalanceThread.shutdownNow();
            if (watchThread != null) {
                watchThread.shutdownNow();
            }
            calls.shutdown(Math.max(0, deadline - SafeOrderlyConsumer.nowMs()));
            if (trace != null) {
                trace.shutdown(); // after the last call, so its records are flushed
            }
            puller.shutdown();
            rebalancer.close();
        }
    }
}
