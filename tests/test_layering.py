"""The package's layers import downward only: the command line (``bufferlab.cli``) drives the
backends and nothing below it imports it; the kernel backend runs the ballast tool, so the ballast
never imports the kernel. And starting the command loads only what the command runs: checking a
scenario loads none of the data libraries a sweep, a query or a plot needs, nor pydantic."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "bufferlab"
DATA_LIBRARIES = ("pandas", "pyarrow", "duckdb", "matplotlib", "scipy", "dask", "numpy")
# typer 0.29 coerces each parameter through a pydantic TypeAdapter, 0.2-0.3 s of every call
# (pyproject.toml keeps typer below it).
START_UP_LIBRARIES = (*DATA_LIBRARIES, "pydantic")


def imported(path: Path) -> set[str]:
    """The modules a file imports, anywhere in it (in a function too), as absolute names."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    package = package.removesuffix(".__init__")
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def importers_of(target: str, within: str = "") -> list[str]:
    """Files under ``within`` (a folder of the package) importing ``target`` or what is in it."""
    found = []
    for path in sorted((PACKAGE / within).rglob("*.py")):
        if any(name == target or name.startswith(target + ".") for name in imported(path)):
            found.append(str(path.relative_to(PACKAGE)))
    return found


def test_nothing_below_the_command_line_imports_it():
    below = [f for f in importers_of("bufferlab.cli") + importers_of("typer") if not f.startswith("cli/")]
    assert below == ["__main__.py"]


def test_the_ballast_tool_does_not_import_the_kernel_backend():
    assert importers_of("bufferlab.kernel", within="ballast") == []


@pytest.mark.parametrize("argv", [[], ["validate", "scenarios/dumbbell.toml"], ["version"]])
def test_the_command_starts_without_the_data_libraries(argv):
    code = (
        "import sys\nfrom bufferlab.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print(' '.join(m for m in {START_UP_LIBRARIES!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent.parent).stdout
    assert out.splitlines()[-1] == ""
