"""`rmq-rebalance watch` through faults, against the loopback stand-in cluster
(remoting/examples/standin_cluster.rs, faults given on its stdin): a NameServer that hangs, refuses
connections or answers with what is not a frame; a broker that does; a client that never answers
its running info; a group deleted; SIGTERM. What must hold, each checked in what watch serves:
- it never exits on a transient error: rounds go on through every fault;
- a group it cannot read has `rmq_rebalance_group_up` 0, keeps its last good series (members),
  and its page says it is stale and why (the address that failed);
- a broker that fails while the NameServer answers makes a partial read, which is a finding
  (`broker_unreadable`), not a healthy group;
- a client that never answers is `running_info_unavailable` in its group alone, and its group's
  slow reads delay no other group: rounds end without waiting for them;
- a deleted group leaves the watch; every fault healed, every group reads again (`up` 1);
- SIGTERM stops it with exit 0.
Every wait is a generous bound on rounds of 300 ms; no time is asserted.

Usage: check_watch_faults.py STANDIN RMQ_REBALANCE
"""

import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

GROUPS, CLIENTS = 6, 3
WAIT = 60.0


class Watch:
    def __init__(self, rmq, namesrv):
        cmd = [rmq, "watch", "--namesrv", namesrv, "--interval", "300ms", "--timeout", "1s", "--listen", "127.0.0.1:0"]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        self.addr = self.proc.stderr.readline().split("http://")[1].split("/")[0]
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stderr], daemon=True).start()

    def get(self, path):
        with urllib.request.urlopen(f"http://{self.addr}{path}", timeout=30) as r:
            return r.read().decode()

    def series(self, name, **labels):
        """{consumer_group: value} of `name` with these labels."""
        out = {}
        for line in self.get("/metrics").splitlines():
            if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
                group = re.search(r'consumer_group="([^"]*)"', line)
                out[group.group(1) if group else ""] = float(line.rsplit(" ", 1)[1])
        return out

    def until(self, what, check):
        start, why = time.monotonic(), "not asked yet"
        while time.monotonic() - start < WAIT:
            if self.proc.poll() is not None:
                sys.exit(f"watch exited ({self.proc.returncode}) while waiting for {what}")
            done, why = check()
            if done:
                return
            time.sleep(0.3)
        sys.exit(f"watch faults: {what} not seen within {WAIT:.0f} s: {why}")


def up_everywhere(w, value):
    def check():
        up = w.series("rmq_rebalance_group_up")
        return len(up) == GROUPS and all(v == value for v in up.values()), f"up: {up}"

    return check


def main():
    standin, rmq = sys.argv[1:3]
    args = ["--groups", str(GROUPS), "--clients", str(CLIENTS), "--latency-ms", "0", "--relay-ms", "0", "--relay-timeout-ms", "1500"]
    cluster = subprocess.Popen([standin, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    namesrv = cluster.stdout.readline().split()[1]

    def fault(line):
        cluster.stdin.write(line + "\n")
        cluster.stdin.flush()
        if cluster.stdout.readline().strip() != f"done {line}":
            sys.exit(f"the stand-in did not take '{line}'")

    w = Watch(rmq, namesrv)
    seen = []
    try:
        w.until("every group read", up_everywhere(w, 1))
        why = {"hang": "did not answer within 1000 ms", "refuse": "", "garbage": "not a RocketMQ remoting server"}
        for mode in ("hang", "refuse", "garbage"):
            says = f"{namesrv} {why[mode]}".strip() if mode == "hang" else why[mode] or namesrv
            fault(f"{mode} namesrv")
            w.until(f"every group up 0 with the NameServer {mode}", up_everywhere(w, 0))
            members = w.series("rmq_rebalance_group_members")
            page = w.get("/group/g1")
            if members.get("g1") != CLIENTS or 'id="stale"' not in page or says not in page or namesrv not in page:
                sys.exit(
                    f"NameServer {mode}: g1 is not served as its last good answer marked stale, saying {says!r}: members {members.get('g1')}, page {page[:600]}"
                )
            fault("ok namesrv")
            w.until(f"every group read again after the NameServer {mode}", up_everywhere(w, 1))
            seen.append(f"NameServer {mode}: up 0, last good answer served stale, its page naming the address and {says!r}, read again once healed")
        fault("garbage broker-b")

        def partial():
            unreadable = w.series("rmq_rebalance_group_findings", kind="broker_unreadable")
            up = w.series("rmq_rebalance_group_up")
            return len(unreadable) == GROUPS and all(v >= 1 for v in unreadable.values()) and all(up.values()), f"broker_unreadable {unreadable}, up {up}"

        w.until("a partial read (broker-b answering garbage) reported as broker_unreadable", partial)
        fault("ok broker-b")
        w.until(
            "broker_unreadable gone once broker-b answers",
            lambda: (not any(w.series("rmq_rebalance_group_findings", kind="broker_unreadable").values()), "still"),
        )
        seen.append("broker-b garbage: every group read partially, broker_unreadable, then healed")
        fault("mute 10.0.0.1@2-001")

        def muted():
            silent = w.series("rmq_rebalance_group_findings", kind="running_info_unavailable")
            return {g for g, v in silent.items() if v} == {"g2"} and w.series("rmq_rebalance_group_up").get("g2") == 1, f"running_info_unavailable {silent}"

        w.until("running_info_unavailable in g2 alone", muted)
        seen.append("a client that never answers: running_info_unavailable in its group alone, the group still read")
        # Each read of g2 now waits out the relay timeout (1.5 s), five rounds' worth: rounds go on
        # without it, ending with g2 alone still being read, and the other groups read in each.
        behind = []

        def left_behind():
            while not w.lines.empty():
                m = re.match(r"round (\d+): .*, (\d+) still being read \(([^)]*)\)", w.lines.get())
                if m and m.group(3) == "g2":
                    behind.append(int(m.group(1)))
            return len(behind) >= 3, f"rounds that ended with g2 alone still being read: {behind}"

        w.until("rounds that do not wait for g2's slow read", left_behind)
        seen.append(f"its group's slow reads delayed no other group (rounds {behind[:3]} ended with g2 alone still being read)")
        fault(f"drop {GROUPS - 1}")

        def gone():
            groups = w.series("rmq_rebalance_groups").get("")
            return groups == GROUPS - 1 and f"g{GROUPS - 1}" not in w.series("rmq_rebalance_group_up"), f"groups {groups}"

        w.until("the deleted group gone from the watch", gone)
        seen.append("a deleted group left the watch")
        rounds = w.series("rmq_rebalance_rounds_total").get("")
        w.proc.send_signal(signal.SIGTERM)
        code = w.proc.wait(timeout=WAIT)
        if code != 0:
            sys.exit(f"watch exited {code} on SIGTERM")
        seen.append("SIGTERM: exit 0")
        print(f"watch through faults ({rounds:.0f} rounds, never exited on a transient error): " + "; ".join(seen))
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
        cluster.stdin.close()
        cluster.wait(timeout=30)


if __name__ == "__main__":
    main()
