#!/usr/bin/env python3
"""A request the client saw fail must not reach the broker after the network heals.

The RocketMQ client closes a connection when a request on it times out. During a partition the
socket then still holds every request queued behind the first lost packet, and a graceful close
leaves the kernel delivering them: after the heal they land, behind requests the client has sent
since on a new connection. An unlock that timed out then removes the lock the client has taken
again, and the client consumes a queue it believes locked. SafeOrderlyConsumer's connections
close abortively (AbortiveClose: a reset discards what the socket holds).

Two clients (StaleRequestMain), each in a network namespace of its own joined to the driver's by a
veth pair (fixtures/netns.py), one closing gracefully as the stock client does, one abortively,
each in a group of its own on one broker, at once:
  1. lock queue 0;
  2. the broker's answers are cut (its packets to the client dropped in the client's namespace):
     a one-way request goes out and loses its acknowledgement; after the retransmission timer, an
     unlock of queue 0 waits in the socket behind it, times out, and the client closes the
     connection;
  3. healed; the client locks queue 0 again on a new connection;
  4. for WATCH_S seconds the broker's own record of its lock table (BrokerMonitor) is read.
Must hold: no unlock of the abortive client's reaches the broker after the heal, and its new lock
stays. The graceful client must show the hazard (its unlock landing after the heal; after its new
lock, as a rule, which removes that lock): else the run did not create the situation and would
prove nothing, and fails as such.
"""

import time
from pathlib import Path

from checkers.calls import BrokerView
from fixtures import netns
from fixtures import orderly_group as group
from fixtures.harness import Processes, RestartableCluster, java, read_faults, record_fault, wait_for

TOPIC = "STALE_REQUEST"
BROKER = "broker-a"  # LocalCluster.BROKER_NAME
MODES = ("graceful", "abortive")
WATCH_S = 45  # the orphaned socket retransmits with backoff: a few seconds, rarely over 30, after the heal


def group_of(mode):
    return f"GID_STALE_{mode.upper()}"


def unlocks_since(view, since):
    """Moments (ns) after `since` at which an unlock removed the lock of queue 0 (events, not samples)."""
    sampled = set(view.changes[0])
    return [ns for ns, who in view.locks[0] if ns > since and who is None and ns not in sampled]


def main():
    args = group.arguments(__doc__)
    if not netns.tools_present():
        raise SystemExit("this test needs unshare, nsenter, ip and nft (tests/e2e/run/stale-request.sh installs nftables)")
    netns.require_own_namespace()
    state = Path(args.state)
    cluster = RestartableCluster(args.java_cp, state, [(TOPIC, 4)], [(group_of(m), TOPIC) for m in MODES], host=netns.CLUSTER_ADDR)
    procs = Processes(state / "clients")
    failures = []
    try:
        broker_addr = f"{netns.CLUSTER_ADDR}:{cluster.broker_args[2]}"
        broker_ports = {int(cluster.broker_args[2]), int(cluster.broker_args[2]) - 2}
        links = {}
        for n, mode in enumerate(MODES, 1):
            client_id = f"10.199.{n}.2@{mode}"
            cmd = java(args.java_cp, "StaleRequestMain", broker_addr, group_of(mode), TOPIC, BROKER, client_id, mode, procs.dir, mode)
            procs.spawn(mode, netns.isolated(cmd, procs.dir, mode))
            links[mode] = netns.Link(procs.procs[mode].pid, n, procs.dir, mode)
        marker = lambda mode, step: procs.dir / f"{mode}.{step}"  # noqa: E731
        for mode in MODES:
            wait_for(f"{mode}: the first lock", lambda m=mode: marker(m, "locked").exists(), 120, procs)
            links[mode].cut(broker_ports, "in")
            record_fault(procs.dir, "CUT", mode)
            marker(mode, "cut").write_text("")
        for mode in MODES:
            wait_for(f"{mode}: the unlock to time out", lambda m=mode: marker(m, "unlock-failed").exists(), 60, procs)
        time.sleep(2)  # a moment more of the partition: the orphaned socket is well into its backoff
        for mode in MODES:
            links[mode].heal()
            record_fault(procs.dir, "HEAL", mode)
            marker(mode, "healed").write_text("")
        for mode in MODES:
            wait_for(f"{mode}: the lock after the heal", lambda m=mode: marker(m, "relocked").exists(), 90, procs)
        print(f"both clients locked queue 0 again after the heal; reading the broker's lock table for {WATCH_S} s", flush=True)
        time.sleep(WATCH_S)
        healed = {name: ns for kind, name, ns in read_faults(procs.dir) if kind == "HEAL"}
        for mode in MODES:
            view = BrokerView(state / f"broker-{group_of(mode)}.log", [])
            relocked = int(marker(mode, "relocked").read_text())
            landed = unlocks_since(view, healed[mode])
            held = view.holder(0, time.monotonic_ns()) == mode
            when = ", ".join(f"{(ns - healed[mode]) / 1e9:.1f} s after the heal ({'after' if ns > relocked else 'before'} the new lock)" for ns in landed)
            print(
                f"{mode} close: the unlock that timed out {'reached the broker ' + when if landed else 'never reached the broker'}; "
                f"queue 0 {'still' if held else 'no longer'} locked by the client",
                flush=True,
            )
            if mode == "abortive" and (landed or not held):
                failures.append("the abortive client's timed-out unlock reached the broker after the heal")
            if mode == "graceful" and not landed:
                failures.append(
                    "the graceful client's timed-out unlock never landed: the partition did not create the hazard, so the abortive pass proves nothing"
                )
    finally:
        procs.stop_all()
        cluster.stop()
    if failures:
        raise SystemExit("; ".join(failures))


if __name__ == "__main__":
    main()
