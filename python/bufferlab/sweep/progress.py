"""The progress bar of a sweep: done, failed, running, elapsed and time left."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["SweepProgress"]


class SweepProgress:
    """A rich progress bar, or nothing when ``enabled`` is false."""

    def __init__(self, total: int, skipped: int, enabled: bool = True, label: str = "sweep") -> None:
        self.enabled = enabled
        self.failed = 0
        if not enabled:
            return
        self.bar = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TextColumn("{task.fields[running]} running"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self.task = self.bar.add_task(label, total=total, completed=skipped, failed=0, running=0)

    def __enter__(self) -> SweepProgress:
        if self.enabled:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.bar.stop()

    def advance(self, failed: bool, running: int) -> None:
        self.failed += failed
        if self.enabled:
            self.bar.update(self.task, advance=1, failed=self.failed, running=running)

    def running(self, n: int) -> None:
        if self.enabled:
            self.bar.update(self.task, running=n)
