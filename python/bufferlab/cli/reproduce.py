"""``bufferlab reproduce``: list the reproductions, or run one (or all) and report."""

from pathlib import Path
from typing import Annotated, Optional

import typer


def reproduce(
    name: Annotated[Optional[str], typer.Argument(
        help="An item such as braud/alpha, a paper (braud), or 'all'; none lists them.")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Quick profile (>= 3 seeds; the default).")] = False,
    full: Annotated[bool, typer.Option("--full", help="Full profile (>= 10 seeds, the paper's durations).")] = False,
    smoke: Annotated[bool, typer.Option("--smoke", help="Smoke profile: 1 seed, seconds of simulated time.")] = False,
    seeds: Annotated[Optional[int], typer.Option("--seeds", min=1, help="Seeds (overrides the profile's).")] = None,
    out: Annotated[Path, typer.Option("--out", help="Folder for runs, figures, claims and report.md.")] = Path("repro-out"),
    workers: Annotated[Optional[int], typer.Option("--workers", min=1, help="Processes (default: every core).")] = None,
    dask_local: Annotated[bool, typer.Option("--dask-local", help="Run on a local Dask cluster.")] = False,
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="Run on the Dask scheduler at ADDR.")] = None,
    docs: Annotated[Optional[Path], typer.Option("--docs", help="Also regenerate DOCS/reproductions.md and DOCS/figures/.")] = None,
    quick_for: Annotated[Optional[list[str]], typer.Option(
        "--quick-for", help="An item or paper to run in the quick profile while the rest runs in --full (repeatable).",
        show_default=False)] = None,
) -> None:
    """Run the seed papers' experiments and set our numbers beside theirs."""
    from rich.console import Console
    from rich.table import Table

    from ..errors import ScenarioError
    from ..reproduce import ITEMS, run_items

    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        console.width = 200
    if name is None:
        t = Table(title="reproductions (bufferlab reproduce ITEM | PAPER | all)")
        for c in ("item", "paper", "where", "what"):
            t.add_column(c)
        for it in ITEMS.values():
            what = it.title if not it.needs else f"[yellow]not yet reproducible: needs {it.needs}[/]"
            t.add_row(it.name, it.paper.cite, it.where, what)
        console.print(t)
        return
    if sum([quick, full, smoke]) > 1:
        err.print("choose one of --quick, --full, --smoke")
        raise typer.Exit(2)
    if dask_local and scheduler:
        err.print("choose one of --dask-local and --scheduler ADDR")
        raise typer.Exit(2)
    profile = "full" if full else "smoke" if smoke else "quick"
    from ..outpath import OutputError
    from ..reproduce.run import check_repro_dir

    try:  # before anything runs: a bad --out costs nothing
        check_repro_dir(out)
    except OutputError as e:
        err.print(f"error: --out {out}: {e}", markup=False, soft_wrap=True)
        raise typer.Exit(2)
    papers = {it.paper.key for it in ITEMS.values()}
    for q in quick_for or []:
        if q not in ITEMS and q not in papers:
            err.print(f"--quick-for {q}: no such item or paper (`bufferlab reproduce` lists them)", markup=False)
            raise typer.Exit(2)
    if quick_for and profile != "full":
        err.print("--quick-for goes with --full", markup=False)
        raise typer.Exit(2)
    if name == "all":
        items = list(ITEMS.values())
    elif name in ITEMS:
        items = [ITEMS[name]]
    elif any(n.startswith(name + "/") for n in ITEMS):
        items = [it for n, it in ITEMS.items() if n.startswith(name + "/")]
    else:
        err.print(f"no reproduction {name!r}: run `bufferlab reproduce` for the list "
                  f"(items such as {next(iter(ITEMS))}, a paper such as braud, or all)", markup=False)
        raise typer.Exit(2)
    try:
        results = run_items(items, profile, out, profile_of={q: "quick" for q in quick_for or []},
                            seeds=seeds, workers=workers, dask_local=dask_local,
                            scheduler=scheduler, docs=docs, progress=console.is_terminal,
                            log=lambda s: err.print(s, markup=False))
    except KeyboardInterrupt:
        err.print(f"interrupted: finished runs are kept in {out}; the same command resumes")
        raise typer.Exit(130)
    except ScenarioError as e:  # a spec that does not fit the engine (e.g. edited by hand)
        err.print(str(e), markup=False)
        raise typer.Exit(2)
    except RuntimeError as e:  # runs that failed: their errors, the finished runs kept
        err.print(f"{e}\nfinished runs are kept in {out}", markup=False)
        raise typer.Exit(1)
    t = Table(title=f"claims ({profile} profile) — report: {out / 'report.md'}")
    for c in ("item", "claim", "where", "paper", "ours [95% CI]", "tolerance", "verdict"):
        t.add_column(c)
    from ..reproduce.claims import HOLDS, NOT_COMPARABLE, fmt_estimate

    for r in results:
        for c in r.claims:
            colour = "green" if c.verdict == HOLDS else "yellow" if c.verdict == NOT_COMPARABLE else "red"
            t.add_row(r.item.name, c.spec.id, c.spec.where, c.spec.paper,
                      f"{fmt_estimate(c.est)} {c.spec.unit}", c.spec.check.text if c.spec.check else "-",
                      f"[{colour}]{c.verdict}[/]")
    console.print(t)
