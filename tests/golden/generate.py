#!/usr/bin/env python3
"""Writes tests/golden/balanced_sticky.jsonl (or balanced_sticky_v2.jsonl): seeded random
BALANCED_STICKY (or BALANCED_STICKY_V2) cases answered by the Rust core through
`rmq-rebalance allocate --cases`.

    python3 tests/golden/generate.py CLI [OUT]
    python3 tests/golden/generate.py CLI tests/golden/balanced_sticky_v2.jsonl balanced_sticky_v2

Neither strategy has a Java original to be the reference: the committed answers are the
reference instead. Every binding's tests run them (core, C, Java, Python), so all languages must
agree, and a change to the algorithm shows up as a failing test rather than as a group whose
clients of two versions silently disagree. Regenerate only on purpose, with a new algorithm
version in docs/balanced-sticky.md.
"""

import json
import random
import subprocess
import sys

# One seed per strategy: the V1 file stays as it was generated.
SEEDS = {"balanced_sticky": 20261130, "balanced_sticky_v2": 20261203}
TOPICS = ["T", "Orders", "Pay\u00f8", "T\U0001f600", "%RETRY%G", "Audit", "Mail"]
BROKERS = ["broker-a", "broker-b", "hz@b1", "x-\U0001f600"]


def stable(key, client_id):
    if key == "client_id":
        return client_id
    sep = "@" if key == "host" else key["before"]
    return client_id.split(sep, 1)[0]


def case(rng, n, strategy):
    topics = rng.sample(TOPICS, rng.randint(1, 5))
    brokers = rng.sample(BROKERS, rng.randint(1, 3))
    queues = [[t, b, q] for t in topics for b in brokers for q in range(rng.randint(0, 12))]
    hosts = rng.randint(1, 10)
    # Now and then a group larger than its topics (the paths for topics with few members).
    members = rng.randint(30, 70) if rng.random() < 0.15 else rng.randint(1, 14)
    ids = [f"10.0.0.{rng.randrange(hosts)}@{rng.randint(100, 999)}#{rng.randint(1, 9) * 1000}" for _ in range(members)]
    if rng.random() < 0.1:
        ids.append("\u00e9t\u00e9@42#7")
    key = rng.choice(["client_id", "host", {"before": "#"}])
    params = {"stable_key": key}
    if strategy == "balanced_sticky_v2":
        # Now and then caps other than the defaults, from exact (0:0) to loose.
        if rng.random() < 0.3:
            params["overload_percent"] = rng.choice([0, 5, 10, 50, 100])
        if rng.random() < 0.3:
            params["underload_percent"] = rng.choice([0, 20, 60, 100])
    elif rng.random() < 0.4:
        params["weights"] = {stable(key, i): rng.randint(1, 4) for i in rng.sample(ids, rng.randint(1, len(ids)))}
    if rng.random() < 0.1 and queues:
        queues.append(list(rng.choice(queues)))
    if rng.random() < 0.1:
        ids.append(rng.choice(ids))
    rng.shuffle(queues)
    rng.shuffle(ids)
    roll = rng.random()
    current = "" if roll < 0.02 else "absent@1" if roll < 0.07 else rng.choice(ids)
    if not queues:
        queues = None if rng.random() < 0.5 else []
    return {
        "id": f"{strategy}-{n}",
        "strategy": strategy,
        "group": "GID_golden",
        "current": current,
        "mq_all": queues,
        "cid_all": ids,
        "params": params,
    }


def main():
    cli = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "tests/golden/balanced_sticky.jsonl"
    strategy = sys.argv[3] if len(sys.argv) > 3 else "balanced_sticky"
    rng = random.Random(SEEDS[strategy])
    cases = [case(rng, n, strategy) for n in range(400)]
    stdin = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
    run = subprocess.run([cli, "allocate", "--cases", "-"], input=stdin, capture_output=True, text=True, encoding="utf-8", check=True)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == len(cases)
    with open(out, "w", encoding="utf-8") as f:
        for c, a in zip(cases, answers):
            assert a.pop("id") == c["id"]
            c["expected"] = a
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"{len(cases)} cases -> {out}")


if __name__ == "__main__":
    main()
