"""The timing-noise section of docs/validation-linux.md: which links get the jitter, which rows
are reported as changing verdict, and that the jitter does reach a run and break its lock."""

import pytest

from bufferlab import validate_linux as suite
from bufferlab import validate_noise as noise
from bufferlab.scenario import load_scenario


def _case(name: str) -> suite.Case:
    return next(c for c in suite.CASES if c.name == name)


def test_every_suite_case_gets_jitter_on_the_links_that_touch_its_hosts():
    for case in suite.CASES:
        over = noise.host_jitter(case.file, "100us")
        links = load_scenario(case.file, overrides=over).plan["links"]  # the keys exist for the template
        ends = [n for l in links for n in (l["a"], l["b"])]
        hosts = {n for n in ends if ends.count(n) == 1}  # as the kernel backend: a node with one link
        for l in links:
            touches = bool({l["a"], l["b"]} & hosts)
            for side in ("forward", "reverse"):
                assert (l[side].get("jitter_ns") == 100_000) == touches, (case.name, l["a"], l["b"], side)


def test_a_template_without_known_host_links_is_an_error(tmp_path):
    f = tmp_path / "line.toml"
    f.write_text('[topology]\ntemplate = "parking_lot"\n')
    with pytest.raises(ValueError, match="parking_lot"):
        noise.host_jitter(f, "50us")


def _row(metric: str, verdict, sim: str = "1") -> dict:
    return {"metric": metric, "verdict": verdict, "sim": sim, "linux": "1"}


def test_only_rows_whose_verdict_changes_are_reported():
    base = {"a": [_row("drops", False, "14"), _row("goodput", True), _row("timeouts", None)]}
    noisy = {"50us": {"a": [_row("drops", False, "14"), _row("goodput", True), _row("timeouts", True)]},
             "100us": {"a": [_row("drops", True, "11"), _row("goodput", True), _row("timeouts", False)]}}
    changed = noise.flips(base, noisy)
    assert [(c["scenario"], c["metric"]) for c in changed] == [("a", "drops")]
    lines = noise.render(changed, {"50us": (1, 2), "100us": (2, 2)}, "d.md", "p99 70 µs")
    table = [l for l in lines if l.startswith("| a |")]
    assert table == ["| a | drops | 1 | 14 (differs) | 14 (differs) | 11 (holds) |"]
    assert "with up to 50 µs, 1 of 2; with up to 100 µs, 2 of 2" in lines[2]
    assert noise.render([], {"50us": (2, 2)}, "d.md", "x")[-2] == "No row changes verdict."


def test_jitter_breaks_the_single_reno_flows_lock():
    """One Reno flow through one BDP of FIFO repeats the same congestion event in every seed
    (14 drops in each, validation-linux-differences.md#reno-fifo-1bdp-1); with up to 100 us of
    jitter on the host links the seeds part and lose fewer (Linux: 10 per run)."""
    case = _case("reno-fifo-1bdp-1")
    seeds = [1, 2, 3]
    drops = lambda runs: [q["dropped"] for s in runs for q in s["queues"] if q["link"] == "r1->r2"]  # noqa: E731
    exact = drops(suite.run_sim(case, seeds))
    jittered = drops(suite.run_sim(case, seeds, noise.host_jitter(case.file, "100us")))
    assert len(set(exact)) == 1 and exact[0] >= 13, exact
    assert max(jittered) < exact[0] and len(set(jittered)) > 1, (exact, jittered)
