"""Braud, Heusse & Duda (2014): small UDP packets shorten a packet-count buffer's delay."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import braud_model as m
from .claims import ClaimSpec, at_least, within
from .figures import errorbars, new_figure, over_seeds, per_seed, ratio_by_seed
from .item import Data, Item, Output, register
from .papers import BRAUD

UP = "client->server"
DOWN = "server->client"

# Table I's uplink: 854 kb/s at the ATM layer. A 1500 B TCP segment is 32 cells (1696 B) on the
# wire, a 29 B UDP packet one cell (53 B): the sizes the model's S_T and S_U mean on this link.
C_U = 854e3 / 8  # bytes/s
S_T_WIRE, S_U_WIRE = 32 * 53, 53
R_T = m.tcp_packet_rate(C_U, S_T_WIRE)  # 62.9 pkt/s


def _pps(v) -> float:
    return float(str(v).removesuffix("pps"))


def _alpha_model(r_u: float) -> float:
    return m.alpha(R_T, r_u)


def _alpha_shared(r_u: float) -> float:
    """The same model with R_T the rate TCP keeps once UDP takes its share: (C_u − R_U S_U) / S_T."""
    return m.alpha((C_U - r_u * S_U_WIRE) / S_T_WIRE, r_u)


def _analyze_alpha(d: Data) -> Output:
    q0 = d.table("tcp", "queues")
    q0 = q0[q0["link"] == UP]
    base = per_seed(q0, "sojourn_mean_s")
    f0 = d.table("tcp", "flows")
    good0 = per_seed(f0[f0["kind"] == "tcp"], "goodput_bps")
    q = d.table("udp", "queues")
    q = q[q["link"] == UP].copy()
    q["r_u"] = q["traffic[1].rate"].map(_pps)
    f = d.table("udp", "flows")
    f = f[f["kind"] == "tcp"].copy()
    f["r_u"] = f["traffic[1].rate"].map(_pps)
    rows = []
    for (r_u, seed), g in q.groupby(["r_u", "seed"]):
        if seed in base:
            gp = f[(f["r_u"] == r_u) & (f["seed"] == seed)]["goodput_bps"].mean()
            rows.append({"r_u": r_u, "seed": seed, "delay_ms": g["sojourn_mean_s"].mean() * 1e3,
                         "alpha": base[seed] / g["sojourn_mean_s"].mean(),
                         "goodput_loss": 1 - gp / good0[seed] if good0.get(seed) else math.nan})
    per = pd.DataFrame(rows)
    agg = over_seeds(per, ["r_u"], "alpha")
    agg["alpha_model"] = agg["r_u"].map(_alpha_model)
    agg["alpha_model_shared"] = agg["r_u"].map(_alpha_shared)
    dl = over_seeds(per, ["r_u"], "delay_ms")
    fig, ax = new_figure(2)
    xs = np.linspace(0, max(per["r_u"].max(), 1) * 1.05, 100)
    ax[0, 0].plot(xs, [_alpha_model(x) for x in xs], "k-", label="model, eq. 5 (R_T = C_u/S_T)")
    ax[0, 0].plot(xs, [_alpha_shared(x) for x in xs], "k:", label="model, R_T = (C_u − D_U)/S_T")
    errorbars(ax[0, 0], agg, "r_u", label="simulation (mean, 95% CI)", ls="none", color="C3")
    ax[0, 0].set(xlabel="UDP rate R_U (packets/s)", ylabel="queueing delay reduction α",
                 title="§II: α = delay without / with UDP")
    ax[0, 0].legend(fontsize=7)
    errorbars(ax[0, 1], dl, "r_u", color="C0")
    ax[0, 1].axhline(np.mean(list(base.values())) * 1e3, color="gray", ls="--", label="TCP alone")
    ax[0, 1].set(xlabel="UDP rate R_U (packets/s)", ylabel="uplink queueing delay (ms)", ylim=(0, None))
    ax[0, 1].legend(fontsize=7)
    fig.tight_layout()
    plotted = agg.rename(columns={"mean": "alpha_mean", "lo": "alpha_lo", "hi": "alpha_hi"}).merge(
        dl.rename(columns={"mean": "delay_ms_mean", "lo": "delay_ms_lo", "hi": "delay_ms_hi", "n": "n_delay"}),
        on="r_u")

    def at(r_u: float, col: str = "alpha") -> list[float] | None:
        g = per[per["r_u"] == r_u]
        return list(g[col]) if len(g) else None

    return Output(fig, plotted, {
        "alpha-RT": at(63.0), "alpha-125": at(125.0), "alpha-3RT": at(189.0),
        "overhead-125": at(125.0, "goodput_loss"),
    })


register(Item(
    name="braud/alpha",
    paper=BRAUD,
    where="§II, eqs. 1–7",
    title="The queueing-delay reduction α of eq. 5 against the simulated one, over the UDP rate R_U "
          "(Table I's 854 kb/s ATM uplink, 30-packet buffer, one NewReno upload)",
    spec="braud-alpha.toml",
    analyze=_analyze_alpha,
    claims=[
        ClaimSpec("alpha-RT", "§II-D, after eq. 7", "matching TCP's packet rate (R_U = R_T = 63 pkt/s) halves the "
                  "queueing delay: α = 2", within(2.0, rel=0.25), "×"),
        ClaimSpec("alpha-125", "§II-D eq. 5 at Table I's 125 pkt/s", f"α = 1 + R_U/R_T = {_alpha_model(125):.2f}",
                  within(_alpha_model(125), rel=0.25), "×"),
        ClaimSpec("alpha-3RT", "§II-D eq. 5 at R_U = 3 R_T", f"α = {_alpha_model(189):.2f}",
                  within(_alpha_model(189), rel=0.25), "×"),
        ClaimSpec("overhead-125", "§II-D eq. 7 at 125 pkt/s",
                  f"UDP takes OH_U = {m.udp_overhead(_alpha_model(125), S_T_WIRE, S_U_WIRE):.1%} of the capacity: "
                  "TCP's goodput drops by about that",
                  within(m.udp_overhead(_alpha_model(125), S_T_WIRE, S_U_WIRE), abs_=0.05), "fraction"),
    ],
    assumptions=[
        "S_T and S_U are wire sizes on the ATM link (1696 B = 32 cells for a 1500 B segment, 53 B = one cell for "
        "a 29 B UDP packet), so R_T = 854 kb/s / 1696 B = 62.9 pkt/s",
        "α is measured as the mean uplink queueing delay (sojourn in the buffer, every packet) of TCP alone "
        "divided by that with UDP, paired by seed",
        "one-way delays 15 ms each way and a 60-packet downlink buffer (Table I's text gives neither)",
        "NewReno sender (the modem experiment names no TCP), unlimited windows",
        "TCP and UDP start at uniform(0 s, 1 s)",
    ],
    discussion="The model treats the 30 slots as shared in proportion to the packet rates and TCP's "
               "rate as fixed at C_u/S_T. The dotted line corrects only the second: TCP keeps what UDP "
               "leaves of the capacity, which lowers R_T and raises α a little at high R_U.",
))


def _flow(d: Data, sweep: str, src: str, kind: str = "tcp", extra: list[str] = ()) -> dict[int, float]:
    f = d.table(sweep, "flows")
    f = f[(f["kind"] == kind) & (f["src"] == src)] if "src" in f.columns else f[f["kind"] == kind]
    return per_seed(f, "goodput_bps")


def _upload_delay(d: Data, sweep: str) -> dict[int, float]:
    q = d.table(sweep, "queues")
    return per_seed(q[q["link"] == UP], "sojourn_mean_s")


def _bars(ax, labels, series: list[dict[int, float]], scale: float, paper: list[float | None], ylabel: str):
    from .stats import estimate

    xs = np.arange(len(labels))
    est = [estimate([v * scale for v in s.values()]) for s in series]
    means = [e.mean for e in est]
    err = [0 if math.isnan(e.lo) else e.mean - e.lo for e in est]
    ax.bar(xs - 0.2, means, 0.4, yerr=err, capsize=3, label="bufferlab (mean, 95% CI)", color="C0")
    ax.bar(xs + 0.2, [p if p is not None else 0 for p in paper], 0.4, label="paper", color="C7")
    ax.set_xticks(xs, labels, fontsize=7)
    ax.set_ylabel(ylabel)
    return est


def _analyze_table1(d: Data) -> Output:
    delay = {k: _upload_delay(d, k) for k in ("up", "up_udp")}
    up = {k: _flow(d, k, "client") for k in ("up", "up_udp")}
    down = {k: _flow(d, k, "server") for k in ("down", "both", "both_udp")}
    fig, ax = new_figure(3, w=3.8)
    e1 = _bars(ax[0, 0], ["without UDP", "with UDP"], [delay["up"], delay["up_udp"]], 1e3, [346, 124],
               "uplink queueing delay (ms)")
    e2 = _bars(ax[0, 1], ["without UDP", "with UDP"], [up["up"], up["up_udp"]], 1e-3, [728, 660],
               "upload TCP goodput (kb/s)")
    e3 = _bars(ax[0, 2], ["alone", "vs upload", "vs upload\n+ UDP"], [down["down"], down["both"], down["both_udp"]],
               1e-6, [3.26, 2.80, 3.06], "download TCP goodput (Mb/s)")
    ax[0, 0].legend(fontsize=7)
    fig.suptitle("Table I: ADSL 3815/854 kb/s, 30-packet uplink buffer", fontsize=9)
    fig.tight_layout()
    names = ["delay without UDP (ms)", "delay with UDP (ms)", "upload goodput without UDP (kb/s)",
             "upload goodput with UDP (kb/s)", "download alone (Mb/s)", "download vs upload (Mb/s)",
             "download vs upload + UDP (Mb/s)"]
    paper = [346, 124, 728, 660, 3.26, 2.80, 3.06]
    ests = e1 + e2 + e3
    plotted = pd.DataFrame({"quantity": names, "paper": paper, "mean": [e.mean for e in ests],
                            "lo": [e.lo for e in ests], "hi": [e.hi for e in ests], "n": [e.n for e in ests]})
    ms = lambda s: [v * 1e3 for v in s.values()]  # noqa: E731
    kb = lambda s: [v * 1e-3 for v in s.values()]  # noqa: E731
    mb = lambda s: [v * 1e-6 for v in s.values()]  # noqa: E731
    return Output(fig, plotted, {
        "T1-delay": ms(delay["up"]), "T1-delay-udp": ms(delay["up_udp"]),
        "T1-delay-ratio": ratio_by_seed(delay["up"], delay["up_udp"]),
        "T1-up": kb(up["up"]), "T1-up-udp": kb(up["up_udp"]),
        "T1-down": mb(down["down"]), "T1-down-vs-up": mb(down["both"]), "T1-down-vs-up-udp": mb(down["both_udp"]),
        "T1-down-gain": ratio_by_seed(down["both_udp"], down["both"]),
    })


register(Item(
    name="braud/table1",
    paper=BRAUD,
    where="Table I (§II-A)",
    title="ADSL 3815/854 kb/s (ATM layer), 30-packet uplink buffer: one upload with and without 125 pkt/s of "
          "29 B UDP; one download alone, against the upload, and against the upload with UDP",
    spec="braud-table1.toml",
    analyze=_analyze_table1,
    claims=[
        ClaimSpec("T1-delay", "Table I", "queueing delay without UDP 346 ± 84 ms", within(346, rel=0.25), "ms"),
        ClaimSpec("T1-delay-udp", "Table I", "queueing delay with UDP 124 ± 50 ms", within(124, rel=0.25), "ms"),
        ClaimSpec("T1-delay-ratio", "Table I, §II-A", "the UDP stream more than halves the delay (346/124 = 2.79)",
                  within(346 / 124, rel=0.25), "×"),
        ClaimSpec("T1-up", "Table I", "upload goodput without UDP 728 kb/s", within(728, rel=0.10), "kb/s"),
        ClaimSpec("T1-up-udp", "Table I", "upload goodput with UDP 660 kb/s", within(660, rel=0.10), "kb/s"),
        ClaimSpec("T1-down", "Table I", "single download 3.26 Mb/s", within(3.26, rel=0.10), "Mb/s"),
        ClaimSpec("T1-down-vs-up", "Table I", "download against the upload 2.80 Mb/s", within(2.80, rel=0.10), "Mb/s"),
        ClaimSpec("T1-down-vs-up-udp", "Table I", "download against upload + UDP 3.06 Mb/s", within(3.06, rel=0.10), "Mb/s"),
        ClaimSpec("T1-down-gain", "§II-A", "UDP alleviates the upload's impact on the download (3.06/2.80 = 1.09)",
                  within(3.06 / 2.80, abs_=0.05), "×"),
    ],
    assumptions=[
        "rates at the ATM layer with AAL5/LLC framing: a 1500 B packet is 32 cells (1696 B)",
        "one-way delays 15 ms each way, downlink buffer 60 packets (the text gives neither)",
        "NewReno on both hosts (not named), unlimited windows, delayed ACKs as the TCP default",
        "queueing delay = mean sojourn of every packet in the uplink buffer",
        "every flow starts at uniform(0 s, 1 s)",
    ],
))


def _analyze_table2(d: Data) -> Output:
    rows = []
    for sweep in ("tcp", "udp"):
        f = d.table(sweep, "flows")
        l_ = d.table(sweep, "links")
        for (sb, seed), g in f.groupby(["traffic[0].sndbuf", "seed"]):
            lk = l_[(l_["traffic[0].sndbuf"] == sb) & (l_["seed"] == seed) & (l_["link"] == UP)]
            rows.append({"udp": sweep == "udp", "sndbuf": sb, "seed": seed,
                         "goodput_kbps": g[g["kind"] == "tcp"]["goodput_bps"].mean() / 1e3,
                         "utilization_pct": lk["utilization"].mean() * 100,
                         "rtt_ms": g[g["kind"] == "ping"]["rtt_mean_s"].mean() * 1e3})
    per = pd.DataFrame(rows)
    fig, ax = new_figure(3, w=3.8)
    paper = {"goodput_kbps": (770, 657), "utilization_pct": (100, 85), "rtt_ms": (280, 113.7)}
    labels = {"goodput_kbps": "TCP goodput (kb/s)", "utilization_pct": "uplink utilization (%)", "rtt_ms": "RTT (ms)"}
    plotted = []
    for i, col in enumerate(paper):
        xs = np.arange(2)
        for j, (sb, name) in enumerate((("1GiB", "unlimited window"), ("32KiB", "32 KiB send buffer"))):
            agg = over_seeds(per[per["sndbuf"] == sb], ["udp"], col)
            ax[0, i].bar(xs + (j - 1) * 0.27, agg["mean"], 0.27, yerr=(agg["mean"] - agg["lo"]).fillna(0),
                         capsize=3, label=f"bufferlab, {name}", color=f"C{j}")
            plotted.append(agg.assign(quantity=col, sndbuf=sb))
        ax[0, i].bar(xs + 0.27, paper[col], 0.27, label="paper", color="C7")
        ax[0, i].set_xticks(xs, ["without UDP", "with UDP"])
        ax[0, i].set_ylabel(labels[col])
    ax[0, 2].legend(fontsize=6)
    fig.suptitle("Table II: 800 kb/s / 52 ms uplink, 120-packet buffers, 250 pkt/s of 29 B UDP", fontsize=9)
    fig.tight_layout()

    def col(sb: str, udp: bool, c: str) -> dict[int, float]:
        g = per[(per["sndbuf"] == sb) & (per["udp"] == udp)]
        return dict(zip(g["seed"], g[c]))

    s = {}
    for sb, tag in (("1GiB", ""), ("32KiB", "-32k")):
        s[f"T2-rtt{tag}"] = list(col(sb, False, "rtt_ms").values())
        s[f"T2-rtt-udp{tag}"] = list(col(sb, True, "rtt_ms").values())
        s[f"T2-ratio{tag}"] = ratio_by_seed(col(sb, False, "rtt_ms"), col(sb, True, "rtt_ms"))
        s[f"T2-goodput{tag}"] = list(col(sb, False, "goodput_kbps").values())
        s[f"T2-goodput-udp{tag}"] = list(col(sb, True, "goodput_kbps").values())
    s["T2-util"] = list(col("1GiB", False, "utilization_pct").values())
    return Output(fig, pd.concat(plotted, ignore_index=True), s)


def _t2_claims() -> list[ClaimSpec]:
    out = []
    for tag, what in (("", "unlimited window"), ("-32k", "32 KiB send buffer")):
        out += [
            ClaimSpec(f"T2-goodput{tag}", "Table II", f"TCP goodput without UDP 770 kb/s ({what})", within(770, rel=0.10), "kb/s"),
            ClaimSpec(f"T2-goodput-udp{tag}", "Table II", f"TCP goodput with UDP 657 kb/s ({what})", within(657, rel=0.10), "kb/s"),
            ClaimSpec(f"T2-rtt{tag}", "Table II", f"RTT without UDP 280 ms ({what})", within(280, rel=0.25), "ms"),
            ClaimSpec(f"T2-rtt-udp{tag}", "Table II", f"RTT with UDP 113.7 ms ({what})", within(113.7, rel=0.25), "ms"),
            ClaimSpec(f"T2-ratio{tag}", "§IV", f"the RTT is divided by almost 2.5 ({what})", within(280 / 113.7, rel=0.25), "×"),
        ]
    out.append(ClaimSpec("T2-util", "Table II", "uplink utilization 100% without UDP", at_least(97), "%"))
    return out


register(Item(
    name="braud/table2",
    paper=BRAUD,
    where="Table II (§IV)",
    title="Testbed validation: one TCP upload over 800 kb/s / 52 ms with a 120-packet buffer, with and without "
          "250 pkt/s of 29 B UDP; sender window unlimited and limited to FreeBSD 9.1's 32 KiB",
    spec="braud-table2.toml",
    analyze=_analyze_table2,
    claims=_t2_claims(),
    assumptions=[
        "RTT is the mean of 10 pings per second client → server",
        "the paper's hosts ran FreeBSD 9.1, whose default send buffer (net.inet.tcp.sendspace) is 32 KiB; we run "
        "both that and an unlimited window",
        "NewReno (FreeBSD's default), Dummynet's 120 packets as a 120-packet FIFO, no link-layer framing",
        "TCP and UDP start at uniform(0 s, 1 s); the pinger at 0",
    ],
    discussion="Table II's two RTTs cannot both come from one sender model. An unlimited window fills the "
               "120-packet buffer (1.8 s at 800 kb/s), so the RTT without UDP is several times the paper's 280 ms; "
               "a 32 KiB window gives about the paper's 280 ms but then never fills the buffer, so the UDP stream "
               "has no overflow to bring forward and does not lower the RTT. The paper's hosts probably grew "
               "their buffers during the run. Our uplink utilization with UDP counts every byte on the link, UDP "
               "included, where the paper's 85% appears to count TCP only.",
))
