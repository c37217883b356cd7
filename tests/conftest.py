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
# `make test` (what CI runs) asks for the derandomized profile (HYPOTHESIS_PROFILE=ci): the same
# examples on every run, so a result does not depend on the run's luck; a plain `pytest` explores.
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default"))


# Tests that measure the wall clock or the real network (the kernel backend's real hosts, loopback
# senders, signals to live processes racing with the work they stop): `make test` runs them one at
# a time, never beside each other, at nice 0 beside the CPU-bound tests, which it starts at nice 19,
# so that no other test steals the time they measure. They carry `pytest.mark.serial` where they
# are defined; these modules are serial as a whole.
SERIAL_MODULES = {
    "test_cli_progress",  # the progress line is drawn after wall-clock intervals
    "test_sweep_cluster",  # a Dask worker killed part-way through a running sweep
}

# The longest tests (5-25 s each: the pages of the docs whose commands run as written, ns-3, the
# reproductions' smoke runs, a Dask worker dying thrice) go first, longest first: `make test` hands
# the cores one test at a time (--maxschedchunk 1), so the run does not end with one core idle while
# the other works through one of them.
LONGEST_FIRST = (
    "test_doc_commands.py::test_the_commands_of_a_page_run_as_written[plots.md]",
    "test_doc_commands.py::test_the_commands_of_a_page_run_as_written[README.md]",
    "test_crosscheck.py::test_ns3_runs_an_mdl_queue_like_bufferlab",
    "test_sweep_run.py::test_a_dask_point_whose_worker_dies_is_failed",
    "test_doc_commands.py::test_the_commands_of_a_page_run_as_written[report.md]",
    "test_doc_commands.py::test_the_commands_of_a_page_run_as_written[sweeps.md]",
    "test_reproduce.py::test_smoke_profile_runs_draws_and_judges",
    "test_capture.py::test_tshark_and_tcpdump_read_every_file_cleanly",
)


def _rank(item: pytest.Item) -> int:
    return next((i for i, name in enumerate(LONGEST_FIRST) if name in item.nodeid), len(LONGEST_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in SERIAL_MODULES:
            item.add_marker(pytest.mark.serial)
    items.sort(key=_rank)  # stable: the rest keep their order


def example_path(name: str) -> Path:
    return EXAMPLES_DIR / f"{name}.toml"


def example_doc(name: str) -> dict:
    return tomllib.loads(example_path(name).read_text())


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES_DIR
