#!/usr/bin/env python3
"""Turns the committed conformance vectors (tests/vectors/data/*.jsonl, answered by the real Java
client; then any further files named, such as tests/golden/balanced_sticky.jsonl and balanced_sticky_v2.jsonl, answered by the
core) into a line format a C11 test reads with sscanf: every string hex-encoded behind an `x`
(so `x` alone is the empty string), `-` for Java's null.

    case <id>
    config <name> <params JSON or ->        strategy_from_config arguments
    typed <kind> ...                        the same strategy through the typed constructor
    group <s> / current <s>
    queues <n>, then n lines `<topic> <broker> <queue id>`
    ids <n>, then n lines `<id>`
    expect result <n> (+ n queue lines) | expect null | expect error <JavaException> <code>
    end

Java's null current id and null lists become "" and empty lists, which the C API (like every
binding) treats as Java treats null. `code` is the rmq_result Java's message corresponds to, or 0
where only the exception class is known (NullPointerException messages are the JVM's own).
"""

import json
import sys
from pathlib import Path

# Java's IllegalArgumentException messages -> rmq_result codes (ffi/src/result.rs).
MESSAGE_CODES = [
    ("currentCID is empty", 100),
    ("mqAll is null or mqAll empty", 101),
    ("cidAll is null or cidAll empty", 102),
    ("illegal virtualNodeCnt", 103),
    ("Machine room is null for mq", 104),
    ("Machine room is null for consumer id", 105),
]
FILES = ["averagely", "circle", "consistent_hash", "machine_room_nearby", "by_machine_room", "by_config"]


def s(text):
    return "-" if text is None else "x" + text.encode("utf-8").hex()


def queue_lines(queues):
    return [f"{s(t)} {s(b)} {q}" for t, b, q in queues]


def typed(strategy, params):
    params = params or {}
    if strategy in ("averagely", "circle"):
        return [f"typed {strategy}"]
    if strategy == "consistent_hash":
        return [f"typed consistent_hash {params.get('virtual_node_count', 10)}"]
    if strategy == "by_machine_room":
        idcs = params.get("consume_idcs")
        if idcs is None:
            return ["typed by_machine_room -"]
        return [f"typed by_machine_room {len(idcs)} " + " ".join(s(i) for i in idcs)]
    if strategy == "by_config":
        config = params.get("config")
        if config is None:
            return ["typed by_config -"]
        return [f"typed by_config {len(config)}"] + queue_lines(config)
    if strategy == "machine_room_nearby":
        inner_params = params.get("inner_params")
        return [
            "typed nearby {} {} {} {}".format(
                s(params["inner"]),
                "-" if inner_params is None else s(json.dumps(inner_params)),
                s(params.get("broker_room_sep", "-")),
                s(params.get("consumer_room_sep", "@")),
            )
        ]
    if strategy == "balanced_sticky":
        key = params.get("stable_key", "client_id")
        kind, sep = (2, s(key["before"])) if isinstance(key, dict) else ({"client_id": 0, "host": 1}[key], "-")
        weights = params.get("weights") or {}
        return [f"typed balanced_sticky {kind} {sep} {len(weights)} " + " ".join(f"{s(k)} {w}" for k, w in weights.items())]
    if strategy == "balanced_sticky_v2":
        key = params.get("stable_key", "client_id")
        kind, sep = (2, s(key["before"])) if isinstance(key, dict) else ({"client_id": 0, "host": 1}[key], "-")
        return [f"typed balanced_sticky_v2 {kind} {sep} {params.get('overload_percent', 20)} {params.get('underload_percent', 40)}"]
    raise SystemExit(f"no typed constructor for {strategy}")


def expectation(case):
    expected = case["expected"]
    if "error" in expected:
        exception, _, message = expected["error"].partition(": ")
        code = next((c for prefix, c in MESSAGE_CODES if message.startswith(prefix)), 0)
        if exception == "IllegalArgumentException" and code == 0:
            raise SystemExit(f"{case['id']}: no code for {message!r}")
        return [f"expect error {exception} {code}"]
    if expected["result"] is None:
        return ["expect null"]
    return [f"expect result {len(expected['result'])}"] + queue_lines(expected["result"])


def convert(case):
    params = case.get("params")
    lines = [f"case {case['id']}", f"config {s(case['strategy'])} {'-' if params is None else s(json.dumps(params))}"]
    lines += typed(case["strategy"], params)
    lines += [f"group {s(case.get('group') or '')}", f"current {s(case.get('current') or '')}"]
    queues = case.get("mq_all") or []
    lines += [f"queues {len(queues)}"] + queue_lines(queues)
    ids = case.get("cid_all") or []
    lines += [f"ids {len(ids)}"] + [s(i) for i in ids]
    return lines + expectation(case) + ["end"]


def main():
    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    # Further files (the BALANCED_STICKY golden answers) follow the Java-answered ones.
    files = [data / f"{name}.jsonl" for name in FILES] + [Path(p) for p in sys.argv[3:]]
    count = 0
    with out.open("w") as f:
        for path in files:
            for line in path.read_text().splitlines():
                f.write("\n".join(convert(json.loads(line))) + "\n")
                count += 1
    print(f"{count} vectors -> {out}")


if __name__ == "__main__":
    main()
