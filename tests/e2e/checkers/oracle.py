"""The second decoder: RocketMQ's own admin client (DefaultMQAdminExt, rocketmq-tools 5.3.3, in
the test main AdminOracleMain) reads the same live group as `inspect`, and the two decodings must
agree field by field. The reads are seconds apart, so what moves between them is compared with
a tolerance and said so: pull and lock times (within 60 s); everything else exactly."""

import json
import subprocess

from fixtures.harness import java

MOVING_MS = 60_000  # a push consumer pulls at least every 30 s; a lock is renewed every 20 s


def admin_read(java_cp, namesrv, group, log_root):
    """What DefaultMQAdminExt decodes for `group`, in inspect's snapshot field names."""
    done = subprocess.run(java(java_cp, "AdminOracleMain", namesrv, group, log_root=log_root), capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        raise RuntimeError(f"AdminOracleMain failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _held(entries):
    return {tuple(h["queue"]): h for h in entries}


def _connections(snapshot):
    return sorted((c["client_id"], c["client_addr"], c["language"], c["version"]) for c in snapshot["connections"])


def _subscriptions(running):
    return sorted((s["topic"], s["expression"], s["expression_type"], s["sub_version"]) for s in running["subscriptions"])


def _offsets(snapshot):
    return {tuple(o["queue"]): (o["broker_offset"], o["consumer_offset"]) for o in snapshot["offsets"]}


def differences(ours, theirs):
    """Every field on which inspect's snapshot and the admin client's reading differ (empty: none),
    and how many fields were compared."""
    out, compared = [], 0
    compared += 1
    if _connections(ours) != _connections(theirs):
        out.append(f"connections: {_connections(ours)} against {_connections(theirs)}")
    if ours.get("message_model") != theirs.get("message_model"):
        out.append(f"message model: {ours.get('message_model')} against {theirs.get('message_model')}")
    compared += 1
    mine = {c["client_id"]: c for c in ours["clients"]}
    for t in theirs["clients"]:
        o = mine.get(t["client_id"])
        if o is None or (o.get("running") is None) != (t.get("running") is None):
            out.append(f"{t['client_id']}: running info {o and o.get('error')} against {t.get('error')}")
            continue
        if t.get("running") is None:
            continue
        a, b = o["running"], t["running"]
        compared += 1
        if a["properties"] != b["properties"]:
            keys = sorted(k for k in set(a["properties"]) | set(b["properties"]) if a["properties"].get(k) != b["properties"].get(k))
            out.append(f"{t['client_id']}: properties differ on {keys}")
        compared += 1
        if _subscriptions(a) != _subscriptions(b):
            out.append(f"{t['client_id']}: subscriptions {_subscriptions(a)} against {_subscriptions(b)}")
        ha, hb = _held(a["held"]), _held(b["held"])
        compared += 1
        if set(ha) != set(hb):
            out.append(f"{t['client_id']}: holds {sorted(ha)} against {sorted(hb)}")
            continue
        for q, x in ha.items():
            y = hb[q]
            compared += 4
            for field in ("dropped", "locked"):
                if x[field] != y[field]:
                    out.append(f"{t['client_id']} {q} {field}: {x[field]} against {y[field]}")
            for field in ("last_lock_ms", "last_pull_ms"):
                if (x[field] == 0) != (y[field] == 0) or abs(x[field] - y[field]) > MOVING_MS:
                    out.append(f"{t['client_id']} {q} {field}: {x[field]} against {y[field]}")
    compared += len(_offsets(theirs))
    if _offsets(ours) != _offsets(theirs):
        out.append(f"offsets: {sorted(_offsets(ours).items())} against {sorted(_offsets(theirs).items())}")
    return out, compared
