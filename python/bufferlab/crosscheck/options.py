"""Switches on the ns-3 side of a crosscheck, to measure one difference between the simulators at
a time (docs/ns3-differences.md has what each one accounts for).

By default the translation makes ns-3 run what bufferlab runs as closely as ns-3 allows (the
block's recovery, a one-packet device queue, ...). Each option below puts back one of ns-3's own
rules:

* ``recovery=prr`` or ``recovery=classic`` — ns-3's loss recovery for every flow, whatever the
  blocks say. By default a block with SACK and ``prr`` (bufferlab's default) gets ns-3's
  ``TcpPrrRecovery`` (RFC 6937), any other ``TcpClassicRecovery``, as bufferlab recovers.
* ``device_queue=N`` — N packets in the point-to-point device's queue under the queue disc
  (ns-3's default is 100) instead of one; the disc keeps the rest of the buffer, so a fixed
  limit still holds the same number of packets, but the N below are invisible to an AQM.
* ``cc.ATTR=VALUE`` — an attribute of the congestion control, e.g.
  ``cc.FlightSizeFromSequence=false`` (``bl::Rfc3465Reno``: ssthresh from ns-3's bytes in flight,
  its pipe, instead of SND.NXT − SND.UNA as bufferlab and RFC 5681 take it).
* ``socket.ATTR=VALUE`` — any attribute of ns-3's ``TcpSocketBase`` / ``TcpSocket`` on every
  TCP socket, e.g. ``socket.LimitedTransmit=true`` or ``socket.ReTxThreshold=3``.
* ``qdisc.ATTR=VALUE`` — any attribute of every queue disc that has it, e.g.
  ``qdisc.DropBatchSize=1`` (FQ-CoDel's drop batch when its limit is reached).
* ``default.TYPE::ATTR=VALUE`` — an ns-3 attribute default (``Config::SetDefault``) for objects
  ns-3 creates itself, e.g. ``default.ns3::CoDelQueueDisc::MinBytes=0`` for the CoDel of each
  FQ-CoDel flow queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Problem, ScenarioError

__all__ = ["Ns3Options", "parse_ns3_options"]

RECOVERIES = ("classic", "prr")


@dataclass(frozen=True)
class Ns3Options:
    recovery: str | None = None  # None: each block's own (PRR with SACK and prr, else classic)
    device_queue_pkts: int = 1
    socket: dict[str, str] = field(default_factory=dict)
    cc: dict[str, str] = field(default_factory=dict)
    qdisc: dict[str, str] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """The options that differ from the defaults, as ``--ns3`` takes them."""
        parts = []
        if self.recovery is not None:
            parts.append(f"recovery={self.recovery}")
        if self.device_queue_pkts != 1:
            parts.append(f"device_queue={self.device_queue_pkts}")
        parts += [f"cc.{k}={v}" for k, v in self.cc.items()]
        parts += [f"socket.{k}={v}" for k, v in self.socket.items()]
        parts += [f"qdisc.{k}={v}" for k, v in self.qdisc.items()]
        parts += [f"default.{k}={v}" for k, v in self.defaults.items()]
        return " ".join(parts)


def parse_ns3_options(items: list[str] | None) -> Ns3Options:
    """``KEY=VALUE`` strings (``--ns3``) as options; :class:`ScenarioError` naming a bad key."""
    recovery: str | None = None
    device_queue = 1
    socket: dict[str, str] = {}
    cc: dict[str, str] = {}
    qdisc: dict[str, str] = {}
    defaults: dict[str, str] = {}
    problems = []
    for item in items or []:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            problems.append(Problem(f"--ns3 {item}", "expected KEY=VALUE"))
        elif key == "recovery":
            if value not in RECOVERIES:
                problems.append(Problem("--ns3 recovery", f"one of {', '.join(RECOVERIES)}, not {value!r}"))
            recovery = value
        elif key == "device_queue":
            if not value.isdigit() or int(value) < 1:
                problems.append(Problem("--ns3 device_queue", f"a whole number of packets >= 1, not {value!r}"))
            else:
                device_queue = int(value)
        elif key.startswith("socket.") and len(key) > 7:
            socket[key[7:]] = value
        elif key.startswith("cc.") and len(key) > 3:
            cc[key[3:]] = value
        elif key.startswith("qdisc.") and len(key) > 6:
            qdisc[key[6:]] = value
        elif key.startswith("default.") and "::" in key[8:]:
            defaults[key[8:]] = value
        else:
            problems.append(Problem(f"--ns3 {key}", "unknown option: recovery, device_queue, cc.ATTR, socket.ATTR, qdisc.ATTR or default.TYPE::ATTR"))
    if problems:
        raise ScenarioError(problems)
    return Ns3Options(recovery, device_queue, socket, cc, qdisc, defaults)
