"""One schema: the file format's JSON Schema and the docs' key tables come from the engine's own
parameter declarations, and `validate` and `run` agree on every boundary value."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
from conftest import EXAMPLES_DIR

import bufferlab
from bufferlab import ScenarioError, validate
from bufferlab.scenario.jsonschema import markdown_tables, rewrite_docs, scenario_schema, sweep_schema

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted({*ROOT.glob("scenarios/*.toml"), *ROOT.glob("scenarios/bench/*.toml"), *EXAMPLES_DIR.glob("*.toml")})


def test_docs_tables_are_current():
    text = (ROOT / "docs/scenario-format.md").read_text()
    assert rewrite_docs(text) == text, "run `bufferlab schema --docs docs/scenario-format.md`"
    # Every discipline key and TCP option is in them, with its default in the file's units.
    tables = markdown_tables()
    assert "| `quantum` | `1514B` | >= 64B, <= 1048576B |" in tables
    assert "| `min_rto` | `200ms` |" in tables


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_shipped_file_fits_its_schema(path):
    doc = tomllib.loads(path.read_text())
    schema = sweep_schema() if "base" in doc else scenario_schema()
    jsonschema.Draft202012Validator(schema).validate(doc)


def test_the_schema_catches_what_an_editor_should():
    v = jsonschema.Draft202012Validator(scenario_schema())
    doc = tomllib.loads((EXAMPLES_DIR / "dumbbell.toml").read_text())
    assert not list(v.iter_errors(doc))
    doc["topology"]["bottleneck"]["queue"]["discipline"] = "fq-codel"
    doc["traffic"][0]["sak"] = True
    doc["run"]["durration"] = "1s"
    msgs = [e.message for e in v.iter_errors(doc)]
    assert len(msgs) >= 3, msgs


def test_schema_command_prints_json():
    for args in ([], ["--sweep"]):
        out = subprocess.run([sys.executable, "-m", "bufferlab.cli", "schema", *args], capture_output=True, text=True, check=True)
        s = json.loads(out.stdout)
        jsonschema.Draft202012Validator.check_schema(s)


DUMBBELL = EXAMPLES_DIR / "dumbbell.toml"
Q = "topology.bottleneck.queue"
# Boundary values: each accepted by both or refused by both, at the same key.
BOUNDARIES = [
    ({"topology.bottleneck.delay": "2h"}, None),
    ({"topology.bottleneck.loss": 1.0}, None),
    ({"topology.bottleneck.loss": 1.01}, "topology.bottleneck.loss"),
    ({Q: {"discipline": "fq_codel", "quantum": "32B"}}, f"{Q}.quantum"),
    ({Q: {"discipline": "fq_codel", "quantum": 64}}, None),
    ({"traffic[0].cc": "vegas", "traffic[0].vegas_alpha": 0}, "traffic[0].vegas_alpha"),
    ({"traffic[0].cc": "vegas", "traffic[0].vegas_alpha": 5, "traffic[0].vegas_beta": 4}, "traffic[0].vegas_alpha"),
    ({"traffic[0].mss": "64B"}, None),
    ({"traffic[0].mss": "63B"}, "traffic[0].mss"),
    ({"traffic[0].delack": "500ms"}, "traffic[0].delack"),
    ({"traffic[0].min_rto": "2s", "traffic[0].max_rto": "1s"}, "traffic[0].min_rto"),
    ({Q: {"discipline": "codel", "target": "100ms"}}, f"{Q}.target"),
    ({Q: {"discipline": "fifo", "sizing": "bdp", "scale": 0}}, f"{Q}.scale"),
    ({Q: {"limit": "63B"}}, f"{Q}.limit"),
    ({"topology.bottleneck.ring": {"size": 64, "bql": "63B"}}, "topology.bottleneck.ring.bql"),
    ({"run.sample": "0s"}, "run.sample"),
    ({"run.sample": "99ns"}, "run.sample"),  # over 10^7 samples of the 1 s run
    ({"run.duration": "721h"}, "run.duration"),  # 30 days is the longest run
]


@pytest.mark.parametrize("overrides, path", BOUNDARIES, ids=[str(b[0]) for b in BOUNDARIES])
def test_validate_and_run_agree(overrides, path):
    overrides = {"run.duration": "1s", **overrides}
    checked = [p.path for p in validate(DUMBBELL, overrides=overrides)]
    try:
        bufferlab.run(DUMBBELL, overrides=overrides)
        ran: list[str] = []
    except ScenarioError as e:
        ran = [p.path for p in e.problems]
    assert checked == ran
    assert checked == ([path] if path else []), checked


def test_one_pass_reports_the_readers_and_the_engines_problems_together():
    """A file with a key the reader refuses and numbers only the engine's bounds refuse gets
    every problem in one report, each at its key."""
    overrides = {
        "run.duration": "1s",
        "traffic[0].colour": "red",
        "topology.bottleneck.loss": 2.0,
        Q: {"discipline": "fq_codel", "quantum": "32B"},
    }
    paths = [p.path for p in validate(DUMBBELL, overrides=overrides)]
    assert sorted(paths) == sorted(["traffic[0].colour", "topology.bottleneck.loss", f"{Q}.quantum"]), paths
