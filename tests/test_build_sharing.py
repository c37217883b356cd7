"""`make test` after `make demo` reuses the engine's compiled dependencies only if maturin's build
(bufferlab-py alone) and `make test-rust` (the whole workspace with its dev-dependencies) turn on
the same features of every crate they share; cargo compiles a crate again for each feature set."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="no cargo on PATH")


def features(*args: str) -> dict[str, str]:
    """Each crate (name and version) of a build and its features, as cargo resolves them."""
    out = subprocess.run(
        ["cargo", "tree", "--offline", "--prefix", "none", "-f", "{p} [{f}]", *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    crates = {}
    for line in out.splitlines():
        m = re.match(r"(\S+ v\S+).*?\[([^\]]*)\]", line)
        if m:
            crates[m[1]] = m[2]
    return crates


def test_maturin_and_the_rust_tests_build_shared_crates_alike():
    maturin = features("-p", "bufferlab-py", "--features", "pyo3/extension-module", "-e", "normal,build")
    tests = features("--workspace", "-e", "normal,build,dev")
    assert "bufferlab-core v0.1.0" in maturin
    differ = {c: (f, tests.get(c)) for c, f in maturin.items() if c in tests and tests[c] != f}
    assert not differ, f"features differ (maturin, tests); name them in crates/bufferlab-py/Cargo.toml: {differ}"


def test_make_test_rust_resolves_the_whole_workspace():
    # Excluding bufferlab-py would drop pyo3's features (syn's extra-traits) from the tests' build.
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\ntest-rust:")[1].split("\n\n")[0]
    flags = re.search(r"^RUST_TESTS\s*:?=\s*(.*)$", makefile, re.M)
    recipe = recipe.replace("$(RUST_TESTS)", flags[1] if flags else "")
    assert "cargo test --release --workspace" in recipe and "--exclude" not in recipe


def test_make_test_builds_the_rust_tests_as_test_rust_runs_them():
    # `make test` builds the Rust tests beside the Python dependencies' install, then runs them with
    # test-rust: the same command but --no-run, or cargo would build them again.
    makefile = (REPO / "Makefile").read_text()

    def recipe(target: str) -> str:
        return makefile.split(f"\n{target}:")[1].split("\n\n")[0].split("\n", 1)[1].strip()

    assert recipe("test-rust-build") == recipe("test-rust") + " --no-run"
    assert "test-rust-build deps" in recipe("test") and "test-rust test-python" in recipe("test")
