"""One self-contained HTML page: sections of text, tables, images and Plotly figures, with
plotly.js inlined once in the head, compressed, so the file opens with no network
(docs/report.md)."""

from __future__ import annotations

import base64
import functools
import gzip
import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Page", "Section", "COLORS"]

# The figures' colours: matplotlib's tab10, as the project's static plots draw their series.
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif;
       margin: 1.5em auto; max-width: 1400px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin-top: 1.5em; }
p.meta { color: #555; margin-top: 0; }
nav ul { columns: 3; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.holds { color: #1a7f37; font-weight: 600; }
.fails { color: #c62828; font-weight: 600; }
.nc { color: #777; }
.side { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.side > .claims { flex: 1 1 560px; min-width: 0; overflow-x: auto; }
.side > .figures { flex: 1 1 520px; min-width: 0; }
.figure { width: 100%; min-height: 360px; }
img.static { max-width: 100%; border: 1px solid #eee; }
.note { color: #555; font-size: 0.9em; }
"""


def _cell(v: Any) -> tuple[str, bool]:
    """A table cell's text and whether it is a number."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–", False
    if isinstance(v, bool):
        return str(v).lower(), False
    if isinstance(v, int):
        return f"{v:,}", True
    if isinstance(v, float):
        return (f"{v:.4g}" if abs(v) < 1e6 else f"{v:.3e}"), True
    return str(v), False


@dataclass
class Section:
    title: str
    anchor: str
    parts: list[str] = field(default_factory=list)

    def text(self, s: str, cls: str = "") -> None:
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{c}>{html.escape(s)}</p>")

    def heading(self, s: str) -> None:
        self.parts.append(f"<h3>{html.escape(s)}</h3>")

    def raw(self, s: str) -> None:
        self.parts.append(s)


class Page:
    """Sections in order; figures get page-unique ids."""

    def __init__(self, title: str, meta: str = "") -> None:
        self.title = title
        self.meta = meta
        self.sections: list[Section] = []
        self._figures = 0

    def section(self, title: str) -> Section:
        s = Section(title, f"s{len(self.sections) + 1}")
        self.sections.append(s)
        return s

    @property
    def figures(self) -> int:
        """How many Plotly figures the page holds."""
        return self._figures

    def figure(self, fig: Any, height: int = 380) -> str:
        """A Plotly figure as a div and its drawing script (plotly.js is in the head)."""
        import plotly.io as pio

        self._figures += 1
        fig.update_layout(height=height, colorway=COLORS, template="plotly_white",
                          margin=dict(l=60, r=20, t=40, b=50), legend=dict(font=dict(size=11)))
        div = pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"fig{self._figures}",
                          default_height=f"{height}px", default_width="100%",
                          config={"displaylogo": False, "responsive": True})
        # Held back until plotly.js is unpacked (the page's head): the loader runs each in order.
        return div.replace("<script>", f'<script type="{FIGURE_SCRIPT}">')


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str]], classes: dict[str, Any] | None = None,
          limit: int = 500) -> str:
    """An HTML table of ``rows`` with ``columns`` as (key, heading); ``classes`` maps a key to a
    function giving a cell's CSS class. At most ``limit`` rows (the rest counted below it)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in columns)
    body = []
    for r in rows[:limit]:
        cells = []
        for key, _ in columns:
            text, num = _cell(r.get(key))
            cls = ["num"] if num else []
            if classes and key in classes:
                extra = classes[key](r.get(key))
                if extra:
                    cls.append(extra)
            c = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{c}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = f'<p class="note">… and {len(rows) - limit} more rows</p>' if len(rows) > limit else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def image(path: Path, alt: str) -> str:
    """A PNG inlined as a data URI (the page needs no file beside it)."""
    data = base64.b64encode(Path(path).read_bytes()).decode()
    return f'<img class="static" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


# The type that keeps a figure's drawing script from running as the page is read.
FIGURE_SCRIPT = "text/x-bufferlab-figure"


@functools.lru_cache(maxsize=1)
def _plotly_packed() -> tuple[str, str]:
    """plotly.js's licence header and the whole library gzipped (mtime 0: the same bytes on
    every run) and base64-encoded: about 1.9 MB in place of 4.8 MB."""
    from plotly.offline import get_plotlyjs

    js = get_plotlyjs()
    end = js.find("*/")
    header = js[: end + 2] if js.lstrip().startswith("/*") and end > 0 else "/* plotly.js (MIT licence) */"
    packed = base64.b64encode(gzip.compress(js.encode(), compresslevel=9, mtime=0)).decode()
    return header, packed


# Unpacks plotly.js with the browser's own gzip (DecompressionStream: Chrome and Edge 80,
# Firefox 113, Safari 16.4), runs it, then runs the figures' scripts in page order. A browser
# without it, or a failure, is said at the top of the page rather than left as empty boxes.
LOADER = """
(function () {
  function say(text) {
    function put() {
      var p = document.createElement("p");
      p.className = "fails";
      p.textContent = text;
      document.body.insertBefore(p, document.body.firstChild);
    }
    if (document.body) put(); else document.addEventListener("DOMContentLoaded", put);
  }
  function draw() {
    document.querySelectorAll('script[type="FIGURE"]').forEach(function (held) {
      var s = document.createElement("script");
      s.textContent = held.textContent;
      held.replaceWith(s);
    });
  }
  if (typeof DecompressionStream === "undefined") {
    say("The figures need a browser that unpacks gzip itself (DecompressionStream: Chrome or Edge 80, Firefox 113, Safari 16.4 or later); the tables are complete.");
    return;
  }
  var text = atob(PACKED);
  var bytes = new Uint8Array(text.length);
  for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text().then(function (js) {
    var s = document.createElement("script");
    s.textContent = js;
    document.head.appendChild(s);
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw); else draw();
  }, function (e) { say("plotly.js could not be unpacked (" + e + "); the tables are complete."); });
})();
"""


def render(page: Page) -> str:
    nav = "".join(f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in page.sections)
    body = []
    for s in page.sections:
        body.append(f'<section id="{s.anchor}"><h2>{html.escape(s.title)}</h2>')
        body.extend(s.parts)
        body.append("</section>")
    meta = f'<p class="meta">{html.escape(page.meta)}</p>' if page.meta else ""
    header, packed = _plotly_packed()
    loader = LOADER.replace("FIGURE", FIGURE_SCRIPT).replace("PACKED", f'"{packed}"')
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(page.title)}</title><style>{CSS}</style>"
        f"<script>{header}\n/* the library above, gzipped and base64-encoded, unpacked as the page opens */{loader}</script>"
        f"</head><body><h1>{html.escape(page.title)}</h1>{meta}"
        + (f"<nav><ul>{nav}</ul></nav>" if len(page.sections) > 1 else "")
        + "".join(body)
        + "</body></html>\n"
    )
