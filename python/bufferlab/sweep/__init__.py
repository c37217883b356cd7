"""Sweeps: one spec -> a grid of scenarios × seeds, run locally or on Dask, stored as Parquet.

See ``docs/sweeps.md``.
"""

from .keypath import KeyPathError, set_path
from .runner import SweepInterrupted, SweepReport, run_sweep
from .spec import Point, SweepSpec, load_spec
from .stats import aggregate, t_quantile

__all__ = [
    "KeyPathError",
    "Point",
    "SweepInterrupted",
    "SweepReport",
    "SweepSpec",
    "aggregate",
    "load_spec",
    "run_sweep",
    "set_path",
    "t_quantile",
]
