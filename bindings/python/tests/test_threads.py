"""One strategy shared by many threads gives the same answers as one thread."""

from concurrent.futures import ThreadPoolExecutor

import rocketmq_rebalance as rr


def test_shared_strategies_across_threads() -> None:
    rooms = ["hz", "sh"]
    mqs = rr.sort_like_java([rr.MessageQueue(f"T{t}", f"{rooms[b % 2]}-b{b}", i) for t in range(3) for b in range(4) for i in range(40)])
    ids = rr.sort_like_java([f"{rooms[i % 2]}@10.0.0.{i}" for i in range(30)])
    for strategy in (rr.Averagely(), rr.AveragelyByCircle(), rr.ConsistentHash(), rr.MachineRoomNearby(rr.Averagely(), rr.SeparatorResolver())):
        alone = {cid: strategy.allocate("g", cid, mqs, ids) for cid in ids}
        with ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(lambda cid, s=strategy: (cid, s.allocate("g", cid, mqs, ids)), ids * 8))
        assert all(alone[cid] == got for cid, got in together), strategy.name


def test_a_shared_rebalancer_serialises_calls() -> None:
    r = rr.Rebalancer("g", "c1", rr.Averagely())

    class Host:
        def __getattr__(self, name: str):  # every callback: answer something harmless
            return {"lock": lambda b, q: q, "read_offset": lambda q, s: 0, "max_offset": lambda q: 0, "try_consume_lock": lambda q, g, w: True}.get(
                name, lambda *a: None
            )

    mqs = [rr.MessageQueue("T", "b", i) for i in range(50)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: r.rebalance_topic("T", mqs, ["c1"], n, Host()), range(64)))
    held = r.held()
    assert [q for q, _ in held] == mqs and len({s.generation for _, s in held}) == 50
