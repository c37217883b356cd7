//! Queue disciplines and sizing against TCP, end to end: what each AQM does to a bulk flow's
//! standing queue, to a sparse ping beside bulk flows, and SplitBuff's split of short- and
//! long-RTT flows (seed 004).

use crate::common;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use bufferlab_core::{run, RunOutput};
use common::*;
use serde_json::{json, Value};

const MBPS10: u64 = 10_000_000;

fn qdir(rate_bps: u64, delay_ns: u64, queue: Value) -> Value {
    json!({ "rate_bps": rate_bps, "delay_ns": delay_ns, "queue": queue })
}

/// `client -> server` over 10 Mb/s, 20 ms RTT, with `flows` bulk NewReno uploads and a ping.
fn upload(queue: Value, flows: u32, secs: u64) -> RunOutput {
    let mut v = access(
        qdir(MBPS10, 10 * NS_PER_MS, queue),
        dir(MBPS10, 10 * NS_PER_MS, 1000),
        json!([
            { "kind": "tcp", "pairs": [["client", "server"]], "count": flows },
            { "kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * NS_PER_MS,
              "start_ns": { "dist": "const", "value": 1234567.0 } },
        ]),
        secs * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, secs * NS_PER_SEC]);
    run(&scenario(v)).unwrap()
}

fn ms(x: Option<f64>) -> f64 {
    x.unwrap() * 1e3
}

/// RFC 8289 §1/§3: CoDel lets a bulk TCP flow keep the link busy with a standing queue near its
/// 5 ms target; the same flow through a 1000-packet FIFO fills it (1.2 s at 10 Mb/s).
#[test]
fn codel_holds_a_bulk_flow_near_target() {
    let codel = upload(
        json!({ "qdisc": { "kind": "codel" }, "limit_pkts": 1000 }),
        1,
        30,
    );
    let fifo = upload(
        json!({ "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 }),
        1,
        30,
    );
    let q = codel.queue("client->server").unwrap();
    let (mean, p50) = (ms(q.sojourn_mean_s), ms(q.sojourn_p50_s));
    let util = codel.link("client->server").unwrap().utilization;
    let fq = fifo.queue("client->server").unwrap();
    eprintln!(
        "codel sojourn mean {mean:.2} p50 {p50:.2} ms util {util:.3}; fifo mean {:.1} ms",
        ms(fq.sojourn_mean_s)
    );
    assert!(mean > 1.0 && mean < 10.0, "CoDel sojourn mean {mean} ms");
    assert!(util > 0.9, "utilization {util}");
    assert!(q.drops_by_reason.get("aqm").copied().unwrap_or(0) > 0);
    assert!(ms(fq.sojourn_mean_s) > 300.0);
}

/// RFC 8290 §1: beside four bulk flows, FQ-CoDel serves a sparse ping at once: its RTT stays at
/// the 20 ms path plus about a packet time, where behind a FIFO it waits for the whole queue.
#[test]
fn fq_codel_sparse_ping_beside_bulk_flows() {
    let fq = upload(
        json!({ "qdisc": { "kind": "fq_codel" }, "limit_pkts": 10240 }),
        4,
        30,
    );
    let fifo = upload(
        json!({ "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 }),
        4,
        30,
    );
    let p = fq.flow("ping-1").unwrap();
    let pf = fifo.flow("ping-1").unwrap();
    eprintln!(
        "fq_codel ping mean {:.2} p99 {:.2}; fifo ping {:.1} ms; fq util {:.3}",
        ms(p.rtt_mean_s),
        ms(p.rtt_p99_s),
        ms(pf.rtt_mean_s),
        fq.link("client->server").unwrap().utilization
    );
    assert!(ms(p.rtt_mean_s) < 22.0 && ms(p.rtt_p99_s) < 24.0);
    assert!(ms(pf.rtt_mean_s) > 200.0);
    assert!(fq.link("client->server").unwrap().utilization > 0.9);
}

/// Seed 004's set-up (`splitbuff.toml`): pairs `s_i -> r1 -> r2 -> d_i`, a 100 Mb/s, 1 ms
/// bottleneck whose buffer is one BDP over the mean RTT, 1 Gb/s access links of 2 ms and 247 ms
/// (round trips of 10 ms and 990 ms), one NewReno SACK flow per pair with 1000 B packets.
fn splitbuff_setup(qdisc: Value, secs: u64) -> RunOutput {
    let access_delay = [2 * NS_PER_MS, 247 * NS_PER_MS];
    let bott = || {
        qdir(
            100_000_000,
            NS_PER_MS,
            json!({ "qdisc": qdisc.clone(), "sizing": { "rule": "bdp" } }),
        )
    };
    let acc = |d: u64| {
        qdir(
            1_000_000_000,
            d,
            json!({ "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 }),
        )
    };
    let mut links = vec![json!({ "a": "r1", "b": "r2", "forward": bott(), "reverse": bott() })];
    for (i, d) in access_delay.iter().enumerate() {
        links.push(json!({ "a": format!("s{}", i + 1), "b": "r1", "forward": acc(*d), "reverse": acc(*d) }));
        links.push(json!({ "a": "r2", "b": format!("d{}", i + 1), "forward": acc(*d), "reverse": acc(*d) }));
    }
    let v = json!({
        "run": { "duration_ns": secs * NS_PER_SEC, "seed": 1, "measure_ns": [secs / 4 * NS_PER_SEC, secs * NS_PER_SEC] },
        "nodes": ["s1", "s2", "r1", "r2", "d1", "d2"],
        "links": links,
        "traffic": [{ "kind": "tcp", "pairs": [["s1", "d1"], ["s2", "d2"]],
                      // The paper's ns-2 SACK agents: no RACK, no F-RTO, no GSO, growth by cumulative ACKs.
                      "tcp": { "cc": "newreno", "sack": true, "mss_bytes": 960,
                               "rack": false, "frto": false, "gso": false,
                               // Growth by cumulative ACKs, RFC 3465's L = 2, as calibrated.
                               "abc_limit": 2, "grow_by_delivered": false } }],
    });
    run(&scenario(v)).unwrap()
}

/// Seed 004 §IV-B (the shared `splitbuff.toml`): with one BDP of buffer, the short-RTT flow
/// behind a FIFO takes most of the link and queues hundreds of milliseconds (Fig. 1, Fig. 5a);
/// SplitBuff gives it a sub-buffer sized for its own RTT (~1% of the buffer), so its RTT stays
/// near its 10 ms propagation, and round robin gives the two flows equal goodput (Fig. 4c);
/// Blind-SplitBuff, mapping flows at random, stays unfair and slow (§IV-B2, Fig. 6).
#[test]
fn splitbuff_vs_fifo() {
    let fifo = splitbuff_setup(json!({ "kind": "fifo" }), 200);
    let split = splitbuff_setup(json!({ "kind": "splitbuff" }), 200);
    let blind = splitbuff_setup(json!({ "kind": "blind_splitbuff", "buffers": 2 }), 200);
    let show = |name: &str, out: &RunOutput| {
        let (a, b) = (out.flow("tcp-1").unwrap(), out.flow("tcp-2").unwrap());
        let util = out.link("r1->r2").unwrap().utilization;
        eprintln!(
            "{name}: short {:.1} Mb/s rtt {:.1} ms | long {:.2} Mb/s rtt {:.1} ms | util {util:.3}",
            a.goodput_bps / 1e6,
            ms(a.rtt_mean_s),
            b.goodput_bps / 1e6,
            ms(b.rtt_mean_s),
        );
        // (short-flow RTT in ms, short / long goodput, utilization)
        (ms(a.rtt_mean_s), a.goodput_bps / b.goodput_bps, util)
    };
    let (f_rtt, f_ratio, _) = show("fifo", &fifo);
    let (s_rtt, s_ratio, s_util) = show("splitbuff", &split);
    let (b_rtt, b_ratio, _) = show("blind", &blind);
    assert_eq!(fifo.queue("r1->r2").unwrap().limit_pkts, Some(6250));
    assert!(f_rtt > 200.0, "FIFO short-flow RTT {f_rtt} ms");
    assert!(f_ratio > 20.0, "FIFO goodput ratio {f_ratio}");
    assert!(s_rtt < 20.0, "SplitBuff short-flow RTT {s_rtt} ms");
    assert!(
        (1.0 / 1.5..1.5).contains(&s_ratio),
        "SplitBuff goodput ratio {s_ratio}"
    );
    assert!(s_util > 0.95);
    assert!(b_rtt > 100.0, "Blind-SplitBuff short-flow RTT {b_rtt} ms");
    assert!(b_ratio > 5.0, "Blind-SplitBuff goodput ratio {b_ratio}");
}

/// Seed 003 §3.1's dumbbell with one pair: 10 Mb/s, 50 ms bottleneck, 0.5 ms access links at
/// 20 Mb/s (round trip 102 ms, BDP 85 packets of 1500 B), one NewReno flow.
fn gorinsky_one_flow(queue: Value, secs: u64) -> RunOutput {
    let bott = || qdir(MBPS10, 50 * NS_PER_MS, queue.clone());
    let acc = || {
        qdir(
            2 * MBPS10,
            NS_PER_MS / 2,
            json!({ "qdisc": { "kind": "fifo" }, "limit_pkts": 1000 }),
        )
    };
    let v = json!({
        "run": { "duration_ns": secs * NS_PER_SEC, "seed": 1, "measure_ns": [secs / 2 * NS_PER_SEC, secs * NS_PER_SEC] },
        "nodes": ["s1", "r1", "r2", "d1"],
        "links": [
            { "a": "s1", "b": "r1", "forward": acc(), "reverse": acc() },
            { "a": "r1", "b": "r2", "forward": bott(), "reverse": bott() },
            { "a": "r2", "b": "d1", "forward": acc(), "reverse": acc() },
        ],
        "traffic": [{ "kind": "tcp", "pairs": [["s1", "d1"]], "tcp": { "cc": "newreno" } }],
    });
    run(&scenario(v)).unwrap()
}

/// Seed 003 §4.2: a router that sizes its buffer by the RTT it measures (rate × mean RTT)
/// instead of the propagation delay drifts, for one NewReno flow, to about three BDPs (here
/// 3–3.6: the flow spends longer near the top of its sawtooth than the paper's uniform-delay
/// model assumes), and the RTT with it.
#[test]
fn rtt_adaptive_buffer_drifts_to_about_three_bdp() {
    let out = gorinsky_one_flow(
        json!({ "qdisc": { "kind": "fifo" }, "sizing": { "rule": "rtt-adaptive" } }),
        600,
    );
    let q = out.queue("r1->r2").unwrap();
    let f = out.flow("tcp-1").unwrap();
    let bdp = 85.0;
    let b = q.limit_pkts.unwrap() as f64 / bdp;
    eprintln!(
        "rtt-adaptive: {b:.2} BDP, rtt {:.0} ms, goodput {:.2} Mb/s",
        ms(f.rtt_mean_s),
        f.goodput_bps / 1e6
    );
    assert_eq!(q.sizing.as_deref(), Some("rtt-adaptive"));
    assert!((2.7..4.0).contains(&b), "{b} BDP");
    assert!(ms(f.rtt_mean_s) > 2.5 * 102.0);
    let fixed = gorinsky_one_flow(
        json!({ "qdisc": { "kind": "fifo" }, "sizing": { "rule": "bdp" } }),
        600,
    );
    let ff = fixed.flow("tcp-1").unwrap();
    assert_eq!(fixed.queue("r1->r2").unwrap().limit_pkts, Some(85));
    assert!(ms(ff.rtt_mean_s) < 0.6 * ms(f.rtt_mean_s));
    // Both keep the link busy: the extra buffer buys delay, not goodput.
    assert!(ff.goodput_bps > 0.95 * f.goodput_bps);
}

/// Seed 001 (Fig. 5, `linux-stack.toml`): an upload through fq_codel and a 512-descriptor ring.
/// With BQL auto the queue stays in the qdisc and the ping keeps its RTT; with BQL off the ring
/// holds ~512 packets (0.6 s at 10 Mb/s) and the ping waits behind them.
#[test]
fn bql_keeps_the_tcp_queue_where_the_aqm_sees_it() {
    let mk = |bql: Value| {
        let mut up = qdir(
            MBPS10,
            5 * NS_PER_MS,
            json!({ "qdisc": { "kind": "fq_codel" }, "limit_pkts": 10240 }),
        );
        up["ring"] = json!({ "size": 512, "bql": bql });
        let mut v = access(
            up,
            dir(MBPS10, 5 * NS_PER_MS, 1000),
            // TCP small queues off: the ring stands for a queue the flow does not own (Cardozo et
            // al.'s router B forwards the upload; TSQ bounds only a sender's own host).
            json!([
                { "kind": "tcp", "pairs": [["client", "server"]], "tcp": { "cc": "cubic", "tsq": false } },
                { "kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100 * NS_PER_MS },
            ]),
            60 * NS_PER_SEC,
            1,
        );
        v["run"]["measure_ns"] = json!([10 * NS_PER_SEC, 60 * NS_PER_SEC]);
        run(&scenario(v)).unwrap()
    };
    let auto = mk(json!("auto"));
    let off = mk(json!("off"));
    let (pa, po) = (auto.flow("ping-1").unwrap(), off.flow("ping-1").unwrap());
    let (qa, qo) = (
        auto.queue("client->server").unwrap(),
        off.queue("client->server").unwrap(),
    );
    eprintln!(
        "bql auto: ping {:.1} ms, ring {:.2} ms, limit {:?}, tcp {:.2} Mb/s | off: ping {:.1} ms, ring {:.1} ms, tcp {:.2} Mb/s",
        ms(pa.rtt_mean_s), ms(qa.ring_sojourn_mean_s), qa.bql_limit_bytes, auto.flow("tcp-1").unwrap().goodput_bps / 1e6,
        ms(po.rtt_mean_s), ms(qo.ring_sojourn_mean_s), off.flow("tcp-1").unwrap().goodput_bps / 1e6
    );
    assert!(
        ms(pa.rtt_mean_s) < 15.0,
        "ping with BQL {}",
        ms(pa.rtt_mean_s)
    );
    assert!(ms(qa.ring_sojourn_mean_s) < 3.0);
    assert!(ms(po.rtt_mean_s) > 10.0 * ms(pa.rtt_mean_s));
    assert!(ms(qo.ring_sojourn_mean_s) > 300.0);
    assert!(auto.link("client->server").unwrap().utilization > 0.95);
}

/// One Cubic upload with Linux's recovery (SACK, RACK, F-RTO, PRR: the defaults) through CoDel
/// or FQ-CoDel in the host's egress (ring 512, BQL auto): `linux-stack.toml` with the queue the
/// kernel backend measures Linux through. Linux 6.18's Cubic through the same CoDel drops 115
/// packets and resends 112 in 30 s, with a 5.6 ms mean sojourn (docs/validation-linux.md).
/// A reduction taken from FlightSize (`ssthresh_from = "flight"`) counts the SACKed segments
/// above a hole: when a loss among the segments a recovery sent starts the next recovery, the
/// new ssthresh (0.7 × FlightSize) exceeds the window, PRR grows the window to it, and recovery
/// after recovery ratchets the window up, as long as PRR lets the pipe climb on every ACK below
/// ssthresh (RFC 6937); Linux's lets it climb only on ACKs that advance SND.UNA and report no new
/// loss, which breaks the chain (the last part below).
#[test]
fn cubic_with_rack_through_codel_reduces_as_linux() {
    let mk_upload = |qdisc: &str, limit: u64, from: &str, hystart: bool, ring: bool| {
        let mut up = qdir(
            MBPS10,
            5 * NS_PER_MS,
            json!({ "qdisc": { "kind": qdisc }, "limit_pkts": limit }),
        );
        if ring {
            up["ring"] = json!({ "size": 512, "bql": "auto" });
        }
        let mut v = access(
            up,
            dir(MBPS10, 5 * NS_PER_MS, 1000),
            // TCP small queues off, as the kernel backend's Linux, whose TSQ sees only its own
            // TUN device, not the engine's queue (docs/kernel-backend.md).
            json!([{ "kind": "tcp", "pairs": [["client", "server"]],
                     "tcp": { "cc": "cubic", "ssthresh_from": from, "cubic_hystart": hystart,
                              "tsq": false } }]),
            40 * NS_PER_SEC,
            1,
        );
        v["run"]["measure_ns"] = json!([10 * NS_PER_SEC, 40 * NS_PER_SEC]);
        run(&scenario(v)).unwrap()
    };
    let mk = |qdisc: &str, limit: u64, from: &str, hystart: bool| {
        mk_upload(qdisc, limit, from, hystart, true)
    };
    for (qdisc, limit) in [("codel", 1000), ("fq_codel", 10240)] {
        for hystart in [true, false] {
            let linux = mk(qdisc, limit, "cwnd", hystart);
            let (q, f) = (
                linux.queue("client->server").unwrap(),
                linux.flow("tcp-1").unwrap(),
            );
            eprintln!(
                "{qdisc}, hystart {hystart}: {} drops, {} resent, {} timeouts, sojourn {:.2} ms",
                q.dropped,
                f.retransmits,
                f.timeouts,
                ms(q.sojourn_mean_s)
            );
            // Linux: 115 drops and 112 resends (±50%), a 5.6 ms sojourn, no timeouts.
            assert!(
                (58..=175).contains(&q.dropped),
                "{qdisc}: {} drops",
                q.dropped
            );
            assert!(
                f.retransmits <= q.dropped + 10,
                "{qdisc}: {} resent for {} drops",
                f.retransmits,
                q.dropped
            );
            assert!(
                ms(q.sojourn_mean_s) < 8.0,
                "{qdisc}: sojourn {}",
                ms(q.sojourn_mean_s)
            );
            assert_eq!(f.timeouts, 0, "{qdisc}");
        }
        // The FlightSize rule (RFC 5681 eq. 4) with Linux's PRR: below ssthresh the pipe climbs
        // only on ACKs that advance SND.UNA and report no new loss (`tcp_cwnd_reduction`). With
        // RFC 6937's bound, a segment more on every ACK, the FlightSize rule ratcheted here:
        // 11,515 drops and 237 ms through CoDel, 18,304 and 653 ms through FQ-CoDel; with
        // Linux's, 134 drops and 6.3 ms, near the default's 114.
        let rfc = mk_upload(qdisc, limit, "flight", false, false);
        let qr = rfc.queue("client->server").unwrap();
        eprintln!(
            "{qdisc}, flight: {} drops, sojourn {:.2} ms",
            qr.dropped,
            ms(qr.sojourn_mean_s)
        );
        assert!(qr.dropped < 300, "{qdisc}: flight {} drops", qr.dropped);
        assert!(
            ms(qr.sojourn_mean_s) < 10.0,
            "{qdisc}: flight sojourn {}",
            ms(qr.sojourn_mean_s)
        );
    }
}

/// RFC 9332 §2.1 / Appendix A: classic TCP through DualPI2 sits in the C queue, whose PI controller
/// (p_C = p'², target 15 ms) holds the sojourn near 15 ms with the link kept busy; with ECN the
/// same flows (ECT(0), still classic) are marked rather than dropped.
#[test]
fn dualpi2_holds_classic_flows_near_target() {
    let q = json!({ "qdisc": { "kind": "dualpi2" }, "limit_pkts": 10000 });
    let reno = upload(q.clone(), 4, 15);
    let s = reno.queue("client->server").unwrap();
    let (mean, util) = (
        ms(s.sojourn_mean_s),
        reno.link("client->server").unwrap().utilization,
    );
    let aqm = s.drops_by_reason.get("aqm").copied().unwrap_or(0);
    eprintln!("dualpi2 reno: sojourn {mean:.2} ms util {util:.3} aqm drops {aqm}");
    assert!((mean - 15.0).abs() < 3.0, "sojourn mean {mean} ms");
    assert!(util > 0.95, "utilization {util}");
    assert!(aqm > 0 && s.marked == 0);

    let mut v = access(
        qdir(MBPS10, 10 * NS_PER_MS, q),
        dir(MBPS10, 10 * NS_PER_MS, 1000),
        json!([{ "kind": "tcp", "pairs": [["client", "server"]], "count": 4, "tcp": { "ecn": true } }]),
        15 * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, 15 * NS_PER_SEC]);
    let ecn = run(&scenario(v)).unwrap();
    let s = ecn.queue("client->server").unwrap();
    let mean = ms(s.sojourn_mean_s);
    eprintln!("dualpi2 reno ecn: sojourn {mean:.2} ms marked {}", s.marked);
    assert!((mean - 15.0).abs() < 3.0, "sojourn mean {mean} ms");
    assert!(s.marked > 0 && s.drops_by_reason.get("aqm").copied().unwrap_or(0) == 0);
}

/// FQ-PIE (Linux `sch_fq_pie`): each flow queue's PIE holds its own delay near the 15 ms target
/// (RFC 8033 §4.2), so four bulk flows keep the link busy with a standing queue near 15 ms, and
/// the ping beside them, a sparse flow, is served from the new list without waiting for it.
#[test]
fn fq_pie_holds_each_flow_near_target_and_isolates_the_ping() {
    let out = upload(
        json!({ "qdisc": { "kind": "fq_pie" }, "limit_pkts": 10240 }),
        4,
        30,
    );
    let s = out.queue("client->server").unwrap();
    let (mean, util) = (
        ms(s.sojourn_mean_s),
        out.link("client->server").unwrap().utilization,
    );
    let rtt = ms(out.flow("ping-1").unwrap().rtt_p50_s);
    let aqm = s.drops_by_reason.get("aqm").copied().unwrap_or(0);
    eprintln!("fq_pie: sojourn {mean:.2} ms util {util:.3} aqm {aqm} ping p50 {rtt:.2} ms");
    assert!((mean - 15.0).abs() < 3.0, "sojourn mean {mean} ms");
    assert!(util > 0.95, "utilization {util}");
    assert!(aqm > 0);
    // 20 ms of path, a packet time or two ahead of it: not the bulk flows' 15 ms.
    assert!(rtt < 24.0, "ping p50 {rtt} ms");
}
