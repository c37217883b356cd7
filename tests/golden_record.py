"""Record (or compare) the summaries the engine gives for every scenario shipped in scenarios/.

    python tests/golden_record.py          # rewrite tests/golden/*.json from the current engine

The recorded summaries are the reference of ``test_golden_summaries.py``: a structural change to
the engine or the scenario layer must leave every one bit-identical (wall-clock fields aside).
Besides the shipped scenarios, ``VARIANTS`` runs the dumbbell with every discipline and congestion
control and non-default parameters, so that a parameter read differently shows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"

# Fields that depend on the machine, not the model.
VOLATILE = ("wall_seconds",)

D = "dumbbell.toml"
Q = "topology.bottleneck.queue"
# Every discipline and congestion control with non-default parameters, on the dumbbell.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "v-red": (D, {Q: {"discipline": "red", "limit": "200pkt", "min_th": 10, "max_th": 40, "max_p": 0.2, "gentle": True}}),
    "v-red-bytes": (D, {Q: {"discipline": "red", "limit": "300KB", "min_th": "15KB", "max_th": "60KB"}}),
    "v-codel": (D, {Q: {"discipline": "codel", "target": "3ms", "interval": "80ms"}}),
    "v-fq_codel": (D, {Q: {"discipline": "fq_codel", "flows": 64, "quantum": 300, "limit": 500}}),
    "v-fq": (D, {Q: {"discipline": "fq", "limit": 400, "flow_limit": 40, "quantum": "1514B", "initial_quantum": "3028B", "maxrate": "2Mbps"}}),
    "v-fq-hosts": (D, {"topology.access.queue": {"discipline": "fq", "refill_delay": "10ms"}, "traffic[0].cc": "cubic"}),
    "v-tsq": (D, {"traffic[0].tsq": True, "traffic[0].limit_output": "64KB"}),
    "v-pie": (D, {Q: {"discipline": "pie", "target": "10ms", "tupdate": "20ms", "alpha": 0.25, "beta": 2.0}}),
    "v-splitbuff": (D, {Q: {"discipline": "splitbuff", "sizing": "bdp", "buffers": 3, "update": "500ms"}}),
    "v-blind": (D, {Q: {"discipline": "blind_splitbuff", "limit": "120pkt", "buffers": 3}}),
    "v-prio": (D, {Q: {"discipline": "prio_small", "limit": "80pkt", "threshold": "100B"}}),
    "v-fq_pie": (D, {Q: {"discipline": "fq_pie", "limit": "300pkt", "target": "10ms", "tupdate": "20ms", "alpha": 0.25, "beta": 2.0, "flows": 64, "quantum": 600, "ecn": True, "ecn_prob": 0.2}}),
    "v-dualpi2": (D, {Q: {"discipline": "dualpi2", "limit": "300pkt", "target": "10ms", "tupdate": "20ms", "alpha": 0.3, "beta": 4.0, "step_thresh": "2ms", "c_protection": 30, "coupling_factor": 3, "drop_early": True}}),
    "v-red-step": (D, {Q: {"discipline": "red", "limit": "200pkt", "min_th": 20, "max_th": 20, "max_p": 1.0, "weight": 1.0, "gentle": False, "ecn": True}, "traffic[0].cc": "dctcp"}),
    "v-fq_codel-ce": (D, {Q: {"discipline": "fq_codel", "ce_threshold": "1ms"}, "traffic[0].cc": "prague", "traffic[0].prague_rtt_target": "10ms"}),
    "v-bytes": (D, {Q: {"discipline": "fifo", "limit": "90KB"}}),
    "v-sqrt": (D, {Q: {"discipline": "fifo", "sizing": "bdp/sqrt(n)", "scale": 2.0}}),
    "v-adaptive": (D, {Q: {"discipline": "fifo", "sizing": "rtt-adaptive"}}),
    "v-cubic": (D, {"traffic[0].cc": "cubic", "traffic[0].beta": 0.8}),
    "v-vegas": (D, {"traffic[0].cc": "vegas", "traffic[0].vegas_alpha": 2, "traffic[0].vegas_beta": 4}),
    "v-bbr": (D, {"traffic[0].cc": "bbr"}),
    "v-pacing": (D, {"traffic[0].cc": "cubic", "traffic[0].pacing": True, "traffic[0].pacing_ca_ratio": 110}),
    "v-nosack": (D, {"traffic[0].sack": False, "traffic[0].delayed_ack": False, "traffic[0].initial_window": 2}),
    "v-beta": (D, {"traffic[0].beta": 0.875, "traffic[0].min_rto": "1s", "traffic[0].mss": "960B", "traffic[0].rwnd": "64KB"}),
}


def cases() -> list[Path]:
    """Every scenario file shipped (sweep specs aside)."""
    import tomllib

    files = sorted(ROOT.glob("scenarios/*.toml")) + sorted(ROOT.glob("scenarios/bench/*.toml"))
    return [f for f in files if "base" not in tomllib.loads(f.read_text())]


def scrub(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: scrub(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [scrub(v) for v in x]
    return x


def all_cases() -> dict[str, tuple[Path, dict[str, Any]]]:
    """Name -> (scenario file, overrides)."""
    out: dict[str, tuple[Path, dict[str, Any]]] = {}
    for p in cases():
        out[p.relative_to(ROOT / "scenarios").as_posix().replace("/", "__").removesuffix(".toml")] = (p, {})
    for name, (f, o) in VARIANTS.items():
        out[name] = (ROOT / "scenarios" / f, {"run.duration": "60s", **o})
    return out


def summary(path: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    import bufferlab

    r = bufferlab.run(path, overrides=overrides)
    return scrub(json.loads(r.summary_json()))


def main() -> int:
    GOLDEN.mkdir(exist_ok=True)
    for name, (p, o) in all_cases().items():
        s = summary(p, o)
        (GOLDEN / f"{name}.json").write_text(json.dumps(s, sort_keys=True, separators=(",", ":")) + "\n")
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
