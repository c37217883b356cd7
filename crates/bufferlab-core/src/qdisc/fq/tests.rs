use std::collections::HashMap;

use super::*;
use crate::qdisc::testkit::{cbr, merge, run, Trace};
use crate::time::{tx_time, Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const NS: Duration = Duration::from_ns(1);

const RATE: u64 = 10_000_000;

fn fq(cfg: FqConfig) -> Fq {
    Fq::new(cfg, Limit::default(), 7)
}

/// `Fq` fed as a port feeds it: each packet with the departure time its sender stamped on it,
/// here looked up by packet id (none for a packet not listed).
struct Stamped {
    q: Fq,
    at: HashMap<u32, Instant>,
}

impl Stamped {
    fn new(q: Fq) -> Self {
        Stamped {
            q,
            at: HashMap::new(),
        }
    }
}

impl QueueDisc for Stamped {
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        let at = self.at.get(&item.id).copied().unwrap_or(Instant::ZERO);
        self.q.enqueue_at(now, item, at, drops)
    }
    fn dequeue(&mut self, now: Instant, drops: &mut Drops) -> Option<QItem> {
        self.q.dequeue(now, drops)
    }
    fn len_pkts(&self) -> u64 {
        self.q.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.q.len_bytes()
    }
    fn limit(&self) -> Limit {
        self.q.limit()
    }
    fn set_limit(&mut self, limit: Limit) {
        self.q.set_limit(limit)
    }
    fn next_timer(&self) -> Option<Instant> {
        self.q.next_timer()
    }
    fn on_timer(&mut self, now: Instant) {
        self.q.on_timer(now)
    }
}

/// Bytes of `flow` sent in `[from, to)`.
fn bytes_between(tr: &Trace, flow: u32, from: Duration, to: Duration) -> u64 {
    let (a, b) = (Instant::ZERO + from, Instant::ZERO + to);
    tr.sent
        .iter()
        .filter(|(t, it)| it.flow == flow && *t >= a && *t < b)
        .map(|(_, it)| it.bytes as u64)
        .sum()
}

/// Arrivals of a paced flow, all handed over at once at `at`, each packet stamped (in `stamps`)
/// to leave `gap` after the previous one, from `first` on.
fn stamped(
    flow: u32,
    n: u32,
    bytes: u32,
    (at, first, gap): (Instant, Instant, Duration),
    stamps: &mut HashMap<u32, Instant>,
) -> Vec<(Instant, QItem)> {
    (0..n)
        .map(|k| {
            let id = flow << 20 | k;
            stamps.insert(id, first + gap * k as u64);
            let item = QItem {
                id,
                bytes,
                enq: at,
                flow,
                ..Default::default()
            };
            (at, item)
        })
        .collect()
}

/// Two backlogged flows, 1500 B and 300 B packets: round robin by byte credit serves them equal
/// bytes (within 1% over a second); the lead of one over the other never exceeds the first
/// round's credit (the initial quantum) plus one packet. Packet round robin would give the
/// first flow five times the bytes.
#[test]
fn round_robin_by_quantum_shares_bytes() {
    let mut q = fq(FqConfig::default());
    let arr = merge(vec![
        cbr(1, 1500, Duration::ZERO, NS * 1000 * 1000, SEC),
        cbr(2, 300, Duration::ZERO, NS * 200 * 1000, SEC),
    ]);
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    let (mut a, mut b, mut worst) = (0i64, 0i64, 0i64);
    for (_, it) in &tr.sent {
        if it.flow == 1 {
            a += it.bytes as i64;
        } else {
            b += it.bytes as i64;
        }
        worst = worst.max((a - b).abs());
    }
    assert!(a > 500_000 && b > 500_000, "a={a} b={b}");
    assert!((a - b).abs() as f64 / (a as f64) < 0.01, "a={a} b={b}");
    let first_round = FqConfig::default().initial_quantum_bytes as i64;
    assert!(worst <= first_round + 1500, "byte lead reached {worst}");
    // The offered load is over twice the link: the per-flow limit dropped the excess.
    assert!(tr.drops.iter().all(|d| d.2 == DropReason::FlowLimit));
}

/// A flow that reaches its `flow_limit` loses its own arriving packets (reason `flow_limit`);
/// the other flow, under its limit, loses nothing.
#[test]
fn flow_limit_drops_only_the_offending_flow() {
    let mut q = fq(FqConfig {
        flow_limit_pkts: 20,
        ..Default::default()
    });
    let mut d = Drops::default();
    let it = |flow: u32, id: u32| QItem {
        id,
        bytes: 1000,
        flow,
        ..Default::default()
    };
    // The first 8 packets reaching an idle queue take the fast path (Linux 6.7+); the rest go
    // to flow queues.
    for i in 0..50 {
        q.enqueue(Instant::ZERO, it(1, i), &mut d);
    }
    for i in 0..10 {
        assert!(q.enqueue(Instant::ZERO, it(2, 100 + i), &mut d));
    }
    assert_eq!(d.items.len(), 50 - 8 - 20);
    assert!(d
        .items
        .iter()
        .all(|(x, r)| x.flow == 1 && *r == DropReason::FlowLimit));
    assert_eq!(q.flow_backlog_pkts(1), 20);
    assert_eq!(q.flow_backlog_pkts(2), 10);
    assert_eq!(q.len_pkts(), 38);
}

/// `limit` counts the packets in flow queues: beyond it every arrival is dropped (reason
/// `overflow`), whatever its flow.
#[test]
fn limit_refuses_arrivals_beyond_it() {
    let mut q = Fq::new(
        FqConfig::default(),
        Limit {
            pkts: Some(30),
            bytes: None,
        },
        7,
    );
    let mut d = Drops::default();
    for i in 0..60u32 {
        let item = QItem {
            id: i,
            bytes: 500,
            flow: i % 3,
            ..Default::default()
        };
        q.enqueue(Instant::ZERO, item, &mut d);
    }
    // 8 packets in the fast path (not counted by the limit), 30 in flow queues.
    assert_eq!(q.len_pkts(), 38);
    assert_eq!(d.items.len(), 22);
    assert!(d.items.iter().all(|(_, r)| *r == DropReason::Overflow));
    assert_eq!(q.limit().pkts, Some(30));
    assert_eq!(
        Fq::new(FqConfig::default(), Limit::default(), 1)
            .limit()
            .pkts,
        Some(DEFAULT_LIMIT_PKTS)
    );
}

/// A paced flow handed over all at once leaves exactly at its departure times on an idle link,
/// and no packet of any flow ever leaves before its time.
#[test]
fn paced_flow_leaves_at_its_time_stamps() {
    let mut q = Stamped::new(fq(FqConfig::default()));
    let gap = Duration::from_us(3_000);
    let t0 = Instant::ZERO + 10 * MS;
    let arr = stamped(1, 50, 1500, (Instant::ZERO + MS, t0, gap), &mut q.at);
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    assert_eq!(tr.sent.len(), 50);
    for (k, (t, it)) in tr.sent.iter().enumerate() {
        assert_eq!(*t, t0 + gap * k as u64, "packet {k}");
        assert_eq!(*t, q.at[&it.id]);
    }
    assert!(tr.drops.is_empty());
}

/// A paced flow beside a bulk flow that keeps the link busy: the bulk flow takes the link while
/// the paced one waits, and each paced packet leaves at its time or, the wire being busy, after
/// the bulk flow's turn (at most a quantum and the packet on the wire); never before.
#[test]
fn throttled_flow_lets_others_send_and_keeps_its_times() {
    let mut q = Stamped::new(fq(FqConfig::default()));
    let gap = Duration::from_us(4_000);
    // The bulk flow is backlogged when the paced one starts (so nothing takes the fast path).
    let t0 = Instant::ZERO + 50 * MS;
    let mut arr = stamped(1, 100, 1000, (Instant::ZERO + 20 * MS, t0, gap), &mut q.at);
    arr.extend(cbr(2, 1500, Duration::ZERO, NS * 1_000_000, SEC));
    let arr = merge(vec![arr]);
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    let paced: Vec<_> = tr.sent.iter().filter(|s| s.1.flow == 1).collect();
    assert_eq!(paced.len(), 100);
    // Due, a flow joins the old list behind the bulk flow, which may still send up to a
    // quantum's worth (three packets) after the one on the wire; once its own credit is spent,
    // a refill sends it behind the bulk flow once more.
    let pkt = tx_time(1500, RATE);
    let mut late = Duration::ZERO;
    for (t, it) in &paced {
        let due = q.at[&it.id];
        assert!(*t >= due, "left {t:?} before its time {due:?}");
        assert!(*t <= due + pkt * 7, "left {t:?}, due {due:?}");
        late += *t - due;
    }
    assert!(late / 100 <= pkt * 3, "mean lateness {:?}", late / 100);
    // The bulk flow had the rest of the link.
    let bulk = bytes_between(&tr, 2, 100 * MS, 400 * MS) as f64 * 8.0 / 0.3;
    let paced_bps = 1000.0 * 8.0 / gap.secs();
    assert!((bulk + paced_bps) / RATE as f64 > 0.98, "bulk {bulk}");
}

/// `maxrate` caps a flow to within 1%, whether its packets carry departure times (a TCP
/// sender's: each packet spaced by its length at the rate) or not (a datagram flow: a quantum at
/// a time), while the link could carry five times more.
#[test]
fn maxrate_caps_a_flow() {
    for stamped_now in [false, true] {
        let max = 2_000_000u64;
        let mut q = Stamped::new(fq(FqConfig {
            maxrate_bps: Some(max),
            ..Default::default()
        }));
        let arr = cbr(1, 1500, Duration::ZERO, NS * 2_000_000, 6 * SEC);
        if stamped_now {
            q.at.extend(arr.iter().map(|a| (a.1.id, a.0)));
        }
        let tr = run(&mut q, RATE, &arr, 6 * SEC, |_, _| {});
        let got = bytes_between(&tr, 1, SEC, 5 * SEC) as f64 * 8.0 / 4.0;
        let err = (got - max as f64).abs() / max as f64;
        assert!(err < 0.01, "stamped={stamped_now}: {got} b/s");
        // A wrong model misses: without the cap the flow would take its 6 Mb/s.
        let mut free = fq(FqConfig::default());
        let tr = run(&mut free, RATE, &arr, 6 * SEC, |_, _| {});
        assert!(bytes_between(&tr, 1, SEC, 5 * SEC) as f64 * 8.0 / 4.0 > 5.9e6);
    }
}

/// A departure time beyond the 10 s horizon: dropped (reason `horizon`), or, with
/// `horizon_drop = false`, sent at the horizon.
#[test]
fn horizon_drops_or_caps() {
    let far = Instant::ZERO + 20 * SEC;
    let arr = vec![(
        Instant::ZERO + MS,
        QItem {
            id: 1,
            bytes: 100,
            flow: 3,
            ..Default::default()
        },
    )];
    let mut q = Stamped::new(fq(FqConfig::default()));
    q.at.insert(1, far);
    let tr = run(&mut q, RATE, &arr, 30 * SEC, |_, _| {});
    assert_eq!(tr.drops.len(), 1);
    assert_eq!(tr.drops[0].2, DropReason::Horizon);
    let mut q = Stamped::new(fq(FqConfig {
        horizon_drop: false,
        ..Default::default()
    }));
    q.at.insert(1, far);
    let tr = run(&mut q, RATE, &arr, 30 * SEC, |_, _| {});
    assert_eq!(tr.sent.len(), 1);
    assert_eq!(tr.sent[0].0, Instant::ZERO + MS + 10 * SEC);
}

/// `ce_threshold`: a packet that leaves more than the threshold after its time is marked CE
/// (if ECN-capable); below it, not.
#[test]
fn ce_threshold_marks_late_packets() {
    let mut q = fq(FqConfig {
        ce_threshold_ns: Some(2 * MS),
        ..Default::default()
    });
    // 40 packets at once into a 10 Mb/s link: 1.2 ms each, so from the third on they wait
    // more than 2 ms.
    let arr: Vec<_> = (0..40u32)
        .map(|k| {
            (
                Instant::ZERO,
                QItem {
                    id: k,
                    bytes: 1500,
                    flow: 1,
                    ecn: crate::packet::Ecn::Ect0,
                    ..Default::default()
                },
            )
        })
        .collect();
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    // The first 8 took the fast path, which carries no flow state and marks nothing (Linux's
    // `q->internal`).
    for (k, (t, it)) in tr.sent.iter().enumerate() {
        let late = k >= 8 && t.saturating_since(it.enq) > 2 * MS;
        assert_eq!(it.ecn == crate::packet::Ecn::Ce, late, "{t:?}");
    }
    assert!(tr.sent.iter().any(|s| s.1.ecn == crate::packet::Ecn::Ce));
}

/// A flow that starts sending goes on the new list: a sparse flow beside two bulk flows with a
/// standing queue waits at most for the packet on the wire and the fast path.
#[test]
fn new_flows_go_first() {
    let mut q = fq(FqConfig::default());
    let arr = merge(vec![
        cbr(1, 1500, Duration::ZERO, NS * 600_000, SEC),
        cbr(2, 1500, Duration::ZERO, NS * 600_000, SEC),
        cbr(3, 84, 50 * MS + NS, 100 * MS, SEC),
    ]);
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    let (sparse, bulk_max) = (tr.waits(3), tr.longest_wait_but(3));
    assert_eq!(sparse.len(), 10);
    for s in &sparse {
        assert!(*s <= NS * 1_300_000, "sparse packet waited {s:?}");
    }
    assert!(bulk_max > 50 * MS, "bulk queue {bulk_max:?}");
}

/// Same arrivals, same departures and drops (flows with and without time stamps, some out of
/// order, past the flow limit); and once warm, the discipline allocates nothing more.
#[test]
fn deterministic_and_allocation_free() {
    let mut rng = crate::rng::stream(3, crate::rng::Stream::Link, 0);
    let mut arr = Vec::new();
    let mut stamps = HashMap::new();
    let mut t = Instant::ZERO;
    for k in 0..40_000u32 {
        use rand::Rng as _;
        t += Duration::from_ns(rng.gen_range(100_000..1_500_000));
        let flow = rng.gen_range(0..12u32);
        let jitter = Duration::from_ns(rng.gen_range(0..3_000_000));
        if flow % 3 != 0 {
            stamps.insert(k, t + jitter);
        }
        arr.push((
            t,
            QItem {
                id: k,
                bytes: rng.gen_range(64..1500),
                enq: t,
                flow,
                ..Default::default()
            },
        ));
    }
    let go = |warm: &mut Option<(usize, usize, usize)>| {
        let mut q = Stamped::new(fq(FqConfig {
            flow_limit_pkts: 30,
            maxrate_bps: None,
            ..Default::default()
        }));
        q.at = stamps.clone();
        let mut caps = None;
        let tr = run(&mut q, RATE, &arr, 40 * SEC, |t, q| {
            if t > Instant::ZERO + 5 * SEC && caps.is_none() {
                caps = Some(q.q.capacities());
            }
            if t > Instant::ZERO + 5 * SEC {
                assert_eq!(Some(q.q.capacities()), caps, "grew at {t:?}");
            }
        });
        *warm = caps;
        for (t, it) in &tr.sent {
            assert!(stamps.get(&it.id).is_none_or(|due| t >= due));
        }
        tr.sent
            .iter()
            .map(|(t, it)| (t.as_ns(), it.id))
            .chain(
                tr.drops
                    .iter()
                    .map(|(t, it, _)| (t.as_ns(), it.id | 1 << 31)),
            )
            .collect::<Vec<_>>()
    };
    let (mut w1, mut w2) = (None, None);
    let a = go(&mut w1);
    let b = go(&mut w2);
    assert_eq!(a, b);
    assert!(a.len() > 30_000);
    assert!(w1.is_some());
}

/// Flow ids past the keyed range share 1024 buckets by hash and never grow the table beyond.
#[test]
fn unknown_flow_ids_share_orphan_buckets() {
    let mut q = fq(FqConfig::default());
    let mut d = Drops::default();
    for k in 0..5000u32 {
        let it = QItem {
            id: k,
            bytes: 100,
            flow: KEYED_FLOWS + k * 7919,
            ..Default::default()
        };
        q.enqueue(Instant::ZERO, it, &mut d);
    }
    assert!(q.capacities().1 <= (KEYED_FLOWS + ORPHAN_BUCKETS) as usize);
    assert_eq!(q.len_pkts() + d.items.len() as u64, 5000);
}

#[test]
fn keyed_range_covers_every_scenario_flow() {
    assert!(KEYED_FLOWS as u64 >= crate::agent::build::MAX_FLOWS);
}
