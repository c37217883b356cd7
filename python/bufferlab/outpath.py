"""Where results go: checking an output location before any work, clean messages for what the
file system refuses, and the leftovers of a write that was killed.

A run's ``--out DIR`` (or a sweep's, or a figure's ``-o FILE``) is checked before the simulation
starts, so a typo in a path costs nothing: the location must be creatable by this user (the
nearest existing folder is probed by making and removing a folder in it, which catches read-only
file systems and permissions that ``os.access`` misses when running as root), must not be an
existing file where a folder goes (or a folder where a file goes), and an existing folder is
replaced only if it is one of ours.

A result folder is written into ``.DIR.part-<pid>-<random>`` beside ``DIR`` and renamed into place
(see :mod:`bufferlab.results`). A process killed half-way leaves that folder behind; the next
write to the same ``DIR`` removes it once the process that made it is gone.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from .errors import BufferlabError

__all__ = [
    "OutputError",
    "check_out_dir",
    "check_out_file",
    "describe_os_error",
    "make_sibling",
    "remove_leftovers",
]


class OutputError(BufferlabError, ValueError):
    """An output location that cannot be written, with what to do about it."""


_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder",
    errno.ENOENT: "folders cannot be created there",
    errno.EEXIST: "it already exists",
}


def describe_os_error(e: OSError) -> str:
    """What the file system said, in words (no ``[Errno N]`` and no Python repr)."""
    if e.errno in _REASONS:
        return _REASONS[e.errno]
    if e.errno is not None:
        return os.strerror(e.errno).lower()
    return str(e)


def _nearest_existing(p: Path) -> Path:
    a = p
    while not a.exists() and a != a.parent:
        a = a.parent
    return a


def _probe(folder: Path, target: Path) -> None:
    """Make and remove a folder in ``folder``: the one sure test that ``target`` can be made."""
    if not folder.is_dir():
        raise OutputError(f"{folder} is a file, so {target} cannot be created under it")
    probe = folder / f".bufferlab-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        os.mkdir(probe)
    except OSError as e:
        raise OutputError(f"cannot write in {folder}: {describe_os_error(e)}") from None
    os.rmdir(probe)


def check_out_dir(path: str | os.PathLike[str], *, ours: Callable[[Path], bool], what: str, rule: str) -> Path:
    """Check that ``path`` can become (or be replaced by) an output folder; returns it absolute.

    ``ours(path)`` says whether an existing folder may be written over (a previous result, an
    empty folder); ``what`` names such a folder (``"a previous result"``) and ``rule`` says
    which ones are (for the message). Raises :class:`OutputError`.
    """
    p = Path(path).expanduser().absolute()
    if p.exists() or p.is_symlink():
        if not p.is_dir():
            raise OutputError(f"{p} is a file; give a folder name (a new one, or {what} to replace)")
        if not ours(p):
            raise OutputError(f"{p} already holds other files ({rule}); choose another folder")
        _probe(p.parent, p)
        return p
    _probe(_nearest_existing(p.parent), p)
    return p


def check_out_file(path: str | os.PathLike[str], suffixes: tuple[str, ...] | None = None) -> Path:
    """Check that a file can be written at ``path`` (its folder made if missing); ``suffixes``
    are the accepted endings. Raises :class:`OutputError`."""
    p = Path(path).expanduser().absolute()
    if p.is_dir():
        raise OutputError(f"{p} is a folder; give a file name such as {p / ('figure' + (suffixes or ('.csv',))[0])}")
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise OutputError(f"write a {', '.join(suffixes[:-1])} or {suffixes[-1]} file")
    _probe(_nearest_existing(p.parent), p)
    return p


# .NAME.part-<pid>-<hex>, .NAME.old-<pid>-<hex> and .NAME.capture-<pid>-<hex> (a run's packet
# captures before they join its result): folders of one write, by its process.
_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?:part|old|capture)-(?:(?P<pid>\d+)-)?[0-9A-Za-z_]+$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(out: Path) -> list[Path]:
    """Remove the ``.OUT.part-*`` / ``.OUT.old-*`` / ``.OUT.capture-*`` folders beside ``out`` whose writer is gone
    (a run killed while writing); returns what was removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return removed
    for entry in entries:
        m = _LEFTOVER.match(entry.name)
        if m is None or m.group("name") != out.name or not entry.is_dir(follow_symlinks=False):
            continue
        pid = m.group("pid")
        if pid is not None and int(pid) != os.getpid() and _alive(int(pid)):
            continue  # another process is writing this folder now
        if pid is not None and int(pid) == os.getpid():
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def make_sibling(out: Path, kind: str) -> Path:
    """A new folder ``.OUT.<kind>-<pid>-<random>`` beside ``out``, made with the usual
    permissions (the umask's, so a group that may read ``out``'s parent may read the results)."""
    for _ in range(100):
        p = out.parent / f".{out.name}.{kind}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            os.mkdir(p, 0o777)
        except FileExistsError:
            continue
        return p
    raise OutputError(f"cannot make a temporary folder beside {out}")  # pragma: no cover
