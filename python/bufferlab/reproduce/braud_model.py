"""Braud, Heusse & Duda (2014), §II: how a stream of small UDP packets shortens the queue TCP sees.

A buffer limited to a number of packets holds fewer bytes when some of its slots hold small
packets. Over one interval Δt in congestion avoidance (R_T constant over an RTT), the queue
grows by eq. 1 with TCP alone and by eq. 2 with TCP and UDP; with D_U ≪ D_T the ratio is eq. 5,
so the buffer overflows α times sooner and TCP's window (hence the queueing delay) stops α times
lower. Eq. 6 gives the UDP rate for a wanted α, eq. 7 its share of the capacity. Eqs. 1-4 are
written here (the engine needs only 5-7); 5-7 call the engine's.

Symbols as in the paper: rates R in packets per second, sizes S in bytes, D = R·S in bytes per
second, C_u the uplink capacity in bytes per second (the paper writes C_u/S for a packet rate).
"""

from __future__ import annotations

from .. import _core


def tcp_packet_rate(c_u: float, s_t: float) -> float:
    """R_T ≈ C_u / S_T: TCP's segment departure rate on a busy uplink (§II-D, after eq. 6)."""
    return c_u / s_t


def queue_growth_tcp(r_t: float, c_u: float, s_t: float, dt: float) -> float:
    """Eq. 1: ΔQ_T = R_T Δt − (C_u / S_T) Δt, in packets."""
    return r_t * dt - c_u / s_t * dt


def mean_packet_size(r_t: float, s_t: float, r_u: float, s_u: float) -> float:
    """Eq. 3: S = (R_U S_U + R_T S_T) / (R_U + R_T)."""
    return (r_u * s_u + r_t * s_t) / (r_u + r_t)


def queue_growth_tcp_udp(r_t: float, s_t: float, r_u: float, s_u: float, c_u: float, dt: float) -> float:
    """Eq. 2: ΔQ_{T,U} = (R_T + R_U) Δt − (C_u / S) Δt, S from eq. 3 (no approximation)."""
    return (r_t + r_u) * dt - c_u / mean_packet_size(r_t, s_t, r_u, s_u) * dt


def queue_growth_tcp_udp_approx(r_t: float, s_t: float, r_u: float, c_u: float, dt: float) -> float:
    """Eq. 4: with D_U ≪ D_T, S ≈ D_T / (R_U + R_T) and ΔQ_{T,U} = (R_U + R_T) Δt (1 − C_u / D_T)."""
    d_t = r_t * s_t
    return (r_u + r_t) * dt * (1 - c_u / d_t)


# Eqs. 5-7 are the engine's (crates/bufferlab-core/src/ballast/model.rs, which the ballast
# controller uses): one copy of each equation, reached through the extension.


def alpha(r_t: float, r_u: float) -> float:
    """Eq. 5: α = ΔQ_{T,U} / ΔQ_T = (R_U + R_T) / R_T, the factor the queueing delay is divided by."""
    return _core.ballast_reduction_for_rate(r_t, r_u)


def udp_rate_for(alpha_: float, r_t: float) -> float:
    """Eq. 6: R_U = R_T (α − 1), the UDP packet rate that divides the queueing delay by α (0 for α ≤ 1)."""
    return _core.ballast_rate_for_reduction(r_t, alpha_)


def udp_overhead(alpha_: float, s_t: float, s_u: float) -> float:
    """Eq. 7: OH_U = 1 / (1 + (S_T / S_U) / (α − 1)), the UDP stream's share of the capacity."""
    return _core.ballast_overhead_share(alpha_, s_t, s_u)


def drain_time(packets: float, size_bytes: float, rate_bps: float) -> float:
    """Seconds to send ``packets`` of ``size_bytes`` at ``rate_bps`` (§I's 50 packets at 400 kb/s)."""
    return packets * size_bytes * 8 / rate_bps
