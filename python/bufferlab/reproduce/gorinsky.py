"""Gorinsky, Kantawala & Turner (2005): link buffer sizing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .claims import ClaimSpec, at_least, at_most, between
from .figures import errorbars, new_figure, over_seeds, ratio_by_seed
from ..scenario import TCP_KINDS
from .item import Data, Item, Output, register
from .papers import GORINSKY

BOTTLENECK = "r1->r2"


def _util(d: Data, sweep: str) -> pd.DataFrame:
    lk = d.table(sweep, "links")
    lk = lk[lk["link"] == BOTTLENECK].copy()
    lk["util_pct"] = lk["utilization"] * 100
    return lk


def _analyze_beta(d: Data) -> Output:
    m = _util(d, "minimal")
    b = _util(d, "bdp")
    agg = over_seeds(m, ["traffic[0].beta"], "util_pct").rename(columns={"traffic[0].beta": "beta"})
    agg["buffer"] = "2 packets"
    ab = over_seeds(b.assign(beta=0.5), ["beta"], "util_pct")
    ab["buffer"] = "BDP"
    plotted = pd.concat([agg, ab], ignore_index=True)
    fig, ax = new_figure()
    labels = ["β = 0.5, 2 pkts", "β = 0.875, 2 pkts", "β = 0.5, BDP"]
    xs = np.arange(3)
    ax[0, 0].bar(xs - 0.2, plotted["mean"], 0.4, yerr=(plotted["mean"] - plotted["lo"]).fillna(0), capsize=3,
                 label="bufferlab (mean, 95% CI)")
    ax[0, 0].bar(xs + 0.2, [75, 94, 100], 0.4, color="C7", label="paper (lower bound)")
    ax[0, 0].set_xticks(xs, labels, fontsize=8)
    ax[0, 0].set(ylabel="bottleneck utilization (%)", ylim=(0, 105), title="§5: AIMD β with a minimal buffer")
    ax[0, 0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return Output(fig, plotted, {
        "beta-0.5": list(m[m["traffic[0].beta"] == 0.5]["util_pct"]) or None,
        "beta-0.875": list(m[m["traffic[0].beta"] == 0.875]["util_pct"]) or None,
        "beta-bdp": list(b["util_pct"]) or None,
    })


register(Item(
    name="gorinsky/beta",
    paper=GORINSKY,
    where="§5",
    title="One NewReno flow, 10 Mb/s × 50 ms: utilization with a 2-packet buffer for β = 0.5 and 0.875, "
          "and with a BDP buffer",
    spec="gorinsky-beta.toml",
    analyze=_analyze_beta,
    claims=[
        ClaimSpec("beta-0.5", "§5", "with the minimal buffer NewReno keeps at least 75% utilization", at_least(75), "%"),
        ClaimSpec("beta-0.875", "§5", "β = 0.875 boosts utilization to at least 94%", at_least(94), "%"),
        ClaimSpec("beta-bdp", "§3.1", "a bitrate-delay product of buffer keeps the link fully used", at_least(99), "%"),
    ],
    assumptions=["the minimal buffer is the 2L rule for one input link: 2 packets",
                 "utilization over 20 s to the end of the run", "the flow starts at uniform(0 s, 1 s)"],
))


# ---------------------------------------------------------------- Figs. 2-3

RATES = {"r1": 1e6, "r10": 10e6, "r100": 100e6}
RTTP = 2 * (2 * 0.5e-3 + 50e-3)  # 102 ms


def bdp_pkts(rate: float) -> float:
    return rate * RTTP / (1500 * 8)


PAYLOAD = 1460 / 1500  # §3.1's 1500 B datagrams carry 1460 B of TCP payload (goodput is payload)
MAX_RULE = "max(bdp, connection-proportional)"


def _per_buffer(d: Data) -> pd.DataFrame:
    """Per rate, cc, N, seed and buffer: end-to-end goodput (harmonic mean over the flows), the
    flows' mean goodput, RTT and loss rate."""
    out = []
    for sweep, rate in RATES.items():
        if sweep not in d.sweeps:
            continue
        f = d.table(sweep, "flows")
        f = f[f["kind"] == "tcp"].copy()
        f["buffer"] = f["topology.bottleneck.queue.limit"].str.removesuffix("pkt").astype(int)
        # §3.1: a transfer's goodput is file size / delivery time, so N equal files delivered in a
        # mean time T have goodput size / T: the harmonic mean of the flows' goodputs.
        f["inv"] = 1.0 / f["goodput_bps"].clip(lower=1.0)
        g = f.groupby(["traffic[0].cc", "topology.pairs", "seed", "buffer"]).agg(
            inv=("inv", "mean"), mean_goodput=("goodput_bps", "mean"), rtt=("rtt_mean_s", "mean"),
            loss=("loss_rate", "mean")).reset_index()
        g["goodput"] = 1.0 / g["inv"]
        lk = d.table(sweep, "links")
        lk = lk[lk["link"] == BOTTLENECK].copy()
        lk["buffer"] = lk["topology.bottleneck.queue.limit"].str.removesuffix("pkt").astype(int)
        g = g.merge(lk[["traffic[0].cc", "topology.pairs", "seed", "buffer", "utilization"]],
                    on=["traffic[0].cc", "topology.pairs", "seed", "buffer"], how="left")
        out.append(g.rename(columns={"traffic[0].cc": "cc", "topology.pairs": "n"}).assign(rate=rate))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def sawtooth_rtt(rate: float, buffer_pkts: float) -> float:
    """§4.2's arithmetic for the mean RTT of an AIMD load with a buffer of b BDPs, whose load
    oscillates between (1 + b)/2 and 1 + b BDPs with the time spread evenly over the range: for
    b >= 1 the queue runs from (b - 1)/2 to b BDPs, a mean of (3b - 1)/4 (b = 1: 0.5, the paper's
    1.5 D); for b < 1 it is empty while the load is under one BDP, a mean of b²/(1 + b). Plus the
    empty path's RTT: RTTP and one 1500 B datagram's transmission on each of the three links
    (the access links at twice the rate)."""
    b = buffer_pkts / bdp_pkts(rate)
    q = (3 * b - 1) / 4 if b >= 1 else b * b / (1 + b)
    return RTTP * (1 + q) + 2 * 1500 * 8 / rate


def _best_buffers(d: Data, g: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per rate, cc, N and seed: the smallest buffer whose end-to-end goodput (harmonic mean over the
    flows) is within 1% of the best over the buffers tried, with the loss rate and RTT there."""
    g = _per_buffer(d) if g is None else g
    rows = []
    for (rate, cc, n, seed), h in g.groupby(["rate", "cc", "n", "seed"]) if len(g) else []:
        h = h.sort_values("buffer")
        best = h[h["goodput"] >= 0.99 * h["goodput"].max()].iloc[0]
        at_sqrt = h.iloc[(h["buffer"] - bdp_pkts(rate) / math.sqrt(n)).abs().argmin()]
        share = PAYLOAD * rate / n
        rows.append({"rate_mbps": rate / 1e6, "cc": cc, "n": int(n), "seed": seed,
                     "best_pkts": float(best["buffer"]), "goodput_kbps": best["goodput"] / 1e3,
                     "rtt_s": best["rtt"], "loss": best["loss"],
                     "share_frac": best["goodput"] / share, "util": best["utilization"],
                     "rtt_model": best["rtt"] / sawtooth_rtt(rate, best["buffer"]),
                     "sqrt_goodput_frac": at_sqrt["goodput"] / h["goodput"].max(),
                     "max_tried": float(h["buffer"].max()), "min_tried": float(h["buffer"].min())})
    return pd.DataFrame(rows)


def _rule(d: Data, g: pd.DataFrame) -> pd.DataFrame:
    """§3.2's reconciling rule, max(BDP, connection-proportional), run as a buffer of its own per
    rate, N and seed: its end-to-end goodput against the best of the buffers tried, the best of
    their goodputs averaged over seeds (the best of each seed's own would be the largest of eight
    noisy draws, which one draw at the rule's buffer falls short of by construction)."""
    sweeps = [s for s in ("rule1", "rule") if s in d.sweeps]  # 1 Mb/s; 10 and 100 Mb/s
    if not sweeps or not len(g):
        return pd.DataFrame()

    def table(name: str) -> pd.DataFrame:
        t = pd.concat([d.table(s, name) for s in sweeps], ignore_index=True)
        if "rule1" in sweeps:  # rule1 sets its rate instead of sweeping it
            key = "topology.bottleneck.rate"
            t[key] = t[key].fillna("1Mbps") if key in t.columns else "1Mbps"
        return t

    f = table("flows")
    f = f[f["kind"] == "tcp"].copy()
    f["inv"] = 1.0 / f["goodput_bps"].clip(lower=1.0)
    r = f.groupby(["topology.bottleneck.rate", "topology.pairs", "seed"])["inv"].mean().reset_index()
    q = table("queues")
    q = q[q["link"] == BOTTLENECK][["topology.bottleneck.rate", "topology.pairs", "seed", "limit_pkts"]]
    r = r.merge(q, on=["topology.bottleneck.rate", "topology.pairs", "seed"])
    r["rate_mbps"] = r["topology.bottleneck.rate"].str.removesuffix("Mbps").astype(float)
    r["n"] = r["topology.pairs"].astype(int)
    r["rule_goodput"] = 1.0 / r["inv"]
    curve = (g[g["cc"] == "newreno"].groupby(["rate", "n", "buffer"])["goodput"].mean().reset_index()
             .sort_values("goodput").groupby(["rate", "n"]).tail(1))
    best = pd.DataFrame({"rate_mbps": curve["rate"] / 1e6, "n": curve["n"].astype(int),
                         "best_pkts": curve["buffer"], "best_goodput": curve["goodput"]})
    r = r.merge(best, on=["rate_mbps", "n"])
    r["rule_frac"] = r["rule_goodput"] / r["best_goodput"]
    return r[["rate_mbps", "n", "seed", "limit_pkts", "best_pkts", "rule_goodput", "best_goodput", "rule_frac"]]


def _jain(x: pd.Series) -> float:
    """Jain's fairness index: 1 when every flow gets the same, 1/n when one gets all."""
    return float(x.sum() ** 2 / (len(x) * (x ** 2).sum())) if len(x) and (x ** 2).sum() > 0 else math.nan


def _per_flow(d: Data, sweep: str, rate: float, ax_jain, ax_start, ax_rank) -> list[pd.DataFrame]:
    """Vegas against NewReno flow by flow at the largest N of ``sweep``: Jain's index of the
    goodputs against the buffer; each Vegas flow's goodput (in fair shares) against its start
    time, and sorted, at the smallest, BDP-nearest and largest buffers."""
    if sweep not in d.sweeps:
        return []
    f = d.table(sweep, "flows")
    f = f[f["kind"] == "tcp"].copy()
    n = int(f["topology.pairs"].max())
    f = f[f["topology.pairs"] == n]
    f["buffer"] = f["topology.bottleneck.queue.limit"].str.removesuffix("pkt").astype(int)
    f["share"] = f["goodput_bps"] / (rate / n)
    out = []
    for cc, colour in (("newreno", "C3"), ("vegas", "C0")):
        if not (f["traffic[0].cc"] == cc).any():
            continue
        j = (f[f["traffic[0].cc"] == cc].groupby(["buffer", "seed"])["share"].apply(_jain)
             .rename("jain").reset_index())
        agg = over_seeds(j, ["buffer"], "jain")
        errorbars(ax_jain, agg, "buffer", label=f"{'NewReno' if cc == 'newreno' else 'Vegas'}", color=colour)
        out.append(agg.assign(rate_mbps=rate / 1e6, cc=cc, quantity=f"Jain's index of goodputs, N = {n}"))
    from matplotlib.ticker import NullFormatter

    ax_jain.axvline(bdp_pkts(rate), color="k", lw=0.8, ls=":")
    ax_jain.xaxis.set_minor_formatter(NullFormatter())
    ax_jain.set(xscale="log", ylim=(0, 1.05), xlabel="buffer (packets; dotted: BDP)", ylabel="Jain's fairness index",
                title=f"{rate / 1e6:g} Mb/s, N = {n}: fairness")
    ax_jain.legend(fontsize=6)
    v = f[f["traffic[0].cc"] == "vegas"]
    bufs = sorted(v["buffer"].unique())
    if bufs:
        picks = sorted({bufs[0], min(bufs, key=lambda b: abs(b - bdp_pkts(rate))), bufs[-1]})
        for k, b in enumerate(picks):
            s = v[v["buffer"] == b]
            ax_start.scatter(s["start_s"], s["share"], s=4, color=f"C{k + 4}", label=f"{b} pkts")
            ranked = np.sort(s.groupby("seed")["share"].apply(lambda x: np.sort(x.to_numpy())[::-1]).iloc[0])[::-1]
            ax_rank.plot(np.arange(1, len(ranked) + 1), ranked, color=f"C{k + 4}", label=f"{b} pkts (seed "
                         f"{int(s['seed'].min())})")
            out.append(pd.DataFrame({"rate_mbps": rate / 1e6, "cc": "vegas", "buffer": b, "start_s": s["start_s"],
                                     "seed": s["seed"], "mean": s["share"],
                                     "quantity": "Vegas goodput in fair shares against start time"}))
    ax_start.axhline(1, color="k", lw=0.8)
    ax_start.set(yscale="log", xlabel="flow start (s)", ylabel="goodput / fair share",
                 title=f"Vegas, {rate / 1e6:g} Mb/s, N = {n}: per flow")
    ax_rank.axhline(1, color="k", lw=0.8)
    ax_rank.set(yscale="log", xlabel="flow rank", ylabel="goodput / fair share",
                title=f"Vegas, {rate / 1e6:g} Mb/s, N = {n}: flows ranked")
    if bufs:
        ax_start.legend(fontsize=6, title="buffer", title_fontsize=6)
        ax_rank.legend(fontsize=6)
    else:  # a profile without Vegas runs at this rate (the smoke profile)
        for ax in (ax_start, ax_rank):
            ax.text(0.5, 0.5, "no Vegas runs in this profile", transform=ax.transAxes, ha="center", fontsize=7)
    return out


def _analyze_fig2(d: Data) -> Output:
    g = _per_buffer(d)
    per = _best_buffers(d, g)
    rule = _rule(d, g)
    fig, ax = new_figure(3, 5, w=3.8, h=3.2)
    plotted = []
    for j, (sweep, rate) in enumerate(RATES.items()):
        a0, a1, a2, a3 = ax[0, j], ax[1, j], ax[2, j], ax[3, j]
        sub = per[per["rate_mbps"] == rate / 1e6]
        ns = np.array(sorted(sub["n"].unique())) if len(sub) else np.array([1, 100])
        nn = np.linspace(ns.min(), ns.max(), 100)
        b = bdp_pkts(rate)
        a0.plot(nn, [b] * len(nn), "k-", lw=1, label="BDP")
        a0.plot(nn, b / np.sqrt(nn), "k:", lw=1, label="BDP/√n")
        a0.plot(nn, 6 * nn, "k--", lw=1, label="connection-proportional (6n)")
        a1.plot(ns, [sawtooth_rtt(rate, b) * 1e3] * len(ns), "k:", lw=1, label="§4.2's 1.5 RTTP (BDP buffer)")
        a2.plot(nn, PAYLOAD * rate / 1e3 / nn, "k-", lw=1, label="fair share C/N")
        for cc, colour in (("newreno", "C3"), ("vegas", "C0")):
            s = sub[sub["cc"] == cc]
            if not len(s):
                continue
            name = "NewReno" if cc == "newreno" else "Vegas"
            agg = over_seeds(s, ["n"], "best_pkts")
            errorbars(a0, agg, "n", label=f"TCP {name}", color=colour)
            r = over_seeds(s.assign(rtt_ms=s["rtt_s"] * 1e3), ["n"], "rtt_ms")
            errorbars(a1, r, "n", color=colour, label=name)
            gp = over_seeds(s, ["n"], "goodput_kbps")
            errorbars(a2, gp, "n", color=colour, label=name)
            lo = over_seeds(s.assign(loss_pct=s["loss"] * 100), ["n"], "loss_pct")
            errorbars(a3, lo, "n", color=colour, label=name)
            plotted += [agg.assign(rate_mbps=rate / 1e6, cc=cc, quantity="optimal buffer (packets)"),
                        r.assign(rate_mbps=rate / 1e6, cc=cc, quantity="RTT at the optimal buffer (ms)"),
                        gp.assign(rate_mbps=rate / 1e6, cc=cc, quantity="end-to-end goodput at the optimal buffer "
                                                                        "(kb/s)"),
                        lo.assign(rate_mbps=rate / 1e6, cc=cc, quantity="loss rate at the optimal buffer (%)")]
        rs = rule[rule["rate_mbps"] == rate / 1e6] if len(rule) else rule
        if len(rs):
            rg = over_seeds(rs.assign(goodput_kbps=rs["rule_goodput"] / 1e3), ["n"], "goodput_kbps")
            errorbars(a2, rg, "n", color="k", marker="x", ls="none", label="NewReno, max(BDP, 6n)")
            plotted.append(rg.assign(rate_mbps=rate / 1e6, cc="newreno",
                                     quantity="end-to-end goodput with max(BDP, 6n) packets (kb/s)"))
        a0.set(xscale="log", yscale="log", xlabel="number of TCP connections", ylabel="optimal buffer (packets)",
               title=f"Fig. 2: {rate / 1e6:g} Mb/s")
        a1.set(xscale="log", xlabel="number of TCP connections", ylabel="RTT at optimal buffer (ms)",
               title=f"Fig. 3: {rate / 1e6:g} Mb/s, RTT")
        a2.set(xscale="log", yscale="log", xlabel="number of TCP connections",
               ylabel="end-to-end goodput at optimal buffer (kb/s)", title=f"Fig. 3: {rate / 1e6:g} Mb/s, goodput")
        a3.set(xscale="log", xlabel="number of TCP connections", ylabel="loss rate at optimal buffer (%)",
               title=f"Fig. 3: {rate / 1e6:g} Mb/s, loss")
    for k in range(4):
        ax[k, 0].legend(fontsize=6)
    plotted += _per_flow(d, "r100", 100e6, ax[4, 0], ax[4, 1], ax[4, 2])
    fig.tight_layout()

    def pick(rate: float, cc: str, n: int, col: str) -> dict[int, float]:
        s = per[(per["rate_mbps"] == rate) & (per["cc"] == cc) & (per["n"] == n)]
        return dict(zip(s["seed"], s[col]))

    nmax = int(per["n"].max()) if len(per) else 0
    nmid = 10 if 10 in set(per["n"]) else (int(per["n"].min()) if len(per) else 0)

    def paired(a: dict, b: dict, fn) -> list[float] | None:
        out = [fn(a[s], b[s]) for s in sorted(set(a) & set(b))]
        return out or None

    def vals(rate: float, col: str, n: int = nmax) -> list[float] | None:
        return list(pick(rate, "newreno", n, col).values()) or None

    def growth(rate: float) -> list[float] | None:
        return paired(pick(rate, "newreno", nmax, "loss"), pick(rate, "newreno", nmid, "loss"),
                      lambda a, b: a / b if b > 0 else math.inf) if nmid != nmax else None

    def at_buffer(rate: float, n: int, pkts: float) -> list[float] | None:
        """Per seed: goodput at the buffer tried nearest ``pkts`` (in log) / the best of the goodputs
        averaged over seeds, as for the rule."""
        h = g[(g["rate"] == rate * 1e6) & (g["cc"] == "newreno") & (g["n"] == n)] if len(g) else g
        if not len(h):
            return None
        best = h.groupby("buffer")["goodput"].mean().max()
        near = h["buffer"].iloc[(np.log(h["buffer"]) - math.log(pkts)).abs().argmin()]
        return list(h[h["buffer"] == near]["goodput"] / best) or None

    def vegas_prop() -> list[float] | None:
        """Per seed: Vegas's optimum at the largest N over that at N = 10, the geometric mean over
        the rates both were run at."""
        if nmid == nmax:
            return None
        ratios = [paired(pick(r, "vegas", nmax, "best_pkts"), pick(r, "vegas", nmid, "best_pkts"),
                         lambda a, b: math.log(a / b)) for r in (1, 10, 100)]
        ratios = [x for x in ratios if x]
        return [math.exp(sum(v) / len(v)) for v in zip(*ratios)] or None

    tracks = rule.groupby("seed")["rule_frac"].mean() if len(rule) else pd.Series(dtype=float)
    worst = rule.groupby(["rate_mbps", "n"])["rule_frac"].mean().sort_values() if len(rule) else pd.Series()
    b100 = {s: v / bdp_pkts(100e6) for s, v in pick(100, "newreno", nmax, "best_pkts").items()}
    note = f"N = {nmax}" + (f", against N = {nmid}" if nmid != nmax else "")
    nmin = int(per["n"].min()) if len(per) else 0
    samples = {
        "G2-100M-bdp": list(b100.values()) or None,
        "G2-sqrt": vals(100, "sqrt_goodput_frac"),
        "G2-1M-prop": paired(pick(1, "newreno", nmax, "best_pkts"), pick(1, "newreno", nmid, "best_pkts"),
                             lambda a, b: a / b) if nmid != nmax else None,
        "G2-10M-grow": [v / bdp_pkts(10e6) for v in pick(10, "newreno", nmax, "best_pkts").values()] or None,
        "G2-vegas": paired(pick(100, "vegas", nmax, "best_pkts"), pick(1, "vegas", nmax, "best_pkts"),
                           lambda a, b: a / b),
        "G2-vegas-prop": vegas_prop(),
        "G3-rtt": vals(1, "rtt_s"),
        "G3-util": [min(v) for v in zip(*(pick(r, "newreno", nmax, "util").values() for r in (1, 10, 100)))] or None,
        "G3-goodput-100M": vals(100, "share_frac"), "G3-goodput-10M": vals(10, "share_frac"),
        "G3-goodput-1M": vals(1, "share_frac"),
        "G3-loss-100M": growth(100), "G3-loss-10M": growth(10), "G3-loss-1M": growth(1),
        "G3-rtt-100M": vals(100, "rtt_model"), "G3-rtt-10M": vals(10, "rtt_model"),
        "G3-rtt-1M-model": vals(1, "rtt_model"),
        "G2-max-rule": list(tracks) or None,
        "G2-bdp-alone": at_buffer(1, nmax, bdp_pkts(1e6)),
        "G2-prop-alone": at_buffer(100, nmin, 6 * nmin),
    }
    notes = {k: note for k in samples}
    notes["G2-max-rule"] = (f"mean over {len(worst)} rates × N; lowest at " + ", ".join(
        f"{r:g} Mb/s × {n} ({v:.2f})" for (r, n), v in worst.head(2).items())) if len(worst) else ""
    notes["G2-bdp-alone"] = f"N = {nmax}, 8 packets"
    notes["G2-prop-alone"] = f"N = {nmin}: 16 packets, the smallest buffer tried, for {6 * nmin}"
    notes["G3-util"] = f"N = {nmax}, the lowest of the three rates"
    for k in ("G3-goodput-100M", "G3-goodput-10M", "G3-goodput-1M", "G3-rtt-100M", "G3-rtt-10M", "G3-rtt-1M-model"):
        notes[k] = f"N = {nmax}"
    return Output(fig, pd.concat(plotted, ignore_index=True) if plotted else pd.DataFrame(), samples, notes=notes)


register(Item(
    name="gorinsky/fig2-3",
    paper=GORINSKY,
    where="Figs. 2–3 (§3.1)",
    discussion="The metric decides the result. With the arithmetic mean of the flows' goodputs (aggregate goodput "
               "/ N) every buffer that keeps the link busy is optimal, and with many flows that is a small one: the "
               "optimum then sits near BDP/√n or below and none of Fig. 2's trends appear. The paper defines a "
               "transfer's goodput by its file delivery time; averaging delivery times (the harmonic mean of "
               "goodputs) counts the flows a small buffer starves through repeated timeouts, and that is what makes "
               "the optimum grow with the number of connections.\n\n"
               "The stack decides how much a timeout costs. With the paper's ns-2 agents (no SACK, an ACK per packet, "
               "ns-2.27's 1 s floor on the RTO and slow start by one segment per new ACK, see the stack above) the "
               "100 Mb/s, 100-flow NewReno optimum is 1024 packets (1.2 BDP) in nine seeds of ten and 2048 in the "
               "tenth. With the Linux-like stack these items ran before (SACK, delayed ACKs, a 10-segment initial "
               "window, a 200 ms floor under the variance term) it was 0.30 BDP, and the buffer nearest BDP/√n "
               "kept 94% of the best goodput where it now keeps 86%: a window that loses several packets more often "
               "ends in a timeout, each costs at least ten round trips, and the harmonic mean of the goodputs falls "
               "at 64–256 packets (0.75–0.82 Mb/s per flow) where the mean barely moves (0.84–0.89), so the optimum "
               "climbs back to the BDP, as Fig. 2(a) has it. How slow start grows on an ACK that covers several "
               "segments matters too: with two segments per ACK (RFC 3465's L = 2, which this profile ran before "
               "ns-2's one) the optimum fell into two modes (0.02–1.2 BDP in eight seeds, 2.4 in two; mean 1.21 "
               "BDP) and the 1 Mb/s goodput at the optimum was 0.80 of the fair share against 0.83 now. With "
               "`TCPSink`'s ACK per packet such ACKs come only after a hole (at the end of a recovery or during "
               "the go-back-N resend after a timeout) or after lost ACKs, so the two rules part only in how fast a "
               "flow regrows from a loss; which of those regrowths moves the optimum was not traced.\\n\\n"
               "Vegas flow by flow (bottom row, 100 Mb/s, 100 flows): below the BDP every flow gets its share (Jain's "
               "index 0.98–1.00 at 16–128 packets, 0.90–0.92 at 256–512); from 1024 packets up it is 0.50, because "
               "Vegas never fills such a buffer (1024 and 2048 packets give the same runs) and its flows keep what "
               "they got as they started. A Vegas flow "
               "takes the smallest RTT it has seen for the propagation delay (BaseRTT) and keeps α–β packets of "
               "its own queued above it; a flow that starts after the others have queued Q packets never sees the "
               "empty queue, takes Q/C for propagation and queues its α–β on top of it, so it sends as if its "
               "round trip were shorter (Mo et al. 1999; Low, Peterson & Wang 2002, §5). Flows that started last "
               "(after 0.85 s) get 2.8 fair shares on average and up to 5.4, those of the middle of the start "
               "window about half a share, and none loses a packet. A small buffer bounds the error: no flow can see "
               "more queue than the buffer holds (1.9 ms at 16 packets), and the losses it causes (480–590 "
               "retransmissions and 1.3–13 timeouts per flow at 16–128 packets, none from 1024 up) keep "
               "the windows moving, so BaseRTTs stay near the propagation delay. So Vegas's optimum at 100 Mb/s is "
               "a small buffer (118 packets on average, 0.14 BDP) and at 1 Mb/s, where the sum of the flows' α–β is "
               "already several BDPs, a large one (282 packets): the ratio, 0.44, lies within the claim's band, "
               "where the earlier Linux-like stack gave 0.04. That stack was less fair still (Jain's index 0.85 at "
               "256 packets, 0.65 at 512 and 0.39 at 2048, latecomers 3.3 fair shares, in the quick profile), so "
               "its optimum was the smallest buffer tried, 16 packets. The paper's own explanation (§3.2 and §4: "
               "Vegas's load oscillations are proportional to N, so its optimum is too) holds across N: from 10 to "
               "100 flows the optimum grows 10.5-fold (G2-vegas-prop, the geometric mean over the three rates), "
               "and the unfairness above is why the optimum at 100 Mb/s is not larger.\\n\\n"
               "The full profile runs the whole grid (N = 1, 5, 10, 20, 50 and 100, ten seeds of 200 s: 3210 runs); "
               "the figures quoted here are the full profile's unless they say otherwise.\\n\\n"
               "Fig. 3's other panels (rows 3–4 of the figure, and the RTT row) carry no number in the text, so their "
               "claims are what §3.2's model of the optimum and §4.2's sawtooth arithmetic say the panels must show. "
               "At N = 100 the bottleneck is at least 99.4% used at the optimum at every rate, and the end-to-end "
               "goodput there is 0.99, 0.99 and 0.83 of the payload fair share at 100, 10 and 1 Mb/s. At 1 Mb/s "
               "the optimal buffer holds seconds of data (896 packets on average: 8.1 s of RTT), and what is still "
               "queued when the run ends is not goodput: over the 60 s the quick profile used to give every rate "
               "that cost the 1 Mb/s goodput a tenth, where the paper measures over 200 s, so the 1 Mb/s sweeps "
               "run the paper's 200 s in every profile (at 10 and 100 Mb/s the largest buffer holds 1.2 and 0.25 "
               "s, and 60 s is enough). The 4% retransmitted and the harmonic mean over 100 flows, some of which "
               "time out, keep it at 0.83 [0.79, 0.86], above the claim's 0.8 (0.80 with L = 2). "
               "The loss rate at the optimum grows from N = 10 to 100 by 5.7× at "
               "100 Mb/s and 10.5× at 10 Mb/s and does not grow at 1 Mb/s (0.52×), the two regimes of §3.2. AIMD's "
               "p ≈ 1.5/W² would make the 100 Mb/s ratio about 100×: at N = 10 the loss rate is set by slow start's "
               "overshoot, not by congestion avoidance's sawtooth with 170-packet windows, so the ratio is far "
               "smaller, and the claim asks only that it grows. The RTT at the optimum is within 2–9% of §4.2's "
               "arithmetic for the buffer found, at all three rates: 1.05× at 100 Mb/s (where the optimum is about "
               "the BDP and the arithmetic gives the paper's 1.5 RTTP), 1.09× at 10 Mb/s (1.5 BDP) and 1.03× at "
               "1 Mb/s (about 100 BDP, the several seconds of G3-rtt). With one flow the arithmetic does not apply: "
               "at 100 Mb/s the best buffer tried is the largest, which one flow does not fill in 60 s.\\n\\n"
               "§3.2's reconciling rule, max(BDP, 6 packets per connection), run as a buffer of its own (9 to 850 "
               "packets), keeps 0.96 of the best goodput over the buffers tried (the best of the goodputs averaged "
               "over seeds), averaged over the three rates and N = 1, 10, 100. Its lowest point is 10 Mb/s with 100 "
               "flows (0.89): the rule's 600 packets are 7 BDP, well past the optimum of 128, and there the flows "
               "time out again (38 timeouts per flow at 512 packets against 5 at 256; the harmonic mean falls with "
               "the slowest flows, 50–73 kb/s against a mean of 88 kb/s at the rule's buffer); why the timeouts "
               "return in so large a buffer is not examined further. Next come 1 Mb/s with 10 and 100 flows (0.94) "
               "and 100 Mb/s with one flow (0.94: in 60 s one flow has not regrown from the halving after slow "
               "start, and 2048 packets, 2.4 BDP, keep its window above the BDP after it). Each half of the rule "
               "alone fails where the other matters: the BDP alone, 8 packets for 100 flows at 1 Mb/s, keeps 6% of "
               "the best goodput (flows starve in timeouts), and 16 packets for one flow at 100 Mb/s (the nearest "
               "tried to 6n) keep 74%.",
    title="The buffer that maximizes end-to-end goodput against the number of long NewReno or Vegas transfers "
          "at 1, 10 and 100 Mb/s, with the BDP, BDP/√n and connection-proportional lines; RTT at that buffer",
    spec="gorinsky-fig2-3.toml",
    analyze=_analyze_fig2,
    claims=[
        ClaimSpec("G2-100M-bdp", "Fig. 2(a), §3.2", "100 Mb/s, 100 NewReno transfers: the optimal buffer equals the "
                  "BDP (optimal / BDP)", between(0.5, 2.0), "× BDP"),
        ClaimSpec("G2-sqrt", "§3.2", "there, BDP/√n (10% of the BDP) underutilizes the link and lowers goodput "
                  "(goodput at the buffer nearest BDP/√n / the best goodput)", at_most(0.97), "fraction"),
        ClaimSpec("G2-1M-prop", "Fig. 2(c)", "1 Mb/s: the optimal buffer is about proportional to the number of "
                  "connections (optimal at N = 100 / at N = 10; proportional = 10)", at_least(4.0), "×"),
        ClaimSpec("G2-10M-grow", "Fig. 2(b)", "10 Mb/s: past 50 connections the optimal buffer grows beyond the BDP "
                  "(optimal / BDP at N = 100)", at_least(1.5), "× BDP"),
        ClaimSpec("G2-vegas", "Fig. 2, §4", "Vegas: the optimal buffer does not depend on the BDP (optimal at "
                  "100 Mb/s / at 1 Mb/s, same N; BDPs differ 100×)", between(0.25, 4.0), "×"),
        ClaimSpec("G2-vegas-prop", "Fig. 2, §4", "Vegas: the optimal buffer remains approximately proportional to "
                  "the number of connections (optimal at N = 100 / at N = 10, geometric mean over the three rates; "
                  "proportional = 10)", at_least(4.0), "×"),
        ClaimSpec("G3-rtt", "Fig. 3(c), §4.1", "sizing for long transfers at 1 Mb/s gives queueing delays of "
                  "several seconds (RTT at the optimal buffer, N = 100)", at_least(1.0), "s"),
        # Fig. 3's other panels: the text gives no number for them; each claim is what §3.2's model of
        # the optimum (the link used fully, every connection in congestion avoidance) and §4.2's
        # sawtooth arithmetic say the panel must show.
        ClaimSpec("G3-util", "Fig. 3, §3.2", "at the optimal buffer the bottleneck is used fully (§3.2's reconciling "
                  "model; lowest bottleneck utilization of the three rates, N = 100)", at_least(0.95), "fraction"),
        ClaimSpec("G3-goodput-100M", "Fig. 3(a) goodput, §3.2", "100 Mb/s: end-to-end goodput at the optimal buffer is "
                  "near the fair share, the link used fully and no connection starved (goodput / (1460/1500 · C/N), "
                  "N = 100; ≥ 0.8 allows a few % of retransmissions and unequal shares)", at_least(0.8), "× C/N"),
        ClaimSpec("G3-goodput-10M", "Fig. 3(b) goodput, §3.2", "10 Mb/s: the same (goodput / fair share, N = 100)",
                  at_least(0.8), "× C/N"),
        ClaimSpec("G3-goodput-1M", "Fig. 3(c) goodput, §3.2", "1 Mb/s: the same (goodput / fair share, N = 100)",
                  at_least(0.8), "× C/N"),
        ClaimSpec("G3-loss-100M", "Fig. 3(a) loss, §3.2", "100 Mb/s, where the optimum stays at the BDP: each "
                  "connection's window, about 2·BDP/N, shrinks as N grows, so the loss rate at the optimum grows "
                  "(AIMD: p ≈ 1.5/W², 100× from N = 10 to 100; loss at N = 100 / at N = 10)", at_least(2.0), "×"),
        ClaimSpec("G3-loss-10M", "Fig. 3(b) loss, §3.2", "10 Mb/s: the optimum stays at the BDP up to 50 connections, "
                  "so the loss rate at the optimum grows with N (loss at N = 100 / at N = 10)", at_least(2.0), "×"),
        ClaimSpec("G3-loss-1M", "Fig. 3(c) loss, §3.2", "1 Mb/s, where the optimum is connection-proportional: each "
                  "connection keeps the same few packets whatever N, so the loss rate at the optimum stays level "
                  "(loss at N = 100 / at N = 10; a BDP-sized optimum would make it ~100×)", between(0.5, 2.0), "×"),
        ClaimSpec("G3-rtt-100M", "Fig. 3(a) RTT, §4.2", "100 Mb/s: RTT at the optimal buffer is §4.2's sawtooth "
                  "arithmetic for that buffer (b BDPs: queue (3b − 1)/4 RTTP for b ≥ 1, 1.5 RTTP at b = 1; b²/(1 + b) "
                  "below) — measured / predicted, N = 100; an always-full buffer gives 1.33 at b = 1, an empty one "
                  "0.67", between(0.8, 1.25), "×"),
        ClaimSpec("G3-rtt-10M", "Fig. 3(b) RTT, §4.2", "10 Mb/s: the same (measured / §4.2's arithmetic, N = 100)",
                  between(0.8, 1.25), "×"),
        ClaimSpec("G3-rtt-1M-model", "Fig. 3(c) RTT, §4.2", "1 Mb/s: the several seconds of G3-rtt are §4.2's "
                  "arithmetic for the optimal buffer (measured / predicted, N = 100)", between(0.8, 1.25), "×"),
        # §3.2's proposal, run as a buffer of its own.
        ClaimSpec("G2-max-rule", "§3.2", "the reconciling rule, max(BDP, connection-proportional), approximates the "
                  "optimal buffer (its end-to-end goodput / the best over the buffers tried, mean over rates and N)",
                  at_least(0.9), "fraction"),
        ClaimSpec("G2-bdp-alone", "§3.2", "…which the BDP alone does not where the ratio BDP / N is low (1 Mb/s, "
                  "N = 100: goodput with 8 packets / the best)", at_most(0.5), "fraction"),
        ClaimSpec("G2-prop-alone", "§3.2", "…nor connection-proportional allocation alone where it is high, since it "
                  "underutilizes the link (100 Mb/s, N = 1: goodput with 16 packets / the best)", at_most(0.9),
                  "fraction"),
    ],
    assumptions=[
        "end-to-end goodput = file size / delivery time (§3.1); for N equal long files the goodput of the mean "
        "delivery time is the harmonic mean of the flows' goodputs, which is what we maximize",
        "the optimal buffer is the smallest buffer tried whose goodput is within 1% of the best one's (past the "
        "optimum the goodput is flat for NewReno, so the exact argmax is noise)",
        "buffers tried: powers of two, 2–1024 packets at 1 Mb/s, 8–1024 at 10 Mb/s, 16–2048 at 100 Mb/s",
        "N in {1, 5, 10, 20, 50, 100} in --full, {1, 10, 100} in --quick; goodput over the whole run "
        "(the paper's 200 s; 60 s at 10 and 100 Mb/s in --quick)",
        "connection-proportional = 6 packets per connection (Morris 2000), as bufferlab's sizing rule",
        "flows start at uniform(0 s, 1 s); RTT = the senders' mean RTT samples",
        "Fig. 3's goodput: the end-to-end goodput (harmonic mean) at the optimal buffer against the fair share "
        "of the payload, 1460/1500 of C/N; its loss: the flows' mean loss rate there",
        "§3.2's rule as bufferlab's `max(bdp, connection-proportional)` sizing (BDP from the 102 ms RTTP, 6 "
        "packets per connection), NewReno, N = 1, 10, 100 in every profile; its goodput in each seed is set "
        "against the best of the buffers tried once their goodputs are averaged over seeds",
    ],
))


def _analyze_fig6(d: Data) -> Output:
    f = d.table("fractions", "flows")
    f = f[f["kind"] == "tcp"].copy()
    f["goodput_kbps"] = f["goodput_bps"] / 1e3
    f["fraction"] = f["topology.bottleneck.queue.scale"]
    f["n"] = f["topology.pairs"].astype(int)
    per = f.groupby(["fraction", "n", "seed"])["goodput_kbps"].mean().reset_index()
    fig, ax = new_figure()
    plotted = []
    for frac in sorted(per["fraction"].unique(), reverse=True):
        a = over_seeds(per[per["fraction"] == frac], ["n"], "goodput_kbps")
        errorbars(ax[0, 0], a, "n", label=f"{frac:g} B")
        plotted.append(a.assign(fraction=frac))
    ax[0, 0].set(xscale="log", yscale="log", xlabel="number of TCP connections",
                 ylabel="end-to-end goodput per flow (kb/s)", title="Fig. 6: 10 Mb/s, NewReno")
    ax[0, 0].legend(fontsize=8)
    fig.tight_layout()

    def ratio(n: int) -> list[float] | None:
        a = per[(per["fraction"] == 0.25) & (per["n"] == n)].set_index("seed")["goodput_kbps"]
        b = per[(per["fraction"] == 1.0) & (per["n"] == n)].set_index("seed")["goodput_kbps"]
        out = [a[s] / b[s] for s in a.index if s in b.index]
        return out or None

    ns = sorted(per["n"].unique())
    lo, hi = (ns[0], ns[-1]) if ns else (0, 0)
    r_lo, r_hi = ratio(lo), ratio(hi)
    return Output(fig, pd.concat(plotted, ignore_index=True) if plotted else pd.DataFrame(), {
        "G6-decrease": r_lo,
        "G6-not-substantial": r_lo,
        "G6-no-growth": [b - a for a, b in zip(r_lo, r_hi)] if r_lo and r_hi else None,
    }, notes={"G6-decrease": f"N = {lo}", "G6-not-substantial": f"N = {lo}",
              "G6-no-growth": f"ratio at N = {hi} minus at N = {lo}"})


register(Item(
    name="gorinsky/fig6",
    paper=GORINSKY,
    where="Fig. 6 (§4.1)",
    title="End-to-end goodput of N NewReno transfers on the 10 Mb/s bottleneck with 1, 0.5 and 0.25 of the BDP",
    spec="gorinsky-fig6.toml",
    analyze=_analyze_fig6,
    claims=[
        ClaimSpec("G6-decrease", "§4.1", "goodput decreases as the buffer falls from 1 to 0.25 BDP "
                  "(goodput at 0.25 B / at 1 B)", at_most(0.99), "×"),
        ClaimSpec("G6-not-substantial", "§4.1", "…but the decrease is not substantial", at_least(0.75), "×"),
        ClaimSpec("G6-no-growth", "§4.1", "…and does not grow with the number of transfers (ratio at the largest N "
                  "minus at the smallest)", at_least(-0.05), ""),
    ],
    assumptions=["B = 85 packets (10 Mb/s × 102 ms, 1500 B); 'not substantial' means at least 75% of the goodput at B",
                 "goodput over the whole run; flows start at uniform(0 s, 1 s)"],
))


def _limits(d: Data, sweep: str, links: list[str]) -> pd.DataFrame:
    """The buffer limits of ``links`` over time, in BDPs (85 packets: 10 Mb/s × 102 ms)."""
    ts = d.table(sweep, "timeseries")
    ts = ts[(ts["object"] == "queue") & ts["id"].isin(links) & (ts["metric"] == "limit_pkts")].copy()
    ts["bdp"] = ts["value"] / bdp_pkts(10e6)
    return ts


def _analyze_adaptive(d: Data) -> Output:
    ts = _limits(d, "adaptive", [BOTTLENECK])
    fig, ax = new_figure(2, 1)
    a = over_seeds(ts, ["time_s"], "bdp")
    ax[0, 0].plot(a["time_s"], a["mean"], color="C3", label="buffer limit (mean over seeds)")
    ax[0, 0].fill_between(a["time_s"], a["lo"].fillna(a["mean"]), a["hi"].fillna(a["mean"]), color="C3", alpha=0.25,
                          label="95% CI")
    for k, y in ((1, 1.0), (2, 1.5), (3, 1.875)):
        ax[0, 0].axhline(y, color="gray", lw=0.6, ls=":")
    ax[0, 0].axhline(3.0, color="k", ls="--", lw=1, label="the paper's limit, 3 BDP")
    ax[0, 0].set(xlabel="time (s)", ylabel="buffer (× BDP)", title="§4.2: buffer = rate × measured RTT",
                 ylim=(0, 4.5))
    ax[0, 0].legend(fontsize=7, loc="lower right")
    last = ts.sort_values("time_s").groupby("seed").tail(1)
    samples: dict[str, list[float] | None] = {"G42-drift": list(last["bdp"]) or None}
    plotted = [a.assign(sweep="adaptive", link=BOTTLENECK)]
    notes = {"G42-drift": "buffer at the end of the run"}
    if "multi" in d.sweeps:
        m = _limits(d, "multi", ["R1->R2", "R2->R3"])
        for k, link in enumerate(("R1->R2", "R2->R3")):
            am = over_seeds(m[m["id"] == link], ["time_s"], "bdp")
            ax[0, 1].plot(am["time_s"], am["mean"], color=f"C{k}", label=f"{link} (mean over seeds)")
            ax[0, 1].fill_between(am["time_s"], am["lo"].fillna(am["mean"]), am["hi"].fillna(am["mean"]),
                                  color=f"C{k}", alpha=0.25)
            plotted.append(am.assign(sweep="multi", link=link))
        ax[0, 1].axhline(3.0, color="k", ls="--", lw=1, label="one bottleneck's limit, 3 BDP")
        ax[0, 1].set(xlabel="time (s)", ylabel="buffer (× BDP)", title="§4.2: two rtt-adaptive bottlenecks in a row")
        ax[0, 1].legend(fontsize=7, loc="upper left")
        # per seed: the two links' mean buffer at the end and at half the run
        both = m.groupby(["seed", "time_s"])["bdp"].mean().reset_index()
        end = both.sort_values("time_s").groupby("seed").tail(1).set_index("seed")["bdp"]
        half = both["time_s"].max() / 2
        mid = both[both["time_s"] <= half].sort_values("time_s").groupby("seed").tail(1).set_index("seed")["bdp"]
        samples["G42-multi-size"] = list(end) or None
        samples["G42-multi-growing"] = [end[s] / mid[s] for s in end.index if s in mid.index] or None
        notes["G42-multi-size"] = "mean of the two links' buffers at the end of the run"
        notes["G42-multi-growing"] = f"at the end / at {half:g} s"
    fig.tight_layout()
    return Output(fig, pd.concat(plotted, ignore_index=True), samples, notes=notes)


register(Item(
    name="gorinsky/rtt-adaptive",
    paper=GORINSKY,
    where="§4.2",
    title="A buffer sized as rate × measured RTT drifts from 1 BDP (1 → 1.5 → 1.875 → …) toward 3 BDP, as a "
          "time series (one NewReno flow, 10 Mb/s × 102 ms); with two such bottlenecks in a row it grows without "
          "bound",
    spec="gorinsky-rtt-adaptive.toml",
    analyze=_analyze_adaptive,
    discussion="§4.2 gives no topology for its unbounded growth with several bottlenecks; ours is the smallest we "
               "know of: two 10 Mb/s bottlenecks in a row, both sized rtt-adaptive, three long NewReno flows "
               "crossing both and one more on each, all with the same 102 ms RTTP (right panel). A router's mean RTT "
               "now carries the other router's queue as well as its own, weighted by the share w of its packets "
               "that cross both: with §4.2's arithmetic for each queue, b = 1 + (1 + w)(3b − 1)/4, whose solution "
               "b = (3 − w)/(1 − 3w) is 3 BDP for w = 0 and does not exist for w > 1/3. The crossing flows, with "
               "two queues in their RTT, get 32–47% of each link's goodput (quick), and the buffers keep growing, "
               "more slowly as each sawtooth cycle lengthens with the RTT: 8 BDP after 300 s, 12 after 600 s (quick) and 18.2 after 1200 s (full), 1.4× "
               "from half the run to its end, while the one-bottleneck buffer has settled at 3.4 BDP. The "
               "crossing flows' RTTs reach 1.1–1.5 s, 11–15 times their propagation delay.",
    claims=[ClaimSpec("G42-drift", "§4.2", "the buffer converges to 3 BDP, three times larger than desired",
                      between(2.5, 4.0), "× BDP"),
            ClaimSpec("G42-multi-size", "§4.2", "with several bottlenecks, sizing with RTT leads to unbounded growth "
                      "of buffer sizes: past twice the one-bottleneck limit of 3 BDP (each router's RTT now carries "
                      "the other's queue: with a share w of a link's packets crossing both, §4.2's arithmetic gives "
                      "b = 1 + (1 + w)(3b − 1)/4, which has no finite solution once w > 1/3)", at_least(6.0),
                      "× BDP"),
            ClaimSpec("G42-multi-growing", "§4.2", "…and the growth does not stop: the buffer at the end of the run "
                      "over the buffer at half of it (1 for a buffer that has converged, as with one bottleneck)",
                      at_least(1.2), "×")],
    assumptions=["the router re-sizes at the end of a sawtooth cycle (docs/sizing.md: the first drop once 10 s "
                 "have passed since the last re-size); the paper gives no period",
                 "1200 s in --full, 600 s in --quick",
                 "several bottlenecks: two 10 Mb/s, 25 ms links in a row, both rtt-adaptive; three long NewReno flows "
                 "across both, one on each alone, every flow's RTTP 102 ms (BDP 85 packets on either link); the "
                 "paper gives no topology"],
))


# ---------------------------------------------------------------- Figs. 4-5



def _expand_multi(sweep: dict) -> dict:
    """``copies = N`` repeats a traffic block N times; the sweep's ``cc`` goes to every TCP block."""
    cc = sweep.pop("cc", None)
    base = sweep.get("base", {})
    out = []
    for block in base.get("traffic", []):
        block = dict(block)
        n = int(block.pop("copies", 1))
        if cc is not None and block.get("kind") in TCP_KINDS:
            block["cc"] = cc
        out += [dict(block) for _ in range(n)]
    if "traffic" in base:
        base["traffic"] = out
    return sweep


def _analyze_fig45(d: Data) -> Output:
    rows = []
    for cc in ("newreno", "vegas"):
        if cc not in d.sweeps:
            continue
        q = d.table(cc, "queues")
        f = d.table(cc, "flows")
        lk = d.table(cc, "links")
        tr = d.table(cc, "transfers")
        for (scale, seed), g in q.groupby(["link[0].queue.scale", "seed"]):
            fs = f[(f["link[0].queue.scale"] == scale) & (f["seed"] == seed)]
            video = fs[(fs["kind"] == "udp") & (fs["src"].isin(["S", "D"]))]["owd_mean_s"].sum()
            long_ = fs[(fs["kind"] == "tcp") & (fs["src"] == "S")]["goodput_bps"].mean()
            onoff_ids = set(fs[(fs["kind"] == "tcp_onoff") & (fs["src"] == "S")]["id"])
            t = tr[(tr["link[0].queue.scale"] == scale) & (tr["seed"] == seed) & tr["flow"].isin(onoff_ids)]
            l12 = lk[(lk["link[0].queue.scale"] == scale) & (lk["seed"] == seed) & (lk["link"] == "R1->R2")]
            r12 = g[g["link"] == "R1->R2"].iloc[0]
            r34 = g[g["link"] == "R3->R4"].iloc[0]
            l34 = lk[(lk["link[0].queue.scale"] == scale) & (lk["seed"] == seed) & (lk["link"] == "R3->R4")]
            rows.append({
                "cc": cc, "scale": scale, "seed": seed,
                "q12_ms": r12["sojourn_mean_s"] * 1e3,
                "q34_ms": g[g["link"] == "R3->R4"]["sojourn_mean_s"].mean() * 1e3,
                "loss12_pct": r12["dropped"] / max(r12["arrivals"], 1) * 100,
                "util12_pct": l12["utilization"].mean() * 100,
                "loss34_pct": r34["dropped"] / max(r34["arrivals"], 1) * 100,
                "util34_pct": l34["utilization"].mean() * 100,
                "video_rtt_ms": video * 1e3, "long_goodput_mbps": long_ / 1e6,
                "web_time_s": t["completion_time_s"].mean()})
    per = pd.DataFrame(rows)
    fig, ax = new_figure(3, 2, w=3.6, h=3.0)
    panels = [("q12_ms", "R1–R2 queueing delay (ms)", "Fig. 4"), ("q34_ms", "R3–R4 queueing delay (ms)", "Fig. 4"),
              ("util12_pct", "R1–R2 utilization (%)", ""), ("video_rtt_ms", "video RTT (ms)", "Fig. 5(a)"),
              ("long_goodput_mbps", "long transfer goodput (Mb/s)", "Fig. 5(b)"),
              ("web_time_s", "web delivery time (s)", "Fig. 5(c)")]
    plotted = []
    for k, (col, label, title) in enumerate(panels):
        a_ = ax[k // 3, k % 3]
        for cc in ("newreno", "vegas"):
            s = per[per["cc"] == cc]
            if len(s):
                a = over_seeds(s, ["scale"], col)
                errorbars(a_, a, "scale", label="NewReno" if cc == "newreno" else "Vegas")
                plotted.append(a.assign(cc=cc, quantity=col))
        a_.set(xscale="log", xlabel="R1–R2 buffer (× BDP)", ylabel=label, title=title)
    ax[0, 0].legend(fontsize=7)
    fig.tight_layout()

    def at(scale: float, col: str, cc: str = "newreno") -> dict[int, float]:
        s = per[(per["cc"] == cc) & (per["scale"] == scale)]
        return dict(zip(s["seed"], s[col]))

    smin = per["scale"].min() if len(per) else 0
    return Output(fig, pd.concat(plotted, ignore_index=True) if plotted else pd.DataFrame(), {
        "G5-video": list(at(1.0, "video_rtt_ms").values()) or None,
        "G5-util": list(at(1.0, "util12_pct").values()) or None,
        "G5-loss": list(at(1.0, "loss12_pct").values()) or None,
        "G5-long": ratio_by_seed(at(1.0, "long_goodput_mbps"), at(smin, "long_goodput_mbps")) or None,
        "G5-util-34": list(at(1.0, "util34_pct").values()) or None,
        "G5-loss-34": list(at(1.0, "loss34_pct").values()) or None,
        "G5-web": ratio_by_seed(at(1.0, "web_time_s"), at(smin, "web_time_s")) or None,
        # delay ratio over buffer ratio: 1 when the queue fills the same fraction of every buffer
        "G4-grows": [r * smin for r in ratio_by_seed(at(1.0, "q12_ms"), at(smin, "q12_ms"))] or None,
        "G4-r34-level": ratio_by_seed(at(1.0, "q34_ms"), at(smin, "q34_ms")) or None,
        "G4-r34-delay": list(at(1.0, "q34_ms").values()) or None,
    }, notes={"G5-long": f"BDP against {smin:g} BDP",
              "G4-grows": f"BDP against {smin:g} BDP, buffers {1 / smin:g}× apart",
              "G5-web": f"BDP against {smin:g} BDP", "G4-r34-level": f"R1–R2 at BDP against {smin:g} BDP"})


register(Item(
    name="gorinsky/fig4-5",
    misses={
        "G5-video": (
            "the paper gives no propagation delay D for Fig. 1b: at the assumed 200 ms, §4.2's own "
            "arithmetic puts the video's RTT at 3 D = 600 ms exactly, and ns-2's NewReno agents keep "
            "each BDP queue 0.38 D full on average: 514 ms (2.6 D)."),
    },
    paper=GORINSKY,
    where="Figs. 4–5 (§4.1)",
    title="Multiple bottlenecks with video, long and web traffic: R1–R2 and R3–R4 queueing delays and each "
          "application's end-to-end metric as R1–R2's buffer varies (NewReno and Vegas)",
    spec="gorinsky-fig4-5.toml",
    analyze=_analyze_fig45,
    discussion="The video's RTT with BDP buffers depends directly on the round-trip propagation delay D we had to "
               "assume (200 ms): it crosses four BDP-sized queues per round trip (R1–R2 and R3–R4 out, R4–R3 and "
               "R2–R1 back), each of which can add up to D. By §4.2's own arithmetic a BDP buffer's queue "
               "oscillates between 0 and D, 0.5 D on average, so the video's RTT is D + 4 × 0.5 D = 3 D, and "
               "'above 600 ms' presupposes D > 200 ms: at our D the claim sits exactly on the paper's arithmetic "
               "and holds only if the queues are more than half full on average. The paper gives no D for Fig. 1b "
               "(with Fig. 1a's 50 ms on each of its three router links, D would be about 300 ms, and our queues "
               "would give about 750 ms), so the row keeps 200 ms and judges the occupancy. Ours is 514 ms over "
               "ten seeds (2.6 D), 14% under the paper's 600, with R1–R2's queue averaging 78 ms and R3–R4's "
               "76 ms, 0.38 D each. With the Linux-like stack these items ran before (SACK, delayed ACKs, a 10-segment initial "
               "window, a 200 ms RTO floor) it was 585 ms, with 95 and 94 ms of queue: the paper's ns-2 agents keep "
               "the BDP buffers less full on average — a NewReno window without SACK that loses several packets "
               "recovers one per round trip or times out, and ns-2.27's 1 s RTO floor then idles the flow for a "
               "second — while R1–R2 stays 99% used. The trends of Figs. 4–5 — R1–R2's queue and the video's "
               "RTT grow with the buffer, long transfers gain goodput (4.0× from 1/16 BDP to a BDP, 1.6× before) — "
               "are what the other claims check, and they hold.\n\n"
               "The rest of Figs. 4–5 (full profile). R1–R2's queueing delay is 3.1 ms at 1/16 BDP (a quarter of "
               "the 12.5 ms that buffer holds) and 78 ms at a BDP (39% of 200 ms): 25× for a 16× larger buffer, so "
               "G4-grows, which now asks for growth within a factor of two of proportional, would fail a queue capped "
               "by the windows (flows held by a receive window, such as ns-2's default of 20 packets, queue about as "
               "much whatever the buffer) or one that stayed empty when the buffer is small, where the old ≥ 2× "
               "passed almost any queue that grows. R3–R4, its buffer a BDP throughout, queues 72–78 ms whatever R1–R2's buffer (0.98× "
               "from 1/16 BDP to a BDP), is 99% used and drops 1.7%; 76 ms is 0.76 of §4.2's 0.5 RTTP for one flow. "
               "S→D's web downloads take 7.1 s on average with 1/16 BDP, 3.7 s with a BDP (0.51×) and 4.0 s with "
               "2 BDP: with ns-2.27's 1 s RTO floor a small buffer's losses cost more than a BDP's queueing, so Fig. "
               "5(c)'s \"small delivery times\" at a BDP hold, and the best buffer for the downloads lies near half a "
               "BDP (3.6 s).",
    expand=_expand_multi,
    claims=[
        ClaimSpec("G5-video", "Fig. 5(a), §4.1", "with BDP buffers (NewReno) the interactive video's RTT exceeds 600 ms",
                  at_least(600), "ms"),
        ClaimSpec("G5-util", "§4.1", "…with high utilization of R1–R2", at_least(90), "%"),
        ClaimSpec("G5-loss", "§4.1", "…and low loss rates at R1–R2", at_most(2.0), "%"),
        ClaimSpec("G5-long", "Fig. 5(b)", "…and large goodputs for the long transfers (BDP / smallest buffer)",
                  at_least(1.0), "×"),
        ClaimSpec("G5-util-34", "§4.1", "…and high utilization of R3–R4 (its buffer a BDP throughout)", at_least(90), "%"),
        ClaimSpec("G5-loss-34", "§4.1", "…and a low loss rate at R3–R4", at_most(2.0), "%"),
        ClaimSpec("G5-web", "Fig. 5(c), §4.1", "…and small delivery times for the web downloads: no larger than with "
                  "the smallest buffer (S→D's mean delivery time at a BDP / at 1/16 BDP); a stack whose small-buffer "
                  "losses cost no timeouts would put the BDP's queueing above it", at_most(1.0), "×"),
        ClaimSpec("G4-grows", "Fig. 4", "R1–R2's queueing delay grows with its buffer, in proportion: the queue fills "
                  "about the same share of every buffer (delay ratio BDP / smallest buffer, over the buffer ratio, 16; "
                  "a queue capped by the windows or one that stays empty when the buffer is small misses by 2×)",
                  between(0.5, 2.0), "×"),
        ClaimSpec("G4-r34-level", "Fig. 4", "R3–R4's queueing delay, its buffer a BDP throughout, does not follow "
                  "R1–R2's buffer (R3–R4's delay with R1–R2 at a BDP / at the smallest)", between(0.75, 1.33), "×"),
        ClaimSpec("G4-r34-delay", "Fig. 4, §4.2", "R3–R4's queueing delay with a BDP buffer is §4.2's sawtooth "
                  "arithmetic, 0.5 RTTP = 100 ms, between an empty queue and a full one (200 ms)", between(50, 150), "ms"),
    ],
    assumptions=[
        "Fig. 1b's rates and delays are not in the text: access bottlenecks R1–R2 and R3–R4 at 10 Mb/s, backbone "
        "R2–R3 at 100 Mb/s, 30 ms each; access delays chosen so every application's RTT is 200 ms",
        "one host per group side instead of 25 (access links at 1 Gb/s are never the bottleneck)",
        "web sources: 36 KB over TCP, then an exponential idle time of mean 1 s, 20 per group and direction",
        "video RTT = the sum of the two directions' mean one-way delays of the S–D streams; long goodput = mean of "
        "S→D's four transfers; web delivery time = mean completion of S→D's transfers",
        "R1–R2's buffer 1/16 to 2 BDP (B = 167 packets); every other link one BDP; applications start at "
        "uniform(0 s, 1 s)",
    ],
))
