//! DCTCP end to end over [`super::testnet`]: the receiver's echo and the sender's α against a
//! fixed marking probability, and one flow behind a step-marking queue against the analysis of
//! Alizadeh et al. (SIGCOMM 2010, §3.3).

use super::cc::Cc;
use super::params::{CcKind, TcpOptions, TcpParams};
use super::testnet::Net;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;

fn params(cc: CcKind) -> TcpParams {
    TcpOptions {
        cc,
        ..TcpOptions::default()
    }
    .resolve()
}

fn alpha(net: &Net) -> f64 {
    match net.sender.conns()[0].cc() {
        Cc::Dctcp(d) => d.alpha(),
        Cc::Prague(p) => p.alpha(),
        _ => unreachable!(),
    }
}

/// A deterministic marking rule: each ECN-capable packet is marked with probability `p`
/// (xorshift64 from a fixed seed).
fn bernoulli(p: f64) -> super::testnet::DropRule {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    Box::new(move |_, _| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 11) as f64 / (1u64 << 53) as f64) < p
    })
}

/// Run to 15 s; α's mean over 5–15 s, sampled every 10 ms.
fn mean_alpha(net: &mut Net) -> f64 {
    let mut samples = Vec::new();
    let mut t = T0 + 5 * SEC;
    net.run(t);
    while t < T0 + 15 * SEC {
        t += 10 * MS;
        net.run(t);
        samples.push(alpha(net));
    }
    samples.iter().sum::<f64>() / samples.len() as f64
}

/// RFC 8257 §3.2-3.3: every mark is echoed on exactly the ACKs that cover it (delayed ACKs and
/// all), so α converges to the marking probability. An RFC 3168 echo (ECE held until CWR) would
/// report far more than were marked.
#[test]
fn alpha_converges_to_a_fixed_marking_probability() {
    for p in [0.05, 0.2] {
        let mut net = Net::new(params(CcKind::Dctcp), None, 100_000_000, 5 * MS, 1000);
        net.mark = bernoulli(p);
        let mean = mean_alpha(&mut net);
        let ce = net.stats().ce_received.total;
        let c = &net.sender.conns()[0];
        eprintln!(
            "p {p}: mean α {mean:.4}, ce {ce}, sent {}, retx {}, reductions {}, cwnd {}",
            net.stats().pkts_sent.total,
            net.stats().retransmits.total,
            c.ecn_reductions(),
            c.cwnd_bytes() / 1448
        );
        assert!(
            (mean - p).abs() < 0.15 * p + 0.005,
            "p {p}: α averages {mean:.4}"
        );
        assert!(net.sender.conns()[0].ecn_ok());
    }
}

/// One flow through a queue that marks every packet arriving to K or more packets (the step
/// marking of RFC 8257 §3.1). The analysis (Alizadeh et al. 2010 §3.3, N = 1): the window
/// peaks at W* = C·RTT + K, α ≈ sqrt(2/W*), each window of marks takes D = (W* + 1)·α/2
/// segments off, so the queue swings by A = ½·sqrt(2·(C·RTT + K)) packets below its peak of
/// K + 1 and never empties when K > A: full throughput with a queue near K. Halving (α = 1, or
/// Reno) would swing it by W*/2.
/// What one flow does behind a step-marking queue at `K` packets on 100 Mb/s, 12 ms: the mean
/// peak-to-trough of the queue per 0.5 s block (about five sawtooth periods), the queue's range,
/// the mean α (DCTCP), the link's use.
struct Step {
    swing: f64,
    qmin: usize,
    qmax: usize,
    alpha: f64,
    util: f64,
}

const STEP_RATE: u64 = 100_000_000;
const K: usize = 20;

fn step_marking(p: TcpParams) -> Step {
    // The analysis is of packets sent one at a time: no GSO bursts (10 segments at this rate).
    let p = TcpParams { gso: false, ..p };
    let mut net = Net::new(p, None, STEP_RATE, 6 * MS, 1000);
    net.mark_at_pkts = Some(K);
    let mut q = Vec::new();
    let mut t = T0 + 3 * SEC;
    net.run(t);
    let acked0 = net.sender.conns()[0].acked_bytes();
    let mut alphas = Vec::new();
    while t < T0 + 9 * SEC {
        t += Duration::from_us(200);
        net.run(t);
        q.push(net.queue_len());
        if matches!(net.sender.conns()[0].cc(), Cc::Dctcp(_)) {
            alphas.push(alpha(&net));
        }
    }
    let acked = net.sender.conns()[0].acked_bytes() - acked0;
    let blocks: Vec<usize> = q
        .chunks(2500)
        .map(|b| b.iter().max().unwrap() - b.iter().min().unwrap())
        .collect();
    Step {
        swing: blocks.iter().sum::<usize>() as f64 / blocks.len() as f64,
        qmin: *q.iter().min().unwrap(),
        qmax: *q.iter().max().unwrap(),
        alpha: alphas.iter().sum::<f64>() / alphas.len().max(1) as f64,
        // Payload rate: 1448 B of each 1500 B packet.
        util: acked as f64 / (6.0 * STEP_RATE as f64 / 8.0 * 1448.0 / 1500.0),
    }
}

/// One flow through a queue that marks every packet arriving to K or more packets (the step
/// marking of RFC 8257 §3.1). The analysis (Alizadeh et al. 2010 §3.3, N = 1): the window
/// peaks at W* = C·RTT + K, α ≈ sqrt(2/W*), each window of marks takes D = (W* + 1)·α/2
/// segments off, so the queue swings by A = ½·sqrt(2·(C·RTT + K)) packets below its peak of
/// K + 1 and never empties when K > A: full throughput with a queue near K. Halving on marks
/// (RFC 3168 Reno, or DCTCP with α held at 1) takes W*/2 off the window and empties it.
#[test]
fn step_marking_queue_swings_by_the_analysis_amplitude() {
    // 1500 B packets at 100 Mb/s: 120 µs each; the base RTT 12 ms plus a packet's
    // serialization.
    let pkt_ns = 1500.0 * 8.0 / STEP_RATE as f64 * 1e9;
    let bdp = (12e6 + pkt_ns) / pkt_ns;
    let w_star = bdp + K as f64;
    let amplitude = 0.5 * (2.0 * w_star).sqrt();
    let d = step_marking(params(CcKind::Dctcp));
    eprintln!(
        "W* {w_star:.1}: swing {:.1} (analysis {amplitude:.2}), queue {}..{}, α {:.3} \
         (analysis {:.3}), utilization {:.4}",
        d.swing,
        d.qmin,
        d.qmax,
        d.alpha,
        (2.0 / w_star).sqrt(),
        d.util
    );
    assert!(
        (d.swing - amplitude).abs() < 0.35 * amplitude,
        "swing {:.1} vs {amplitude:.2}",
        d.swing
    );
    assert!(d.qmin > 0, "the queue never empties");
    assert!(d.qmax <= K + 4, "peak {}", d.qmax);
    assert!(d.util > 0.99, "utilization {:.4}", d.util);
    // The same queue with RFC 3168 Reno (halving on marks).
    let reno = step_marking(
        TcpOptions {
            ecn: true,
            ..TcpOptions::default()
        }
        .resolve(),
    );
    eprintln!(
        "reno: swing {:.1}, queue {}..{}, utilization {:.4}",
        reno.swing, reno.qmin, reno.qmax, reno.util
    );
    // Its window falls by W*/2 = 60 packets, below the BDP: the queue empties each cycle (the
    // swing is clipped at zero) and the link idles.
    assert!(reno.qmin == 0 && reno.util < 0.9, "reno {:.4}", reno.util);
}

/// Prague with AccECN (RFC 9768): data leaves ECT(1), the handshake agrees AccECN, and the
/// sender learns every mark from the ACE field — its count equals the CE packets the receiver
/// got (no ACK is lost here) — so α follows the marking probability as DCTCP's does.
#[test]
fn prague_learns_each_mark_through_accecn() {
    let p = 0.1;
    let mut net = Net::new(params(CcKind::Prague), None, 100_000_000, 5 * MS, 1000);
    net.mark = bernoulli(p);
    let ect1 = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let seen = ect1.clone();
    net.dup = Box::new(move |pkt, _| {
        if pkt.tcp.len > 0 && matches!(pkt.ecn, crate::packet::Ecn::Ect1 | crate::packet::Ecn::Ce) {
            seen.set(seen.get() + 1);
        }
        0
    });
    let mean = mean_alpha(&mut net);
    let c = &net.sender.conns()[0];
    let ce = net.stats().ce_received.total;
    eprintln!(
        "prague: accecn {}, learnt {} of {ce} marks, α {mean:.4}, ECT(1) data {} of {}",
        c.accecn_ok(),
        c.accecn_marks(),
        ect1.get(),
        net.stats().pkts_sent.total
    );
    assert!(c.accecn_ok() && c.ecn_ok());
    // Every mark but those whose ACK is still on its way when the run stops: the path holds about
    // 90 packets (100 Mb/s × 10 ms), about 9 marks at p = 0.1. A lost count (ACE wrapping past
    // 8 between ACKs) would miss marks all along, hundreds in this run.
    let learnt = c.accecn_marks();
    assert!(learnt <= ce && ce - learnt <= 10, "learnt {learnt} of {ce}");
    assert!(ce > 1000);
    assert!((mean - p).abs() < 0.15 * p + 0.005, "α {mean:.4}");
    // Every data packet went ECT(1) (CE once marked): retransmissions excepted, none here.
    assert_eq!(net.stats().retransmits.total, 0);
    assert_eq!(ect1.get(), net.sent.len() as u64);
}
