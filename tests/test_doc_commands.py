"""Every shell command in README.md and docs/*.md runs as written, from a fresh clone.

The convention for writers of those pages:

- A block fenced with ```` ```sh ```` is run by this test, exactly as written.
- A block fenced with ```` ```sh no-run ```` is shown but not run: commands that need ns-3,
  root or network namespaces, a cluster, a long run, or that build the tree itself (``make``).
  Say in the text around it why it is not run here.
- Other fences (``toml``, ``python``, ``sql``, a bare ```` ``` ````) are not shell and are
  not run.

A page's runnable blocks run in order (a later block may use what an earlier one wrote), with
``bash -e -o pipefail``, in a fresh temporary folder holding what a clone holds at its root (the
``scenarios/`` folder, README and docs), the package's ``bufferlab`` first on PATH, and a time
budget per block. What they write must be ignored by the repository's ``.gitignore``: a reader who
follows the tour in their clone finds ``git status`` as clean as before. The commands are the pages' own; the example scenarios and sweep specs they
use are small enough to run in seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK_SECONDS = 600  # a generous budget on a loaded two-core machine; the pages' blocks take seconds

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    info: str  # the fence's info string: "sh", "sh no-run", "toml", ...
    text: str

    @property
    def runs(self) -> bool:
        words = self.info.split()
        return bool(words) and words[0] in ("sh", "bash", "shell", "console") and "no-run" not in words[1:]

    @property
    def shell(self) -> bool:
        words = self.info.split()
        return bool(words) and words[0] in ("sh", "bash", "shell", "console")


def fenced_blocks(text: str, page: Path = Path("-")) -> list[Block]:
    """The fenced code blocks of a Markdown text (CommonMark fences: three or more backticks or
    tildes, closed by a fence of the same kind at least as long)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group("fence"), m.group("info").strip(), i
        body = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if close and close.group("fence")[0] == fence[0] and len(close.group("fence")) >= len(fence) \
                    and not close.group("info").strip():
                break
            body.append(lines[i])
            i += 1
        out.append(Block(page, start + 1, info, "\n".join(body) + "\n"))
        i += 1
    return out


def runnable(page: Path) -> list[Block]:
    return [b for b in fenced_blocks(page.read_text(), page) if b.runs]


def test_the_extractor_runs_sh_blocks_and_skips_no_run_ones():
    text = "\n".join([
        "intro", "```sh", "bufferlab run a.toml   # runs", "```",
        "```sh no-run", "sudo ns3 run x", "```",
        "```toml", "[run]", "```",
        "````sh", "echo '```'", "````",
        "```", "plain text", "```",
    ])
    blocks = fenced_blocks(text)
    assert [b.info for b in blocks] == ["sh", "sh no-run", "toml", "sh", ""]
    assert [b.runs for b in blocks] == [True, False, False, True, False]
    assert blocks[3].text == "echo '```'\n" and blocks[0].line == 2


def test_every_page_has_its_shell_blocks_fenced_sh():
    """A shell block fenced some other way would escape this test: `bufferlab` commands sit in
    ```sh (or ```sh no-run) blocks."""
    for page in PAGES:
        for b in fenced_blocks(page.read_text(), page):
            if b.shell:
                continue
            first = b.text.lstrip().split("\n", 1)[0]
            assert not re.match(r"(\$ )?(bufferlab|make|duckdb|python -m bufferlab)\b", first), \
                f"{page.name}:{b.line}: a shell command in a ```{b.info} block; fence it ```sh (or ```sh no-run)"


def _clone(tmp: Path) -> Path:
    root = tmp / "clone"
    root.mkdir()
    shutil.copytree(REPO / "scenarios", root / "scenarios")
    shutil.copy2(REPO / "README.md", root / "README.md")
    shutil.copytree(REPO / "docs", root / "docs")
    return root


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _not_ignored(paths: set[str]) -> list[str]:
    """The paths (relative to a clone's root) that the repository's .gitignore does not ignore."""
    if not paths:
        return []
    proc = subprocess.run(
        ["git", "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin"],
        cwd=REPO, input="\n".join(sorted(paths)), capture_output=True, text=True,
    )
    if proc.returncode not in (0, 1):
        pytest.skip(f"git check-ignore cannot run here: {proc.stderr.strip()}")
    return sorted(paths - set(proc.stdout.splitlines()))


def test_ignored_paths_are_read_from_the_gitignore():
    assert _not_ignored({"runs/x/summary.json", "wait.png", "scenarios/udp-fifo.toml"}) == ["scenarios/udp-fifo.toml"]


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)], ids=lambda p: p.name)
def test_the_commands_of_a_page_run_as_written(page, tmp_path):
    root = _clone(tmp_path)
    shipped = _files(root)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    env.pop("VIRTUAL_ENV", None)
    for block in runnable(page):
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.text],
            cwd=root, env=env, capture_output=True, text=True, timeout=BLOCK_SECONDS,
        )
        where = f"{page.relative_to(REPO)}:{block.line}"
        assert proc.returncode == 0, (
            f"{where}: the block failed (exit {proc.returncode}):\n{block.text}\n"
            f"--- stdout ---\n{proc.stdout[-3000:]}\n--- stderr ---\n{proc.stderr[-3000:]}"
        )
        assert "Traceback" not in proc.stderr, f"{where}:\n{proc.stderr[-3000:]}"
        assert "Warning" not in proc.stderr, f"{where}: a warning leaked:\n{proc.stderr[-3000:]}"
    left = _not_ignored(_files(root) - shipped)
    tops = sorted({p.split("/", 1)[0] for p in left})
    assert not left, f"{page.relative_to(REPO)}: its commands leave files .gitignore does not cover, under {tops}: {left[:5]}"


# The reproduce list and its page are renamed with the reproductions themselves.
NOT_YET: set[str] = set()


def test_papers_are_named_by_their_authors_not_a_seed_number():
    pages = [p for p in PAGES if p.name not in NOT_YET]
    code = [*(REPO / "python" / "bufferlab").glob("*.py"), *(REPO / "python" / "bufferlab" / "plot").glob("*.py"),
            *(REPO / "python" / "bufferlab" / "scenario").glob("*.py"), *(REPO / "python" / "bufferlab" / "sweep").glob("*.py")]
    for f in [*pages, *code]:
        for n, line in enumerate(f.read_text().splitlines(), 1):
            assert not re.search(r"\bseed 00[0-9]\b", line, re.I), f"{f.relative_to(REPO)}:{n}: {line.strip()}"
    refs = (REPO / "docs" / "references.md").read_text()
    for who in ("Braud", "Cardozo", "Gorinsky", "Jabeen"):
        assert who in refs
