use super::*;
use crate::qdisc::testkit::{cbr, merge, run};
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const NS: Duration = Duration::from_ns(1);

const RATE: u64 = 10_000_000;

fn patient() -> FqCodelConfig {
    // CoDel out of the way: these tests look at the scheduler.
    FqCodelConfig {
        target_ns: 10 * SEC,
        interval_ns: 20 * SEC,
        ..Default::default()
    }
}

fn distinct(q: &FqCodel, flows: &[u32]) {
    for (i, a) in flows.iter().enumerate() {
        for b in &flows[i + 1..] {
            assert_ne!(
                q.classify(*a),
                q.classify(*b),
                "flows {a} and {b} share a queue"
            );
        }
    }
}

/// Two backlogged flows, 1500 B and 300 B packets: DRR serves them equal bytes, to within one
/// quantum plus one packet at every point; packet round robin would give the first 5x more.
#[test]
fn drr_shares_bytes_between_backlogged_flows() {
    let mut q = FqCodel::new(patient(), Limit::default(), 7);
    distinct(&q, &[1, 2]);
    let arr = merge(vec![
        cbr(1, 1500, Duration::ZERO, NS * 1000, NS * 1000 * 1000),
        cbr(2, 300, Duration::ZERO, NS * 200, NS * 5000 * 200),
    ]);
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    let (mut a, mut b) = (0i64, 0i64);
    let mut worst = 0;
    for (_, it) in &tr.sent {
        if it.flow == 1 {
            a += it.bytes as i64;
        } else {
            b += it.bytes as i64;
        }
        worst = worst.max((a - b).abs());
    }
    assert!(a > 500_000 && b > 500_000, "a={a} b={b}");
    assert!(worst <= 1514 + 1500, "byte lead reached {worst}");
    assert!(tr.drops.is_empty());
}

/// A sparse flow (one small packet every 100 ms) beside two bulk flows goes through the new
/// list: it waits at most for the packet already on the wire, not for the standing queue.
#[test]
fn sparse_flow_is_served_first() {
    let mut q = FqCodel::new(patient(), Limit::default(), 7);
    distinct(&q, &[1, 2, 3]);
    let arr = merge(vec![
        cbr(1, 1500, Duration::ZERO, NS * 600_000, SEC),
        cbr(2, 1500, Duration::ZERO, NS * 600_000, SEC),
        cbr(3, 84, 50 * MS + NS, 100 * MS, SEC),
    ]);
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    let (sparse, bulk_max) = (tr.waits(3), tr.longest_wait_but(3));
    assert_eq!(sparse.len(), 10);
    for s in &sparse {
        assert!(*s <= NS * 1_200_000, "sparse packet waited {s:?}");
    }
    assert!(bulk_max > 100 * MS, "bulk queue {bulk_max:?}");
}

/// Over the limit, the head of the fattest queue goes, with reason FqOverflow; the arriving
/// packet of a thin flow is kept.
#[test]
fn overflow_drops_from_fattest_flow() {
    let mut q = FqCodel::new(
        patient(),
        Limit {
            pkts: Some(10),
            bytes: None,
        },
        7,
    );
    distinct(&q, &[1, 2]);
    let mut d = Drops::default();
    let it = |flow: u32, id: u32| QItem {
        id,
        bytes: 1000,
        flow,
        ..Default::default()
    };
    for i in 0..8 {
        assert!(q.enqueue(Instant::ZERO, it(1, i), &mut d));
    }
    for i in 0..2 {
        assert!(q.enqueue(Instant::ZERO, it(2, 100 + i), &mut d));
    }
    assert!(d.items.is_empty());
    assert!(q.enqueue(Instant::ZERO, it(2, 102), &mut d));
    assert_eq!(d.items.len(), 1);
    assert_eq!(d.items[0].0.id, 0, "head of the fat flow");
    assert_eq!(d.items[0].1, DropReason::FqOverflow);
    assert_eq!(q.len_pkts(), 10);
    assert_eq!(q.flow_backlog_pkts(1), 7);
    assert_eq!(q.flow_backlog_pkts(2), 3);
}

/// Per-queue CoDel: a flow that builds a standing queue is dropped from; a sparse one is not.
#[test]
fn codel_acts_per_flow_queue() {
    let mut q = FqCodel::new(FqCodelConfig::default(), Limit::default(), 7);
    distinct(&q, &[1, 3]);
    let arr = merge(vec![
        cbr(1, 1500, Duration::ZERO, MS, 2 * SEC), // 120% of the link
        cbr(3, 84, NS, 20 * MS, 2 * SEC),
    ]);
    let tr = run(&mut q, RATE, &arr, 2 * SEC, |_, _| {});
    let by = |f: u32| {
        tr.drops
            .iter()
            .filter(|d| d.1.flow == f && d.2 == DropReason::Aqm)
            .count()
    };
    assert!(by(1) > 10, "bulk drops {}", by(1));
    assert_eq!(by(3), 0);
}

/// Linux's `ce_threshold` with the L4S selector (ECT(1) and CE, mask 0x01): a packet that
/// waited more than the threshold leaves CE if it was ECT(1); ECT(0) and Not-ECT packets
/// through the same queue are left to CoDel (here out of the way); no packet that waited less
/// is marked. With mask 0 (Linux's default) every ECN-capable packet is.
#[test]
fn ce_threshold_marks_by_sojourn_and_selector() {
    use crate::packet::Ecn;
    let th = Duration::from_us(1500);
    for mask in [0x01u8, 0x00] {
        let mut q = FqCodel::new(
            FqCodelConfig {
                ce_threshold_ns: Some(th),
                ce_threshold_mask: mask,
                ce_threshold_selector: mask,
                ..patient()
            },
            Limit::default(),
            7,
        );
        // Three flows of 1500 B every 3 ms (each 40% of 10 Mb/s, 120% together): the queue
        // grows and its packets wait from 0 to hundreds of ms.
        let codepoint = |f: u32| [Ecn::Ect1, Ecn::Ect0, Ecn::NotEct][f as usize - 1];
        let arr: Vec<_> = merge(vec![
            cbr(1, 1500, Duration::ZERO, 3 * MS, SEC),
            cbr(2, 1500, NS, 3 * MS, SEC),
            cbr(3, 1500, 2 * NS, 3 * MS, SEC),
        ])
        .into_iter()
        .map(|(t, mut it)| {
            it.ecn = codepoint(it.flow);
            (t, it)
        })
        .collect();
        let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
        let mut marked = [0u32; 3];
        for (t, it) in &tr.sent {
            let waited = *t - it.enq;
            let f = it.flow as usize - 1;
            let selected = codepoint(it.flow) == Ecn::Ect1 || (mask == 0 && f == 1);
            let expect = if waited > th && selected {
                Ecn::Ce
            } else {
                codepoint(it.flow)
            };
            assert_eq!(
                it.ecn, expect,
                "mask {mask}: flow {} waited {waited:?}",
                it.flow
            );
            marked[f] += (it.ecn == Ecn::Ce) as u32;
        }
        assert!(marked[0] > 100, "{marked:?}");
        assert_eq!(marked[1] > 0, mask == 0, "{marked:?}");
        assert_eq!(marked[2], 0);
    }
}

/// `pass_through` on an empty discipline leaves it in the state `enqueue` then `dequeue` would:
/// lists, deficits and every flow queue's CoDel variables, after each step of random traffic.
mod pass_through {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Arrive { flow: u32, bytes: u32, gap: u64 },
        Serve { gap: u64 },
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            (0u32..8, 40u32..1500, 0u64..2_000_000).prop_map(|(flow, bytes, gap)| Op::Arrive {
                flow,
                bytes,
                gap
            }),
            (0u64..2_000_000).prop_map(|gap| Op::Serve { gap }),
        ];
        prop::collection::vec(op, 1..400)
    }

    /// A discipline with CoDel quick to drop (0.3 ms target) and four queues for eight flows,
    /// with its drop list.
    fn twin(limit: u64) -> (FqCodel, Drops) {
        let cfg = FqCodelConfig {
            target_ns: NS * 300_000,
            interval_ns: NS * 3_000_000,
            flows: 4,
            quantum_bytes: 1514,
            ecn: true,
            ..Default::default()
        };
        let limit = Limit {
            pkts: Some(limit),
            bytes: None,
        };
        (FqCodel::new(cfg, limit, 5), Drops::default())
    }

    proptest! {
        /// `dequeue`'s inline common cases leave the discipline as the full loop does, and hand
        /// out the same packets and drops (CoDel drops included: a 0.3 ms target).
        #[test]
        fn inline_dequeue_matches_the_full_loop(ops in ops(), limit in 1u64..10) {
            let ((mut a, mut da), (mut b, mut db)) = (twin(limit), twin(limit));
            let mut now = Instant::ZERO;
            for (id, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Arrive { flow, bytes, gap } => {
                        now += NS * gap;
                        let it = QItem { id: id as u32, bytes, enq: now, flow, srtt_ns: Duration::ZERO, ecn: Default::default() };
                        prop_assert_eq!(a.enqueue(now, it, &mut da), b.enqueue(now, it, &mut db));
                    }
                    Op::Serve { gap } => {
                        now += NS * gap;
                        prop_assert_eq!(a.dequeue(now, &mut da), b.serve(now, &mut db, None));
                    }
                }
                prop_assert_eq!(a.state(), b.state());
                prop_assert_eq!(&da.items, &db.items);
            }
        }

        #[test]
        fn same_state_as_enqueue_then_dequeue(ops in ops(), limit in 1u64..10) {
            let ((mut a, mut da), (mut b, mut db)) = (twin(limit), twin(limit));
            let mut now = Instant::ZERO;
            let mut passed = 0;
            let first = Op::Arrive { flow: 0, bytes: 1000, gap: 0 };
            for (id, op) in std::iter::once(first).chain(ops).enumerate() {
                match op {
                    Op::Arrive { flow, bytes, gap } => {
                        now += NS * gap;
                        let it = QItem { id: id as u32, bytes, enq: now, flow, srtt_ns: Duration::ZERO, ecn: Default::default() };
                        if a.len_pkts() == 0 {
                            let got = a.pass_through(now, it, &mut da);
                            prop_assert!(got.is_some());
                            b.enqueue(now, it, &mut db);
                            prop_assert_eq!(got, b.dequeue(now, &mut db));
                            passed += 1;
                        } else {
                            prop_assert_eq!(a.enqueue(now, it, &mut da), b.enqueue(now, it, &mut db));
                        }
                    }
                    Op::Serve { gap } => {
                        now += NS * gap;
                        prop_assert_eq!(a.dequeue(now, &mut da), b.dequeue(now, &mut db));
                    }
                }
                prop_assert_eq!(a.state(), b.state());
                prop_assert_eq!(&da.items, &db.items);
            }
            prop_assert!(passed > 0);
        }
    }
}
