"""Plots that look like the papers' figures. Each function returns ``(figure, data)``: the
matplotlib Figure and the DataFrame it drew, so what is on the plot can be checked and reused.
``save(fig, "fig.png")`` (or ``.svg``) writes it. See ``docs/plots.md``.
"""

from ._common import save
from .cdf import cdf, quantile_curves
from .response import response_time, size_bins
from .sweep import metric_vs_param
from .timeseries import timeseries

__all__ = ["cdf", "metric_vs_param", "quantile_curves", "response_time", "save", "size_bins", "timeseries"]
