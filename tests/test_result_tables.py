"""A run's tables from its summary rows, built column by column: the same frames as the rows'
definition, one flattened row at a time (nested values as JSON text, queues' drops by reason
spread into columns)."""

from __future__ import annotations

import json

import pandas as pd
from hypothesis import given, settings, strategies as st

from bufferlab.results import DROP_REASONS, _queues, _rows


def flat(row):
    return {k: json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v for k, v in row.items()}


def rows_one_by_one(rows):
    return pd.DataFrame.from_records([flat(r) for r in rows]) if rows else pd.DataFrame()


def queues_one_by_one(rows):
    if not rows:
        return pd.DataFrame()
    seen = {r for row in rows for r in (row.get("drops_by_reason") or {})}
    reasons = list(DROP_REASONS) + sorted(seen - set(DROP_REASONS))
    out = []
    for row in rows:
        o = flat({k: v for k, v in row.items() if k != "drops_by_reason"})
        by = row.get("drops_by_reason") or {}
        for r in reasons:
            o[f"drops_{r}"] = int(by.get(r, 0))
        out.append(o)
    return pd.DataFrame.from_records(out)


keys = st.sampled_from(["id", "link", "pkts", "rate_bps", "note", "cfg", "p99_s"])
values = st.none() | st.integers(-5, 5) | st.floats(-1e3, 1e3) | st.sampled_from(["a", "b"]) | st.dictionaries(
    st.sampled_from(["x", "y"]), st.integers(0, 3), max_size=2) | st.lists(st.integers(0, 3), max_size=2)
# Rows as the engine writes them share their keys; these need not, and the tables must still agree.
rows = st.lists(st.dictionaries(keys, values, min_size=1, max_size=5), max_size=6)
by_reason = st.none() | st.dictionaries(st.sampled_from(["overflow", "aqm", "ttl", "zz_new"]), st.integers(0, 9), max_size=3)


@settings(max_examples=80)
@given(rows)
def test_rows_table_is_the_rows_flattened_one_by_one(rs):
    pd.testing.assert_frame_equal(_rows(rs), rows_one_by_one(rs))


@settings(max_examples=80)
@given(rows, st.lists(by_reason, min_size=6, max_size=6), st.booleans())
def test_queues_table_is_the_rows_spread_one_by_one(rs, by, keep):
    qs = [{**r, "drops_by_reason": b} if keep or b else r for r, b in zip(rs, by)]
    pd.testing.assert_frame_equal(_queues(qs), queues_one_by_one(qs))
