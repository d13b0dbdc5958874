"""diagnose(): a live group's snapshot judged without the cluster. The snapshots are hand-built:
AVG over the sorted members ["a@1", "b@1"] and 4 queues gives a@1 queues 0-1 and b@1 queues 2-3."""

import json

import pytest

import rocketmq_rebalance as rr

AVG_CLASS = "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1b6d3586"


def snapshot(a, b, language="JAVA", properties=None):
    props = {"allocateMessageQueueStrategy": AVG_CLASS} if properties is None else properties

    def held(ids):
        return [{"queue": ["T", "broker-a", i], "dropped": False, "locked": False, "last_lock_ms": 0, "last_pull_ms": 0} for i in ids]

    return {
        "group": "G",
        "taken_at_ms": 0,
        "topics": {"T": [["T", "broker-a", i] for i in range(4)]},
        "brokers": [{"broker": "broker-a", "addr": "127.0.0.1:10911", "consumer_ids": ["b@1", "a@1"]}],
        "connections": [
            {"client_id": "a@1", "client_addr": "10.0.0.1:1", "language": language, "version": 479},
            {"client_id": "b@1", "client_addr": "10.0.0.2:1", "language": language, "version": 479},
        ],
        "clients": [
            {"client_id": "a@1", "running": {"properties": props, "held": held(a)}},
            {"client_id": "b@1", "running": {"properties": props, "held": held(b)}},
        ],
    }


def q(i):
    return rr.MessageQueue("T", "broker-a", i)


def test_a_healthy_group_as_dict_or_as_json_text():
    for s in (snapshot([0, 1], [2, 3]), json.dumps(snapshot([0, 1], [2, 3]))):
        d = rr.diagnose(s)
        assert d.healthy, d.findings
        assert [r.holders for r in d.queues] == [["a@1"], ["a@1"], ["b@1"], ["b@1"]]
        assert d.queues[0].queue == q(0) and d.queues[3].expected == ["b@1"]


def test_findings_name_their_queues_and_clients():
    d = rr.diagnose(snapshot([0, 1, 2], [2]))
    assert [f.kind for f in d.findings] == ["orphaned", "double_held", "unexpected_holder"]
    assert d.findings[0].queues == [q(3)]
    assert d.findings[1].clients == ["a@1", "b@1"]
    assert not d.healthy


def test_a_strategy_for_a_language_judges_clients_that_name_none():
    s = snapshot([0, 2], [1, 3], language="GO", properties={})
    # Nothing stated: a@1 holding 0 and 2 of 4 is AVG_BY_CIRCLE's deal, and only circle's.
    found = rr.diagnose(s)
    assert found.healthy, found.findings
    assert [(c.strategy, c.source) for c in found.strategies] == [("circle", "fingerprint")] * 2
    d = rr.diagnose(s, {"GO": rr.AveragelyByCircle()})
    assert [c.source for c in d.strategies] == ["stated", "stated"]
    assert d.healthy, d.findings
    d = rr.diagnose(s, {"GO": rr.Averagely()})
    assert [f.kind for f in d.findings] == ["unexpected_holder", "unexpected_holder"]


def test_bad_input_is_a_typed_error():
    with pytest.raises(rr.InvalidParametersError, match="not an inspect snapshot"):
        rr.diagnose("{not json")
    with pytest.raises(ValueError, match="not an inspect snapshot"):
        rr.diagnose({"group": 3})
    with pytest.raises(TypeError, match="must be a Strategy"):
        rr.diagnose(snapshot([0, 1], [2, 3]), {"JAVA": "averagely"})
    with pytest.raises(rr.InvalidParametersError, match="virtual_node_count"):
        rr.diagnose(snapshot([0, 1], [2, 3]), {"JAVA": {"strategy": "go_consistent_hash"}})


def test_a_go_ring_is_named_by_config_and_lag_is_carried():
    s = snapshot([], [], language="GO", properties={})
    ring = {"strategy": "go_consistent_hash", "params": {"virtual_node_count": 10}}
    d = rr.diagnose(s, {"GO": ring})
    assert [c.strategy for c in d.strategies] == ['go_consistent_hash{"virtual_node_count":10}'] * 2
    # Every queue is someone's under Go's ring (derived: a ring of 2 ids covers every queue), and
    # nobody holds any: all 4 orphaned, and their lag summed from the brokers' offsets.
    assert all(len(r.expected) == 1 for r in d.queues)
    s["offsets"] = [{"queue": ["T", "broker-a", i], "broker_offset": 10, "consumer_offset": i} for i in range(4)]
    orphaned = rr.diagnose(s, {"GO": ring}).findings[0]
    assert (orphaned.kind, orphaned.lag) == ("orphaned", 10 + 9 + 8 + 7)


def test_the_diagnosis_is_cores_one_schema_read_strictly():
    # Core's example fills every field once: the facade reads each of them, and writes nothing of
    # its own (its `json` is core's text, which the CLI prints and C writes too).
    from rocketmq_rebalance import _native

    text = _native.diagnosis_example()
    d = rr.Diagnosis.from_json(text)
    raw = json.loads(text)
    assert raw["schema_version"] == 1 and raw["healthy"] is False and d.group == raw["group"] == "G"
    f, r, c = d.findings[0], d.queues[0], d.strategies[0]
    assert (f.kind, f.topic, f.queues, f.clients, f.detail, f.lag) == ("orphaned", "T", [q(0)], ["a@1"], "x", 1)
    assert (r.queue, r.holders, r.handing_off, r.expected, r.if_agreed, r.lag) == (q(0), ["a@1"], ["a@1"], ["a@1"], ["a@1"], 1)
    assert (c.client_id, c.strategy, c.source, c.also_matches) == ("a@1", "averagely", "fingerprint", ["circle"])
    assert rr.Diagnosis.from_json(d.json) == d
    for edit, where in (
        (lambda v: v.update(schema_version=2), "schema_version 2"),
        (lambda v: v.update(healthy=True), "healthy is true"),
        (lambda v: v["findings"][0].update(extra=1), "findings\\[0\\]"),
        (lambda v: v["queues"][0].update(queue="T-broker-a-0"), "queues\\[0\\]"),
    ):
        v = json.loads(text)
        edit(v)
        with pytest.raises(rr.InvalidParametersError, match=where):
            rr.Diagnosis.from_json(json.dumps(v))


def test_a_strategy_spec_with_a_misspelt_key_is_refused():
    with pytest.raises(rr.InvalidParametersError, match="param"):
        rr.diagnose(snapshot([0, 1], [2, 3]), {"JAVA": {"strategy": "averagely", "param": {}}})
