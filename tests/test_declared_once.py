"""Every name and default of the scenario file exists once, in the engine's plan types; nothing in
the Python package restates a list of them.

The engine's reader takes the disciplines, traffic kinds, distribution laws and sizing rules
from its own declarations (``_core.file_names()``); this test walks the plan's JSON Schema and
checks that those names are the schema's, that the programs which implement a law or a
discipline elsewhere cover every one, and that no Python source holds a literal list of them
(which would go stale when the engine gains one).
"""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

from bufferlab import _core
from bufferlab.kernel.dist import sample
from bufferlab.scenario import NAMES, TCP_KINDS

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "bufferlab"
SCHEMA = json.loads(_core.plan_schema())


def _deref(s: dict) -> dict:
    ref = s.get("$ref")
    return _deref(SCHEMA["$defs"][ref.rsplit("/", 1)[-1]]) if ref else s


def _tags(definition: str, tag: str) -> list[str]:
    return [_deref(b)["properties"][tag]["const"] for b in SCHEMA["$defs"][definition]["oneOf"]]


def test_names_are_the_plan_types():
    assert NAMES["disciplines"] == _tags("QdiscSpec", "kind")
    assert NAMES["kinds"] == _tags("TrafficSpec", "kind")
    assert NAMES["laws"] == _tags("Dist", "dist")
    tcp = [b for b in SCHEMA["$defs"]["TrafficSpec"]["oneOf"] if "tcp" in _deref(b)["properties"]]
    assert list(TCP_KINDS) == [_deref(b)["properties"]["kind"]["const"] for b in tcp]
    assert "bdp" in NAMES["sizing_rules"] and "2L" in NAMES["sizing_rules"]


def test_every_traffic_kind_key_is_a_plan_field():
    for kind, keys in _core.traffic_keys().items():
        branch = next(_deref(b) for b in SCHEMA["$defs"]["TrafficSpec"]["oneOf"] if _deref(b)["properties"]["kind"]["const"] == kind)
        fields = {k.rsplit("_", 1)[0] if k.endswith(("_ns", "_bytes", "_pps")) else k for k in branch["properties"]}
        own = set(keys) - {"kind", "from", "to"}
        assert own <= fields, (kind, own - fields)


def test_the_namespace_programs_draw_every_law():
    """kernel/dist.py samples in the namespaces (standard library only): it must know each law."""
    params = {"value": 5.0, "mean": 10.0, "lo": 1.0, "hi": 2.0, "s": 1.2, "max": 10, "unit": 1448.0, "shape": 1.5, "sd": 2.0}
    rng = random.Random(1)
    for law in NAMES["laws"]:
        branch = next(_deref(b) for b in SCHEMA["$defs"]["Dist"]["oneOf"] if _deref(b)["properties"]["dist"]["const"] == law)
        d = {"dist": law, **{k: params[k] for k in branch["properties"] if k != "dist"}}
        assert sample(d, rng) >= 0


def _literal_lists(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            strings = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            if strings:
                yield node.lineno, strings


def test_no_python_source_restates_a_declared_list():
    """A literal list holding every name of a declared list is a second declaration of it (one
    holding some of them says what a backend can do, which is a use)."""
    declared = {k: set(v) for k, v in NAMES.items() if len(v) >= 4}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, strings in _literal_lists(tree):
            for what, names in declared.items():
                if names <= strings:
                    found.append(f"{path.relative_to(PACKAGE)}:{line} restates the {what}")
    assert not found, found
