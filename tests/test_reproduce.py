"""Reproductions: the framework (specs, claims, intervals, CLI) and a smoke run of every item."""

import math
from pathlib import Path

import bufferlab
import pytest
from bufferlab.reproduce import ITEMS, PROFILES, run_item
from bufferlab.reproduce.claims import FAILS, HOLDS, NOT_COMPARABLE, ClaimSpec, at_least, judge, within
from bufferlab.reproduce.item import MIN_SEEDS
from bufferlab.reproduce.stats import estimate
from typer.testing import CliRunner


def test_interval_is_student_t():
    # n = 3, mean 2, s = 1: t(0.975, 2) = 4.302653 (tables), half-width 4.302653 / sqrt(3)
    e = estimate([1.0, 2.0, 3.0])
    assert e.mean == 2.0 and e.n == 3
    assert e.hi - 2.0 == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    one = estimate([5.0])
    assert one.mean == 5.0 and math.isnan(one.lo)
    assert estimate([math.nan]).n == 0


def test_verdicts():
    spec = ClaimSpec("x", "Table I", "about 10", within(10, rel=0.1), "ms")
    assert judge("i", spec, [9.5, 10.5]).verdict == HOLDS
    assert judge("i", spec, [12.0, 12.5]).verdict == FAILS
    assert judge("i", spec, None).verdict == NOT_COMPARABLE
    assert judge("i", spec, []).verdict == NOT_COMPARABLE
    assert judge("i", ClaimSpec("y", "§5", "at least 75%", at_least(75)), [74.0]).verdict == FAILS


@pytest.mark.parametrize("name", [n for n, it in ITEMS.items() if it.runnable])
@pytest.mark.parametrize("profile", PROFILES)
def test_every_spec_expands_to_valid_scenarios(name, profile):
    from bufferlab.sweep import load_spec

    item = ITEMS[name]
    sweeps = item.sweeps(profile)
    assert sweeps
    for doc in sweeps.values():
        spec = load_spec(doc)
        assert len(spec.seeds) >= MIN_SEEDS[profile]
        points = spec.points("test")
        # every scenario of the sweep is valid (checked once per distinct point)
        seen = set()
        for p in points:
            if p.point_id not in seen:
                seen.add(p.point_id)
                assert [str(x) for x in bufferlab.validate(p.scenario)] == [], (name, p.params)


def test_each_papers_tcp_stack_reaches_every_tcp_block():
    # None of the four papers' stacks had RACK; the ns-2 and FreeBSD ones had no F-RTO or D-SACK
    # either.
    # Traffic lists come from the base or from a sweep's `set` (braud/table1's UDP sweeps).
    seen = set()
    for name, it in ITEMS.items():
        # (The four seed papers; the L4S items' stack is a later Linux's, RACK and all.)
        if not it.runnable or not it.paper.tcp or it.paper.key not in ("braud", "cardozo", "gorinsky", "jabeen"):
            continue
        for doc in it.sweeps("full").values():
            for where in ("base", "set"):
                for block in (doc.get(where) or {}).get("traffic", []):
                    if block.get("kind") in ("tcp", "web", "tcp_onoff"):
                        assert block["rack"] is False, (name, where)
                        assert block.get("frto", True) is (it.paper.key == "cardozo"), (name, where)
                        assert block.get("dsack", True) is (it.paper.key == "cardozo"), (name, where)
                        if it.paper.key in ("gorinsky", "jabeen"):
                            # ns-2's agents and sink: one ACK per packet, no timestamps, its timer
                            assert (block["delayed_ack"], block["timestamps"], block["initial_window"],
                                    block["rto_floor"], block["rtt_samples"]) == (
                                False, False, 2, "total", "one_per_rtt"), (name, where)
                            assert block["sack"] is (it.paper.key == "jabeen"), (name, where)
                        seen.add((it.paper.key, where))
    assert {("braud", "set"), ("gorinsky", "base"), ("jabeen", "base"), ("cardozo", "base")} <= seen


def test_stack_profile_states_every_setting():
    from bufferlab.reproduce.papers import GORINSKY, JABEEN, NS2

    # Each paper's packet size and its ns-2 release's timers on top of ns-2's agents.
    assert GORINSKY.tcp["mss"] == "1460B" and GORINSKY.tcp["min_rto"] == "1s"
    assert JABEEN.tcp["mss"] == "1000B" and JABEEN.tcp["min_rto"] == "200ms" and JABEEN.tcp["sack"] is True
    assert NS2.tcp["sack"] is False
    note = JABEEN.tcp_note
    for k in JABEEN.tcp:
        assert f"`{k} = " in note, k


def test_list_names_papers_by_author_and_year():
    from bufferlab.cli import app

    r = CliRunner().invoke(app, ["reproduce"])
    assert r.exit_code == 0
    for name, it in ITEMS.items():
        assert name in r.output
    for who in ("Braud", "Gorinsky", "Jabeen", "Cardozo", "2014", "2005"):
        assert who in r.output
    assert "seed 00" not in r.output
    r = CliRunner().invoke(app, ["reproduce", "nope/fig1", "--smoke"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["reproduce", "braud/alpha", "--smoke", "--full"])
    assert r.exit_code == 2


@pytest.mark.parametrize("name", list(ITEMS))
def test_smoke_profile_runs_draws_and_judges(name, tmp_path, monkeypatch):
    import bufferlab.reproduce.run as run_mod
    from bufferlab.plot._common import covers_data

    def clear_and_check(fig):  # the figure as saved: no legend over its data
        clear(fig)
        fig.canvas.draw()
        covering = [ax.get_title() or i for i, ax in enumerate(fig.axes) if ax.get_legend() and covers_data(ax, ax.get_legend())]
        assert not covering, f"{name}: legends over the data in {covering}"

    clear = run_mod.clear_legends
    monkeypatch.setattr(run_mod, "clear_legends", clear_and_check)
    item = ITEMS[name]
    res = run_item(item, "smoke", tmp_path, backend="inline")
    assert len(res.claims) == len(item.claims) > 0
    assert (tmp_path / name.replace("/", "-") / "claims.csv").is_file()
    if not item.runnable:
        assert all(c.verdict == NOT_COMPARABLE for c in res.claims)
        return
    assert res.figure is not None and res.figure.stat().st_size > 5000
    from PIL import Image

    with Image.open(res.figure) as png:  # print quality
        assert min(png.info["dpi"]) >= 150 - 0.5, png.info
    assert (res.folder / "plotted.csv").stat().st_size > 0
    # at least one claim gets a number from the smoke run
    assert any(c.est.n >= 1 for c in res.claims), [c.row() for c in res.claims]
    # a rerun reuses every stored point, and reports the time they took when they were made; its
    # figure is the one drawn and checked above, so it is not saved again (a figure of 15 panels
    # takes 6 s to lay out and save)
    from matplotlib.figure import Figure

    monkeypatch.setattr(run_mod, "clear_legends", clear)
    monkeypatch.setattr(Figure, "savefig", lambda self, *args, **kwargs: None)
    again = run_item(item, "smoke", tmp_path, backend="inline")
    assert again.reused and again.runs == res.runs and again.wall_seconds == res.wall_seconds
    assert [c.row() for c in again.claims] == [c.row() for c in res.claims]


def test_run_all_writes_one_report_and_the_docs_page(tmp_path, monkeypatch):
    from bufferlab.reproduce import run_items
    from bufferlab.reproduce.item import Item

    # an item the engine cannot run yet: listed with what it needs, its claims not comparable
    later = Item(name="jabeen/later", paper=ITEMS["jabeen/fig3"].paper, where="Fig. 9", title="a later figure",
                 claims=[ClaimSpec("L-1", "Fig. 9", "something", None, not_comparable="not yet reproducible")],
                 assumptions=[], needs="a counter the engine lacks")
    monkeypatch.setitem(ITEMS, later.name, later)
    items = [ITEMS["theory/md1"], later]
    docs = tmp_path / "docs"
    results = run_items(items, "smoke", tmp_path / "out", docs=docs, backend="inline")
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Every claim" in report and "`theory/md1`" in report and "`jabeen/later`" in report
    assert "theory-md1/figure.png" in report
    page = (docs / "reproductions.md").read_text()
    assert "generated" in page and "bufferlab reproduce all --smoke" in page
    assert (docs / "figures" / "theory-md1.png").is_file()
    # every registered item is listed, the ones the engine cannot run yet with what they need
    for name in ITEMS:
        assert f"`{name}`" in page
    assert "not yet reproducible: needs a counter the engine lacks" in page
    claims = (tmp_path / "out" / "claims.csv").read_text().splitlines()
    assert len(claims) == 1 + sum(len(r.claims) for r in results)


def test_docs_of_one_item_update_its_section_only(tmp_path, monkeypatch):
    import dataclasses

    from bufferlab.reproduce import run_items

    docs = tmp_path / "docs"
    run_items([ITEMS["theory/md1"], ITEMS["gorinsky/beta"]], "smoke", tmp_path / "out", docs=docs, backend="inline")
    page = (docs / "reproductions.md").read_text()
    beta = page[page.index("## `gorinsky/beta`"):page.index("## `theory/md1`")]
    summary = next(x for x in page.splitlines() if " claims: " in x)
    # one item again, its title changed: its section is replaced, the other's kept as it was
    monkeypatch.setitem(ITEMS, "theory/md1", dataclasses.replace(ITEMS["theory/md1"], title="M/D/1, retitled"))
    run_items([ITEMS["theory/md1"]], "smoke", tmp_path / "out", docs=docs, backend="inline")
    new = (docs / "reproductions.md").read_text()
    assert "M/D/1, retitled" in new and new.count("## `theory/md1`") == 1
    assert beta in new and next(x for x in new.splitlines() if " claims: " in x) == summary
    assert "Updated since, item by item" in new and "`theory/md1` (smoke profile" in new
    rows = [x for x in new[new.index("## Every claim"):].splitlines() if x.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == sorted((r.split("`")[1] for r in rows), key=list(ITEMS).index)
    assert len(rows) == len(ITEMS["theory/md1"].claims) + len(ITEMS["gorinsky/beta"].claims)


def test_an_item_run_again_in_the_pages_profile_leaves_its_quick_exceptions():
    from bufferlab.reproduce.report import without_quick_exceptions as drop

    lead = ("This page is generated from one run of the full profile, except `gorinsky/fig2-3`, `jabeen`, run in "
            "the quick profile (their sections say so) (2026-11-26 20:28 UTC, engine 0.1.0+x, x86_64); regenerate")
    cmd = "bufferlab reproduce all --full --quick-for gorinsky/fig2-3 --quick-for jabeen --out repro-out --docs docs"
    one = drop(lead, {"gorinsky/fig2-3"})
    assert "except `jabeen`, run in the quick profile (their sections say so) (2026" in one
    assert drop(one, {"jabeen"}).startswith("This page is generated from one run of the full profile (2026-11-26")
    assert drop(cmd, {"gorinsky/fig2-3"}) == "bufferlab reproduce all --full --quick-for jabeen --out repro-out --docs docs"
    assert drop(cmd, set()) == cmd and drop(lead, {"braud/alpha"}) == lead


def test_reproduce_out_checked_before_anything_runs(tmp_path):
    from bufferlab.cli import app

    f = tmp_path / "a-file"
    f.write_text("x")
    r = CliRunner().invoke(app, ["reproduce", "theory/md1", "--smoke", "--out", str(f)])
    assert r.exit_code == 2 and "--out" in r.output and "is a file" in r.output
    assert "Traceback" not in r.output
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    r = CliRunner().invoke(app, ["reproduce", "theory/md1", "--smoke", "--out", str(other)])
    assert r.exit_code == 2 and "already holds other files" in " ".join(r.output.split())
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]  # nothing written


def test_an_items_sweeps_share_one_pool(tmp_path):
    from bufferlab.reproduce.run import SharedPool, check_repro_dir
    from bufferlab.sweep.runner import engine_version

    item = ITEMS["braud/table1"]
    assert len(item.sweeps("smoke")) > 1
    with SharedPool(1, engine_version()) as pool:
        res = run_item(item, "smoke", tmp_path, backend=pool)
        # every sweep ran on it, and none closed it: the one worker is still the first one
        assert res.runs > 0
        assert pool.starts == 1 and pool.pool is not None
        assert all(p.is_alive() for p, _ in pool.pool.procs)
    assert pool.pool is None
    # a folder reproduce wrote may be resumed in
    assert check_repro_dir(tmp_path) == tmp_path


def test_ratio_of_means_is_the_papers_statistic():
    from bufferlab.reproduce.stats import ratio_of_means

    # per-seed ratios 2 and 0.5 average 1.25; the paper's ratio of averages is (4 + 1) / (2 + 2)
    e = ratio_of_means([(4.0, 2.0), (1.0, 2.0)])
    assert e.mean == pytest.approx(1.25) and e.n == 2
    e = ratio_of_means([(4.0, 2.0), (1.0, 2.0), (3.0, 1.0)])
    assert e.mean == pytest.approx(8.0 / 5.0) and e.lo <= e.mean <= e.hi
    spec = ClaimSpec("r", "Fig. 6", "divided by 2.5", within(2.5, rel=0.3), "×", stat="ratio_of_means")
    # mean of ratios (4 + 1) / 2 = 2.5 would hold; the ratio of means 6 / 4 = 1.5 does not
    assert judge("i", spec, [(4.0, 1.0), (2.0, 3.0)]).verdict == FAILS


def test_two_modes_are_reported_with_their_frequencies():
    from bufferlab.reproduce.stats import modes

    seeds = [0.63, 0.66, 0.70, 0.72, 0.75, 0.78, 0.81, 0.96, 1.05, 1.18]
    m = modes(seeds)
    assert [(x.count, x.lo, x.hi) for x in m] == [(7, 0.63, 0.81), (3, 0.96, 1.18)]
    assert len(modes([1.0, 1.1, 1.2, 1.3, 1.4, 1.5])) == 1  # evenly spread: one mode
    assert len(modes([1.0, 1.1, 5.0])) == 1  # a lone outlier is not a mode
    r = judge("i", ClaimSpec("m", "Fig. 7", "600 ms", within(0.6, rel=0.3), "s"), seeds)
    assert "7 of 10 seeds (70%) in [0.63, 0.81]" in r.note and "3 of 10 seeds (30%)" in r.note


def test_inconsistent_claims_keep_our_number():
    from bufferlab.reproduce.claims import INCONSISTENT

    spec = ClaimSpec("b", "§IV-B", "4 times fewer", within(4, rel=0.25), "×",
                     inconsistent="100 against 250 packets a second is 2.5 times fewer")
    r = judge("i", spec, [2.5, 2.5])
    assert r.verdict == INCONSISTENT and r.est.mean == 2.5 and "2.5 times fewer" in r.note


def test_quick_for_names_an_item_or_paper_and_goes_with_full(tmp_path):
    from bufferlab.cli import app

    r = CliRunner().invoke(app, ["reproduce", "all", "--full", "--quick-for", "nope", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "--quick-for nope" in r.output
    r = CliRunner().invoke(app, ["reproduce", "jabeen", "--quick-for", "jabeen/fig1", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "goes with --full" in r.output


def test_gorinsky_sawtooth_rtt_is_the_papers_arithmetic():
    """§4.2: a BDP buffer gives a mean RTT of 1.5 RTTP; b BDPs (b >= 1) a queue of (3b - 1)/4 RTTP,
    b < 1 one of b²/(1 + b); plus one datagram's transmission on each of the three links."""
    from bufferlab.reproduce.gorinsky import RTTP, bdp_pkts, sawtooth_rtt

    tx = 2 * 1500 * 8 / 10e6
    assert sawtooth_rtt(10e6, bdp_pkts(10e6)) == pytest.approx(1.5 * RTTP + tx)
    assert sawtooth_rtt(10e6, 3 * bdp_pkts(10e6)) == pytest.approx(3 * RTTP + tx)  # §4.2's limit: b = 1 + q
    assert sawtooth_rtt(10e6, 0.5 * bdp_pkts(10e6)) == pytest.approx(RTTP * (1 + 0.25 / 1.5) + tx)


def test_an_item_run_into_an_existing_page_keeps_the_stacks_its_stack_line_links_to(tmp_path):
    from bufferlab.cli import app

    docs = tmp_path / "docs"
    docs.mkdir()
    page = (Path(__file__).parent.parent / "docs" / "reproductions.md").read_text()
    # The page as it stands, with its profiles' section stale or missing.
    lead, rest = page.split("\n## ", 1)
    (docs / "reproductions.md").write_text(lead + "\n## Stacks\n\n- an old profile.\n\n## " + rest)
    r = CliRunner().invoke(app, ["reproduce", "braud/table2", "--smoke", "--out", str(tmp_path / "out"),
                                 "--docs", str(docs)])
    assert r.exit_code == 0, r.output
    page = (docs / "reproductions.md").read_text()
    # The section is the profiles' as they are now, once; the item links to it.
    assert page.count("## Stacks") == 1 and "an old profile" not in page
    assert "`comp_sack = false`" in page.split("## Stacks", 1)[1].split("\n## ", 1)[0]
    section = page.split("## `braud/table2`", 1)[1]
    assert "Stack: TCP profile `freebsd91`, TCP as in the paper's FreeBSD 9.1 hosts (its settings: [Stacks](#stacks))." in section


def test_timing_adds_an_interrupted_runs_parts_but_not_another_engines(tmp_path):
    from bufferlab.reproduce.run import ItemResult, _timing

    def made(runs, wall, version):
        r = ItemResult(ITEMS["braud/alpha"], "full", [1, 2], tmp_path, runs=runs, wall_seconds=wall, engine_seconds=wall)
        _timing(r, version)
        return r

    made(10, 1.0, "a")
    made(5, 0.5, "a")  # the rest of an interrupted run: the parts add up
    again = made(0, 0.0, "a")  # everything reused: the time they took when made
    assert again.reused and (again.runs, again.wall_seconds) == (15, 1.5)
    made(15, 2.0, "b")  # another engine made every point again: its runs alone
    again = made(0, 0.0, "b")
    assert (again.runs, again.wall_seconds) == (15, 2.0)


def test_every_claim_the_page_says_does_not_hold_says_why():
    """The page's rule: a claim that does not hold names what separates ours from the paper's
    (or says it is not identified). Read from the committed page, so a rerun that turns a claim
    red without a reason in its item's `misses` fails here."""
    from bufferlab.reproduce import item as items

    page = (Path(__file__).parent.parent / "docs" / "reproductions.md").read_text()
    every = page.split("## Every claim", 1)[1]
    red = set()
    for line in every.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 8 and cells[1].startswith("`") and cells[8] == "**does not hold**":
            red.add((cells[1].strip("`"), cells[2]))
    assert len(red) >= 10  # the table was read
    missing = sorted(f"{i} {c}" for i, c in red if not items.get(i).misses.get(c))
    assert not missing, f"claims that do not hold with no reason in their item's `misses`: {missing}"
    for name, it in items.ITEMS.items():
        declared = {c.id for c in it.claims}
        stale = set(it.misses) - declared
        assert not stale, f"{name}: `misses` names no claim of the item: {sorted(stale)}"
    fail = page.split("## Claims that do not hold", 1)[1].split("\n## ", 1)[0]
    bullets = [x for x in fail.splitlines() if x.startswith("- `")]
    assert len(bullets) == len(red) and all("*Why:* " in x and "not yet stated" not in x for x in bullets)
