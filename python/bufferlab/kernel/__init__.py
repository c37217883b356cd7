"""The kernel backend: the scenario's hosts are Linux network namespaces running the kernel's
own TCP/UDP/ICMP, joined by the engine's network (links, queues, rings, routers) in real time.
See ``docs/kernel-backend.md``. Linux and root only."""

from __future__ import annotations

from .run import KernelUnavailable, Network, preflight, run_kernel

__all__ = ["KernelUnavailable", "Network", "preflight", "run_kernel", "cleanup"]


def cleanup() -> list[str]:
    """Remove namespaces (and their programs, /etc/netns files) left by runs killed with SIGKILL."""
    from .run import core

    return list(core().kernel_cleanup())
