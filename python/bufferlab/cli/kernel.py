"""The kernel backend's commands: ``cleanup``, ``exec``, ``shell`` and ``compare``, and
``run_kernel_cli`` behind ``bufferlab run --backend kernel``. Linux and root."""

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer

from ..errors import BufferlabError, ScenarioError
from .common import SeedOption, SetOption, err_console, fail, out_console, parse_sets, progress_line, report_problems

NETNS_RUN = Path("/run/netns")


def run_kernel_cli(
    sc: Any, progress: Callable[[float], Any] | None, spin_us: float | None = None, capture_dir: Path | None = None
) -> Any:
    """`run_kernel` with the CLI's exits: 2 when the machine cannot (one line saying why) or the
    scenario asks what the kernel cannot do, 1 when a program fails."""
    from ..kernel import KernelUnavailable, run_kernel

    try:
        result = run_kernel(sc, progress, spin_us=spin_us, capture_dir=capture_dir)
    except KernelUnavailable as e:
        fail(str(e), 2)
    except ScenarioError:
        raise
    except BufferlabError as e:
        fail(str(e), 1)
    not_ipv4 = result.summary["kernel"]["driver"].get("not_ipv4", 0)
    if not_ipv4:
        print(
            f"note: {not_ipv4:,} packets the hosts sent were not IPv4 and were dropped: the kernel backend "
            "carries IPv4 only (IPv6 is off in its namespaces; docs/kernel-backend.md)",
            file=sys.stderr,
        )
    return result


def _preflight() -> None:
    """Exit 2, saying why, on a machine where the kernel backend cannot run."""
    from ..kernel import KernelUnavailable, preflight

    try:
        preflight()
    except KernelUnavailable as e:
        fail(str(e), 2)


def _load(file: Path, seed: int | None, sets: list[str] | None) -> Any:
    from ..scenario import load_scenario

    try:
        return load_scenario(file, seed=seed, overrides=parse_sets(sets))
    except ScenarioError as e:
        report_problems(e, file)


def _live_namespaces() -> dict[str, list[str]]:
    """Node name -> namespaces of running kernel-backend networks (``bl<pid>-<node>``)."""
    out: dict[str, list[str]] = {}
    try:
        names = sorted(p.name for p in NETNS_RUN.iterdir())
    except OSError:
        return out
    for n in names:
        m = re.fullmatch(r"bl(\d+)-(.+)", n)
        if m and _running(int(m.group(1))):
            out.setdefault(m.group(2), []).append(n)
    return out


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs: a zombie (exited, not yet reaped) does not, as the
    engine's clean-up judges it (proc(5): the state after the command's last parenthesis)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _name_list(names: list[str]) -> str:
    """Host names for a message as the scenario reader gives them: numbered runs folded
    (`s1..s100`) and the rest counted past twenty."""
    from .. import _core  # type: ignore[attr-defined]

    return _core.name_list(names)


def _natural(name: str) -> tuple[str, int]:
    """Sort key that puts `s2` before `s10`, so that numbered runs fold."""
    stem = name.rstrip("0123456789")
    digits = name[len(stem):]
    return (stem, int(digits) if digits and not (len(digits) > 1 and digits.startswith("0")) else -1)


def cleanup() -> None:
    """Remove what kernel-backend runs killed with SIGKILL left behind: their namespaces, the
    programs in them and their /etc/netns files (root)."""
    from ..kernel import cleanup as do_cleanup

    _preflight()
    removed = do_cleanup()
    out_console.print(f"removed {len(removed)} namespace{'s' if len(removed) != 1 else ''}" + (f": {' '.join(removed)}" if removed else ""), markup=False)


def exec_(
    node: Annotated[str, typer.Argument(help="A host of the running network (its scenario name).", show_default=False)],
    cmd: Annotated[list[str], typer.Argument(help="The command and its arguments (after --).", show_default=False)],
) -> NoReturn:
    """Run a command in a host of a network started by `bufferlab shell` (another terminal),
    as Mininet's `h1 ping h2`: `bufferlab exec server -- ping client`."""
    live = _live_namespaces()
    if node not in live:
        known = _name_list(sorted(live, key=lambda n: (_natural(n), n))) or "none: start one with `bufferlab shell FILE --node NAME`"
        fail(f"no running network has a host {node!r} (hosts running: {known})")
    if len(live[node]) > 1:
        fail(f"several running networks have a host {node!r}: {' '.join(live[node])}; use `ip netns exec NAME ...`")
    os.execvp("ip", ["ip", "netns", "exec", live[node][0], *cmd])


def shell(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    node: Annotated[str, typer.Option("--node", help="The host to run CMD in.", show_default=False)],
    cmd: Annotated[Optional[list[str]], typer.Argument(help="Command (default: $SHELL or /bin/sh), after --.", show_default=False)] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the results here when CMD exits.")] = None,
    seed: SeedOption = None,
    sets: SetOption = None,
) -> None:
    """Run the scenario's network with real hosts and run CMD in one of them; the network
    (and the scenario's traffic, for its duration) runs until CMD exits. Scenario node names
    resolve in every host (`ping server`). Root."""
    from .. import plan_types as pt
    from ..kernel import Network
    from ..kernel import plan as kplan
    from ..kernel.run import finish_result, sigterm_as_interrupt
    from .tables import print_result

    sc = _load(file, seed, sets)
    # The node is checked before the kernel plan is built (seconds for a file of 10,000 pairs).
    plan = pt.typed(sc)
    hosts = [plan.nodes[i] for i in kplan.host_nodes(plan)]
    if node not in hosts:
        err_console.print(f"--node {node}: not a host of {file} (hosts: {_name_list(hosts)})", markup=False)
        raise typer.Exit(2)
    try:
        kp = kplan.build(sc, plan)
    except ScenarioError as e:
        report_problems(e, file)
    host = next(h for h in kp.hosts if h.name == node)
    _preflight()
    argv = cmd or [os.environ.get("SHELL", "/bin/sh")]
    # The network outlives the scenario's duration: it stops when CMD exits.
    long_ns = 30 * 86_400 * 10**9
    with sigterm_as_interrupt(), Network(sc, kp, duration_ns=long_ns) as net:
        t0 = net.start(long_ns, keep_awake=False)  # an interactive session: no cores spun for its length
        time.sleep(max(0, t0 - time.monotonic_ns()) / 1e9)  # CMD's first packet finds the network running
        rc = subprocess.call(net.exec_args(host.node, argv))
        net.net.stop()
        out_raw, reports = net.collect()
        result = finish_result(sc, kp, net, out_raw, reports)
        result.summary["engine"]["wall_seconds"] = time.monotonic() - net.t_start
    if out is not None:
        out_console.print(f"wrote {result.write(out)}", markup=False)
    print_result(result, out_console, title=f"{file} (kernel, {node}: {' '.join(argv)})")
    raise typer.Exit(rc)


def compare(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)],
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Runs per backend (seeds run.seed, +1, ...); means are compared.")] = 1,
    seed: SeedOption = None,
    sets: SetOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON record per row (table, id, metric, sim, kernel, rel_diff, sim_values, kernel_values) instead of the table.")] = False,
) -> None:
    """Run a scenario on the simulator and on the kernel (real TCP through the same queue code)
    and print the two side by side with relative differences. Root; the kernel runs take the
    scenario's duration each."""
    from .. import plan_types as pt
    from ..kernel.compare import SRTT_STEP, compare_results, comparison_json, print_comparison
    from ..kernel.paired import with_kernel_starts
    from ..kernel.plan import sim_matched
    from ..simulate import run as run_sim

    sc = _load(file, seed, sets)
    _preflight()
    base = sc.seed
    sims, kernels = [], []
    # The simulator samples its SRTT at the step the kernel reads tcpi_rtt (compare.SRTT_STEP),
    # unless the file or --set chose a step; sampling leaves the run as it is.
    own_step = pt.typed(sc).run.sample_ns is not None
    sim_sets = list(sets or []) + ([] if own_step else [f'run.sample="{SRTT_STEP}"'])
    # The kernel hosts' TCP small queues never see the engine's queues: nor do the simulator's.
    sim_sets += [f"{k}={str(v).lower()}" for k, v in sim_matched(sc).items()]
    for i in range(seeds):
        sci = _load(file, base + i, sets)
        with progress_line(sci.duration_s, quiet=as_json) as progress:
            kernels.append(run_kernel_cli(sci, progress))
        # Paired: the simulator's bulk flows start when the kernel's did (kernel/paired.py).
        scs = _load(file, base + i, sim_sets)
        paired = with_kernel_starts(scs.plan, kernels[-1].summary.get("flows", []))
        if paired is not None:
            scs.plan = paired
        # No bound on its cost: the kernel run it pairs with has already taken its real time.
        sims.append(run_sim(scs, max_wall_s=None))
    if as_json:
        sys.stdout.write(comparison_json(compare_results(sims, kernels)))
        return
    print_comparison(compare_results(sims, kernels), out_console, title=f"{file}: simulator vs kernel ({seeds} seed{'s' if seeds > 1 else ''})")
    for i, k in enumerate(kernels):  # a kernel run that ran late, or measured less than its window
        for w in k.summary.get("warnings", []):
            out_console.print(f"warning: kernel run {i + 1} (seed {base + i}): {w}", markup=False, style="bold")
