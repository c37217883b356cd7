"""Every shipped scenario, and the dumbbell with every discipline and congestion control, gives the
summary recorded in tests/golden/ (by ``tests/golden_record.py``), to the bit.

A structural change (the scenario schema, the engine's module layout) must not move a single
number. A change that is meant to change results re-records the files and says why in its commit.
"""

from __future__ import annotations

import json

import pytest

import golden_record as g

CASES = g.all_cases()


def test_every_case_is_recorded() -> None:
    recorded = {p.stem for p in g.GOLDEN.glob("*.json")}
    assert recorded == set(CASES), "run `python tests/golden_record.py` to record the new cases"


@pytest.mark.parametrize("name", sorted(CASES))
def test_summary_is_unchanged(name: str) -> None:
    path, overrides = CASES[name]
    want = json.loads((g.GOLDEN / f"{name}.json").read_text())
    got = json.loads(json.dumps(g.summary(path, overrides), sort_keys=True))
    assert got == want
