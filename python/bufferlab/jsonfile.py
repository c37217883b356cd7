"""JSON for the files a run writes (``summary.json``, ``plan.json``): readable and fast at scale.

``json.dumps(indent=2)`` runs Python's pure-Python encoder (the C encoder serves only compact
output), which takes seconds for a run of thousands of flows and queues. Here a table's rows
(lists of objects: flows, queues, links, nodes) are written one row per line with the C encoder,
and everything else indented as usual: the file reads as a table, diffs row by row, and loads
with any JSON reader to the same value.
"""

from __future__ import annotations

import json
from typing import Any, Callable


def dumps(obj: Any, *, sort_keys: bool = False) -> str:
    """``obj`` as JSON text ending in a newline: a top-level object's lists of objects one item
    per line, the rest indented by two spaces."""
    if not isinstance(obj, dict) or not obj:
        return json.dumps(obj, indent=2, sort_keys=sort_keys) + "\n"
    keys = sorted(obj) if sort_keys else list(obj)
    row = _row_encoder(sort_keys)
    parts = []
    for k in keys:
        v = obj[k]
        name = json.dumps(str(k))
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            rows = ",\n".join("    " + row(x) for x in v)
            parts.append(f"  {name}: [\n{rows}\n  ]")
        else:
            body = json.dumps(v, indent=2, sort_keys=sort_keys).replace("\n", "\n  ")
            parts.append(f"  {name}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _row_encoder(sort_keys: bool) -> Callable[[Any], str]:
    """``json.dumps(x, sort_keys=sort_keys)`` for many rows at once: ``json.dumps`` makes the C
    encoder anew for every call, which for a run's 40,000 queue and 40,000 link rows costs as much
    as the encoding itself. Here it is made once (with the arguments ``JSONEncoder.iterencode``
    gives it), and checked against ``json.dumps`` on a probe; where the interpreter has no C
    encoder, or it answers otherwise, ``json.dumps`` it is."""
    def plain(x: Any) -> str:
        return json.dumps(x, sort_keys=sort_keys)

    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return plain
    e = json.JSONEncoder(sort_keys=sort_keys)
    try:
        c = make(None, e.default, json.encoder.encode_basestring_ascii, None, e.key_separator,
                 e.item_separator, sort_keys, e.skipkeys, e.allow_nan)
    except TypeError:
        return plain

    def fast(x: Any) -> str:
        return "".join(c(x, 0))

    probe = {"b": [1.5, None, True, "\u00e9\n"], "a": {"y": 2, "x": float("inf")}, "c": -0.0}
    return fast if fast(probe) == plain(probe) else plain
