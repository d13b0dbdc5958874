"""A panic in the native module reaches Python as an exception, never an abort.

The panic probe exists only in the test build that scripts/test-all.sh makes with the
`panic-probe` feature (and runs with RMQ_PANIC_PROBE=1); the shipped wheel must not have it.
"""

import os
import threading

import pytest

from rocketmq_rebalance import ConsistentHash, MessageQueue, _native

PROBE_BUILD = os.environ.get("RMQ_PANIC_PROBE") == "1"


@pytest.mark.skipif(PROBE_BUILD, reason="the probe build has the probe on purpose")
def test_shipped_module_has_no_probe():
    assert not hasattr(_native, "panic_probe")


@pytest.mark.skipif(not PROBE_BUILD, reason="needs the panic-probe build (RMQ_PANIC_PROBE=1)")
def test_panic_becomes_exception_and_the_module_goes_on():
    with pytest.raises(BaseException) as caught:
        _native.panic_probe("probe: the message travels")
    # PyO3's PanicException derives from BaseException (a bug is not an ordinary error).
    assert type(caught.value).__name__ == "PanicException"
    assert "probe: the message travels" in str(caught.value)
    queues = [MessageQueue("T", "b", i) for i in range(6)]
    assert len(ConsistentHash().allocate("g", "a", queues, ["a"])) == 6


@pytest.mark.skipif(not PROBE_BUILD, reason="needs the panic-probe build (RMQ_PANIC_PROBE=1)")
def test_panics_on_many_threads():
    caught = [None] * 4

    def run(slot):
        try:
            _native.panic_probe(f"probe: thread {slot}")
        except BaseException as e:  # noqa: BLE001 - PanicException is a BaseException
            caught[slot] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for slot, e in enumerate(caught):
        assert e is not None and f"probe: thread {slot}" in str(e)
