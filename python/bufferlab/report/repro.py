"""A reproductions folder (``bufferlab reproduce ... --out DIR``) as report sections: the
verdicts, then per item its claims table with its figures beside it (the paper-style figure the
item drew, and its plotted numbers as an interactive figure)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from . import figures
from .page import Page, image, table

__all__ = ["repro_sections", "is_repro"]

CLAIM_COLUMNS = [("claim", "claim"), ("where", "where"), ("paper", "paper"), ("ours", "ours: mean [95% CI]"),
                 ("unit", "unit"), ("tolerance", "tolerance"), ("verdict", "verdict"), ("note", "note")]


def _verdict_class(v: Any) -> str:
    return {"holds": "holds", "does not hold": "fails"}.get(str(v), "nc")


def _estimate(r: dict[str, Any]) -> str:
    m, lo, hi = (r.get(k) for k in ("ours_mean", "ours_ci_lo", "ours_ci_hi"))
    if m is None or (isinstance(m, float) and math.isnan(m)):
        return "–"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return f"{m:.4g}"
    return f"{m:.4g} [{lo:.4g}, {hi:.4g}]"


def _items(root: Path) -> list[Path]:
    return sorted(d for d in root.iterdir() if d.is_dir() and (d / "claims.csv").is_file())


def is_repro(path: Path) -> bool:
    return (path / "claims.csv").is_file() or (path / "report.md").is_file() or bool(
        path.is_dir() and _items(path))


def _item_info(folder: str) -> tuple[str, str]:
    """(heading, what) of an item folder, from the item's declaration when it is known."""
    from ..reproduce.item import ITEMS
    from ..reproduce.run import slug

    for it in ITEMS.values():
        if slug(it.name) == folder:
            return f"{it.name} — {it.paper.cite}, {it.where}", it.title
    return folder, ""


def repro_sections(page: Page, root: Path) -> None:
    items = _items(root)
    claims = [pd.read_csv(d / "claims.csv", keep_default_na=False, na_values=[""]) for d in items]
    allc = pd.concat(claims, ignore_index=True) if claims else pd.DataFrame(columns=["verdict"])
    counts = allc["verdict"].value_counts().to_dict() if len(allc) else {}
    over = page.section("Verdicts")
    over.text(f"{len(items)} reproductions, {len(allc)} claims: {counts.get('holds', 0)} hold, "
              f"{counts.get('does not hold', 0)} do not hold, {counts.get('not comparable', 0)} not comparable. "
              "Each claim's tolerance was declared with the item before it ran; ours is the mean over seeds "
              "with its 95% Student-t interval.")
    rows = []
    for d, c in zip(items, claims):
        v = c["verdict"].value_counts().to_dict()
        rows.append({"item": _item_info(d.name)[0], "claims": len(c), "holds": v.get("holds", 0),
                     "fails": v.get("does not hold", 0), "nc": v.get("not comparable", 0)})
    over.raw(table(rows, [("item", "item"), ("claims", "claims"), ("holds", "hold"), ("fails", "do not hold"),
                          ("nc", "not comparable")]))
    for d, c in zip(items, claims):
        head, what = _item_info(d.name)
        sec = page.section(head)
        if what:
            sec.text(what)
        recs = [{**r, "ours": _estimate(r)} for r in c.to_dict("records")]
        left = table(recs, CLAIM_COLUMNS, classes={"verdict": _verdict_class})
        right = []
        plotted = d / "plotted.csv"
        if plotted.is_file():
            for _, fig in figures.plotted(pd.read_csv(plotted)):
                right.append(f'<div class="figure">{page.figure(fig, height=340)}</div>')
        if (d / "figure.png").is_file():
            right.append(image(d / "figure.png", f"{d.name}: the paper's axes"))
        sec.raw(f'<div class="side"><div class="claims">{left}</div><div class="figures">{"".join(right)}</div></div>')
