"""The seed papers' experiments, run and set beside the papers' own numbers.

``bufferlab reproduce`` lists them; ``bufferlab reproduce NAME`` runs one and prints a table of
quantity, case, the paper's value, ours, and whether ours meets the paper's claim. Each
reproduction states the assumptions it makes where its paper leaves a parameter open
(``docs/reproductions.md``).
"""

from __future__ import annotations

from ._registry import REPRODUCTIONS, Reproduction, get, run_reproduction
from . import braud, cardozo, gorinsky, jabeen, theory  # noqa: F401  (they register themselves)

__all__ = ["REPRODUCTIONS", "Reproduction", "get", "run_reproduction"]
