"""What the orderly test processes wrote, read back, and the counts the real-broker tests report.

Inputs, all in one run's directory (see OrderlyConsumerMain, BrokerMonitor and harness.py):
  <name>.calls           B/E lines of every listener call of consumer <name>
  faults.log             KILL/TERM/STOP/CONT <name> <ns>, as the driver did them
  broker-<group>.log     UP/L/M/O/H lines: the broker's own lock table, members and offsets
  broker-<group>@<name>.log  the same from the master of broker name <name> (several brokers)
Times are CLOCK_MONOTONIC nanoseconds everywhere (Java's nanoTime, Python's monotonic_ns).
"""

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from fixtures.harness import read_faults

SAMPLE_NS = 50_000_000  # BrokerMonitor's sampling period
CLASSES = ("without_lock", "near_change", "broker_down", "outlived")  # BrokerView.classify's counts


@dataclass
class Call:
    proc: str
    queue: object  # the queue id on the single broker, (broker name, queue id) on any other
    start: int
    end: int
    bodies: list = field(default_factory=list)
    returned: bool = True  # False: still open when its process was killed (or the run ended)


def queue_key(token):
    """A queue as a .calls file writes it: `<id>` on the single-broker cluster's broker, `<name>/<id>` on any other."""
    name, _, queue = token.rpartition("/")
    return (name, int(queue)) if name else int(queue)


def read_calls(directory, end_ns):
    """Every call of every process, in each process's file order; an open call lasts until its process's kill, or end_ns."""
    directory = Path(directory)
    kills = {name: ns for kind, name, ns in read_faults(directory) if kind == "KILL"}
    calls = []
    for f in sorted(directory.glob("*.calls")):
        proc = f.name[: -len(".calls")]
        open_calls = {}
        for line in f.read_text().splitlines():
            parts = line.split()
            key = tuple(parts[1:5])
            if parts[0] == "B":
                open_calls[key] = int(parts[4])
                continue
            start = open_calls.pop(key, int(parts[4]))
            calls.append(Call(proc, queue_key(parts[1]), start, int(parts[5]), parts[6].split(",") if len(parts) > 6 else []))
        for (queue, _, _, _), start in open_calls.items():
            calls.append(Call(proc, queue_key(queue), start, kills.get(proc, end_ns), returned=False))
    return calls


def overlaps(calls, began_with_lock=None):
    """(pairs of calls of two processes on one queue at once, pairs of calls of one process on one
    queue at once, and of the first kind those where both calls began holding the broker's lock:
    one outlived its lock, as after a freeze past the broker's expiry, which no client can fence).
    Without began_with_lock the last figure is 0."""
    by_queue = defaultdict(list)
    for c in calls:
        by_queue[c.queue].append(c)
    across = within = outlived = 0
    for queue_calls in by_queue.values():
        queue_calls.sort(key=lambda c: c.start)
        for i, a in enumerate(queue_calls):
            for b in queue_calls[i + 1 :]:
                if b.start >= a.end:
                    break
                if a.proc == b.proc:
                    within += 1
                elif began_with_lock is not None and began_with_lock(a) and began_with_lock(b):
                    outlived += 1
                else:
                    across += 1
    return across, within, outlived


def handoff_gaps(calls, began, ended):
    """Seconds from a queue's old owner's last call to its new owner's first call, for every change
    of the process calling on a queue whose new owner began between `began` and `ended` (ns),
    sorted. A queue with a backlog has calls all the time, so the gap is the pause its owner
    change cost."""
    by_queue = defaultdict(list)
    for c in calls:
        by_queue[c.queue].append(c)
    gaps = []
    for queue_calls in by_queue.values():
        queue_calls.sort(key=lambda c: c.start)
        owner, last_end = queue_calls[0].proc, queue_calls[0].end
        for c in queue_calls[1:]:
            if c.proc != owner:
                if began <= c.start <= ended:
                    gaps.append(max(0, c.start - last_end) / 1e9)
                owner, last_end = c.proc, c.end
            else:
                last_end = max(last_end, c.end)
    return sorted(gaps)


def percentile(values, p):
    """Nearest rank; nan for no values."""
    return values[max(0, math.ceil(p / 100 * len(values)) - 1)] if values else float("nan")


def _proc(client_id):
    """The process a client id names (ids are `<address>@<name>`)."""
    return client_id.split("@")[1]


def consumed(calls):
    return {body for c in calls if c.returned for body in c.bodies}


def _seq(body):
    key, seq = body.split(":")
    return key, int(seq)


def order_figures(calls):
    """What the calls say about order, as a dict:
    process_violations  a key's message consumed by a process from a queue after a later one of the
                        same key it had already consumed from that queue (a replay from an offset
                        behind its own). Per queue: a producer that picks a key's queue by the
                        queue count sends it elsewhere while a master is down, and orderly
                        consumption promises order within a queue, not across two
    backward_replays    a message consumed after a later one of its key had been consumed by anyone
                        (redelivery: expected after a kill, the price of at-least-once)
    inversions          a message whose first consumption ended after a later message of its key had
                        first been consumed, in any process: order broken, never just a replay
    delivered_again     deliveries beyond each message's first"""
    violations = 0
    for proc in sorted({c.proc for c in calls}):
        highest = {}
        for c in calls:
            if c.proc != proc or not c.returned:
                continue
            for body in c.bodies:
                key, seq = _seq(body)
                if seq < highest.get((key, c.queue), -1):
                    violations += 1
                highest[(key, c.queue)] = max(highest.get((key, c.queue), -1), seq)
    first_end = defaultdict(dict)
    backward = deliveries = 0
    highest = {}
    for c in sorted((c for c in calls if c.returned), key=lambda c: c.end):
        for body in c.bodies:
            deliveries += 1
            key, seq = _seq(body)
            if seq < highest.get(key, -1):
                backward += 1
            highest[key] = max(highest.get(key, -1), seq)
            first_end[key].setdefault(seq, c.end)
    inversions = 0
    for ends in first_end.values():
        latest = None
        for seq in sorted(ends):
            if latest is not None and ends[seq] < latest:
                inversions += 1
            latest = ends[seq] if latest is None else max(latest, ends[seq])
    return {
        "process_violations": violations,
        "backward_replays": backward,
        "inversions": inversions,
        "delivered_again": deliveries - len(consumed(calls)),
    }


class BrokerView:
    """One group's history as the broker's own tables showed it (broker-<group>.log), and when the
    broker was down (killed as `name` in faults.log)."""

    def __init__(self, path, faults, name="broker"):
        self.ups, self.offsets, self.members = [], defaultdict(list), []
        sampled, events = defaultdict(list), defaultdict(list)
        for line in Path(path).read_text().splitlines() if Path(path).exists() else []:
            parts = line.split()
            ns = int(parts[1])
            if parts[0] == "UP":
                self.ups.append(ns)
            elif parts[0] == "L":
                sampled[int(parts[2])].append((ns, None if parts[3] == "-" else _proc(parts[3])))
            elif parts[0] in ("G", "R"):
                events[int(parts[2])].append((ns, _proc(parts[3]) if parts[0] == "G" else None))
            elif parts[0] == "O":
                self.offsets[int(parts[2])].append((ns, int(parts[3])))
            elif parts[0] == "M":
                self.members.append((ns, parts[2]))
        # With grants and unlocks recorded as they happened, the samples add only what has no moment
        # of its own, an expiry; near such a sample a call is reported apart (the sample may be up to
        # a period late). A file of samples alone (an older monitor) is judged as before: near any
        # sampled change.
        self.locks, self.changes = defaultdict(list), defaultdict(list)
        for queue in set(sampled) | set(events):
            kept = [(ns, who) for ns, who in sampled[queue] if who is None] if events[queue] else sampled[queue]
            self.locks[queue] = sorted(events[queue] + kept, key=lambda e: e[0])
            self.changes[queue] = [ns for ns, _ in kept]
        kills = [ns for kind, who, ns in faults if kind == "KILL" and who == name]
        self.down = [(k, min((u for u in self.ups if u > k), default=float("inf"))) for k in kills]

    def holder(self, queue, t):
        """The process named by the lock table for queue at t (None: nobody; a restart empties the table)."""
        last_up = max((u for u in self.ups if u <= t), default=None)
        holder = None
        for ns, who in self.locks[queue]:
            if ns > t:
                break
            if last_up is None or ns >= last_up:
                holder = who
        return holder

    def near_change(self, queue, t, slack=2 * SAMPLE_NS):
        return any(abs(ns - t) <= slack for ns in self.changes[queue]) or any(abs(u - t) <= slack for u in self.ups)

    def broker_down(self, t):
        return any(k <= t < u for k, u in self.down)

    def classify(self, calls):
        """How each call's beginning stood against the broker's lock table:
        without_lock   the table named another client or none: must be 0 for the engine
        near_change    within two sampling periods of a sampled change of that queue's lock (an
                       expiry, or any change in a file without events) or of a restart: reported apart
        broker_down    begun while the broker was down (nobody could take the queue then)
        outlived      begun with the lock, which another client (or nobody) held by its end
                      (a call that outlived its lock: reported, no client can prevent it)"""
        out = dict.fromkeys(CLASSES, 0)
        for c in calls:
            if self.broker_down(c.start):
                out["broker_down"] += 1
            elif self.holder(c.queue, c.start) != c.proc:
                out["near_change" if self.near_change(c.queue, c.start) else "without_lock"] += 1
            elif c.returned and not self.broker_down(c.end) and self.holder(c.queue, c.end) != c.proc and not self.near_change(c.queue, c.end):
                out["outlived"] += 1
        return out

    def began_with_lock(self, c):
        """The call began while the table named its process (or within a sampling period of a change, or with the broker down)."""
        return self.broker_down(c.start) or self.holder(c.queue, c.start) == c.proc or self.near_change(c.queue, c.start)

    def offset_figures(self):
        """regressions: a committed offset below the highest of the same broker process (a client
        committing from a stale position, preventable); broker_lost: offsets a restart took back
        (the broker had not flushed them), summed over queues and restarts."""
        regressions = lost = 0
        bounds = self.ups + [float("inf")]
        for history in self.offsets.values():
            previous_max = None
            for lo, hi in zip(bounds, bounds[1:]):
                values = [v for ns, v in history if lo <= ns < hi]
                if not values:
                    continue
                if previous_max is not None and values[0] < previous_max:
                    lost += previous_max - max(values[0], 0)
                running = -1
                for v in values:
                    if 0 <= v < running:
                        regressions += 1
                    running = max(running, v)
                previous_max = running
        return {"regressions": regressions, "broker_lost": lost}


class ClusterView:
    """BrokerView over several broker names: each call judged by the view of its queue's broker
    (calls on the single-broker cluster's broker name their queue by id alone: `default`)."""

    def __init__(self, views, default):
        self.views, self.default = views, default

    def _locate(self, queue):
        """(the view of queue's broker, queue's id there)."""
        name, q = queue if isinstance(queue, tuple) else (self.default, queue)
        return self.views[name], q

    def _split(self, call):
        view, queue = self._locate(call.queue)
        return view, Call(call.proc, queue, call.start, call.end, call.bodies, call.returned)

    def classify(self, calls):
        by_view = defaultdict(list)
        for view, call in map(self._split, calls):
            by_view[id(view)].append((view, call))
        out = dict.fromkeys(CLASSES, 0)
        for pairs in by_view.values():
            for k, v in pairs[0][0].classify([c for _, c in pairs]).items():
                out[k] += v
        return dict(out)

    def began_with_lock(self, call):
        view, call = self._split(call)
        return view.began_with_lock(call)

    def holder(self, queue, t):
        view, q = self._locate(queue)
        return view.holder(q, t)

    def offset_figures(self):
        out = defaultdict(int)
        for view in self.views.values():
            for k, v in view.offset_figures().items():
                out[k] += v
        return dict(out)
