"""L4S: TCP Prague beside Cubic through DualPI2 and through a deep FIFO, two Prague flows of very
different RTTs, and Prague behind a hop that releases packets in bursts (RFC 9330, RFC 9332; De
Schepper, Bondarenko, Tsang & Briscoe, CoNEXT 2016; the L4S team's Prague evaluations).

The results carry no per-band sojourn of DualPI2, so the L and C queues are read from the flows:
the L queue from Prague's, the C queue from Cubic's (each flow sits in one queue). A flow's mean
queueing delay is its mean one-way delay less the path's propagation and serialization; its
median and 99th percentile are its RTT's less the base RTT (these also hold the receiver's
delayed-ACK wait, at most one segment's time at the flow's rate, so they bound the queue from
above). Where only Prague flows share the bottleneck (sweeps ``rtt`` with Prague and ``burst``),
the bottleneck queue is the L queue alone and its own sojourn is reported.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .claims import ClaimSpec, at_least, at_most, between, within
from .figures import errorbars, new_figure, over_seeds
from .item import Data, Item, Output, register, specs_dir
from .papers import L4S

BOTTLENECK = "r->d"
RATE_BPS = 50e6
HOPS_MS = 1.5  # one way beyond the access link: g -> r 0.5 ms, r -> d 1 ms
PKT_BYTES, ACK_BYTES = 1500, 52  # a full data segment with timestamps, a pure ACK
LINK_RATES_BPS = (1e9, 100e6, RATE_BPS)  # s -> g, g -> r, r -> d
FIFO_LIMIT_PKTS = 1000
PRAGUE_RTT_TARGET_MS = 25.0  # tcp_prague.c prague_rtt_target
PRAGUE_MAX_SCALED_RTT_MS = 100.0  # tcp_prague.c MAX_SCALED_RTT


def serialization_ms(nbytes: int) -> float:
    """One packet's serialization over the three hops of the path, in ms."""
    return sum(nbytes * 8 / r for r in LINK_RATES_BPS) * 1e3


def base_owd_ms(access_ms: float) -> float:
    """A data packet's one-way delay through empty queues: propagation and serialization."""
    return access_ms + HOPS_MS + serialization_ms(PKT_BYTES)


def base_rtt_ms(access_ms: float) -> float:
    """The round trip through empty queues: a data segment out, an ACK back."""
    return 2 * (access_ms + HOPS_MS) + serialization_ms(PKT_BYTES) + serialization_ms(ACK_BYTES)


def fifo_full_ms() -> float:
    """The delay of a full FIFO of 1000 packets at the bottleneck (240 ms at 50 Mb/s)."""
    return FIFO_LIMIT_PKTS * PKT_BYTES * 8 / RATE_BPS * 1e3


def to_ms(value: str) -> float:
    """A scenario time (``"8.5ms"``, ``"250us"``, ``"1s"``) in ms."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ns|us|µs|ms|s)\s*", str(value))
    if not m:
        raise ValueError(f"not a time: {value!r}")
    scale = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]
    return float(m.group(1)) * scale


def burst_ms(rate: str) -> float:
    """The burst period of the hop g -> r: 0 for a plain rate, N for ``trace(...burst-Nms.trace)``."""
    m = re.search(r"burst-([0-9.]+)ms\.trace", str(rate))
    return float(m.group(1)) if m else 0.0


def prague_effective_rtt_ms(rtt_ms: float, target_ms: float = PRAGUE_RTT_TARGET_MS,
                            max_scaled_ms: float = PRAGUE_MAX_SCALED_RTT_MS) -> float:
    """The RTT whose rate a Prague flow takes after its RTT transition (tcp_prague.c
    RTT_CONTROL_RATE): a flow below the target grows and reduces as a flow at the target does;
    from the target on (and past MAX_SCALED_RTT, where nothing is scaled) its own RTT."""
    return target_ms if rtt_ms < target_ms and rtt_ms <= max_scaled_ms else rtt_ms


def prague_rate_ratio(short_ms: float, long_ms: float) -> float:
    """The short-RTT flow's rate over the long one's, two Prague flows at one marking probability:
    a scalable window W = 2/p per effective RTT, so the rates go as 1 / effective RTT."""
    return prague_effective_rtt_ms(long_ms) / prague_effective_rtt_ms(short_ms)


def expand(sweep: dict) -> dict:
    """A link rate ``trace(NAME)`` names a trace file beside the spec: give its full path (a
    scenario given as a dict finds a relative file from the working directory)."""
    def fix(v):
        if isinstance(v, str) and v.startswith("trace(") and "/" not in v:
            return f"trace({specs_dir() / v[6:-1]})"
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v

    for table in ("grid", "set"):
        if table in sweep:
            sweep[table] = {k: fix(v) for k, v in sweep[table].items()}
    return sweep


def flow_delays(f: pd.DataFrame, access_col: str) -> pd.DataFrame:
    """Each flow's queueing delay in ms: ``q_mean`` (one-way), ``q_p50`` and ``q_p99`` (RTT less
    the base RTT); ``access_ms`` from the column holding the flow's access delay."""
    f = f.copy()
    f["access_ms"] = f[access_col].map(to_ms)
    f["q_mean"] = f["owd_mean_s"] * 1e3 - f["access_ms"].map(base_owd_ms)
    f["q_p50"] = f["rtt_p50_s"] * 1e3 - f["access_ms"].map(base_rtt_ms)
    f["q_p99"] = f["rtt_p99_s"] * 1e3 - f["access_ms"].map(base_rtt_ms)
    f["q_rtt_mean"] = f["rtt_mean_s"] * 1e3 - f["access_ms"].map(base_rtt_ms)
    return f


def _tcp(d: Data, sweep: str) -> pd.DataFrame:
    f = d.table(sweep, "flows")
    f = f[f["kind"] == "tcp"].copy()
    # s1's access delay is link[0]'s, s2's link[1]'s: the sweeps set both
    f["access"] = np.where(f["src"] == "s1", f.get("link[0].delay", "8.5ms"), f.get("link[1].delay", "8.5ms"))
    return f


def _bottleneck(d: Data, sweep: str, table: str) -> pd.DataFrame:
    t = d.table(sweep, table)
    return t[t["link"] == BOTTLENECK].copy()


def _base_delays(f: pd.DataFrame, sweep_set: dict[str, str]) -> pd.DataFrame:
    """Fill the access delay of sweeps that set it once (not swept) from the spec's values."""
    for src, key in (("s1", "link[0].delay"), ("s2", "link[1].delay")):
        if key in sweep_set:
            f.loc[f["src"] == src, "access"] = sweep_set[key]
    return f


def coexist_table(f: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """One row per run of the ``coexist`` sweep: the queue, the base RTT, Prague's and Cubic's
    goodput, share and queue delays, the bottleneck's utilization."""
    f = flow_delays(f, "access")
    keys = ["seed", "aqm", "rtt_ms"]
    f["aqm"] = f["link[3].queue.discipline"]
    f["rtt_ms"] = (2 * (f["access_ms"] + HOPS_MS)).round(1)
    cols = ["goodput_bps", "q_mean", "q_p50", "q_p99", "q_rtt_mean", "retransmits", "ce_received"]
    p = f[f["cc"] == "prague"].set_index(keys)[cols].add_prefix("prague_")
    c = f[f["cc"] == "cubic"].set_index(keys)[cols].add_prefix("cubic_")
    out = p.join(c, how="inner").reset_index()
    out["ratio"] = out["prague_goodput_bps"] / out["cubic_goodput_bps"]
    out["prague_share"] = out["prague_goodput_bps"] / (out["prague_goodput_bps"] + out["cubic_goodput_bps"])
    u = links.assign(aqm=links["link[3].queue.discipline"],
                     rtt_ms=(2 * (links["link[0].delay"].map(to_ms) + HOPS_MS)).round(1))
    return out.merge(u[keys + ["utilization"]], on=keys, how="left")


def _cc_column(f: pd.DataFrame) -> pd.Series:
    """The flow's algorithm: traffic[0] is s1's block, traffic[1] s2's."""
    cc = pd.Series("", index=f.index)
    for src, key in (("s1", "traffic[0].cc"), ("s2", "traffic[1].cc")):
        if key in f.columns:
            cc[f["src"] == src] = f.loc[f["src"] == src, key]
    return cc


def _by(df: pd.DataFrame, value: str, **where) -> dict[int, float]:
    for k, v in where.items():
        df = df[df[k] == v]
    return df.groupby("seed")[value].mean().to_dict()


def _vals(x: dict[int, float]) -> list[float] | None:
    v = [y for y in x.values() if y == y]
    return v or None


def _analyze(d: Data) -> Output:
    specs = {name: s.get("set", {}) for name, s in ITEM.sweeps(d.profile).items()}
    # --- Prague against Cubic
    f = _tcp(d, "coexist")
    f["cc"] = np.where(f["src"] == "s1", "prague", "cubic")
    co = coexist_table(f, _bottleneck(d, "coexist", "links"))
    # --- two flows at 10 and 160 ms
    r = _base_delays(_tcp(d, "rtt"), specs["rtt"])
    r["cc"] = _cc_column(r)
    r = flow_delays(r, "access")
    rg = r.pivot_table(index=["seed", "cc"], columns="src", values="goodput_bps").reset_index()
    rg["ratio"] = rg["s1"] / rg["s2"]
    rq = _bottleneck(d, "rtt", "queues")
    rq["cc"] = rq["traffic[0].cc"]
    short_ms = 2 * (to_ms(specs["rtt"]["link[0].delay"]) + HOPS_MS)
    long_ms = 2 * (to_ms(specs["rtt"]["link[1].delay"]) + HOPS_MS)
    design = prague_rate_ratio(short_ms, long_ms)
    # --- bursty arrivals: two Prague flows, the bottleneck queue is the L queue
    bq = _bottleneck(d, "burst", "queues")
    bq["burst_ms"] = bq["link[2].rate"].map(burst_ms)
    for c in ("sojourn_p50_s", "sojourn_p99_s", "sojourn_mean_s"):
        bq[c.replace("_s", "_ms").replace("sojourn_", "l_")] = bq[c] * 1e3
    bl = _bottleneck(d, "burst", "links")
    bl["burst_ms"] = bl["link[2].rate"].map(burst_ms)
    bq = bq.merge(bl[["seed", "burst_ms", "utilization"]], on=["seed", "burst_ms"], how="left")

    fig, ax = new_figure(2, 2)
    a, b, c, e = ax[0, 0], ax[0, 1], ax[1, 0], ax[1, 1]
    plotted = []
    for i, (aqm, mk) in enumerate((("dualpi2", "o"), ("fifo", "s"))):
        g = co[co["aqm"] == aqm]
        for j, (col, lab) in enumerate((("prague_q_p50", "Prague p50"), ("prague_q_p99", "Prague p99"),
                                         ("cubic_q_p50", "Cubic p50"), ("cubic_q_p99", "Cubic p99"))):
            agg = over_seeds(g, ["rtt_ms"], col)
            if len(agg):
                errorbars(a, agg, "rtt_ms", label=f"{aqm}: {lab}", color=f"C{j}", marker=mk,
                          ls="-" if aqm == "dualpi2" else "--")
                plotted.append(agg.assign(quantity=f"{aqm} {lab} queue delay (ms)"))
        agg = over_seeds(g, ["rtt_ms"], "ratio")
        if len(agg):
            errorbars(b, agg, "rtt_ms", label=f"Prague/Cubic, {aqm}", color=f"C{i}", marker=mk)
            plotted.append(agg.assign(quantity=f"{aqm} Prague/Cubic goodput ratio"))
    a.axhline(1.0, color="0.5", lw=0.8, ls=":")
    a.axhline(15.0, color="0.5", lw=0.8, ls=":")
    a.axhline(fifo_full_ms(), color="0.5", lw=0.8, ls=":")
    a.set(yscale="log", xlabel="base RTT (ms)", ylabel="queueing delay (ms)",
          title="Prague vs Cubic, 50 Mb/s: queue delay (RTT − base)")
    a.legend(fontsize=6)
    b.axhline(1.0, color="0.5", lw=0.8, ls=":")
    b.axhspan(0.5, 2.0, color="0.9")
    b.set(yscale="log", xlabel="base RTT (ms)", ylabel="goodput ratio", title="Prague / Cubic rate")
    b.legend(fontsize=7)
    for i, cc in enumerate(sorted(rg["cc"].unique())):
        agg = over_seeds(rg[rg["cc"] == cc].assign(x=i), ["x"], "ratio")
        errorbars(c, agg, "x", label=f"{cc}: measured", color=f"C{i}")
        plotted.append(agg.assign(quantity=f"{cc} 10 ms / 160 ms goodput ratio"))
    prague_color = f"C{sorted(rg['cc'].unique()).index('prague')}" if "prague" in set(rg["cc"]) else "C0"
    c.axhline(design, color=prague_color, lw=0.8, ls="--", label=f"Prague design ({design:.1f})")
    c.axhline(long_ms / short_ms, color="k", lw=0.8, ls=":", label=f"1/RTT ({long_ms / short_ms:.0f})")
    c.set(yscale="log", xlim=(-0.5, 1.5), xticks=range(rg["cc"].nunique()),
          xticklabels=sorted(rg["cc"].unique()), ylabel="rate ratio 10 ms / 160 ms",
          title="two flows through DualPI2, 10 and 160 ms")
    c.legend(fontsize=7)
    for j, (col, lab) in enumerate((("l_p50_ms", "L queue p50"), ("l_p99_ms", "L queue p99"),
                                     ("l_mean_ms", "L queue mean"))):
        agg = over_seeds(bq, ["burst_ms"], col)
        errorbars(e, agg, "burst_ms", label=lab, color=f"C{j}")
        plotted.append(agg.assign(quantity=f"{lab} sojourn (ms)"))
    e.axhline(1.0, color="0.5", lw=0.8, ls=":")
    e.set(xlabel="burst period of the upstream hop (ms; 0 = smooth)", ylabel="L queue sojourn (ms)",
          title="two Prague flows behind a bursty hop")
    e.legend(fontsize=7, loc="center left")
    u = over_seeds(bq, ["burst_ms"], "utilization")
    eu = e.twinx()
    errorbars(eu, u, "burst_ms", label="utilization (right)", color="k", ls="--")
    eu.set(ylabel="bottleneck utilization", ylim=(0, 1.05))
    eu.legend(fontsize=7, loc="center right")
    plotted.append(u.assign(quantity="bottleneck utilization behind the bursty hop"))
    fig.tight_layout()

    dp = co[co["aqm"] == "dualpi2"]
    ff = co[co["aqm"] == "fifo"]
    rtts = sorted(co["rtt_ms"].unique())
    lo_rtt, hi_rtt = (rtts[0], rtts[-1]) if rtts else (20.0, 80.0)
    fifo_min = ff.assign(m=ff[["prague_q_rtt_mean", "cubic_q_rtt_mean"]].min(axis=1)).groupby("seed")["m"].min()

    def burst_growth() -> list[float] | None:
        if bq["burst_ms"].nunique() < 2:
            return None
        top = bq["burst_ms"].max()
        hi, lo = _by(bq, "l_p99_ms", burst_ms=top), _by(bq, "l_p99_ms", burst_ms=0.0)
        return [hi[s] - lo[s] for s in sorted(set(hi) & set(lo))] or None

    def burst_util() -> list[float] | None:
        if bq["burst_ms"].nunique() < 2:
            return None
        top = bq["burst_ms"].max()
        hi, lo = _by(bq, "utilization", burst_ms=top), _by(bq, "utilization", burst_ms=0.0)
        return [hi[s] / lo[s] for s in sorted(set(hi) & set(lo)) if lo[s]] or None

    notes = {
        "L-p50": f"Prague's RTT median less the base RTT, DualPI2, {lo_rtt:g} ms",
        "L-p99": f"Prague's RTT p99 less the base RTT, DualPI2, {lo_rtt:g} ms",
        "C-delay": f"Cubic's mean one-way delay less the path's, DualPI2, {lo_rtt:g} ms",
        "util": "bottleneck utilization over the measured minute, DualPI2, every base RTT",
        "ratio-20": f"Prague's goodput over Cubic's, DualPI2, {lo_rtt:g} ms",
        "ratio-80": f"Prague's goodput over Cubic's, DualPI2, {hi_rtt:g} ms",
        "FIFO": "per seed the smaller of the two flows' mean RTT less the base RTT, at the RTT where it is smallest",
        "RTT-ratio": f"the {short_ms:g} ms Prague flow's goodput over the {long_ms:g} ms one's "
                     f"(design {design:.1f}; 1/RTT {long_ms / short_ms:.0f})",
        "burst": "the bottleneck's utilization with the burstiest hop over that with the smooth one",
        "burst-delay": "the bottleneck's (the L queue's) sojourn p99 with the burstiest hop less with the smooth one",
    }
    return Output(fig, pd.concat(plotted, ignore_index=True) if plotted else pd.DataFrame(), {
        "L-p50": _vals(_by(dp, "prague_q_p50", rtt_ms=lo_rtt)),
        "L-p99": _vals(_by(dp, "prague_q_p99", rtt_ms=lo_rtt)),
        "C-delay": _vals(_by(dp, "cubic_q_mean", rtt_ms=lo_rtt)),
        "util": _vals(_by(dp, "utilization")),
        "ratio-20": _vals(_by(dp, "ratio", rtt_ms=lo_rtt)),
        "ratio-80": _vals(_by(dp, "ratio", rtt_ms=hi_rtt)) if hi_rtt != lo_rtt else None,
        "FIFO": [float(x) for x in fifo_min] or None,
        "RTT-ratio": _vals(_by(rg, "ratio", cc="prague")),
        "burst": burst_util(),
        "burst-delay": burst_growth(),
    }, notes=notes)


DISCUSSION = """\
Through DualPI2 the queues separate as RFC 9332 intends (full profile, ten seeds, 120–180 s):
beside Cubic at 20 ms Prague's queueing delay is 0.17 ms on average (one-way), 0.52 ms at the
median and 0.78 ms at the 99th percentile of its RTT less the base RTT (both quantized by the
engine's RTT histogram, bins of about 1.2%, 0.26 ms at 20 ms; they include the delayed-ACK wait),
while Cubic's is 14.4 ms on average, 15.6 ms at the median and 23.5 ms at the 99th (at 80 ms:
Prague 0.16 / 0.62 / 0.62 ms, Cubic 11.9 / 14.9 / 20.0 ms). The link is used at 99.99% (20 ms)
and 99.51% (80 ms). Prague is never dropped (no retransmission), Cubic loses 0.09% of its
packets. With only Prague flows the bottleneck's own sojourn is the L queue's: 0.68 ms at the
median and 1.09 ms at the 99th percentile (10 and 160 ms flows), 0.18 and 1.45 ms (two 20 ms flows).

The rates are not balanced as the coupling intends: Prague takes 2.38 times Cubic's goodput at 20 ms
and 1.94 times at 80 ms (95% interval 1.72–2.16 over the ten seeds; 2.03 before the receivers
measured their quick-ACK gap against their own handshake timeout, 2026-11-27). Cubic
behaves as the coupling assumes: at 20 ms it loses p_C = 0.086% and holds 43.8 segments in flight
where Reno's 1.22/√p_C gives 41.7. Prague is marked on p_L = 4.8% of its packets, close to
k·√p_C = 5.9% (the mean of p' is below the root of the mean of p'²), but holds 61.2 segments where
the scalable law W = 2/p_L gives 41.9 (1.46 times; at 80 ms 224 segments at p_L = 1.57%,
W·p_L = 3.5, 1.75 times). With a window at its law and Prague's 25 ms RTT target, window fairness
(k = 2) would give a ratio of about 1.2 at 20 ms (Cubic's RTT includes the C queue's 15 ms) and
about 0.95 at 80 ms. The excess is Prague's window over its own law in these runs; the module's
unit test (a steady 10% of segments marked in every round) meets 2/p, so the gap comes from how
marks reach the reduction in a real flow. The swing of p' alone does not do it: sampled every
10 ms (the time series' `base_prob`, seeds 1–3 over the measured minute) p' follows Cubic's
sawtooth with a coefficient of variation of 0.62–0.68 at 20 ms (0 in 4–5% of the samples) and
1.07–1.18 at 80 ms (0 in 22–24%), but a fluid window driven by that p'(t), dW/dt = (1 − W·k·p'(t)/2)
/ RTT with the flow's own smoothed RTT, averages 43–44 segments at 20 ms (law 41–43) and 134–144
at 80 ms (law 119–130), where Prague holds 62–63 and 203–228. What the fluid window lacks is that
Prague cuts only when TCP enters its CWR state, at most once a window, and skips the rounds in
between. Traced in seed 1 (Prague's cuts and α logged): at 80 ms the flow cuts in 6.8 of its 12.4
rounds a second (55%), the gaps between cuts 95 ms at the median (1.17 round trips) but 138 ms at
the 75th percentile and 239 ms at the 90th, since the marks come in clusters while p' is above
0; α, an EWMA over every round, averages the marked share (0.0150 against 0.0149), so each cut is
sized for a mark rate it is applied in only half the rounds, and the window settles about 1.8
times above 2/p_L. At 20 ms Prague is RTT-independent (after 500 rounds, below its 25 ms target):
it grows by (21/25)² = 0.69 segments a round and declines a cut within 25 ms of the last, while
TCP's CWR state, entered all the same, holds off the next mark for a window. TCP enters CWR 31.3
times a second, Prague cuts in 21.7 (of 47.5 rounds: 46%, 44 ms apart at the median), α again
equals the marked share (0.0474 against 0.0477), and growth (47.5 × 0.69 × 0.95 = 31 segments a
second) balances the cuts (21.7 × 63 × 0.047 / 2 = 32) at 1.5 times the law. Linux's `tcp_prague`
is built the same way: its cut (`prague_enter_cwr`) runs on TCP's entry into CWR
(`.set_state`), returns without cutting within the target RTT of the last cut, and the state
stays for the window; so the excess is the implementation's. The same imbalance is what the real stack showed
when it was measured: Heist & Morton (l4s-tests, 'Network Bias', Fig. 1: Linux's DualPI2 and TCP
Prague, one flow each, 20 ms, 50 Mb/s, the last minute of three, as the full profile) found Prague ahead of
Cubic 'in more than a 2:1 ratio', also at 10 and 80 ms. So ratio-20 fails, and ratio-80 sits at the
edge (1.94 against a bound of 2, its interval across it), on RFC 9332's design intent (k = 2 for about equal rates),
which the implementation it describes also missed, not on a mechanism the model leaves out:
Prague's window over 2/p_L (1.46 times at 20 ms, 1.75 at 80) is its once-a-window cut, traced
above.

Through a 1000-packet FIFO Prague gets no marks, falls back to its loss response (23 and 30
retransmissions per minute at 20 and 80 ms) and both flows see the FIFO's delay: RTTs inflated
by 217 / 212 ms (Prague / Cubic, mean) at 20 ms and 195 / 191 ms at 80 ms, against the 240 ms of
a full FIFO. There Cubic takes the link: Prague gets 3.5 Mb/s at 20 ms (a share of 0.07).

Prague against Prague at 10 and 160 ms shares the link in a ratio of 5.55 [4.85, 6.25], in two
modes over seeds (4.94–4.97 in seven, 6.94–6.97 in three; 6.88 in every seed before a GSO buffer
was paced as one skb, 2026-11-27), against 6.4 from its design (the 10 ms flow behaves as a 25 ms one after its 500-round
transition; the 160 ms flow is above the target and unscaled) and 16 from 1/RTT. NewReno in the
same runs (the C queue) gives 9.0 (from 7.0 to 13.2 over seeds), not 16 either: the C queue's
delay adds to both RTTs (23 and 175 ms measured, a ratio of 7.6).

The stack is the Linux of the experiments, before 6.6: its receivers delay the ACK of a pushed
segment like any other. With Linux 6.6's ACK of a pushed segment alone (`push_ack`, bufferlab's
default since 2026-11-27) the 10 ms Prague flow's share grows to 11.1 times the 160 ms one's
(RTT-ratio, against [4.3, 9.6]) and the burst row's utilization ratio falls to 0.332 (against
at least 1/3): the more frequent ACKs of the scalable flows change how their windows grow, which
these items do not trace further.

Bursty arrivals do not raise the L queue's delay; they cost throughput. With the upstream hop
releasing packets every 4 ms the L queue's sojourn is 0.48 ms at the median (0.18 ms smooth) and
1.44 ms at the 99th percentile (1.45 ms smooth), but the link is used at 34.6% (98.3% smooth): a
burst larger than about four packets (1 ms at 50 Mb/s) is step-marked at its tail, and Prague cuts
its window until each 4 ms burst carries about five packets (16.7 Mb/s for both flows). The delay
of the aggregation is held upstream, in the hop's own queue (2.1 ms mean, 3.9 ms p99), outside the
L queue. Bursts every 1 ms (about four packets each at this rate) cost nothing (99.1%). This is
what Heist & Morton report (l4s-tests, 'Burst Intolerance', bursts of about 4 ms from netem):
Prague through DualPI2 keeps its low RTT at the cost of 'about a 50% reduction in link
utilization' (the burst row; ours keeps 0.35 of the smooth hop's utilization, a 65% reduction),
and the L queue's delay does not grow (the burst-delay row). The burst row used to ask the
opposite (the L queue's p99 up by at least 2 ms), which neither source says: the 1 ms step
bounds the L queue's sojourn and turns burstiness into marks. This is the step of Linux's
default (`step_thresh 1ms`, `min_qlen_step 0`, as `tc` shows it); a step in packets or a
`min_qlen_step`, which let bursts through, are the queue's `step_thresh_packets` and
`min_qlen_step` keys (docs/qdisc-dualpi2.md), left at Linux's defaults here.
"""

ITEM = register(Item(
    name="l4s/dualpi2",
    misses={
        "ratio-20": (
            "Prague cuts only on TCP's entry into CWR, once a window, and at 20 ms (RTT-independent) "
            "declines a cut within 25 ms of the last while CWR still holds off the next mark: it cuts "
            "in 46% of rounds with α equal to the marked share, so its window settles 1.5 times above "
            "2/p_L; Linux's tcp_prague is built the same way, and measured above 2:1 too."),
        "ratio-80": (
            "at 80 ms Prague cuts only on TCP's entry into CWR, once a window, in 55% of rounds, as "
            "marks come in clusters while p' follows Cubic's sawtooth (p' = 0 in 22–24% of 10 ms "
            "samples); α equals the marked share, so its window settles about 1.8 times above 2/p_L "
            "(224 segments at p_L = 1.57%); Heist & Morton measured more than 2:1 on Linux at 80 ms too."),
    },
    paper=L4S,
    where="RFC 9332 §2.1, §2.5.2.1, Appendix A; RFC 9330 §1, §4; De Schepper et al. 2016 §5",
    title="TCP Prague against Cubic through DualPI2 and through a 1000-packet FIFO (50 Mb/s, 20 and 80 ms), "
          "two Prague flows at 10 and 160 ms, and Prague behind an upstream hop that releases packets in bursts",
    spec="l4s-dualpi2.toml",
    analyze=_analyze,
    expand=expand,
    claims=[
        ClaimSpec("L-p50", "RFC 9330 §1; RFC 9332 Appendix A (1 ms step)", "the L queue's delay stays at or below "
                  "about 1 ms at the median (≤ 1 ms)", at_most(1.0), "ms"),
        ClaimSpec("L-p99", "RFC 9330 §1; De Schepper et al. 2016 §5", "the L queue's 99th percentile is a few "
                  "ms (≤ 5 ms; a flow in the C queue would see ~15 ms)", at_most(5.0), "ms"),
        ClaimSpec("C-delay", "RFC 9332 §2.1, Appendix A (target 15 ms)", "the C queue sits near the PI target "
                  "(15 ± 5 ms)", within(15.0, abs_=5.0), "ms"),
        ClaimSpec("util", "RFC 9332 §1; De Schepper et al. 2016 §5", "the link stays fully used (> 95%)",
                  at_least(0.95), "fraction"),
        ClaimSpec("ratio-20", "RFC 9332 §2.1, §2.5.2.1 (k = 2: about equal rates at equal RTTs)",
                  "Prague and Cubic get roughly equal rates at 20 ms (ratio within a factor of 2 of 1)",
                  between(0.5, 2.0), "ratio"),
        ClaimSpec("ratio-80", "RFC 9332 §2.5.2.1", "and at 80 ms (within a factor of 2 of 1)",
                  between(0.5, 2.0), "ratio"),
        ClaimSpec("FIFO", "RFC 9330 §4 (classic fallback); RFC 9331 §4.3", "through a 1000-packet FIFO "
                  "without ECN, Prague falls back to its loss response and both flows see the full FIFO: "
                  "RTT inflated by ~200 ms or more (≥ 180 ms, 3/4 of the 240 ms a full FIFO holds)",
                  at_least(180.0), "ms"),
        ClaimSpec("RTT-ratio", "RFC 9331 §4.3 (reduced RTT dependence); tcp_prague.c (rtt target 25 ms)",
                  "Prague at 10 vs 160 ms: the rate ratio is far below 1/RTT's 16; the design gives 160/25 = 6.4 "
                  "(within a factor of 1.5: [4.3, 9.6])", between(6.4 / 1.5, 6.4 * 1.5), "ratio"),
        ClaimSpec("burst", "Heist & Morton, l4s-tests, 'Burst Intolerance' (Figs. 14–15); RFC 9330 §6.3",
                  "DualPI2's shallow step marks bursty arrivals (bursts of about 4 ms): Prague keeps its low RTT "
                  "at the cost of 'about a 50% reduction in link utilization' (utilization with the 4 ms bursts / "
                  "with the smooth hop; about = within a factor of 1.5 of 0.5)", between(0.5 / 1.5, 0.5 * 1.5),
                  "ratio"),
        ClaimSpec("burst-delay", "Heist & Morton, l4s-tests, 'Burst Intolerance'",
                  "…while the L queue's delay stays low: its sojourn p99 with the 4 ms bursts is within the 1 ms "
                  "step threshold of the smooth hop's", between(-1.0, 1.0), "ms"),
    ],
    discussion=DISCUSSION,
    assumptions=[
        "one 50 Mb/s bottleneck (r → d, 1 ms) fed by a 100 Mb/s hop (g → r, 0.5 ms) that two 1 Gb/s access links "
        "reach; the access delays set each flow's base RTT; the reverse path is uncongested",
        "DualPI2 as bufferlab models it (docs/qdisc-dualpi2.md: Linux's defaults, 15 ms target, 1 ms step, k = 2, "
        "WRR scheduler, a 1000-packet limit over both queues, which it never reaches here); the FIFO holds 1000 "
        "packets",
        "TCP Prague as bufferlab models it (docs/cc-prague.md: AccECN, RTT target 25 ms, 500-round transition); "
        "Cubic and NewReno without ECN; SACK, RACK and delayed ACKs",
        "every flow starts at uniform(0 s, 1 s); measured over the last minute of three (quick profile: 30–60 s "
        "of 60 s)",
        "no per-queue sojourn is reported by the engine: a flow's queueing delay is its RTT less the base RTT "
        "(median, p99; these include the delayed-ACK wait) or its one-way delay less the path's (mean); with only "
        "Prague flows the bottleneck's sojourn is the L queue's",
        "bursty arrivals: no Wi-Fi-like aggregating hop exists in the engine; the hop g → r is a Mahimahi-style "
        "trace link (docs/links-trace.md) releasing 9 packets every 1 ms (108 Mb/s) or 34 every 4 ms (102 Mb/s), "
        "so the bottleneck receives the flows' data in bursts",
    ],
))
