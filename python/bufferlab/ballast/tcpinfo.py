"""What a host can see of its own TCP connections: ``ss -tin`` (iproute2), which reads the
kernel's ``tcp_info`` of every socket through the sock_diag netlink interface.

The ballast controller needs, summed over the host's connections, the data segments and bytes
sent so far (``data_segs_out``, ``bytes_sent``), and for the busiest connection its smoothed and
minimum RTT (``rtt:SRTT/RTTVAR``, ``minrtt``, in milliseconds).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field

_FIELD = re.compile(r"(?<![\w-])(data_segs_out|bytes_sent|minrtt|rtt):([0-9.]+)")
# "[State] Recv-Q Send-Q Local Peer" (the state column is absent under a state filter).
_ADDR = re.compile(r"^(?:[A-Z][A-Za-z0-9-]*\s+)?\d+\s+\d+\s+(\S+)\s+(\S+)")


@dataclass
class Connection:
    local: str
    peer: str
    data_segs_out: int = 0
    bytes_sent: int = 0
    srtt_ns: int | None = None
    min_rtt_ns: int | None = None


@dataclass
class TcpSnapshot:
    connections: dict[tuple[str, str], Connection] = field(default_factory=dict)

    @property
    def data_segs_out(self) -> int:
        return sum(c.data_segs_out for c in self.connections.values())

    @property
    def bytes_sent(self) -> int:
        return sum(c.bytes_sent for c in self.connections.values())

    def busiest_since(self, before: "TcpSnapshot | None") -> Connection | None:
        """The connection that sent the most data segments since ``before``."""
        best, best_delta = None, 0
        for key, c in self.connections.items():
            prev = before.connections.get(key) if before else None
            delta = c.data_segs_out - (prev.data_segs_out if prev else 0)
            if delta > best_delta:
                best, best_delta = c, delta
        return best


def _ms_to_ns(text: str) -> int:
    return round(float(text) * 1e6)


def parse_ss(text: str, *, skip_loopback: bool = True) -> TcpSnapshot:
    """Parse ``ss -tinH state connected``: a line with the addresses, then an indented line of
    ``tcp_info`` fields."""
    snap = TcpSnapshot()
    current: Connection | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            m = _ADDR.match(line)
            current = Connection(m.group(1), m.group(2)) if m else None
            if current and skip_loopback and _is_loopback(current.peer):
                current = None
            continue
        if current is None:
            continue
        for name, value in _FIELD.findall(line):
            if name == "data_segs_out":
                current.data_segs_out = int(value)
            elif name == "bytes_sent":
                current.bytes_sent = int(value)
            elif name == "rtt":
                current.srtt_ns = _ms_to_ns(value)
            elif name == "minrtt":
                current.min_rtt_ns = _ms_to_ns(value)
        snap.connections[(current.local, current.peer)] = current
        current = None
    return snap


def _is_loopback(addr: str) -> bool:
    host = addr.rsplit(":", 1)[0].strip("[]")
    return host.startswith("127.") or host in ("::1", "::ffff:127.0.0.1") or host.startswith("::ffff:127.")


def snapshot(*, skip_loopback: bool = True) -> TcpSnapshot:
    """The host's TCP connections now (needs iproute2's ``ss``): every state but listening and
    closed, so an upload whose program has written its last bytes and closed (FIN-WAIT-1, its
    data still in flight) still counts until the data is acknowledged."""
    ss = shutil.which("ss")
    if ss is None:
        raise RuntimeError("`ss` (iproute2) is not installed: --auto reads TCP counters with it")
    out = subprocess.run([ss, "-tinH", "state", "connected"], capture_output=True, text=True, check=True, timeout=5)
    return parse_ss(out.stdout, skip_loopback=skip_loopback)
