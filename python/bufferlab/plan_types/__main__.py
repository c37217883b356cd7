"""``python -m bufferlab.plan_types --write``: regenerate generated.py from the engine's schema;
``--check`` exits 1 if it is out of date."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import _core
from .generate import generate

GENERATED = Path(__file__).with_name("generated.py")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bufferlab.plan_types", description=__doc__)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help=f"write {GENERATED.name}")
    mode.add_argument("--check", action="store_true", help=f"fail if {GENERATED.name} differs from the engine's schema")
    args = ap.parse_args(argv)
    text = generate(_core.plan_schema())
    if args.write:
        GENERATED.write_text(text)
        return 0
    if GENERATED.read_text() != text:
        print(f"{GENERATED} is out of date: run python -m bufferlab.plan_types --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
