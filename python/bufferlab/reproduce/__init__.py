"""Papers' experiments reproduced (the seed papers, then later ones): sweeps over seeds, figures, claims with verdicts.

``bufferlab reproduce`` lists the items; ``bufferlab reproduce ITEM`` runs one through the sweep
runner, draws its figure with the paper's axes and judges each of the paper's claims (mean and
95% interval over seeds against a tolerance declared with the item). See docs/reproductions.md.
"""

from __future__ import annotations

from . import braud, cardozo, gorinsky, jabeen, theory  # noqa: F401  (they register their items)
from . import bbr, cake, l4s  # noqa: F401, I001  (after the seed papers: the pages list items in this order)
from .claims import ClaimResult, ClaimSpec
from .item import ITEMS, PROFILES, Item, get
from .run import ItemResult, run_item, run_items

__all__ = ["ITEMS", "PROFILES", "ClaimResult", "ClaimSpec", "Item", "ItemResult", "get", "run_item", "run_items"]
