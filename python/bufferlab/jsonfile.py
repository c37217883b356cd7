"""JSON for the files a run writes (``summary.json``, ``plan.json``): readable and fast at scale.

``json.dumps(indent=2)`` runs Python's pure-Python encoder (the C encoder serves only compact
output), which takes seconds for a run of thousands of flows and queues. Here a table's rows
(lists of objects: flows, queues, links, nodes) are written one row per line with the C encoder,
and everything else indented as usual: the file reads as a table, diffs row by row, and loads
with any JSON reader to the same value.
"""

from __future__ import annotations

import json
from typing import Any


def dumps(obj: Any, *, sort_keys: bool = False) -> str:
    """``obj`` as JSON text ending in a newline: a top-level object's lists of objects one item
    per line, the rest indented by two spaces."""
    if not isinstance(obj, dict) or not obj:
        return json.dumps(obj, indent=2, sort_keys=sort_keys) + "\n"
    keys = sorted(obj) if sort_keys else list(obj)
    parts = []
    for k in keys:
        v = obj[k]
        name = json.dumps(str(k))
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            rows = ",\n".join("    " + json.dumps(x, sort_keys=sort_keys) for x in v)
            parts.append(f"  {name}: [\n{rows}\n  ]")
        else:
            body = json.dumps(v, indent=2, sort_keys=sort_keys).replace("\n", "\n  ")
            parts.append(f"  {name}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
