use super::*;
use crate::packet::Ecn;
use crate::qdisc::testkit::{cbr, merge, run};
use crate::time::{Duration, Instant};

const SEC: Duration = Duration::from_secs(1);
const RATE: u64 = 10_000_000;

/// 1500 B packets every `gap_us` microseconds.
fn flow(id: u32, gap_us: u64, secs: u64) -> Vec<(Instant, QItem)> {
    cbr(
        id,
        1500,
        Duration::ZERO,
        Duration::from_us(gap_us),
        SEC * secs,
    )
}

fn distinct(q: &FqPie, a: u32, b: u32) {
    assert_ne!(
        q.classify(a),
        q.classify(b),
        "flows {a} and {b} share a queue"
    );
}

/// Two unresponsive flows on 10 Mb/s: flow 1 offers 8 Mb/s, flow 2 4 Mb/s. Deficit round robin
/// gives flow 2 all it asks and flow 1 the other 6 Mb/s, so flow 1's own PIE must shed a quarter
/// of its packets and hold its queue's delay at the 15 ms target; flow 2's queue never builds
/// and its controller never moves. (A single PIE would drop both flows alike; FQ without an
/// AQM would let flow 1's queue grow to the 10240-packet limit, seconds of delay.)
#[test]
fn each_flow_queue_runs_its_own_pie() {
    let mut q = FqPie::new(FqPieConfig::default(), Limit::default(), 3);
    distinct(&q, 1, 2);
    let arr = merge(vec![flow(1, 1500, 30), flow(2, 3000, 30)]);
    let mut p2_max: f64 = 0.0;
    let tr = run(&mut q, RATE, &arr, SEC * 30, |_, q| {
        p2_max = p2_max.max(q.flow_prob(2));
    });
    assert_eq!(p2_max, 0.0);
    assert!(tr
        .drops
        .iter()
        .all(|d| d.1.flow == 1 && d.2 == DropReason::Aqm));
    let late = |t: &Instant| *t >= Instant::from_secs(10);
    let offered1 = arr.iter().filter(|a| a.1.flow == 1 && late(&a.0)).count() as f64;
    let dropped1 = tr.drops.iter().filter(|d| late(&d.0)).count() as f64;
    let frac = dropped1 / offered1;
    assert!((frac - 0.25).abs() < 0.01, "flow 1 drop fraction {frac}");
    let waits1: Vec<f64> = tr
        .sent
        .iter()
        .filter(|s| s.1.flow == 1 && late(&s.0))
        .map(|(t, it)| (*t - it.enq).secs())
        .collect();
    let mean1 = waits1.iter().sum::<f64>() / waits1.len() as f64;
    assert!((mean1 - 0.015).abs() < 0.003, "flow 1 mean sojourn {mean1}");
    // Flow 2 waits at most for one packet of flow 1 on the wire and its own one before it.
    let worst2 = tr.waits(2).into_iter().max().unwrap();
    assert!(
        worst2 <= Duration::from_us(2500),
        "flow 2 waited {worst2:?}"
    );
}

/// Linux arms the first probability update half a second after the qdisc is created: until
/// then no flow queue's PIE drops, however long its queue.
#[test]
fn first_update_after_half_a_second() {
    let mut q = FqPie::new(FqPieConfig::default(), Limit::default(), 3);
    let arr = flow(1, 600, 2); // 20 Mb/s into 10 Mb/s
    let mut first_prob = None;
    let tr = run(&mut q, RATE, &arr, SEC * 2, |t, q| {
        if first_prob.is_none() && q.flow_prob(1) > 0.0 {
            first_prob = Some(t);
        }
    });
    let t = first_prob.expect("the probability never rose");
    assert!(
        t >= Instant::from_ms(500) && t < Instant::from_ms(502),
        "{t:?}"
    );
    assert!(tr
        .aqm_drop_times()
        .iter()
        .all(|d| *d >= Instant::from_ms(500)));
}

/// A full discipline refuses the arriving packet itself (Linux `fq_pie` counts it as
/// `overlimit`), where FQ-CoDel would drop from the fattest queue.
#[test]
fn a_full_discipline_refuses_the_arrival() {
    let limit = Limit {
        pkts: Some(20),
        bytes: None,
    };
    let mut q = FqPie::new(FqPieConfig::default(), limit, 3);
    distinct(&q, 1, 2);
    let mut drops = Drops::default();
    let item = |flow, id| QItem {
        id,
        bytes: 1500,
        flow,
        ..Default::default()
    };
    for i in 0..20 {
        assert!(q.enqueue(Instant::ZERO, item(1, i), &mut drops));
    }
    assert!(!q.enqueue(Instant::ZERO, item(2, 99), &mut drops));
    assert_eq!(drops.items.len(), 1);
    assert_eq!(
        (drops.items[0].0.id, drops.items[0].1),
        (99, DropReason::Overflow)
    );
    assert_eq!((q.len_pkts(), q.flow_backlog_bytes(1)), (20, 30_000));
}

/// With `ecn`, ECN-capable packets are marked while the flow queue's probability is at most
/// `ecn_prob` and dropped above it (RFC 8033 §5.1); the marked ones stay in the queue.
#[test]
fn ecn_marks_up_to_ecn_prob_then_drops() {
    let cfg = FqPieConfig {
        ecn: true,
        ..Default::default()
    };
    let mut q = FqPie::new(cfg, Limit::default(), 5);
    // 30 Mb/s of ECT(0) into 10 Mb/s: the probability has to climb past 10%.
    let mut arr = flow(1, 400, 20);
    for a in &mut arr {
        a.1.ecn = Ecn::Ect0;
    }
    let mut probe_marks = Vec::new();
    let tr = run(&mut q, RATE, &arr, SEC * 20, |t, q| {
        probe_marks.push((t, q.flow_prob(1)));
    });
    let marked = tr.sent.iter().filter(|s| s.1.ecn == Ecn::Ce).count();
    // Marks do not slow an unresponsive flow: they come while the probability climbs to 10%,
    // drops after it.
    assert!(marked > 50, "{marked} marks");
    let aqm = tr.aqm_drop_times();
    assert!(!aqm.is_empty());
    // Every AQM drop happened while the probability (as last seen) was above 10%.
    for d in aqm {
        let p = probe_marks
            .iter()
            .rev()
            .find(|(t, _)| *t <= d)
            .map_or(0.0, |x| x.1);
        assert!(p > 0.1 - 0.04, "dropped at {d:?} with p = {p}");
    }
}

/// Same arrivals and seed, same drops; another seed, other drops.
#[test]
fn deterministic_per_seed() {
    let arr = merge(vec![flow(1, 1000, 5), flow(2, 1500, 5)]);
    let go = |seed| {
        let mut q = FqPie::new(FqPieConfig::default(), Limit::default(), seed);
        run(&mut q, RATE, &arr, SEC * 5, |_, _| {})
            .drops
            .iter()
            .map(|d| (d.0, d.1.id))
            .collect::<Vec<_>>()
    };
    assert_eq!(go(1), go(1));
    assert_ne!(go(1), go(2));
}

/// Forty on/off flows: queues fill, settle and fill again. At every dequeue, each queue the
/// timer no longer visits is settled, so visiting only the unsettled list is the full walk.
#[test]
fn the_timer_skips_only_settled_queues() {
    let mut q = FqPie::new(FqPieConfig::default(), Limit::default(), 9);
    let arr = merge(
        (0..40)
            .map(|f| {
                let start = SEC * (f as u64 % 5);
                cbr(
                    f,
                    1500,
                    start,
                    Duration::from_us(600 + 50 * f as u64),
                    start + SEC,
                )
            })
            .collect(),
    );
    let mut checked = 0;
    let mut tracked_low = usize::MAX;
    run(&mut q, RATE, &arr, SEC * 8, |t, q| {
        assert!(q.untracked_are_settled(), "at {t:?}");
        checked += 1;
        if t > Instant::from_secs(7) {
            tracked_low = tracked_low.min(q.unsettled.len());
        }
    });
    assert!(checked > 5_000, "{checked}");
    assert!(
        tracked_low < 40,
        "queues are dropped from the list once settled"
    );
}
