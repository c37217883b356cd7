//! BBR end to end over [`super::testnet`]: one flow on a 10 Mb/s, 40 ms path with a FIFO of
//! 1000 packets (30 BDP, never full for BBR), sampled every millisecond, against what Cardwell
//! et al. (2016) and Linux's `tcp_bbr.c` say the modes do.

use super::cc::bbr::{Bbr, Mode, HIGH_GAIN, UNIT};
use super::cc::Cc;
use super::params::{CcConfig, TcpParams};
use super::testnet::Net;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;
const RATE: u64 = 10_000_000;
const DELAY: Duration = Duration::from_ms(20);
const SEG: u64 = 1448;
/// The bottleneck's payload rate: 1448 B of every 1500 B packet, bytes/s.
const PAYLOAD_RATE: u64 = RATE / 8 * SEG / 1500;
/// One BDP in packets: the payload rate over the 41.2 ms round trip (two 20 ms delays and a
/// packet's serialization), 34.3, rounded up as `bbr_bdp` does.
const BDP_PKTS: u64 = 35;
/// What Linux's BBR adds to cwnd_gain × BDP: the ACK-aggregation allowance (2 packets with
/// delayed ACKs), three bursts of 2 segments (`bbr_quantization_budget`), the rounding up to an
/// even count, and 2 more in the probing phase.
const BUDGET_PKTS: u64 = 2 + 6 + 1 + 2;

/// BBR with single-segment departures (GSO off), as the figures above assume; GSO pairs are
/// tested in `edt_tests.rs` and `gso.rs`, and what they change in the matrix is in
/// docs/validation-linux-differences.md.
fn params() -> TcpParams {
    TcpParams {
        cc: CcConfig::Bbr,
        pacing: true,
        gso: false,
        ..TcpParams::default()
    }
}

fn bbr(net: &Net) -> &Bbr {
    match net.sender.conns()[0].cc() {
        Cc::Bbr(b) => b,
        _ => unreachable!(),
    }
}

/// The state every millisecond.
#[derive(Clone, Copy, Debug)]
struct Tick {
    t: Instant,
    mode: Mode,
    rounds: u64,
    max_bw: u64,
    queue: usize,
    cwnd_pkts: u64,
    pacing_rate: u64,
    acked: u64,
}

fn run(seconds: u64) -> (Net, Vec<Tick>) {
    let mut net = Net::new(params(), None, RATE, DELAY, 1000);
    let mut ticks = Vec::new();
    let mut t = T0;
    while t < T0 + seconds * SEC {
        t += MS;
        net.run(t);
        let c = &net.sender.conns()[0];
        let (cwnd_pkts, pacing_rate, acked) = (
            c.cwnd_bytes() / SEG,
            c.pacing_rate().unwrap_or(0),
            c.acked_bytes(),
        );
        let b = bbr(&net);
        let (mode, rounds, max_bw) = (b.mode(), b.rounds(), b.max_bw());
        ticks.push(Tick {
            t,
            mode,
            rounds,
            max_bw,
            queue: net.queue_len(),
            cwnd_pkts,
            pacing_rate,
            acked,
        });
    }
    (net, ticks)
}

fn first(ticks: &[Tick], mode: Mode) -> &Tick {
    ticks.iter().find(|k| k.mode == mode).expect("mode reached")
}

/// The spans (start, end) of each PROBE_RTT.
fn probe_rtts(ticks: &[Tick]) -> Vec<(Instant, Instant)> {
    let mut out = Vec::new();
    let mut start = None;
    for k in ticks {
        match (k.mode == Mode::ProbeRtt, start) {
            (true, None) => start = Some(k.t),
            (false, Some(s)) => {
                out.push((s, k.t));
                start = None;
            }
            _ => {}
        }
    }
    out
}

#[test]
fn startup_fills_the_pipe_then_drain_empties_the_queue() {
    let (net, ticks) = run(3);
    let drain = first(&ticks, Mode::Drain);
    // STARTUP's estimate reaches the bottleneck's rate (within 2 %)...
    assert!(
        drain.max_bw.abs_diff(PAYLOAD_RATE) * 50 <= PAYLOAD_RATE,
        "{} vs {PAYLOAD_RATE}",
        drain.max_bw
    );
    // ...and STARTUP ends three rounds (at most four, by the round the growth fell below 25 %)
    // after the round the estimate first came within 10 % of it.
    let full = ticks
        .iter()
        .find(|k| k.max_bw * 10 >= PAYLOAD_RATE * 9)
        .unwrap();
    let extra = drain.rounds - full.rounds;
    assert!(
        (3..=4).contains(&extra),
        "{extra} rounds after the pipe was full"
    );
    // Up to 2.89 BDP in flight (plus the window's burst budget, below): STARTUP leaves a queue
    // of 1 to 1.89 BDP...
    let most = (HIGH_GAIN - UNIT) * BDP_PKTS / UNIT + BUDGET_PKTS;
    assert!(
        (BDP_PKTS..=most).contains(&(drain.queue as u64)),
        "queue {} at the end of STARTUP",
        drain.queue
    );
    // ...which DRAIN empties (down to the few packets of the window's burst budget) within
    // about a round trip at 88/256 of the rate.
    let probe = first(&ticks, Mode::ProbeBw);
    assert!(probe.queue <= 8, "queue {} after DRAIN", probe.queue);
    assert!(
        probe.t - drain.t < 4 * 41 * MS,
        "DRAIN took {:?}",
        probe.t - drain.t
    );
    assert_eq!(net.stats().retransmits.total, 0, "the FIFO never overflows");
}

#[test]
fn probe_bw_fills_the_link_with_a_queue_under_one_bdp() {
    let (_, ticks) = run(22);
    let steady: Vec<&Tick> = ticks.iter().filter(|k| k.t > T0 + 2 * SEC).collect();
    // At least 95 % of the bottleneck's payload rate from 2 s to 22 s, PROBE_RTTs included.
    let (a, b) = (steady[0], steady[steady.len() - 1]);
    let rate = (b.acked - a.acked) as f64 / (b.t - a.t).secs();
    assert!(rate >= 0.95 * PAYLOAD_RATE as f64, "{rate:.0} B/s");
    // The cwnd gain of 2 bounds the flight at 2 BDP (plus the burst budget), so the queue stays
    // under one BDP.
    let qmax = steady.iter().map(|k| k.queue as u64).max().unwrap();
    assert!(qmax <= BDP_PKTS, "queue reached {qmax}");
    let cmax = steady.iter().map(|k| k.cwnd_pkts).max().unwrap();
    assert!(cmax <= 2 * BDP_PKTS + BUDGET_PKTS, "cwnd reached {cmax}");
}

#[test]
fn probe_rtt_every_ten_seconds_at_four_packets_for_200_ms() {
    let (_, ticks) = run(22);
    let spans = probe_rtts(&ticks);
    assert_eq!(spans.len(), 2, "{spans:?}");
    // The min RTT was last refreshed early in STARTUP (the handshake's): the first PROBE_RTT
    // 10 s after, the next 10 s after the minimum was last lowered — in the first or, while
    // the queue the first left drains at the 1% pacing margin, in the few round trips after
    // it.
    assert!(spans[0].0 > T0 + 10 * SEC && spans[0].0 < T0 + 10 * SEC + 200 * MS);
    let gap = spans[1].0 - spans[0].1;
    assert!(gap >= 10 * SEC && gap < 10 * SEC + 3 * 41 * MS, "{gap:?}");
    for &(s, e) in &spans {
        // 200 ms once the flight is at 4 packets, and a round trip: 200 ms to 200 ms + 3 RTT.
        let d = e - s;
        assert!(d >= 200 * MS && d <= 330 * MS, "PROBE_RTT lasted {d:?}");
        for k in ticks.iter().filter(|k| k.t > s && k.t < e) {
            assert_eq!(k.cwnd_pkts, 4, "at {:?}", k.t);
        }
    }
}

#[test]
fn the_gain_cycle_shows_in_the_pacing_rate() {
    let (_, ticks) = run(9);
    // In PROBE_BW the pacing rate is gain × bw less 1 %: read the gain back from it.
    let gains: Vec<u64> = ticks
        .iter()
        .filter(|k| k.t > T0 + 2 * SEC && k.mode == Mode::ProbeBw)
        .map(|k| {
            let g = k.pacing_rate as u128 * 100 * UNIT as u128 / (k.max_bw as u128 * 99);
            g as u64
        })
        .collect();
    let n = gains.len() as f64;
    let share = |g: u64| gains.iter().filter(|&&x| x.abs_diff(g) <= 1).count() as f64 / n;
    let (up, down, cruise) = (share(UNIT * 5 / 4), share(UNIT * 3 / 4), share(UNIT));
    assert!(
        up + down + cruise > 0.99,
        "other gains: {up} {down} {cruise}"
    );
    // Each phase lasts about a min RTT; the 3/4 phase ends early once the queue is gone.
    assert!((0.08..=0.2).contains(&up), "1.25 for {up}");
    assert!(down > 0.01 && down <= 0.2, "0.75 for {down}");
    assert!(cruise >= 0.6, "1.0 for {cruise}");
}

#[test]
fn bbr_runs_are_deterministic() {
    let once = || {
        let mut net = Net::new(params(), None, RATE, DELAY, 20);
        net.run(T0 + 3 * SEC);
        net.sent
    };
    let (a, b) = (once(), once());
    assert!(
        a.iter().any(|s| s.dropped),
        "STARTUP overflows a 20-packet FIFO"
    );
    assert_eq!(a, b);
}

/// A token-bucket policer on the data direction: `rate` bytes/s, `depth` bytes of bucket.
fn policer(rate: u64, depth: u64) -> super::testnet::DropRule {
    let mut tokens = depth as f64;
    let mut last = T0;
    Box::new(move |p, now| {
        tokens = (tokens + (now - last).secs() * rate as f64).min(depth as f64);
        last = now;
        if tokens >= p.size as f64 {
            tokens -= p.size as f64;
            false
        } else {
            true
        }
    })
}

#[test]
fn a_policer_is_detected_and_its_rate_adopted() {
    // A token bucket at a quarter of the link (2.5 Mb/s of packets, 30 kB deep) drops what
    // exceeds it. BBR's max filter keeps seeing the bucket's bursts; its long-term sampling
    // finds two lossy intervals of consistent rate and paces at their mean (`lt_bw`).
    let policed = RATE / 8 / 4 * SEG / 1500;
    let mut net = Net::new(params(), None, RATE, DELAY, 1000);
    net.drop = policer(RATE / 8 / 4, 30_000);
    net.run(T0 + 2 * SEC);
    let lt = bbr(&net).policed_bw().expect("policer detected within 2 s");
    // The intervals' delivery rates include the recoveries' stalls: somewhat below the bucket's
    // rate, never above it.
    assert!(
        lt * 10 >= policed * 6 && lt * 10 <= policed * 11,
        "{lt} vs {policed}"
    );
    // It paces at that rate with a gain of 1 (no probing above it).
    let rate = net.sender.conns()[0].pacing_rate().unwrap();
    assert_eq!(rate, lt * 99 / 100);
    // Paced at the policed rate, the flow gets most of what the policer passes.
    let (a0, s0) = (net.sender.conns()[0].acked_bytes(), net.now);
    net.run(T0 + 12 * SEC);
    let got = (net.sender.conns()[0].acked_bytes() - a0) as f64 / (net.now - s0).secs();
    assert!(got >= 0.8 * policed as f64, "{got:.0} B/s of {policed}");
}

#[test]
fn a_shallow_fifo_costs_little_throughput() {
    // 8 packets of FIFO (a quarter BDP): BBR does not back off on loss; SACK recovery with
    // packet conservation repairs the drops without a timeout.
    let mut net = Net::new(params(), None, RATE, DELAY, 8);
    net.run(T0 + 20 * SEC);
    let st = net.stats();
    assert!(st.retransmits.total > 0, "the FIFO overflows");
    assert_eq!(st.timeouts.total, 0);
    let rate = net.sender.conns()[0].acked_bytes() as f64 / 20.0;
    assert!(rate >= 0.95 * PAYLOAD_RATE as f64, "{rate:.0} B/s");
}
