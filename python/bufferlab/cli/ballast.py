"""``bufferlab ballast``: send the ballast from this host.

Exit status: 0 stopped (Ctrl-C, SIGTERM or --duration), printing what was sent; 2 bad options.
"""

import signal
import sys
import threading
from typing import Annotated, Any, Optional

import typer

from ..ballast.sender import DEFAULT_PORT, DEFAULT_SIZE, DEFAULT_TTL, BallastOptions, run_ballast
from ..units import UnitError, parse_bytes, parse_rate, parse_time_ns
from .common import err_console


def _share(text: str) -> float:
    t = text.strip()
    return float(t[:-1]) / 100 if t.endswith("%") else float(t)


def ballast(
    to: Annotated[str, typer.Option("--to", metavar="HOST[:PORT]", help=f"Where to send (port {DEFAULT_PORT}, discard, by default). The packets die --ttl hops away.")],
    rate: Annotated[Optional[str], typer.Option("--rate", help='Fixed rate, e.g. "250pps" (or a bit rate, "58kbps").')] = None,
    auto: Annotated[bool, typer.Option("--auto", help="Let the controller choose the rate from this host's TCP counters (docs/ballast.md).")] = False,
    size: Annotated[str, typer.Option("--size", help="IP packet size.")] = f"{DEFAULT_SIZE}B",
    ttl: Annotated[int, typer.Option("--ttl", help="IP TTL: 2 crosses a home router and the access link, then the packets die.")] = DEFAULT_TTL,
    burst: Annotated[Optional[int], typer.Option("--burst", help="Packets per burst (with --every).")] = None,
    every: Annotated[Optional[str], typer.Option("--every", help='Burst period, e.g. "1s".')] = None,
    max_share: Annotated[str, typer.Option("--max-share", help="Most of the uplink's bytes the automatic ballast may take (eq. 7).")] = "20%",
    target: Annotated[Optional[str], typer.Option("--target", help='Target queueing delay for --auto, e.g. "100ms" (default: 25 full segments at the measured upload rate).')] = None,
    period: Annotated[Optional[str], typer.Option("--period", help='How often --auto decides, e.g. "500ms" (the default).')] = None,
    duration: Annotated[Optional[str], typer.Option("--duration", help='Stop after this long, e.g. "60s" (default: until Ctrl-C).')] = None,
    force: Annotated[bool, typer.Option("--force", help="Allow a rate above the safe cap of 2000 pps.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not log the controller's decisions.")] = False,
    start_at_stdin: Annotated[
        bool,
        typer.Option("--start-at-stdin", help="For programs that launch the tool ahead: set up, say 'ready' on stderr, then start at the CLOCK_MONOTONIC time (ns) read as a line on stdin."),
    ] = False,
) -> None:
    """Send Braud et al.'s ballast: tiny UDP packets that shorten an oversized uplink queue."""
    problems: list[str] = []
    host, _, port_text = to.rpartition(":") if to.count(":") == 1 else (to, "", "")
    host = host or to
    opts: dict[str, Any] = {"host": host.strip("[]"), "auto": auto, "ttl": ttl, "burst": burst, "force": force}
    try:
        opts["port"] = int(port_text) if port_text else DEFAULT_PORT
    except ValueError:
        problems.append(f'--to: "{port_text}" is not a port number')
    try:
        opts["size"] = parse_bytes(size)
    except UnitError as e:
        problems.append(f"--size: {e}")
    if rate is not None:
        try:
            r = parse_rate(rate)
            opts["rate_pps"] = r.pps if r.pps is not None else (r.bps or 0) / (8 * opts.get("size", DEFAULT_SIZE))
        except UnitError as e:
            problems.append(f"--rate: {e}")
    for key, text, name in (("every_s", every, "--every"), ("target_s", target, "--target"), ("period_s", period, "--period"), ("duration_s", duration, "--duration")):
        if text is not None:
            try:
                opts[key] = parse_time_ns(text) / 1e9
            except UnitError as e:
                problems.append(f"{name}: {e}")
    try:
        opts["max_share"] = _share(max_share)
    except ValueError:
        problems.append(f'--max-share: "{max_share}" is not a share (e.g. 20% or 0.2)')
    o = BallastOptions(**opts)
    problems += o.check() if not problems else []
    if problems:
        for p in problems:
            err_console.print(p, markup=False)
        raise typer.Exit(2)

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    def log(d: dict[str, Any]) -> None:
        if quiet:
            return
        q = d["queue_ns"]
        err_console.print(
            f"t={d['now_ns'] / 1e9:7.1f}s {d['action']:<6} rate {d['rate_pps']:7.1f} pps  alpha {d['alpha']:5.2f}  "
            f"upload {d['tcp_pps']:7.1f} seg/s  queue {'-' if q is None else f'{q / 1e6:.0f} ms'}  target {d['target_ns'] / 1e6:.0f} ms",
            markup=False,
        )

    def start_at() -> int | None:
        print("ready", file=sys.stderr, flush=True)
        line = sys.stdin.readline().strip()
        if not line:  # whoever launched it went away: never start
            stop.set()
            return None
        return int(line)

    # The sender runs in a thread of its own and this one only waits for it: a signal handler
    # runs on the main thread, and Event.set() from there deadlocks if the main thread was itself
    # inside stop.wait() holding the event's (non-reentrant) lock.
    outcome: dict[str, Any] = {}

    def send() -> None:
        try:
            outcome["report"] = run_ballast(o, stop=stop, log=log, start_at=start_at if start_at_stdin else None)
        except OSError as e:
            outcome["error"] = e
        except BaseException as e:  # raised again on this thread, as if called here
            outcome["crash"] = e

    worker = threading.Thread(target=send, name="ballast", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.2)
    if "error" in outcome:
        e = outcome["error"]
        err_console.print(f"--to: cannot send to {to}: {e.strerror or e}", markup=False)
        raise typer.Exit(2)
    if "crash" in outcome:
        raise outcome["crash"]
    rep = outcome["report"]
    print(f"sent {rep.packets} packets, {rep.bytes} B in {rep.seconds:.1f} s ({rep.mean_pps:.1f} pps) to {to} with TTL {o.ttl}")
    sys.stdout.flush()
