"""Bad input never crashes: mutated example files are either refused with problems that each name
a key, or run. Property tests over the six example scenarios."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
from accounting_checks import assert_books_balance
from conftest import EXAMPLE_NAMES, example_doc, example_path
from hypothesis import given, settings
from hypothesis import strategies as st

import bufferlab
from bufferlab import ScenarioError, load_scenario, loads_scenario, validate

DOCS = {name: example_doc(name) for name in EXAMPLE_NAMES}
TEXTS = {name: example_path(name).read_text() for name in EXAMPLE_NAMES}

quantities = st.from_regex(
    r"-?[0-9]{1,6}(\.[0-9]{1,3})?(ns|us|ms|s|h|bps|kbps|Mbps|Gbps|Tbps|pps|B|KB|KiB|MB|pkt|Mbsp|x|)", fullmatch=True
)
distributions = st.from_regex(
    r"(const|exp|uniform|zipf|pareto|lognormal|expo)\((-?[0-9.]{1,5}(s|ms|KB|pkt|)|mean=[0-9]{1,3}(ms|KB)|max=[0-9]{1,6}pkt|sd=[0-9]ms)"
    r"(, ?(-?[0-9.]{1,5}(s|ms|KB|pkt|)|mean=[0-9]{1,3}(ms|KB)|max=[0-9]{1,6}pkt|sd=[0-9]ms)){0,2}\)",
    fullmatch=True,
)
scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    quantities,
    distributions,
    st.sampled_from(["fifo", "codel", "fq_codel", "red", "atm", "auto", "off", "inf", "senders", "client", "r1", "tcp", "udp", "bdp"]),
)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6,
)


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path in the document (dict keys and list indices)."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append(prefix + (k,))
            out.extend(paths(v, prefix + (k,)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append(prefix + (i,))
            out.extend(paths(v, prefix + (i,)))
    return out


def parent(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


mutation = st.tuples(
    st.sampled_from(["delete", "replace", "rename", "add", "typo"]),
    st.integers(min_value=0, max_value=10**6),
    junk,
    st.text(min_size=1, max_size=10),
)


def apply(doc: dict, m: tuple) -> None:
    op, pick, value, word = m
    ps = paths(doc)
    if not ps:
        doc[word] = value
        return
    path = ps[pick % len(ps)]
    box, key = parent(doc, path), path[-1]
    if op == "delete":
        del box[key]
    elif op == "replace":
        box[key] = value
    elif op == "add":
        target = box[key] if isinstance(box[key], dict) else box
        if isinstance(target, dict):
            target[word] = value
        else:
            target.append(value)
    elif isinstance(key, str):
        new = word if op == "rename" else (key[1:] + key[:1] if len(key) > 1 else key + "x")
        box[new] = box.pop(key)


def check_outcome(doc: dict) -> None:
    problems = validate(doc)
    for p in problems:
        assert p.path, f"problem without a key path: {p!r}"
        assert p.message.strip()
    if not problems:
        # The plan is strict JSON (no NaN or infinity reaches the engine) ...
        json.dumps(load_scenario(doc).plan, allow_nan=False)
        # ... and it can run: run a short stretch of it (the engine must not fail either).
        short = copy.deepcopy(doc)
        short["run"]["duration"] = "0.2s"
        short["run"].pop("measure", None)
        short["run"].pop("sample", None)
        if not validate(short):
            r = bufferlab.run(short)
            assert r.summary["engine"]["sim_seconds"] == pytest.approx(0.2)
            assert_books_balance(r.summary)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
@settings(max_examples=120)
@given(mutations=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_examples_never_crash_and_always_name_a_key(name, mutations):
    doc = copy.deepcopy(DOCS[name])
    for m in mutations:
        apply(doc, m)
    check_outcome(doc)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
@settings(max_examples=60)
@given(edits=st.lists(st.tuples(st.integers(min_value=0, max_value=10**6), st.integers(0, 8), st.text(max_size=4)), min_size=1, max_size=4))
def test_mutated_example_text_never_crashes(name, edits):
    text = TEXTS[name]
    for pos, cut, ins in edits:
        pos %= len(text) + 1
        text = text[:pos] + ins + text[pos + cut:]
    try:
        sc = loads_scenario(text)
    except ScenarioError as e:
        assert e.problems and all(str(p).strip() for p in e.problems)
    else:
        assert sc.plan["run"]["duration_ns"] > 0


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, 2**64, -(2**64), "", " ", "\x00", "10Mbps" * 100, [], {}, [[]], {"": {}}, True],
)
@pytest.mark.parametrize(
    "path",
    [
        ("run", "duration"), ("run", "seed"), ("run", "measure"), ("topology", "template"), ("topology", "up", "rate"),
        ("topology", "up", "queue"), ("topology", "up", "queue", "limit"), ("topology", "up", "ring"),
        ("traffic", 0, "rate"), ("traffic", 0, "from"), ("traffic", 0, "size"), ("traffic",), ("topology",),
    ],
)
def test_hostile_values_at_every_key(path, value):
    doc = copy.deepcopy(DOCS["udp-fifo"])
    box = doc
    for k in path[:-1]:
        box = box[k]
    box[path[-1]] = value
    problems = validate(doc)
    if (path, value) in ((("topology", "up", "queue"), {}), (("traffic",), [])):
        assert problems == []  # an empty queue table is the default FIFO; no traffic is a valid run
        return
    assert problems, f"{path} = {value!r} was accepted"
    assert all(p.path for p in problems)


KNOWN_KEYS = [
    "discipline", "limit", "sizing", "scale", "target", "interval", "flows", "quantum", "tupdate", "alpha", "beta",
    "buffers", "update", "smoothing", "threshold", "min_th", "max_p", "size", "bql", "rate", "delay", "framing",
    "queue", "ring", "loss", "kind", "from", "to", "start", "count", "cc", "sack", "mss", "rwnd", "arrivals",
    "burst", "ttl", "stop", "idle", "arrival_rate", "packets", "every", "duration", "seed", "measure", "sample",
    "pairs", "template", "up", "down", "between", "name",
]
tables = st.dictionaries(st.one_of(st.sampled_from(KNOWN_KEYS), st.text(max_size=6)), junk, max_size=6)


@pytest.mark.parametrize(
    "name, path",
    [
        ("udp-fifo", ("topology", "up", "queue")),
        ("udp-fifo", ("topology", "up", "ring")),
        ("udp-fifo", ("topology", "down")),
        ("udp-fifo", ("traffic", 0)),
        ("udp-fifo", ("run",)),
        ("dumbbell", ("topology", "access")),
        ("dumbbell", ("topology", "bottleneck_reverse")),
        ("dumbbell", ("topology",)),
        ("braud-table2", ("traffic", 2)),
    ],
)
@settings(max_examples=80)
@given(table=tables)
def test_random_tables_never_crash(name, path, table):
    doc = copy.deepcopy(DOCS[name])
    box = doc
    for k in path[:-1]:
        box = box[k]
    box[path[-1]] = table
    check_outcome(doc)
