"""Reproductions: every scenario they build is valid, and the closed-form one agrees with theory."""

import bufferlab
import pytest
from bufferlab.reproduce import REPRODUCTIONS, braud, cardozo, gorinsky, jabeen, run_reproduction
from typer.testing import CliRunner


def _scenarios():
    yield braud.table2(True, braud.FREEBSD_SNDBUF, 1, True)
    yield braud.table2(False, None, 1, False)
    yield gorinsky.one_flow("2pkt", 0.875, 1, True)
    yield gorinsky.one_flow({"sizing": "bdp"}, 0.5, 1, False)
    for _, q, bql, _ in cardozo.CASES:
        yield cardozo.host(q, bql, 1, True)
    for _, q in jabeen.CASES:
        yield jabeen.two_flows(q, 1, True)


@pytest.mark.parametrize("sc", list(_scenarios()))
def test_every_reproduction_scenario_is_valid(sc):
    assert [str(p) for p in bufferlab.validate(sc)] == []


def test_md1_agrees_with_pollaczek_khinchine():
    df = run_reproduction("theory/md1", seeds=2, quick=True)
    assert list(df["case"]) == ["rho=0.3", "rho=0.5", "rho=0.8", "rho=0.9"]
    assert df["holds"].all(), df
    # The closed form itself: rho S / (2 (1 - rho)) with S = 1.2 ms.
    assert df.loc[df["case"] == "rho=0.8", "paper"].item() == pytest.approx(2.4)


def test_cli_lists_and_rejects_unknown():
    from bufferlab.cli import app

    r = CliRunner().invoke(app, ["reproduce"])
    assert r.exit_code == 0
    for name in REPRODUCTIONS:
        assert name in r.output
    r = CliRunner().invoke(app, ["reproduce", "nope/fig1"])
    assert r.exit_code == 2


@pytest.mark.parametrize("name", ["gorinsky/beta", "cardozo/bql"])
def test_paper_claims_hold(name):
    # Seed 003 §5 (utilization with 2-packet buffers, beta 0.5 / 0.875) and seed 001 (RTT under
    # load against qdisc and BQL): every claim holds on short runs of one seed.
    df = run_reproduction(name, seeds=1, quick=True)
    assert df["holds"].all(), df.to_string()


def test_braud_table2_udp_cuts_rtt():
    df = run_reproduction("braud/table2", seeds=1, quick=True)
    rows = df[df["case"].str.startswith("unlimited window")]
    assert rows["holds"].all(), rows.to_string()
    ratio = df[(df["quantity"] == "RTT without / with UDP") & (df["case"] == "unlimited window")]["bufferlab"].item()
    assert ratio > 2.0
