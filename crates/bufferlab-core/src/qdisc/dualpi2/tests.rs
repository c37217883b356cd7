use super::*;
use crate::qdisc::testkit::{cbr, merge, run, Trace};
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;
const RATE: u64 = 10_000_000;

fn with_ecn(mut v: Vec<(Instant, QItem)>, ecn: Ecn) -> Vec<(Instant, QItem)> {
    for a in &mut v {
        a.1.ecn = ecn;
    }
    v
}

fn item(id: u32, ecn: Ecn) -> QItem {
    QItem {
        id,
        bytes: 1500,
        ecn,
        ..Default::default()
    }
}

/// RFC 9332 / Linux `ecn_mask`: ECT(1) and CE to the L queue, Not-ECT and ECT(0) to
/// the C queue.
#[test]
fn classifies_l4s_to_the_l_queue() {
    let mut q = DualPi2::new(DualPi2Config::default(), Limit::default(), 1);
    let mut d = Drops::default();
    for (i, e) in [Ecn::Ect1, Ecn::Ce, Ecn::NotEct, Ecn::Ect0, Ecn::Ect1]
        .into_iter()
        .enumerate()
    {
        assert!(q.enqueue(T0, item(i as u32, e), &mut d));
    }
    assert_eq!(q.lens(), (3, 2));
    let s = q.stats();
    assert_eq!((s.l_enqueued, s.c_enqueued), (3, 2));
    assert_eq!(q.limit().pkts, Some(DEFAULT_LIMIT_PKTS));
}

/// Linux's defaults, and alpha/beta as Linux's netlink units give them (41/256, 819/256 Hz).
#[test]
fn defaults_are_linux_and_rfc() {
    let c = DualPi2Config::default();
    assert_eq!(c.target_ns, 15 * MS);
    assert_eq!(c.tupdate_ns, 16 * MS);
    assert!((c.alpha - 41.0 / 256.0).abs() < 0.001 && (c.beta - 819.0 / 256.0).abs() < 0.001);
    assert_eq!(
        (c.coupling_factor, c.step_thresh_ns, c.c_protection),
        (2, MS, 10)
    );
    assert!(c.drop_overload && !c.drop_early);
    let bad = DualPi2Config {
        step_thresh_ns: 20 * MS,
        ..c
    };
    assert!(bad.check().is_err());
}

/// One update against the PI arithmetic: p' += alpha (qdelay - target) + beta (qdelay - old),
/// qdelay the older of the two heads.
#[test]
fn update_follows_the_pi_arithmetic() {
    let mut q = DualPi2::new(DualPi2Config::default(), Limit::default(), 1);
    let mut d = Drops::default();
    let mut c = item(1, Ecn::NotEct);
    c.enq = T0 + 10 * MS;
    let mut l = item(2, Ecn::Ect1);
    l.enq = T0;
    q.enqueue(c.enq, c, &mut d);
    q.enqueue(l.enq, l, &mut d);
    q.update(T0 + 40 * MS); // heads: L 40 ms, C 30 ms
    let want = 0.16 * (0.040 - 0.015) + 3.2 * 0.040;
    assert!((q.prob() - want).abs() < 1e-12, "{}", q.prob());
    q.update(T0 + 50 * MS);
    let want = want + 0.16 * (0.050 - 0.015) + 3.2 * 0.010;
    assert!((q.prob() - want).abs() < 1e-12, "{}", q.prob());
    // Emptied: qdelay 0 pulls p' down by the fall of the delay, then to 0 and no further.
    while q.dequeue(T0 + 50 * MS, &mut d).is_some() {}
    q.update(T0 + 60 * MS);
    let want = want + 0.16 * (0.0 - 0.015) + 3.2 * (0.0 - 0.050);
    assert!((q.prob() - want).abs() < 1e-12, "{}", q.prob());
    for i in 0..3 {
        q.update(T0 + (70 + 10 * i) * MS);
    }
    assert_eq!(q.prob(), 0.0);
}

/// Classic (Not-ECT) UDP at 10 Mb/s and L (ECT(1)) UDP at 1 Mb/s into a 10 Mb/s link: the PI
/// must settle where the C queue loses the excess (1 Mb/s of 10, p_C = 0.1) with its delay at
/// the 15 ms target, and the L queue's coupled marking must be k·p' with p_C = (p_CL / k)²
/// (RFC 9332 §2.1). Uncoupled (p_C = p') or k = 1 misses by a factor of 3 or 4.
#[test]
fn coupling_squares_the_classic_probability() {
    let mut q = DualPi2::new(DualPi2Config::default(), Limit::default(), 7);
    let c = cbr(1, 1500, Duration::ZERO, Duration::from_us(1200), 30 * SEC);
    let l = with_ecn(cbr(2, 1500, Duration::ZERO, 12 * MS, 30 * SEC), Ecn::Ect1);
    let arr = merge(vec![c, l]);
    let mut at10 = None;
    let tr = run(&mut q, RATE, &arr, 30 * SEC, |t, q| {
        if at10.is_none() && t >= T0 + 10 * SEC {
            at10 = Some(q.stats());
        }
    });
    let (s0, s1) = (at10.unwrap(), q.stats());
    let in_span = |t: &Instant| *t >= T0 + 10 * SEC;
    let c_sent = tr
        .sent
        .iter()
        .filter(|(t, it)| in_span(t) && it.flow == 1)
        .count() as f64;
    let l_sent = tr
        .sent
        .iter()
        .filter(|(t, it)| in_span(t) && it.flow == 2)
        .count() as f64;
    let c_drops = (s1.c_drops - s0.c_drops) as f64;
    let p_c = c_drops / (c_drops + c_sent);
    let p_cl = (s1.l_pi_marks - s0.l_pi_marks) as f64 / l_sent;
    assert!((p_c - 0.1).abs() < 0.01, "p_C {p_c}");
    let coupled = (p_cl / 2.0).powi(2);
    assert!((p_c / coupled - 1.0).abs() < 0.1, "p_C {p_c} p_CL {p_cl}");
    // The C queue's sojourn sits at the target; the L queue, served first, stays shallow.
    let soj = |f: u32| {
        let v: Vec<f64> = tr
            .sent
            .iter()
            .filter(|(t, it)| in_span(t) && it.flow == f)
            .map(|(t, it)| (*t - it.enq).secs())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!((soj(1) - 0.015).abs() < 0.003, "C sojourn {}", soj(1));
    assert!(soj(2) < 0.002, "L sojourn {}", soj(2));
    assert!(tr
        .drops
        .iter()
        .all(|d| d.2 == DropReason::Aqm && d.1.flow == 1));
}

/// The L queue's native step (Linux `do_step_aqm`): with the PI off, an L packet is marked CE
/// exactly when it waited longer than 1 ms.
#[test]
fn step_marks_l_packets_past_the_threshold() {
    let cfg = DualPi2Config {
        alpha: 0.0,
        beta: 0.0,
        ..Default::default()
    };
    let mut q = DualPi2::new(cfg, Limit::default(), 1);
    // 10.5 Mb/s into 10 Mb/s for 0.5 s: the sojourn climbs from 0 to ~25 ms.
    let arr = with_ecn(
        cbr(1, 1500, Duration::ZERO, Duration::from_us(1143), SEC / 2),
        Ecn::Ect1,
    );
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    assert!(tr.drops.is_empty());
    let mut marked = 0;
    for (t, it) in &tr.sent {
        let late = *t - it.enq > MS;
        assert_eq!(it.ecn == Ecn::Ce, late, "sojourn {:?}", *t - it.enq);
        marked += late as u64;
    }
    assert!(marked > 100);
    assert_eq!(q.stats().step_marks, marked);
    assert_eq!(q.stats().l_pi_marks, 0);
}

/// Overload (k·p' > 1): unresponsive L traffic at twice the link rate drives p' past 1/k;
/// with `drop_overload` (the default) L packets are then dropped with p'² as classic ones;
/// without it none is dropped by the AQM, all are marked, and only the limit drops.
#[test]
fn overload_drops_l_packets_unless_told_not_to() {
    let arr = with_ecn(cbr(1, 1500, Duration::ZERO, MS / 2, 10 * SEC), Ecn::Ect1);
    let limit = Limit {
        pkts: Some(2000),
        bytes: None,
    };
    let mut q = DualPi2::new(DualPi2Config::default(), limit, 1);
    let tr = run(&mut q, RATE, &arr, 10 * SEC, |_, _| {});
    let aqm = tr.aqm_drop_times().len();
    assert!(aqm > 5000, "aqm drops {aqm}");
    assert!(q.prob() > 0.5, "p' {}", q.prob());
    assert!(tr.drops.iter().all(|d| d.2 == DropReason::Aqm));

    let cfg = DualPi2Config {
        drop_overload: false,
        ..Default::default()
    };
    let mut q = DualPi2::new(cfg, limit, 1);
    let tr = run(&mut q, RATE, &arr, 10 * SEC, |_, _| {});
    assert!(tr.aqm_drop_times().is_empty());
    assert!(tr.drops.iter().all(|d| d.2 == DropReason::Overflow));
    assert!(!tr.drops.is_empty());
    assert!(
        (q.prob() - 0.5).abs() < 1e-12,
        "capped at 1/k: {}",
        q.prob()
    );
}

/// Linux's WRR (`c_protection` 10%): both queues backlogged (12 and 16 Mb/s into 10), the C
/// queue gets 10% of the bytes.
#[test]
fn round_robin_protects_the_classic_queue() {
    let cfg = DualPi2Config {
        alpha: 0.0,
        beta: 0.0,
        ..Default::default()
    };
    let mut q = DualPi2::new(cfg, Limit::default(), 1);
    let c = cbr(1, 1500, Duration::ZERO, MS, 2 * SEC);
    let l = with_ecn(cbr(2, 1000, Duration::ZERO, MS / 2, 2 * SEC), Ecn::Ect1);
    let arr = merge(vec![c, l]);
    let tr = run(&mut q, RATE, &arr, 2 * SEC, |_, _| {});
    let bytes = |f: u32| -> u64 {
        tr.sent
            .iter()
            .filter(|(t, it)| *t >= T0 + SEC && it.flow == f)
            .map(|(_, it)| it.bytes as u64)
            .sum()
    };
    let share = bytes(1) as f64 / (bytes(1) + bytes(2)) as f64;
    assert!((share - 0.1).abs() < 0.01, "C share {share}");
}

/// Same arrivals and seed, same trace.
#[test]
fn deterministic() {
    let go = || -> Trace {
        let mut q = DualPi2::new(DualPi2Config::default(), Limit::default(), 5);
        let c = with_ecn(cbr(1, 1500, Duration::ZERO, MS, 5 * SEC), Ecn::Ect0);
        let l = with_ecn(cbr(2, 1500, Duration::ZERO, 4 * MS, 5 * SEC), Ecn::Ect1);
        run(&mut q, RATE, &merge(vec![c, l]), 5 * SEC, |_, _| {})
    };
    let (a, b) = (go(), go());
    assert_eq!(a.sent, b.sent);
    assert_eq!(a.drops, b.drops);
}

/// `n` L packets enqueued at once at `T0`, then dequeued one after another at `at`: whether each
/// left marked.
fn l_burst_marks(q: &mut DualPi2, n: u32, at: Instant) -> Vec<bool> {
    let mut d = Drops::default();
    for i in 0..n {
        assert!(q.enqueue(T0, item(i, Ecn::Ect1), &mut d));
    }
    (0..n)
        .map(|_| q.dequeue(at, &mut d).unwrap().ecn == Ecn::Ce)
        .collect()
}

/// Linux's `min_qlen_step`: the step applies only to L packets that found at least that many
/// packets in the L queue when they arrived. Five L packets enqueued at once into an empty
/// queue and dequeued 5 ms later (all past the 1 ms step): with the default (0) every one is
/// marked; with 2 the first two (which found 0 and 1 there) leave unmarked, the other three
/// marked.
#[test]
fn min_qlen_step_spares_the_packets_that_found_a_short_queue() {
    for (min_qlen, want) in [(0, [true; 5]), (2, [false, false, true, true, true])] {
        let cfg = DualPi2Config {
            min_qlen_step: min_qlen,
            ..Default::default()
        };
        let mut q = DualPi2::new(cfg, Limit::default(), 1);
        let marked = l_burst_marks(&mut q, 5, T0 + 5 * MS);
        assert_eq!(marked, want, "min_qlen_step {min_qlen}");
        assert_eq!(
            q.stats().step_marks,
            want.iter().filter(|m| **m).count() as u64
        );
    }
}

/// Linux's step in packets (`step_thresh` given in packets): an L packet is marked when it leaves
/// more than that many behind it in the L queue, whatever it waited. Six packets dequeued at
/// once, with a step of 2 packets: the first three (5, 4 and 3 behind them) are marked, the
/// last three (2, 1, 0) not, though none waited past the time step and all would be marked by
/// it 5 ms later.
#[test]
fn a_step_in_packets_counts_the_packets_left_behind() {
    let cfg = DualPi2Config {
        step_thresh_packets: Some(2),
        ..Default::default()
    };
    let mut q = DualPi2::new(cfg, Limit::default(), 1);
    assert_eq!(
        l_burst_marks(&mut q, 6, T0),
        [true, true, true, false, false, false]
    );
    let mut d = Drops::default();
    let mut q = DualPi2::new(cfg, Limit::default(), 1);
    for i in 0..2 {
        assert!(q.enqueue(T0, item(i, Ecn::Ect1), &mut d));
    }
    assert!((0..2).all(|_| q.dequeue(T0 + 5 * MS, &mut d).unwrap().ecn == Ecn::Ect1));
}
