"""Runs refused in a worker process that is importing the script that started it.

A sweep's pool worker, a local Dask cluster's worker and every process Python's multiprocessing
starts other than by fork begin by importing the main script (as ``__mp_main__``), so that what
the script defines can be unpickled there. Code at the script's top level, outside ``if __name__
== "__main__":``, then runs again in each worker: a sweep there would wait on the folder the
script's own sweep holds, and a run would be paid once more per worker. Both are refused with
the fix, as multiprocessing refuses a process started there.
"""

from __future__ import annotations

import sys


def refuse_in_a_starting_worker(what: str) -> None:
    """Raise RuntimeError if this process is a worker importing its parent's main script."""
    # A worker's start-up runs in multiprocessing's own code: a process that has not imported it
    # is not one (and the command line does not pay for importing it).
    process = sys.modules.get("multiprocessing.process")
    if process is not None and getattr(process.current_process(), "_inheriting", False):
        raise RuntimeError(
            f"{what} was called while a worker process was importing the script that started it "
            "(each of a sweep's workers imports it, as multiprocessing and Dask do): put the "
            "script's runs and sweeps under `if __name__ == \"__main__\":`, or sweep with "
            "backend=\"inline\""
        )
