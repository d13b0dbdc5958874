"""`rmq-rebalance watch` at scale, against the loopback stand-in cluster
(remoting/examples/standin_cluster.rs: a NameServer and two brokers speaking the remoting protocol,
running info relayed with a delay): for each group count, one watch of every group, run for
ROUNDS rounds back to back.

Reported per group count: the first round's time (it asks every client for its running info), the
steady rounds' median and slowest time, the most requests the cluster was answering at once, the
watch's peak RSS (VmHWM), the share of running-info requests among all requests in the steady
rounds, and whether `inspect` finds, group by group, the same findings as the watch on a sample
of faulty and healthy groups (every 25th group is made wrong by the stand-in).

Usage: watch_scale.py STANDIN RMQ_REBALANCE [GROUPS...]   (default 50 500 2000)
"""

import json
import re
import statistics
import subprocess
import sys
import urllib.request

CLIENTS = 10
FAULTY = 25
ROUNDS = 12  # the first, then 11 steady ones: with --running-info-every 10, one asks every client again
ROUND_LINE = re.compile(r"^round (\d+): .* ([0-9.]+) s$")


def metrics(addr):
    with urllib.request.urlopen(f"http://{addr}/metrics", timeout=60) as r:
        return r.read().decode()


def requests_by_kind(text):
    out = {}
    for m in re.finditer(r'^rmq_rebalance_requests_total\{[^}]*request="([A-Z_]+)"[^}]*\} ([0-9.e+]+)$', text, re.M):
        out[m.group(1)] = out.get(m.group(1), 0) + float(m.group(2))
    return out


def watch_findings(text, group):
    """{kind: count} of the group's findings, as watch exports them."""
    pat = re.compile(r'^rmq_rebalance_group_findings\{[^}]*consumer_group="' + re.escape(group) + r'"[^}]*kind="([a-z_]+)"[^}]*\} ([0-9.]+)$', re.M)
    return {k: int(float(v)) for k, v in pat.findall(text) if float(v) > 0}


def inspect_findings(rmq, namesrv, group):
    r = subprocess.run([rmq, "inspect", "--namesrv", namesrv, "--group", group, "--json"], capture_output=True, text=True, timeout=120)
    if r.returncode == 2:
        sys.exit(f"inspect could not read {group}: {r.stderr}")
    out = {}
    for f in json.loads(r.stdout)["findings"]:
        out[f["kind"]] = out.get(f["kind"], 0) + 1
    return out


def run(standin, rmq, groups):
    cluster = subprocess.Popen(
        [standin, "--groups", str(groups), "--clients", str(CLIENTS), "--faulty", str(FAULTY)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    namesrv = cluster.stdout.readline().split()[1]
    # Rounds back to back, each waiting for every group's read (the budget far above any round):
    # a round's time is how long reading every group takes.
    cmd = [rmq, "watch", "--namesrv", namesrv, "--interval", "1s", "--round-budget", "10m", "--listen", "127.0.0.1:0"]
    watch = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        addr = watch.stderr.readline().split("http://")[1].split("/")[0]
        times, after_first = [], None
        while len(times) < ROUNDS:
            line = watch.stderr.readline()
            if not line:
                sys.exit(f"watch ended before round {ROUNDS}")
            m = ROUND_LINE.match(line.strip())
            if m:
                times.append(float(m.group(2)))
                if len(times) == 1:
                    after_first = requests_by_kind(metrics(addr))
        text = metrics(addr)
        with open(f"/proc/{watch.pid}/status") as f:
            status = f.read()
        rss_mb = int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) / 1024
        rss_now_mb = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1)) / 1024
        steady = {k: v - after_first.get(k, 0) for k, v in requests_by_kind(text).items()}
    finally:
        watch.terminate()
        watch.wait()
    try:
        # After the watch, so that the cluster's most-in-flight figure is the watch's alone.
        sample = [f"g{n}" for n in (0, FAULTY, 2 * FAULTY, 1, 2, groups - 1) if n < groups]
        disagree = {g: (watch_findings(text, g), i) for g in sample if watch_findings(text, g) != (i := inspect_findings(rmq, namesrv, g))}
    finally:
        _, err = cluster.communicate(timeout=60)
    served = json.loads(err.strip().splitlines()[-1])
    total = sum(steady.values())
    return {
        "groups": groups,
        "first_round_s": times[0],
        "steady_median_s": statistics.median(times[1:]),
        "steady_max_s": max(times[1:]),
        "most_in_flight": served["most_in_flight"],
        "rss_mb": round(rss_mb, 1),
        "rss_end_mb": round(rss_now_mb, 1),
        "running_info_share": round(steady.get("GET_CONSUMER_RUNNING_INFO", 0) / total, 3) if total else None,
        "steady_requests_per_round": round(total / (ROUNDS - 1)),
        "inspect_agrees": f"{len(sample) - len(disagree)}/{len(sample)}",
        "disagreements": disagree,
    }


def main():
    standin, rmq, *counts = sys.argv[1:]
    rows = [run(standin, rmq, int(g)) for g in (counts or ["50", "500", "2000"])]
    print(
        "| groups | first round | steady round (median / max) | most in flight | peak RSS | running info share (steady) | requests per steady round | inspect agrees |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['groups']} | {r['first_round_s']:.1f} s | {r['steady_median_s']:.2f} / {r['steady_max_s']:.2f} s | {r['most_in_flight']} | "
            f"{r['rss_mb']} MB | {r['running_info_share']:.1%} | {r['steady_requests_per_round']} | {r['inspect_agrees']} groups |"
        )
    for r in rows:
        if r["disagreements"]:
            print(f"{r['groups']} groups: watch and inspect disagree: {r['disagreements']}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
