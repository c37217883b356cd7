//! A trace-driven port sends as Mahimahi's `mm-link` does, whatever the discipline: a packet is
//! delivered only at an opportunity, and the bytes delivered by any time never exceed the
//! opportunities' (1500 bytes each) up to it.

use proptest::prelude::*;
use rand::SeedableRng as _;

use super::tests::{params, run_port};
use super::*;
use crate::net::trace::OPPORTUNITY_BYTES;
use crate::qdisc::codel::{Codel, CodelConfig};
use crate::qdisc::fq_codel::{FqCodel, FqCodelConfig};
use crate::qdisc::{fifo::Fifo, Limit};

const DELAY: Duration = Duration::from_ms(1);

fn spec(ms: &[u64]) -> TraceSpec {
    TraceSpec {
        file: "t".into(),
        opportunities_ms: ms.to_vec(),
    }
}

fn trace_port(ms: &[u64], qdisc: Qdisc) -> (Port, Window) {
    let window = Window {
        start: Instant::ZERO,
        end: Instant::from_secs(10),
    };
    let s = spec(ms);
    let port = Port::new(
        params(s.mean_rate_bps()),
        qdisc,
        None,
        window,
        crate::rng::Rng::seed_from_u64(1),
    )
    .with_trace(&s);
    (port, window)
}

fn limit(pkts: u64) -> Limit {
    Limit {
        pkts: Some(pkts),
        bytes: None,
    }
}

/// Every opportunity time in `[0, end)`, repetitions included.
fn opportunities(ms: &[u64], end: Instant) -> Vec<Instant> {
    let period = *ms.last().unwrap();
    let mut out = Vec::new();
    for cycle in 0.. {
        for &m in ms {
            let t = Instant::from_ms(cycle * period + m);
            if t >= end {
                return out;
            }
            out.push(t);
        }
    }
    out
}

/// `mm-link`'s `LinkQueue::rationalize` with an unlimited FIFO, written from its description:
/// at each opportunity 1500 bytes go to the packet in transit, then to the packets queued
/// before it, in order; a packet leaves at the opportunity that carries its last byte.
fn mm_link(ms: &[u64], arrivals: &[(Instant, u32, u32)]) -> Vec<Instant> {
    let end = arrivals.last().map_or(Instant::ZERO, |a| a.0) + Duration::from_secs(60);
    let mut out = Vec::new();
    let (mut next, mut in_transit) = (0, 0u64);
    for t in opportunities(ms, end) {
        let mut left = OPPORTUNITY_BYTES as u64;
        while left > 0 {
            if in_transit == 0 {
                if next == arrivals.len() || arrivals[next].0 > t {
                    break;
                }
                in_transit = arrivals[next].1 as u64;
                next += 1;
            }
            let n = left.min(in_transit);
            (left, in_transit) = (left - n, in_transit - n);
            if in_transit == 0 {
                out.push(t);
            }
        }
        if next == arrivals.len() && in_transit == 0 {
            break;
        }
    }
    out
}

fn at(gaps: &[(u64, u32, u32)]) -> Vec<(Instant, u32, u32)> {
    // Odd nanoseconds: never on an opportunity (whole milliseconds), where `mm-link`, which
    // reads its clock in milliseconds, serves the queue before it takes the arrival.
    let mut t = Instant::from_ns(1);
    gaps.iter()
        .map(|&(g, s, f)| {
            t += Duration::from_ns(g * 2);
            (t, s, f)
        })
        .collect()
}

/// A trace: up to 40 opportunities over up to 30 ms, repeated times included.
fn traces() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(0u64..30, 1..40).prop_map(|mut v| {
        v.sort_unstable();
        if *v.last().unwrap() == 0 {
            v.push(1);
        }
        v
    })
}

fn packets() -> impl Strategy<Value = Vec<(u64, u32, u32)>> {
    let gap = prop_oneof![0u64..2_000_000, 0u64..200_000];
    prop::collection::vec((gap, 28u32..3000, 0u32..8), 1..200)
}

/// Departures (at the far end, less the propagation delay) within capacity: each at an
/// opportunity, and the bytes out by each opportunity at most the capacity up to it.
fn check_capacity(ms: &[u64], out: &[(Instant, u32)]) {
    let end = out.last().map_or(Instant::ZERO, |o| o.0) + Duration::from_ms(1);
    let opps = opportunities(ms, end);
    let mut k = 0;
    let mut bytes = 0u64;
    for &(t, size) in out {
        let dep = t - DELAY;
        while k < opps.len() && opps[k] <= dep {
            k += 1;
        }
        assert!(
            k > 0 && opps[k - 1] == dep,
            "a departure at {} ns is not on an opportunity",
            dep.as_ns()
        );
        bytes += size as u64;
        assert!(
            bytes <= k as u64 * OPPORTUNITY_BYTES as u64,
            "{bytes} bytes out by {} ns, over {k} opportunities",
            dep.as_ns()
        );
    }
}

/// The packets that reached the far end: (time, size).
fn run(ms: &[u64], qdisc: Qdisc, arrivals: &[(Instant, u32, u32)]) -> Vec<(Instant, u32)> {
    let (mut port, window) = trace_port(ms, qdisc);
    let out = run_port(&mut port, window, arrivals);
    assert!(port.ledger_error().is_none());
    out.into_iter().map(|(t, _, p)| (t, p.size)).collect()
}

proptest! {
    #[test]
    fn fifo_departures_are_mm_links(ms in traces(), gaps in packets()) {
        let arrivals = at(&gaps);
        let out = run(&ms, Qdisc::Fifo(Fifo::new(limit(100_000))), &arrivals);
        let ours: Vec<Instant> = out.iter().map(|o| o.0 - DELAY).collect();
        prop_assert_eq!(ours, mm_link(&ms, &arrivals));
    }

    #[test]
    fn no_discipline_exceeds_the_opportunities(ms in traces(), gaps in packets(), which in 0..3) {
        let arrivals = at(&gaps);
        let qdisc = match which {
            0 => Qdisc::Fifo(Fifo::new(limit(20))),
            1 => Qdisc::Codel(Box::new(Codel::new(CodelConfig::default(), limit(1000)))),
            _ => Qdisc::FqCodel(Box::new(FqCodel::new(
                FqCodelConfig::default(),
                limit(1000),
                3,
            ))),
        };
        let out = run(&ms, qdisc, &arrivals);
        check_capacity(&ms, &out);
    }
}

#[test]
fn a_saturated_link_carries_the_trace_mean_rate() {
    // 10 s of full packets offered faster than the link's peak: the bytes delivered are the
    // opportunities' exactly (Mahimahi's README: the file "1" is 12 Mbps).
    let ms = [1, 1, 2, 4, 4, 4, 7, 10];
    let s = spec(&ms);
    assert_eq!(s.mean_rate_bps(), 8 * 1500 * 8 * 100);
    let arrivals: Vec<(Instant, u32, u32)> = (0..40_000u64)
        .map(|i| (Instant::from_ns(i * 300_001 + 1), 1500, 0))
        .collect();
    let (mut port, window) = trace_port(&ms, Qdisc::Fifo(Fifo::new(limit(50))));
    let out = run_port(&mut port, window, &arrivals);
    let in_window = out.iter().filter(|o| o.0 - DELAY < window.end).count() as u64;
    let expected = opportunities(&ms, window.end).len() as u64;
    assert_eq!(in_window, expected);
    let rate = in_window as f64 * 1500.0 * 8.0 / window.len().secs();
    assert!(
        (rate / s.mean_rate_bps() as f64 - 1.0).abs() < 1e-3,
        "{rate}"
    );
    // Utilization is a share of the mean rate: 1, within the first packet's wait.
    let busy = port.stats.busy_ns.window as f64 / window.len().as_ns() as f64;
    assert!((busy - 1.0).abs() < 1e-3, "{busy}");
}
