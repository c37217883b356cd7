"""Validation against ns-3: the same scenario in both simulators, compared over seeds.

``bufferlab crosscheck FILE`` (bufferlab.cli.crosscheck) runs it; ``translate.to_ns3`` lowers a plan to the
configuration of the ns-3 program in ``ns3-program/``; ``ns3env`` finds ns-3 and compiles that
program once per machine; ``runner`` runs one seed in both; ``compare`` lines the results up;
``suite`` is the validation suite behind ``make validate`` and ``docs/validation.md``.
"""

from __future__ import annotations

from .ns3env import Ns3Missing
from .translate import Unsupported, to_ns3

__all__ = ["to_ns3", "Unsupported", "Ns3Missing"]
