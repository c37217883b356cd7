"""``bufferlab schema`` and ``bufferlab version``: what the package reads and what it is."""

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import err_console, out_console


def schema(
    sweep: Annotated[bool, typer.Option("--sweep", help="The sweep spec's schema instead of the scenario file's.")] = False,
    docs: Annotated[
        Optional[Path], typer.Option("--docs", help="Rewrite the generated key tables of this Markdown file (docs/scenario-format.md) instead.")
    ] = None,
) -> None:
    """Print the JSON Schema of scenario files (or of sweep specs), for editors.

    Example: `bufferlab schema > scenario.schema.json`, then `#:schema ./scenario.schema.json` as
    the first line of a scenario file lets Taplo / Even Better TOML complete and check it.
    """
    from ..scenario.jsonschema import rewrite_docs, scenario_schema, sweep_schema

    if docs is not None:
        try:
            text = docs.read_text()
            new = rewrite_docs(text)
        except (OSError, ValueError) as e:
            err_console.print(f"{docs}: cannot rewrite its tables ({e})", markup=False)
            raise typer.Exit(2) from None
        if new != text:
            docs.write_text(new)
        out_console.print(f"{docs}: tables {'rewritten' if new != text else 'already current'}", markup=False)
        return
    sys.stdout.write(json.dumps(sweep_schema() if sweep else scenario_schema(), indent=2) + "\n")


def version() -> None:
    """Print the package's and the engine's versions."""
    from .. import __version__
    from ..simulate import engine_build, engine_version

    try:
        ev = engine_version()
        if engine_build() == "pgo":
            ev += ", profile-guided build"
    except ImportError:
        ev = "not built"
    out_console.print(f"bufferlab {__version__} (engine {ev})", markup=False)
