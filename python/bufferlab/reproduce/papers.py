"""The seed papers and the papers of the models built on them, cited by author and year."""

from .item import Paper, TcpProfile

BRAUD = Paper("braud", "Braud, Heusse & Duda (2014)",
              "TCP over Large Buffers: When Adding Traffic Improves Latency", "ITC 26, Karlskrona",
              stack=TcpProfile("freebsd91", "TCP as in the paper's FreeBSD 9.1 hosts", [
                  ("rack", False, "no RACK"),
                  ("prr", False, "no PRR: FreeBSD 9.1's SACK recovery (`tcp_sack.c`) is RFC 3517's, sending while "
                                 "the pipe is below the halved window; PRR (RFC 6937) came to FreeBSD's base stack "
                                 "in 2021"),
                  ("abc_limit", 2, "slow start grows by at most two segments per ACK (RFC 3465's L, "
                                   "`net.inet.tcp.abc_l_var` 2)"),
                  ("grow_by_delivered", False, "the window grows by the bytes an ACK acknowledges cumulatively "
                                               "(`cc_ack_received`'s `bytes_this_ack`), not by what it SACKs"),
                  ("frto", False, "no F-RTO: FreeBSD 9.1 judges a timeout by its own rule (next row)"),
                  ("badrxt_undo", True, "FreeBSD's undo of a bad retransmission timeout: an ACK of new data within "
                                        "half an SRTT of the first timeout's retransmission restores cwnd and "
                                        "ssthresh and resends nothing more (`t_badrxtwin`, `cc_cong_signal(CC_RTO_ERR)` "
                                        "in `tcp_input.c`)"),
                  ("dsack", False, "no D-SACK (RFC 2883): FreeBSD 9.1's receiver reports no duplicate "
                                   "(9.1's `tcp_sack.c` builds plain SACK blocks only)"),
                  ("sndbuf", "32KiB", "`net.inet.tcp.sendspace` 32768 (FreeBSD 9.x)"),
                  ("sndbuf_auto", True, "`net.inet.tcp.sendbuf_auto` 1: grown while it is what limits the "
                                        "connection ([tcp-buffers.md](tcp-buffers.md))"),
                  ("sndbuf_inc", "8KiB", "`net.inet.tcp.sendbuf_inc` 8192"),
                  ("sndbuf_max", "2MiB", "`net.inet.tcp.sendbuf_max` 2097152"),
                  ("rwnd", "64KiB", "`net.inet.tcp.recvspace` 65536"),
                  ("rwnd_auto", True, "`net.inet.tcp.recvbuf_auto` 1 (needs the timestamp option, on)"),
                  ("rwnd_inc", "16KiB", "`net.inet.tcp.recvbuf_inc` 16384"),
                  ("rwnd_max", "2MiB", "`net.inet.tcp.recvbuf_max` 2097152"),
                  ("gso", False, "no GSO bursts: FreeBSD's TSO sends what the window allows in one buffer, "
                                 "without Linux's autosizing and deferral, and is not modelled"),
                  ("tlp", False, "no tail loss probes (they came to FreeBSD years later, with its alternative RACK "
                                 "stack, never to 9.1's default one)"),
                  ("initial_window", 3, "RFC 3390's initial window, min(4·MSS, max(2·MSS, 4380 B)) = 4380 B: three "
                                        "1448 B segments (`net.inet.tcp.rfc3390` 1; ten segments came to FreeBSD "
                                        "after 9.1, behind `net.inet.tcp.experimental.initcwnd10`)"),
                  ("initial_rto", "3s", "`TCPTV_RTOBASE` 3 s before the first RTT sample, also for the SYN (RFC 2988's; "
                                        "FreeBSD took RFC 6298's 1 s in 2020); not modelled: its SYN retries at "
                                        "a constant 3 s for the first five (`tcp_syn_backoff`), where bufferlab "
                                        "doubles"),
                  ("delack", "100ms", "`net.inet.tcp.delacktime` 100 ms (`TCPTV_DELACK`, hz/10)"),
                  ("min_rto", "200ms", "`net.inet.tcp.rexmit_slop` 200 ms; not modelled: FreeBSD adds it to "
                                       "SRTT + 4·RTTVAR (`TCPT_RANGESET`) where bufferlab takes the larger of "
                                       "the two; the floor `rexmit_min` (30 ms) never binds beside it"),
                  ("quickack", False, "no quick ACKs at a connection's start: FreeBSD 9.1 delays the ACK of the "
                                      "first segments too (`DELAY_ACK` in `tcp_input.c`)"),
                  ("comp_sack", False, "no SACK compression (Linux's since 4.19): FreeBSD 9.1 answers every "
                                       "out-of-order segment with an ACK at once (`tcp_input.c`)"),
                  ("sack_rtt", False, "no RTT sample from an ACK that only SACKs (Linux's since 3.12): FreeBSD "
                                      "9.1 times the RTT from the ACKs of new data (`tcp_xmit_timer`)"),
                  ("push_ack", False, "PSH does not hurry an ACK (`DELAY_ACK` in `tcp_input.c` looks at the "
                                      "segment's length only)"),
                  ("window_quickack", False, "a segment that grows the receive window waits for the delayed "
                                             "ACK like any other: FreeBSD 9.1 ACKs every second segment "
                                             "(`DELAY_ACK` in `tcp_input.c`), its buffer's growth aside"),
                  ("cubic_beta", 0.8, "FreeBSD's own Cubic (`cc_cubic`): `CUBIC_BETA` 204/256, fast convergence at "
                                      "0.9 (`CUBIC_FC_FACTOR` 230/256); not modelled: its halving at a connection's "
                                      "first congestion event (`cubic_ssthresh_update`)"),
                  ("cubic_hystart", False, "no HyStart: FreeBSD 9.1's `cc_cubic` leaves slow start at the first loss"),
                  ("grow_below_rwnd", True, "the window grows while it is at most the peer's window, used or not "
                                            "(`cc_ack_received` sets `CCF_CWND_LIMITED` while snd_cwnd <= snd_wnd; "
                                            "NewReno's and Cubic's `ack_received` grow only then), not by Linux's "
                                            "test of use"),
              ]))
CARDOZO = Paper("cardozo", "Cardozo, Vieira, Ziviani & Couto da Silva (2015?)",
                "On the Interoperability of Bufferbloat Solutions",
                "the text carries no date; its latest reference is from 2014",
                stack=TcpProfile("linux2014", "TCP as in the Linux of the paper's time (its references end in 2014)", [
                    ("rack", False, "no RACK, which Linux gained in 4.4 at the end of 2015 (F-RTO stays on, as "
                                    "since 2.6.24)"),
                    ("grow_by_delivered", False, "the window grows by the packets an ACK acknowledges cumulatively "
                                                 "(`tcp_ack` hands `tcp_cong_avoid` the fall of `packets_out`), not by "
                                                 "what it newly delivered (`acked_sacked`, later); no per-ACK cap, as "
                                                 "since 3.8"),
                    ("comp_sack", False, "no SACK compression, which Linux gained in 4.19 (2018): an ACK for every "
                                         "out-of-order segment at once"),
                    ("push_ack", False, "a full segment carrying PSH waits for the delayed ACK like any other: "
                                        "Linux ACKs it alone only since 6.6 (2023, 'tcp: fix delayed ACKs for MSS "
                                        "boundary condition')"),
                    ("tsq", False, "no TCP small queues on the queue studied: the paper's qdisc and ring are router "
                                   "B's egress, which forwards the upload from host A, and TCP small queues bound "
                                   "only a sender's own host (see the item's last paragraph for what they would do "
                                   "there)"),
                ]))
# ns-2 (2.35, `tcl/lib/ns-default.tcl` and `tcp/tcp.cc`; each default's change is dated in the
# file) as far as bufferlab's TCP can follow it: one setting per TCP key, the ns-2 default it
# stands for beside it. Not followed: the 10 ms clock of the RTT estimator (`tcpTick_ 0.01`),
# limited transmit on the first two duplicate ACKs (`singledup_ 1`), ns-2's receiver window of
# 20 packets (`window_ 20`, which no buffer-sizing experiment can have kept: the papers' flows
# are limited by the network) and the clearing of SRTT after 8 back-offs (`rtt_backoff`).
NS2 = TcpProfile("ns2", "ns-2's `Agent/TCP/Newreno` sending to a `TCPSink`, with ns-2's defaults", [
    ("cc", "newreno", "`Agent/TCP/Newreno` (`decrease_num_ 0.5`, `increase_num_ 1.0`)"),
    ("sack", False, "no SACK: `Agent/TCP/Newreno` and `TCPSink` (the SACK agents are `Sack1`)"),
    ("prr", False, "no PRR (ns-2's NewReno recovery: RFC 2582/6582, `partial_window_deflation_ 1`)"),
    ("rack", False, "no RACK"),
    ("frto", False, "no F-RTO (`frto_enabled_ 0`)"),
    ("dsack", False, "no D-SACK (RFC 2883): ns-2's sinks report no duplicate"),
    ("delayed_ack", False, "an ACK for every packet (`TCPSink`; the delayed-ACK sink is `TCPSink/DelAck`)"),
    ("timestamps", False, "no timestamp option (`timestamps_ false`)"),
    ("initial_window", 2, "`windowInit_ 2` (default since 2001/5/26)"),
    ("abc_limit", 1, "slow start grows by one segment per new ACK, however much it acknowledges (ns-2's "
                     "`opencwnd`: `cwnd_ += 1` below `ssthresh_`)"),
    ("handshake", True, "a set-up round trip before the data (`syn_ true`, `delay_growth_ true`: a 40 B "
                        "packet first, the window held at 1 until it is acknowledged, then `windowInit_`)"),
    ("initial_rto", "3s", "`rtxcur_init_ 3.0`"),
    ("min_rto", "200ms", "`minrto_ 0.2`"),
    ("rto_floor", "total", "the floor on the whole RTO, max(`minrto_`, SRTT + 4·RTTVAR) (`rtt_timeout`)"),
    ("max_rto", "60s", "`maxrto_ 60`"),
    ("rtt_samples", "one_per_rtt", "one segment timed per round trip, dropped at a retransmission "
                                   "(`rtt_active_`, `rtt_seq_`; no timestamps to echo)"),
    ("gso", False, "each segment sent on its own as the window allows (ns-2 has no GSO)"),
    ("rto_rearm", False, "the retransmission timer restarted by new ACKs (RFC 6298 §5.3, ns-2's `newtimer`), "
                         "not at each resend of the oldest segment as Linux"),
    ("tlp", False, "no tail loss probes (ns-2's agents have none; with SACK they would apply)"),
])
# Jabeen et al. §IV: "We use TCP SACK in all scenarios": ns-2's `Agent/TCP/Sack1` to a
# `TCPSink/Sack1`, otherwise as NS2.
NS2_SACK = NS2.derive("ns2_sack", "ns-2's `Agent/TCP/Sack1` sending to a `TCPSink/Sack1`, with ns-2's defaults", [
    ("cc", "newreno", "the Reno window of `Agent/TCP/Sack1` (`decrease_num_ 0.5`, `increase_num_ 1.0`)"),
    ("sack", True, "SACK (`Agent/TCP/Sack1`, `TCPSink/Sack1`, `maxSackBlocks_ 3`; bufferlab's recovery is "
                   "RFC 6675's, ns-2's Sack1 that of Fall & Floyd 1996, both pipe-based)"),
    ("prr", False, "no PRR: the recovery sends what the pipe allows, as Sack1's"),
    ("comp_sack", False, "no SACK compression: `TCPSink/Sack1` ACKs every out-of-order packet at once"),
    ("sack_rtt", False, "no RTT sample from an ACK that only SACKs: the timed segment is sampled when the "
                        "cumulative ACK covers it, as in NS2"),
    ("grow_by_delivered", False, "the window grows on new (cumulative) ACKs only, by ns-2's rule above, not by "
                                 "what an ACK SACKs"),
])

GORINSKY = Paper("gorinsky", "Gorinsky, Kantawala & Turner (2005)",
                 "Link Buffer Sizing: A New Look at the Old Problem", "IEEE ISCC 2005",
                 # Its ns-2 is cited "May 2004": ns-2.27 (January 2004), whose timers predate the
                 # 2004–2007 changes NS2 follows (ns-default.tcl of ns-2.26/2.27: `minrto_ 1`,
                 # "Default set to 1 on 2001/05/14"; `rtxcur_init_ 6.0`; `maxrto_ 100000`).
                 stack=NS2.derive("ns2", NS2.what + " as of ns-2.27 (the paper cites ns-2 as of May 2004)", [
                     ("initial_rto", "6s", "`rtxcur_init_ 6.0` (3.0 only from 2006/01/21)"),
                     ("min_rto", "1s", "`minrto_ 1`, \"Default set to 1 on 2001/05/14\" (200 ms only from "
                                       "2004/10/14, ns-2.28)"),
                     ("max_rto", "3600s", "`maxrto_ 100000`, no bound in a 200 s run (60 s only from 2007/03/28); "
                                          "3600 s is the largest bufferlab accepts"),
                     ("mss", "1460B", "§3.1: \"datagrams of size 1500 bytes\" (1460 B of data and 40 B of headers; "
                                      "ns-2's default `packetSize_` is 1000)"),
                 ]))
JABEEN = Paper("jabeen", "Jabeen, Zafar, Qazi & Uzmi (2011?)",
               "SplitBuff: Improving the Interaction of Heterogeneous RTT Flows on the Internet",
               "the text carries no date; its latest reference is from 2010",
               stack=NS2_SACK.derive("ns2_sack", NS2_SACK.what, [
                   ("mss", "1000B", "§II: \"packet size to 1 KB\", ns-2's `packetSize_ 1000` (1040 B with the "
                                    "40 B of headers)"),
               ]))
KLEINROCK = Paper("theory", "Kleinrock (1975)", "Queueing Systems, vol. 1", "§5.6, Pollaczek–Khinchine")
BBR = Paper("bbr", "Hock, Bless & Zitterbart (2017); Ware, Mukerjee, Seshan & Sherry (2019)",
            "Experimental Evaluation of BBR Congestion Control; Modeling BBR's Interactions with Loss-Based "
            "Congestion Control", "IEEE ICNP 2017; ACM IMC 2019")
CAKE = Paper("cake", "Høiland-Jørgensen, Täht & Morton (2018)",
             "Piece of CAKE: A Comprehensive Queue Management Solution for Home Gateways",
             "IEEE LANMAN 2018")
L4S = Paper("l4s", "De Schepper, Briscoe & White (2023); Briscoe et al. (2023); De Schepper et al. (2016)",
            "Dual-Queue Coupled AQM for L4S (RFC 9332); L4S Architecture (RFC 9330); PI2: A Linearized AQM "
            "for both Classic and Scalable TCP", "IETF RFCs 9330–9332; ACM CoNEXT 2016",
            stack=TcpProfile("linux_l4s", "TCP as in the Linux of the L4S experiments (TCP Prague's kernels, "
                             "before 6.6)", [
                ("push_ack", False, "a full segment carrying PSH waits for the delayed ACK like any other: "
                                    "Linux ACKs it alone only since 6.6 (October 2023, after the measurements "
                                    "the RFCs and l4s-tests report)"),
            ]))
