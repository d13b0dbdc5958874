package io.github.rocketmqrebalance.engine;

import org.apache.rocketmq.common.message.MessageQueue;

/** A FakeHost that also commits start offsets (the optional callback), into its store. */
class CommittingHost extends FakeHost {
    @Override
    public boolean commitOffset(MessageQueue mq, long offset) throws Exception {
        calls.add("commitOffset " + name(mq) + " @" + offset);
        Throwable t = failing.get("commitOffset");
        if (t instanceof Exception) {
            throw (Exception) t;
        }
        committed.put(mq, offset);
        return true;
    }

    @Override
    public void stopPull(MessageQueue mq, long generation) {
        calls.add("stopPull " + name(mq) + " #" + generation);
    }
}
