"""The ballast of Braud, Heusse, Duda (2013) as a tool a host runs: a stream of tiny UDP packets
that takes slots of an oversized packet-count uplink buffer, so the host's own upload keeps a
shorter queue. ``bufferlab ballast`` sends it; ``--auto`` lets the engine's controller
(``bufferlab._core.BallastController``, the same code the simulator's ``ballast`` traffic runs)
choose the rate from the host's TCP counters. See docs/ballast.md.
"""

from .sender import BallastOptions, BallastReport, run_ballast
from .tcpinfo import TcpSnapshot, parse_ss, snapshot

__all__ = ["BallastOptions", "BallastReport", "run_ballast", "TcpSnapshot", "parse_ss", "snapshot"]
