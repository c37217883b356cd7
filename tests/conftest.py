"""Shared fixtures: where the example scenarios are, and Hypothesis settings."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
# The shared examples live beside the repository; the package ships copies in scenarios/.
SHARED = REPO.parent / "shared" / "examples"
EXAMPLES_DIR = SHARED if SHARED.is_dir() else REPO / "scenarios"
# Scenario files only: scenarios/ also ships the sweep specs the docs use.
EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES_DIR.glob("*.toml") if "base" not in tomllib.loads(p.read_text()))

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


# Tests that measure the wall clock or the real network (the kernel backend, loopback senders,
# signals to live processes, Dask workers killed on purpose): `make test` runs them alone, after
# the rest has run on every core, so that no other test steals the time they measure.
SERIAL_MODULES = {
    "test_ballast",
    "test_cli_progress",
    "test_kernel_backend",
    "test_kernel_ballast",
    "test_kernel_compare",
    "test_kernel_paths",
    "test_run_cost",
    "test_sweep_cluster",
    "test_sweep_edges",
    "test_sweep_run",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in SERIAL_MODULES:
            item.add_marker(pytest.mark.serial)


def example_path(name: str) -> Path:
    return EXAMPLES_DIR / f"{name}.toml"


def example_doc(name: str) -> dict:
    return tomllib.loads(example_path(name).read_text())


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES_DIR
