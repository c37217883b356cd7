"""Plots that look like the papers' figures. Each function returns ``(figure, data)``: the
matplotlib Figure and the DataFrame it drew, so what is on the plot can be checked and reused.
``save(fig, "fig.png")`` (or ``.svg``) writes it. See ``docs/plots.md``.
"""

from __future__ import annotations

from typing import Any

from ._common import save
from .cdf import cdf, quantile_curves
from .response import response_time, size_bins
from .timeseries import timeseries

__all__ = ["cdf", "metric_vs_param", "quantile_curves", "response_time", "save", "size_bins", "timeseries"]


def __getattr__(name: str) -> Any:
    # The sweep plot loads on first use: it brings the sweeps and their statistics (SciPy), which a
    # command drawing a CDF or a time series has no use for.
    if name == "metric_vs_param":
        from .sweep import metric_vs_param

        return metric_vs_param
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
