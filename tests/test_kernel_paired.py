"""The simulator side of the Linux validation starts each bulk flow when the stored kernel run of
the same seed started it (bufferlab.kernel.paired)."""

from bufferlab import validate_linux as suite
from bufferlab.kernel.paired import with_kernel_starts
from bufferlab.scenario import load_scenario


def _plan(body: str, tmp_path) -> dict:
    f = tmp_path / "p.toml"
    f.write_text('[run]\nduration = "2s"\n[topology]\ntemplate = "dumbbell"\npairs = 3\n'
                 '[topology.bottleneck]\nrate = "10Mbps"\ndelay = "10ms"\n[topology.access]\nrate = "100Mbps"\ndelay = "1ms"\n' + body)
    return load_scenario(f).plan


def test_drawn_bulk_starts_become_the_kernels_one_block_per_flow(tmp_path):
    plan = _plan('[[traffic]]\nkind = "tcp"\nfrom = "senders"\nto = "receivers"\nstart = "uniform(0s,1s)"\n'
                 '[[traffic]]\nkind = "ping"\nfrom = "s1"\nto = "d1"\n'
                 '[[traffic]]\nkind = "tcp"\nfrom = "s1"\nto = "d2"\nstart = "0.5s"\n', tmp_path)
    flows = [{"id": f"tcp-{k}", "start_s": s} for k, s in ((1, 0.25), (2, 0.125), (3, 0.75), (4, 0.5))]
    out = with_kernel_starts(plan, flows)
    kinds = [(t["kind"], t["pairs"], t.get("start_ns")) for t in out["traffic"]]
    assert kinds[:3] == [("tcp", [["s1", "d1"]], {"dist": "const", "value": 250e6}),
                         ("tcp", [["s2", "d2"]], {"dist": "const", "value": 125e6}),
                         ("tcp", [["s3", "d3"]], {"dist": "const", "value": 750e6})]
    assert kinds[3][0] == "ping" and kinds[4] == ("tcp", [["s1", "d2"]], {"dist": "const", "value": 500e6})
    assert plan["traffic"][0]["start_ns"]["dist"] == "uniform"  # the plan given is not changed
    assert with_kernel_starts(plan, flows[:2]) is None  # a flow without a recorded start: no pairing


def test_a_paired_run_starts_its_flows_at_the_kernels_times_and_keeps_their_ids():
    case = next(c for c in suite.CASES if c.name == "bbr-cubic-fifo-4bdp")
    kruns = suite.stored_runs(case, [1, 2])
    if not kruns:
        import pytest
        pytest.skip("no stored kernel runs of bbr-cubic-fifo-4bdp")
    sims = suite.run_sim(case, [r["seed"] for r in kruns], kernels={r["seed"]: r for r in kruns})
    for k, s in zip(kruns, sims):
        want = {f["id"]: f["start_s"] for f in k["summary"]["flows"]}
        got = {f["id"]: f["start_s"] for f in s["flows"]}
        assert got.keys() == want.keys()
        assert all(abs(got[i] - want[i]) < 1e-6 for i in want), (got, want)
