//! The empty-discipline bypass must be invisible: a port that skips its empty FIFO, or takes a
//! packet through an empty FQ-CoDel in one step, gives the same counters, occupancy, sojourns,
//! drops and departures as one that enqueues and dequeues every packet.

use proptest::prelude::*;
use rand::SeedableRng as _;

use super::*;
use crate::packet::Packet;
use crate::qdisc::fq_codel::{FqCodel, FqCodelConfig};
use crate::qdisc::{fifo::Fifo, Limit};

type Observed = (
    Vec<u64>,
    (f64, f64),
    Vec<(u64, f64)>,
    Vec<(Instant, PktId, u32)>,
);

/// Drive one port with packets (arrival gap, size, flow); returns everything observable.
fn drive(pkts: &[(u64, u32, u32)], qdisc: Qdisc, bypass: bool) -> Observed {
    drive_with(pkts, qdisc, bypass, None)
}

fn drive_with(
    pkts: &[(u64, u32, u32)],
    qdisc: Qdisc,
    bypass: bool,
    ring: Option<crate::scenario::RingSpec>,
) -> Observed {
    let window = Window {
        start: Instant::from_ns(2_000_000),
        end: Instant::from_ns(40_000_000),
    };
    let mut port = Port::new(
        params(10_000_000),
        qdisc,
        None,
        window,
        crate::rng::Rng::seed_from_u64(1),
    );
    if !bypass {
        port.bypass_bytes = 0;
        port.bypass_qdisc = false;
    }
    if let Some(r) = &ring {
        port = port.with_ring(r);
    }
    let mut t = Instant::ZERO;
    let mut arrivals = Vec::new();
    for &(g, s, f) in pkts {
        t += Duration::from_ns(g);
        arrivals.push((t, s, f));
    }
    let out = run_port(&mut port, window, &arrivals)
        .into_iter()
        .map(|(t, id, p)| (t, id, p.flow))
        .collect();
    port.finish(Instant::from_ns(50_000_000));
    let (st, q) = (&port.stats, &port.queue_stats);
    let counters = vec![
        st.arrivals.window,
        st.enqueued.window,
        q.dropped_total(),
        st.pkts_sent.window,
        st.bytes_sent.window,
        st.busy_ns.window,
        q.sojourn.count(),
    ];
    (counters, st.occupancy_mean(), q.sojourn.cdf(), out)
}

/// A port from node 0 to node 1 at `rate_bps`, 1 ms of propagation delay.
pub(super) fn params(rate_bps: u64) -> PortParams {
    PortParams {
        rate_bps,
        delay_ns: Duration::from_ms(1),
        jitter_ns: Duration::ZERO,
        loss: 0.0,
        framing: Framing::None,
        from: 0,
        to: 1,
        name: "a->b".into(),
    }
}

/// Run `port` alone with packets arriving at (time, size, flow), in time order, until nothing
/// is left to do; returns each packet that reached the far end, with the time.
pub(super) fn run_port(
    port: &mut Port,
    window: Window,
    arrivals: &[(Instant, u32, u32)],
) -> Vec<(Instant, PktId, Packet)> {
    let mut arena = Arena::default();
    let mut sched = Sched::default();
    let mut flows = vec![FlowStats::new(window); 8];
    let flow_src = vec![0; 8];
    let mut totals = Totals::default();
    let mut host_tx = Vec::new();
    // The port's own topology: node 0 to node 1 by port 0 (the engine checks, with debug
    // assertions, that a packet put on the wire goes where its port leads).
    let topo = crate::net::topology::Topology::new(vec!["a".into(), "b".into()], vec![(0, 1)]);
    let mut out = Vec::new();
    let mut next = 0;
    loop {
        // An arrival due before (or at) the next event goes first, as an agent's send would.
        // One at a time: enqueueing it may schedule an event earlier than the one that was next.
        let due = sched.next_at().unwrap_or(Instant::NEVER);
        if next < arrivals.len() && arrivals[next].0 <= due {
            let (ta, s, f) = arrivals[next];
            next += 1;
            let mut cx = PortCtx {
                now: ta,
                window,
                arena: &mut arena,
                sched: &mut sched,
                flows: &mut flows,
                flow_src: &flow_src,
                flow_dscp: &[],
                totals: &mut totals,
                capture: None,
                host_tx: &mut host_tx,
                topo: &topo,
            };
            let id = cx.arena.alloc(Packet {
                size: s,
                flow: f,
                ..Default::default()
            });
            port.enqueue(0, id, &mut cx);
            continue;
        }
        let Some((at, ev)) = sched.pop_before(Instant::NEVER) else {
            break;
        };
        let mut cx = PortCtx {
            now: at,
            window,
            arena: &mut arena,
            sched: &mut sched,
            flows: &mut flows,
            flow_src: &flow_src,
            flow_dscp: &[],
            totals: &mut totals,
            capture: None,
            host_tx: &mut host_tx,
            topo: &topo,
        };
        match ev {
            Ev::TxDone(_) => port.on_tx_done(0, &mut cx),
            Ev::Arrive { pkt: p, .. } => {
                let seq = cx.sched.reserve();
                out.push((at, p, *cx.arena.get(p)));
                cx.arena.free(p);
                port.pop_arrival(0, p, seq, cx.sched);
            }
            Ev::QdiscTimer(_) => port.on_qdisc_timer(0, &mut cx),
            _ => unreachable!(),
        }
    }
    out
}

fn fifo(limit_pkts: u64) -> Qdisc {
    Qdisc::Fifo(Fifo::new(Limit {
        pkts: Some(limit_pkts),
        bytes: None,
    }))
}

fn fq_codel(limit_pkts: u64) -> Qdisc {
    // A short target so that CoDel drops too; four flow queues for 8 flows, so some share.
    let cfg = FqCodelConfig {
        target_ns: Duration::from_us(500),
        interval_ns: Duration::from_ms(5),
        flows: 4,
        quantum_bytes: 1514,
        ecn: true,
        ..Default::default()
    };
    let limit = Limit {
        pkts: Some(limit_pkts),
        bytes: None,
    };
    Qdisc::FqCodel(Box::new(FqCodel::new(cfg, limit, 3)))
}

/// Bursts and lulls: gaps up to 3 ms (the port idles and empties) or up to 0.6 ms (queues build,
/// CoDel's 0.5 ms target is crossed and it drops).
fn packets() -> impl Strategy<Value = Vec<(u64, u32, u32)>> {
    let gap = prop_oneof![0u64..3_000_000, 0u64..600_000];
    prop::collection::vec((gap, 40u32..1500, 0u32..8), 1..300)
}

proptest! {
    #[test]
    fn empty_fifo_bypass_changes_nothing(pkts in packets(), limit in 1u64..8) {
        prop_assert_eq!(drive(&pkts, fifo(limit), true), drive(&pkts, fifo(limit), false));
    }

    #[test]
    fn fq_codel_pass_through_changes_nothing(pkts in packets(), limit in 1u64..12) {
        let with = drive(&pkts, fq_codel(limit), true);
        prop_assert_eq!(with, drive(&pkts, fq_codel(limit), false));
    }
}

#[test]
fn bypass_respects_a_byte_limit_below_the_packet() {
    // An empty FIFO limited to 100 B refuses a 1500 B packet: the bypass must not carry it.
    let limit = Limit {
        pkts: None,
        bytes: Some(100),
    };
    let pkts = [(3_000_000, 1500, 0), (3_000_000, 60, 0)];
    let (c, _, _, out) = drive(&pkts, Qdisc::Fifo(Fifo::new(limit)), true);
    assert_eq!(c[2], 1, "the 1500 B packet is dropped");
    assert_eq!(out.len(), 1);
}

/// A completion that lets the driver put a packet on an empty ring starts its transmission at
/// once: the NIC does not wait for the next packet to reach the port.
#[test]
fn a_packet_moved_to_an_idle_ring_is_sent() {
    let ring = crate::scenario::RingSpec {
        size: 512,
        bql: crate::qdisc::bql::BqlSpec::Auto,
        gso: false,
    };
    // BQL starts at a limit of 0: the first packet goes, the second waits in the qdisc for its
    // completion (1.2 ms at 10 Mb/s), then leaves right after it.
    let pkts = [(0, 1500, 0), (1_000, 1500, 0)];
    let (_, _, _, out) = drive_with(&pkts, fifo(10), true, Some(ring));
    let at: Vec<u64> = out.iter().map(|o| o.0.as_ns()).collect();
    assert_eq!(at, vec![2_200_000, 3_400_000]);
}

/// What every uncongested hop touches sits in the port's first three cache lines; what a hop
/// into a queue reads besides (the occupancy integral, a FIFO, its drops, the pointers every hop
/// tests), in the next three.
#[test]
fn layout() {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(Port, sojourn_zeros) + 4 <= 64);
    assert!(offset_of!(Port, plain_wire) < 64);
    assert_eq!(offset_of!(Port, pipe), 64);
    let st = offset_of!(Port, stats);
    assert_eq!(st, 96);
    assert_eq!(st + offset_of!(PortStats, busy_ns) + 16, 192);
    assert!(st + offset_of!(PortStats, last_change) >= 192);
    assert_eq!(st + size_of::<PortStats>(), 256);
    assert_eq!(offset_of!(Port, qdisc), 256);
    assert!(size_of::<Qdisc>() <= 72, "{}", size_of::<Qdisc>());
    assert!(offset_of!(Port, trace) + 8 <= 384);
}

/// Packets of sizes 100, 101, ... sent every `gap_ms` through a 10 Mb/s port with 1 ms of delay
/// and `jitter_ms` of jitter: for each, in the order they arrive, its size and how long after
/// its last bit left it arrived.
fn through_jitter(n: u32, gap_ms: u64, jitter_ms: u64) -> Vec<(u32, Duration)> {
    let window = Window {
        start: Instant::ZERO,
        end: Instant::from_ns(1 << 60),
    };
    let mut p = params(10_000_000);
    p.jitter_ns = Duration::from_ms(jitter_ms);
    let mut port = Port::new(
        p,
        fifo(1000),
        None,
        window,
        crate::rng::Rng::seed_from_u64(7),
    );
    let arrivals: Vec<_> = (0..n)
        .map(|i| {
            (
                Instant::from_ns(u64::from(i) * gap_ms * 1_000_000),
                100 + i,
                0,
            )
        })
        .collect();
    run_port(&mut port, window, &arrivals)
        .into_iter()
        .map(|(t, _, pkt)| {
            let i = u64::from(pkt.size - 100);
            let sent =
                Instant::from_ns(i * gap_ms * 1_000_000) + tx_time(u64::from(pkt.size), 10_000_000);
            (pkt.size, t.saturating_since(sent))
        })
        .collect()
}

#[test]
fn jitter_adds_a_uniform_delay_and_never_reorders() {
    // Sparse packets (one per 20 ms, jitter 4 ms): each extra delay in [0, 4] ms, their mean
    // 2 ms (the uniform law's; its standard error over 1000 packets is 0.04 ms).
    let sparse = through_jitter(1000, 20, 4);
    let extra: Vec<f64> = sparse
        .iter()
        .map(|&(_, d)| (d.as_ns() as f64 - 1e6) / 1e6)
        .collect();
    assert!(extra.iter().all(|&e| (0.0..=4.0).contains(&e)), "{extra:?}");
    let mean = extra.iter().sum::<f64>() / extra.len() as f64;
    assert!((mean - 2.0).abs() < 0.15, "mean extra delay {mean} ms");
    assert!(extra.iter().any(|&e| e < 0.2) && extra.iter().any(|&e| e > 3.8));
    // Dense packets (one per ms, jitter 5 ms): independent draws would reorder most of them;
    // the link keeps their order, and none arrives before its delay or past the later of its
    // own draw's bound and the packet ahead of it.
    let dense = through_jitter(500, 1, 5);
    assert_eq!(dense.len(), 500);
    assert!(dense.windows(2).all(|w| w[0].0 < w[1].0), "reordered");
    assert!(dense.iter().all(|&(_, d)| d >= Duration::from_ms(1)));
    // Arrival times never go back: a packet whose own draw would bring it in ahead of the one
    // before it arrives with it (sent 1 ms later, so its extra delay is at most 1 ms shorter).
    let at = |i: usize| {
        (i as u64 * 1_000_000
            + tx_time(u64::from(dense[i].0), 10_000_000).as_ns()
            + dense[i].1.as_ns()) as i64
    };
    assert!(
        (1..dense.len()).all(|i| at(i) >= at(i - 1)),
        "an arrival before the one ahead of it"
    );
    assert!(
        (1..dense.len()).any(|i| at(i) == at(i - 1)),
        "no draw was held back: jitter off?"
    );
    // Without jitter the delay is exact.
    assert!(through_jitter(50, 1, 0)
        .iter()
        .all(|&(_, d)| d == Duration::from_ms(1)));
}
