"""The Markdown report of a run, and docs/reproductions.md generated from one."""

from __future__ import annotations

import datetime as _dt
import math
import platform
import re
import shutil
from pathlib import Path

import pandas as pd

from .claims import HOLDS, INCONSISTENT, NOT_COMPARABLE, fmt_estimate
from .item import ITEMS, Item

COMMAND = "bufferlab reproduce all {flag} --out {out} --docs docs"


def _cell(s: object) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def claims_table(results, with_item: bool = True) -> list[str]:
    head = (["item"] if with_item else []) + ["claim", "where", "paper", "ours: mean [95% CI]", "unit",
                                                  "tolerance", "verdict", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        for c in r.claims:
            v = c.verdict
            mark = {HOLDS: "**holds**", NOT_COMPARABLE: "not comparable", INCONSISTENT: "inconsistent"}.get(
                v, "**does not hold**")
            cells = ([f"`{r.item.name}`"] if with_item else []) + [
                c.spec.id, c.spec.where, c.spec.paper, fmt_estimate(c.est), c.spec.unit,
                c.spec.check.text if c.spec.check else "–", mark, c.note]
            lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return lines


def _summary(results) -> str:
    n = [c.verdict for r in results for c in r.claims]
    return _summary_text(n.count(HOLDS), n.count("does not hold"), n.count(INCONSISTENT), n.count(NOT_COMPARABLE))


def _summary_text(hold: int, fail: int, inconsistent: int, other: int) -> str:
    return (f"{hold + fail + inconsistent + other} claims: {hold} hold, {fail} do not hold, {inconsistent} "
            f"inconsistent in the paper itself, {other} not comparable.")


def _stack_line(it: Item, in_full: bool) -> list[str]:
    """Which TCP stack the item ran: the profile's every setting, or (``in_full`` False) its name
    and what it stands for, the settings being listed once in the framework section."""
    stack = getattr(it.paper, "stack", None)
    if stack is None or not it.runnable:
        return []
    if in_full:
        return [f"Stack: {stack.note()}.", ""]
    return [f"Stack: TCP profile `{stack.name}`, {stack.what} (its settings: [Stacks](#stacks)).", ""]


def stacks_section() -> list[str]:
    """Every paper's TCP profile, each setting with its source."""
    lines = ["## Stacks", "",
             "Each paper's experiments run with the TCP stack the paper ran, one named profile per paper "
             "(`Paper.stack` in `python/bufferlab/reproduce/papers.py`): its settings go on every TCP block of "
             "the paper's scenarios that does not set them (a block's own key wins). Keys bufferlab leaves at "
             "its defaults are today's Linux (docs/tcp.md).", ""]
    seen = set()
    for it in ITEMS.values():
        p = it.paper
        if getattr(p, "stack", None) is None or p.key in seen:
            continue
        seen.add(p.key)
        lines += [f"- {p.cite}: {p.stack.note()}.", ""]
    return lines


def item_section(r, fig_path: str | None, level: str = "##", stack_in_full: bool = True) -> list[str]:
    it: Item = r.item
    lines = [f"{level} `{it.name}` — {it.paper.cite}, {it.where}", "", it.title, ""]
    if it.needs:
        lines += [f"**Not yet reproducible: needs {it.needs}.**", ""]
    if fig_path:
        lines += [f"![{it.name}]({fig_path})", ""]
    if r.runs or r.seeds:
        when = "made earlier and reused" if r.reused else "made now"
        lines += [f"{len(r.seeds)} seeds ({r.profile} profile), {r.runs} runs ({when}): {r.wall_seconds:.0f} s wall, "
                  f"{r.engine_seconds:.0f} s in the engine.", ""]
    lines += claims_table([r], with_item=False) + [""]
    lines += _stack_line(it, stack_in_full)
    if it.assumptions:
        lines += ["Assumptions where the paper leaves a parameter open:", ""]
        lines += [f"- {a}" for a in it.assumptions] + [""]
    if getattr(it, "discussion", None):
        lines += [it.discussion.strip(), ""]
    return lines


def write_report(results, out: Path, profile: str) -> Path:
    out = Path(out)
    lines = [f"# Reproductions ({profile} profile)", "", _summary(results), ""]
    for r in results:
        fig = f"{r.folder.name}/figure.png" if r.figure else None
        lines += item_section(r, fig)
    lines += ["## Every claim", ""] + claims_table(results) + [""]
    path = out / "report.md"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text("\n".join(lines))
    tmp.replace(path)
    rows = [c.row() for r in results for c in r.claims]
    pd.DataFrame(rows).to_csv(out / "claims.csv", index=False)
    return path


def _timing_table(results) -> list[str]:
    lines = ["| item | runs | wall (s) | engine (s) |", "|---|---|---|---|"]
    for r in sorted(results, key=lambda r: -r.wall_seconds):
        if r.item.runnable:
            lines.append(f"| `{r.item.name}` | {r.runs} | {r.wall_seconds:.0f} | {r.engine_seconds:.0f} |")
    total = sum(r.wall_seconds for r in results)
    lines.append(f"| all | {sum(r.runs for r in results)} | {total:.0f} | {sum(r.engine_seconds for r in results):.0f} |")
    return lines


def _index_table() -> list[str]:
    lines = ["| item | paper | where | what |", "|---|---|---|---|"]
    for it in ITEMS.values():
        what = it.title if not it.needs else f"{it.title} — *not yet reproducible: needs {it.needs}*"
        lines.append(f"| `{it.name}` | {_cell(it.paper.cite)} | {_cell(it.where)} | {_cell(what)} |")
    return lines


def _copy_figures(results, docs: Path) -> dict[str, str]:
    """Each result's figure copied into docs/figures/: item name -> its path from the page."""
    figs = docs / "figures"
    figs.mkdir(parents=True, exist_ok=True)
    out = {}
    for r in results:
        if r.figure:
            name = f"{r.folder.name}.png"
            shutil.copyfile(r.figure, figs / name)
            out[r.item.name] = f"figures/{name}"
    return out


def write_docs(results, out: Path, docs: Path, profile: str) -> Path:
    """docs/reproductions.md and docs/figures/<item>.png from this run. A run of some of the items
    into a folder whose page already exists updates their sections only (:func:`update_docs`)."""
    from ..sweep.runner import engine_version

    docs = Path(docs)
    ran = {r.item.name for r in results}
    if (docs / "reproductions.md").is_file() and not {n for n, it in ITEMS.items() if it.runnable} <= ran:
        return update_docs(results, docs, profile)
    figs = _copy_figures(results, docs)
    flag = {"smoke": "--smoke", "quick": "--quick", "full": "--full"}[profile]
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    # Items run in the quick profile within a full run (`--quick-for`), by paper where a whole
    # paper's items are.
    quick = [r.item for r in results if r.profile != profile]
    names = []
    for it in quick:
        whole = all(q.paper.key != it.paper.key or q in quick for q in (r.item for r in results))
        name = it.paper.key if whole else it.name
        if name not in names:
            names.append(name)
    extra = "".join(f" --quick-for {n}" for n in names)
    mixed = (f", except {', '.join(f'`{n}`' for n in names)}, run in the quick profile (their sections say so)"
             if names else "")
    lines = [
        "# Reproductions",
        "",
        "<!-- generated: do not edit by hand; edit python/bufferlab/reproduce/ and regenerate -->",
        "",
        f"This page is generated from one run of the {profile} profile{mixed} ({when}, engine "
        f"{engine_version()}, {platform.machine()}); regenerate it with:",
        "",
        "```sh no-run",
        COMMAND.format(flag=flag + extra, out="repro-out"),
        "```",
        "",
        "(`make reproduce` runs the quick profile and regenerates this page.)",
        "",
        "Each reproduction is a set of sweeps (points × seeds) in `python/bufferlab/reproduce/specs/`, "
        "run by the sweep runner (every core; `--dask-local` or `--scheduler ADDR` for Dask; a rerun "
        "resumes), a figure with the paper's axes (error bars: 95% Student-t intervals over seeds) "
        "and a claims table: the paper's value or claim, ours (mean and 95% CI over seeds), the "
        "tolerance declared in code before the run, and the verdict. Flows start at random times "
        "where the paper's setup allows it, so each seed is a different sample. Profiles: `--smoke` "
        "(1 seed, seconds; the test suite), `--quick` (≥ 3 seeds), `--full` (≥ 10 seeds, the papers' durations); "
        "`--full --quick-for ITEM|PAPER` runs those items in the quick profile.",
        "",
        "```sh no-run",
        "bufferlab reproduce                      # the list, with each item's paper",
        "bufferlab reproduce braud/alpha --quick --out repro-out",
        "bufferlab reproduce all --full --dask-local --out repro-full",
        "```",
        "",
        _summary(results),
        "",
        "A year followed by ? is ours: those papers' texts carry no date (their latest references are "
        "from 2014 and 2010).",
        "",
        *_index_table(),
    ]
    lines += [""] + stacks_section()[:-1]
    failing = [(r, c) for r in results for c in r.claims if c.verdict == "does not hold"]
    if failing:
        lines += ["", "## Claims that do not hold", "", FAILING_LEAD, ""]
        lines += [_failing_line(r, c) for r, c in failing]
    lines += ["", "## Time", "", f"Measured when the runs were made ({profile} profile{mixed}; wall time of the runs, "
              "without the analysis; 2 shared cores, see docs/BENCHMARKS.md):", ""] + _timing_table(results) + [""]
    for r in results:
        lines += item_section(r, figs.get(r.item.name), stack_in_full=False)
    lines += ["## Every claim", ""] + claims_table(results) + [""]
    path = docs / "reproductions.md"
    path.write_text("\n".join(lines))
    return path


FAILING_LEAD = ("Each names, after *Why*, what separates ours from the paper's (or says that it is not "
                "identified); its item's section below gives the measurements (the paragraphs after the "
                "assumptions).")


def _failing_line(r, c) -> str:
    """A claim that does not hold, as a bullet of its list: the claim, our number, and why."""
    why = r.item.misses.get(c.spec.id, "not yet stated")
    return (f"- `{r.item.name}` {c.spec.id} ({c.spec.where}): {c.spec.paper} — ours "
            f"{fmt_estimate(c.est)} {c.spec.unit}. *Why:* {why}")


def _item_of(line: str) -> str | None:
    """The item a generated line belongs to: a table row or bullet starting with its `name`."""
    for lead in ("| `", "- `", "## `"):
        if line.startswith(lead):
            return line[len(lead):].split("`", 1)[0]
    return None


_QUICK_EXCEPT = re.compile(r", except (?P<names>`[^;]*?`), run in the quick profile \(their sections say so\)")


def without_quick_exceptions(line: str, names: set[str]) -> str:
    """``line`` of the page's lead (the sentence saying how it was made, the command that makes
    it, the time table's heading) with the items or papers in ``names`` no longer among those run
    in the quick profile: they have since been run in the page's own."""
    line = re.sub(r" --quick-for (\S+)", lambda m: "" if m[1] in names else m[0], line)

    def kept(m: re.Match) -> str:
        left = [n for n in re.findall(r"`([^`]+)`", m["names"]) if n not in names]
        if not left:
            return ""
        return f", except {', '.join(f'`{n}`' for n in left)}, run in the quick profile (their sections say so)"

    return _QUICK_EXCEPT.sub(kept, line)


def update_docs(results, docs: Path, profile: str) -> Path:
    """Replace (or add, in the registry's order) the sections of ``results``' items in an existing
    docs/reproductions.md, with their rows of the failing-claims list, the time table and the
    every-claim table, and recount the summary; the other items' sections stay as they were run.
    The header names each item updated so, with its profile, date and engine."""
    from ..sweep.runner import engine_version

    path = Path(docs) / "reproductions.md"
    figs = _copy_figures(results, Path(docs))
    ran = {r.item.name: r for r in results}
    order = {n: i for i, n in enumerate(ITEMS)}
    # The page's parts: the lead (up to the first "## "), then its "## " sections.
    lead, sections, cur = [], [], None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            cur = [line]
            sections.append(cur)
        elif cur is None:
            lead.append(line)
        else:
            cur.append(line)

    def merged_rows(old: list[str], new: list[str], key=None) -> list[str]:
        rows = [x for x in old if _item_of(x) not in ran] + new
        return sorted(rows, key=key or (lambda x: order.get(_item_of(x), len(order))))

    def own(lines: list[str]) -> list[str]:
        return [x for x in lines if _item_of(x)]

    every = next((s for s in sections if s[0] == "## Every claim"), ["## Every claim", ""])
    claim_rows = merged_rows(own(every), own(claims_table(results)))
    failing = [(r, c) for r in results for c in r.claims if c.verdict == "does not hold"]
    new_fail = [_failing_line(r, c) for r, c in failing]
    old_fail = next((s for s in sections if s[0] == "## Claims that do not hold"), [])
    fail_rows = merged_rows(own(old_fail), new_fail)
    old_time = next((s for s in sections if s[0] == "## Time"), [])
    time_rows = merged_rows([x for x in own(old_time)], own(_timing_table(results)),
                            key=lambda x: -float(x.split("|")[3]))

    verdicts = [x.split("|")[8].strip() for x in claim_rows]
    n_hold, n_fail, n_inc = verdicts.count("**holds**"), verdicts.count("**does not hold**"), verdicts.count("inconsistent")
    summary = _summary_text(n_hold, n_fail, n_inc, len(verdicts) - n_hold - n_fail - n_inc)
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    note = "Updated since, item by item (`bufferlab reproduce ITEM --docs docs`): "
    stamps = {}
    out_lead, i = [], 0
    while i < len(lead):
        line = lead[i]
        if line.startswith(note):
            stamps = dict(x.split(" (", 1) for x in line[len(note):].rstrip(".").split("; "))
            i += 2
            continue
        if line.endswith("not comparable.") and " claims: " in line:
            line = summary
        if line.startswith("| item | paper |"):
            out_lead += _index_table()
            while i < len(lead) and lead[i].startswith("|"):
                i += 1
            continue
        out_lead.append(line)
        i += 1
    for name in ran:
        stamps[f"`{name}`"] = f"{profile} profile, {when}, engine {engine_version()})"
    # An item the page ran in the quick profile (`--quick-for`), now run in the page's own.
    page = next((m[1] for x in out_lead if (m := re.search(r"one run of the (\w+) profile", x))), None)
    promoted = {n for n, r in ran.items() if r.profile == page}
    out_lead = [without_quick_exceptions(x, promoted) for x in out_lead]
    at = next(j for j, x in enumerate(out_lead) if x == summary)
    out_lead[at:at] = [note + "; ".join(f"{k} ({v}" for k, v in sorted(stamps.items())) + ".", ""]

    items = {_item_of(s[0]): s for s in sections if _item_of(s[0])}
    for name, r in ran.items():
        items[name] = item_section(r, figs.get(name), stack_in_full=False)
    # The profiles' settings, which every item's stack line links to, from the profiles as they
    # are now (a changed profile's items show the change when they are run again).
    while out_lead and not out_lead[-1]:
        out_lead.pop()
    lines = out_lead + [""] + stacks_section()
    if fail_rows:
        lines += ["## Claims that do not hold", "", FAILING_LEAD, ""]
        lines += fail_rows + [""]
    if old_time:
        head = [without_quick_exceptions(x, promoted) for x in old_time
                if not _item_of(x) and not x.startswith("| all |")]
        while head and not head[-1]:
            head.pop()
        runs = sum(int(x.split("|")[2]) for x in time_rows)
        wall = sum(float(x.split("|")[3]) for x in time_rows)
        eng = sum(float(x.split("|")[4]) for x in time_rows)
        lines += head + time_rows + [f"| all | {runs} | {wall:.0f} | {eng:.0f} |", ""]
    for name in sorted(items, key=lambda n: order.get(n, len(order))):
        sec = items[name]
        while sec and not sec[-1]:
            sec = sec[:-1]
        lines += sec + [""]
    lines += ["## Every claim", "", *claims_table([])[:2], *claim_rows, ""]
    path.write_text("\n".join(lines))
    return path
