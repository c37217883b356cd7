"""Finding ns-3 and building the crosscheck program against it.

ns-3 comes from the PyPI wheel ``ns3``: ``make ns3`` in the source tree puts it in its own
environment, ``~/.cache/bufferlab/ns3-venv`` (``make validate`` does too), or
``python -m pip install ns3==3.44.post0`` into the Python that runs bufferlab. The wheel holds ns-3's headers and
shared libraries; the program in ``ns3-program/`` (C++ sources inside this package, so they ship
in the wheel) is compiled against them with g++ once per machine, into
``${XDG_CACHE_HOME:-~/.cache}/bufferlab/ns3-build/<hash>/``, the hash covering the sources, the
ns-3 prefix and the compiler command, so a changed source rebuilds and a rebuild never touches
the repository or the installed package.

Where ns-3 is looked for, first match wins: ``$BUFFERLAB_NS3_PREFIX`` (a folder with ``include/``
and ``lib64/`` or ``lib/``), the ``ns3`` package importable here, the environment
``$BUFFERLAB_NS3_VENV``, the cache environment.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

__all__ = ["Ns3Missing", "find_prefix", "program", "cache_dir", "NS3_VERSION", "hint"]

NS3_VERSION = "3.44"
# The PyPI wheel the Makefile's ns3 target installs (bufferlab itself is not on PyPI, so
# `pip install bufferlab[ns3]` is not a command that works).
NS3_WHEEL = "ns3==3.44.post0"
MODULES = ("core", "network", "internet", "point-to-point", "traffic-control", "applications", "internet-apps")


class Ns3Missing(RuntimeError):
    """ns-3 (or a C++ compiler) is not available; the message says how to get it."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bufferlab"


def hint() -> str:
    """How to get ns-3, as commands that work from where bufferlab runs."""
    return (
        f"ns-3 is not installed: run `make ns3` in bufferlab's source tree (ns-3 {NS3_VERSION} from PyPI, "
        f"about 520 MB, into {cache_dir() / 'ns3-venv'}, where bufferlab looks for it), "
        f"or `{sys.executable} -m pip install '{NS3_WHEEL}'`"
    )


def _sources_dir() -> Path:
    """The program's C++ sources, ``ns3-program/`` beside this module: package data, so an
    installed wheel has them as the source tree does."""
    src = Path(__file__).resolve().parent / "ns3-program"
    if (src / "main.cc").is_file():
        return src
    raise Ns3Missing(f"the ns-3 program's sources are missing from {src}: reinstall bufferlab")


def _usable(prefix: Path) -> bool:
    return (prefix / "include" / "ns3" / "core-module.h").is_file() and bool(_libdir(prefix))


def _libdir(prefix: Path) -> Path | None:
    for sub in ("lib64", "lib"):
        if glob.glob(str(prefix / sub / f"libns{NS3_VERSION}-core*.so")):
            return prefix / sub
    return None


def _venv_site(venv: Path) -> list[Path]:
    return [Path(p) for p in glob.glob(str(venv / "lib" / "python3*" / "site-packages"))]


def find_prefix() -> Path:
    """The ns-3 installation to build against; :class:`Ns3Missing` if there is none."""
    env = os.environ.get("BUFFERLAB_NS3_PREFIX")
    if env:
        p = Path(env)
        if _usable(p):
            return p
        raise Ns3Missing(f"BUFFERLAB_NS3_PREFIX={env} has no ns-3 {NS3_VERSION} headers and libraries (include/ns3, lib64)")
    candidates: list[Path] = []
    spec = importlib.util.find_spec("ns3") if "ns3" not in sys.modules else None
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(loc) for loc in spec.submodule_search_locations]
    venvs = [Path(os.environ["BUFFERLAB_NS3_VENV"])] if os.environ.get("BUFFERLAB_NS3_VENV") else []
    for site in [s for v in venvs + [cache_dir() / "ns3-venv"] for s in _venv_site(v)]:
        candidates.append(site / "ns3")
    for c in candidates:
        if _usable(c):
            return c
    raise Ns3Missing(hint())


def _compile_cmd(prefix: Path, src: Path, out: Path) -> list[str]:
    lib = _libdir(prefix)
    assert lib is not None
    cmd = [os.environ.get("CXX", "g++"), "-std=c++20", "-O2", "-w", str(src / "main.cc"), f"-I{prefix / 'include'}", f"-L{lib}", f"-Wl,-rpath,{lib}", "-Wl,--no-as-needed"]
    cmd += [f"-lns{NS3_VERSION}-{m}" for m in MODULES]
    return cmd + ["-o", str(out)]


def program(progress=None) -> Path:
    """The compiled crosscheck program, built on first use; :class:`Ns3Missing` if it cannot be."""
    prefix = find_prefix()
    src = _sources_dir()
    h = hashlib.sha256()
    for f in sorted(src.glob("*")):
        if f.suffix in (".cc", ".h"):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    h.update(" ".join(_compile_cmd(prefix, src, Path("x"))).encode())
    key = h.hexdigest()[:16]
    target = cache_dir() / "ns3-build" / key / "bufferlab-ns3"
    if target.is_file():
        return target
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        raise Ns3Missing("no C++ compiler (g++) to build the ns-3 program: install g++ (apt-get install g++)")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".build-{uuid.uuid4().hex[:8]}"
    if progress is not None:
        progress(f"compiling the ns-3 program into {target.parent} (once per machine)")
    r = subprocess.run(_compile_cmd(prefix, src, tmp), capture_output=True, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise Ns3Missing(f"compiling {src / 'main.cc'} against ns-3 at {prefix} failed:\n{r.stderr[-3000:]}")
    os.replace(tmp, target)  # atomic: a concurrent build sees either nothing or the whole program
    return target
