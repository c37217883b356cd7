//! The empty-FIFO bypass must be invisible: a port that skips its empty FIFO gives the same
//! counters, occupancy, sojourns and departures as one that queues every packet.

use proptest::prelude::*;
use rand::SeedableRng as _;

use super::*;
use crate::packet::Packet;
use crate::qdisc::{fifo::Fifo, Limit};

/// Drive one port with packets of `sizes` arriving at `gaps`; returns everything observable.
fn drive(
    gaps: &[u64],
    sizes: &[u32],
    limit: Limit,
    bypass: bool,
) -> (Vec<u64>, (f64, f64), Vec<(u64, f64)>, Vec<(Time, PktId)>) {
    let params = PortParams {
        rate_bps: 10_000_000,
        delay_ns: 1_000_000,
        loss: 0.0,
        framing: Framing::None,
        from: 0,
        to: 1,
        name: "a->b".into(),
    };
    let window = Window {
        start: 2_000_000,
        end: 40_000_000,
    };
    let mut port = Port::new(
        params,
        Qdisc::Fifo(Fifo::new(limit)),
        None,
        window,
        crate::rng::Rng::seed_from_u64(1),
    );
    if !bypass {
        port.bypass_bytes = 0;
    }
    let mut arena = Arena::default();
    let mut sched = Sched::default();
    let mut flows = vec![FlowStats::new(window)];
    let flow_src = vec![0];
    let mut totals = Totals::default();
    let mut out = Vec::new();
    let mut t = 0;
    let mut arrivals = Vec::new();
    for (g, s) in gaps.iter().zip(sizes) {
        t += g;
        arrivals.push((t, *s));
    }
    let mut next = 0;
    loop {
        let ev_t = sched.pop_before(Time::MAX);
        // Arrivals due before (or at) the next event go first, as an agent's send would.
        if let Some((at, ev)) = ev_t {
            while next < arrivals.len() && arrivals[next].0 <= at {
                let (ta, s) = arrivals[next];
                next += 1;
                let mut cx = PortCtx {
                    now: ta,
                    arena: &mut arena,
                    sched: &mut sched,
                    flows: &mut flows,
                    flow_src: &flow_src,
                    totals: &mut totals,
                };
                let id = cx.arena.alloc(Packet {
                    size: s,
                    ..Default::default()
                });
                port.enqueue(0, id, &mut cx);
            }
            let mut cx = PortCtx {
                now: at,
                arena: &mut arena,
                sched: &mut sched,
                flows: &mut flows,
                flow_src: &flow_src,
                totals: &mut totals,
            };
            match ev {
                Ev::TxDone(_) => port.on_tx_done(0, &mut cx),
                Ev::Arrive(_) => {
                    if let Some(p) = port.pop_arrival(0, cx.sched) {
                        out.push((at, p));
                        cx.arena.free(p);
                    }
                }
                _ => unreachable!(),
            }
        } else if next < arrivals.len() {
            let (ta, s) = arrivals[next];
            next += 1;
            let mut cx = PortCtx {
                now: ta,
                arena: &mut arena,
                sched: &mut sched,
                flows: &mut flows,
                flow_src: &flow_src,
                totals: &mut totals,
            };
            let id = cx.arena.alloc(Packet {
                size: s,
                ..Default::default()
            });
            port.enqueue(0, id, &mut cx);
        } else {
            break;
        }
    }
    port.finish(50_000_000);
    let st = &port.stats;
    let counters = vec![
        st.arrivals.window,
        st.enqueued.window,
        st.dropped_total(),
        st.pkts_sent.window,
        st.bytes_sent.window,
        st.busy_ns.window,
        st.sojourn.count(),
    ];
    (counters, st.occupancy_mean(), st.sojourn.cdf(), out)
}

proptest! {
    #[test]
    fn empty_fifo_bypass_changes_nothing(
        pkts in prop::collection::vec((0u64..3_000_000, 40u32..1500), 1..120),
        limit_pkts in 1u64..8,
    ) {
        let (gaps, sizes): (Vec<u64>, Vec<u32>) = pkts.into_iter().unzip();
        let limit = Limit { pkts: Some(limit_pkts), bytes: None };
        let with = drive(&gaps, &sizes, limit, true);
        let without = drive(&gaps, &sizes, limit, false);
        // The bypass was taken at least once whenever the first packet found the port idle.
        prop_assert_eq!(with, without);
    }
}

#[test]
fn bypass_respects_a_byte_limit_below_the_packet() {
    // An empty FIFO limited to 100 B refuses a 1500 B packet: the bypass must not carry it.
    let limit = Limit {
        pkts: None,
        bytes: Some(100),
    };
    let (c, _, _, out) = drive(&[3_000_000, 3_000_000], &[1500, 60], limit, true);
    assert_eq!(c[2], 1, "the 1500 B packet is dropped");
    assert_eq!(out.len(), 1);
}
