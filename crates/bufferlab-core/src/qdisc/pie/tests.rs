use super::*;
use crate::qdisc::testkit::{cbr, run};
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;

const RATE: u64 = 10_000_000;

/// Open-loop overload at 120%: PIE must raise its drop probability to about the excess (1/6)
/// and hold the mean queueing delay near its 15 ms target; then, with the load gone under the
/// link rate, the probability must decay.
#[test]
fn overload_converges_to_target_then_decays() {
    let mut q = Pie::new(PieConfig::default(), Limit::default(), 3);
    let mut arr = cbr(1, 1500, Duration::ZERO, MS, 30 * SEC);
    arr.extend(cbr(1, 1500, 30 * SEC, 2 * MS, 40 * SEC));
    let mut p_at = Vec::new();
    let tr = run(&mut q, RATE, &arr, 40 * SEC, |t, q| {
        if p_at.last().is_none_or(|l: &(Instant, f64)| t >= l.0 + SEC) {
            p_at.push((t, q.drop_prob()));
        }
    });
    // Delay over the second half of the overload.
    let late: Vec<f64> = tr
        .sent
        .iter()
        .filter(|(t, _)| (T0 + 15 * SEC..T0 + 30 * SEC).contains(t))
        .map(|(t, it)| (*t - it.enq).secs())
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!((mean - 0.015).abs() < 0.004, "mean delay {mean} s");
    // Drops over the same span: the excess load, 1/6 of arrivals.
    let drops = tr
        .drops
        .iter()
        .filter(|d| (T0 + 15 * SEC..T0 + 30 * SEC).contains(&d.0))
        .count() as f64;
    let frac = drops / 15_000.0;
    assert!((frac - 1.0 / 6.0).abs() < 0.02, "drop fraction {frac}");
    assert!(tr.drops.iter().all(|d| d.2 == DropReason::Aqm));
    // The probability rose during overload and decayed after it.
    let p = |s: u64| p_at.iter().find(|x| x.0 >= T0 + s * SEC).unwrap().1;
    assert!(
        p_at[0].1 == 0.0 && p(2) > 0.1,
        "p(0)={} p(2)={}",
        p_at[0].1,
        p(2)
    );
    assert!((p(29) - 1.0 / 6.0).abs() < 0.05, "p(29)={}", p(29));
    assert!(p(39) < 0.2 * p(29), "p(29)={} p(39)={}", p(29), p(39));
}

/// The departure-rate estimate: 16 KB at 10 Mb/s take 13.1 ms, so the delay estimate of a
/// standing queue matches its bytes over the link rate.
#[test]
fn departure_rate_estimate_matches_link_rate() {
    let mut q = Pie::new(
        PieConfig {
            alpha: 0.0,
            beta: 0.0,
            ..Default::default()
        },
        Limit::default(),
        3,
    );
    let arr = cbr(1, 1500, Duration::ZERO, MS, 3 * SEC);
    let mut est = Vec::new();
    let _ = run(&mut q, RATE, &arr, 3 * SEC, |_, q| {
        est.push((q.qdelay_ns(), q.len_bytes()))
    });
    let (qd, bytes) = *est.last().unwrap();
    let expect = bytes as f64 * 8.0 / RATE as f64;
    assert!(bytes > 500_000);
    // The estimate lags the growing queue by up to one update (15 ms of growth, ~3 ms).
    assert!(
        ((qd).secs() - expect).abs() < 0.01 * expect + 0.004,
        "{} vs {expect}",
        (qd).secs()
    );
}

/// The burst allowance: a burst into an idle queue passes without early drops for 150 ms.
#[test]
fn burst_allowance_protects_a_new_burst() {
    let mut q = Pie::new(PieConfig::default(), Limit::default(), 3);
    let arr = cbr(1, 1500, Duration::ZERO, MS / 2, 140 * MS); // 240% load for 140 ms
    let tr = run(&mut q, RATE, &arr, SEC, |_, _| {});
    assert!(tr.drops.is_empty());
}

/// One update against RFC 8033 §4.2's arithmetic: p = alpha (qdelay - target) + beta (qdelay -
/// qdelay_old), scaled down by 2048 below 1e-6 and by 2 below 0.1, capped at +0.02 above 0.1,
/// decayed by 2% when the queue has stayed empty.
#[test]
fn update_follows_the_rfc_arithmetic() {
    let mut q = Pie::new(PieConfig::default(), Limit::default(), 3);
    let mut d = Drops::default();
    // 25 x 1500 B at a measured 10 Mb/s: the delay estimate is 30 ms.
    for i in 0..25 {
        assert!(q.enqueue(
            Instant::ZERO,
            QItem {
                id: i,
                bytes: 1500,
                ..Default::default()
            },
            &mut d
        ));
    }
    q.avg_dq_time_ns = DQ_THRESHOLD_BYTES as f64 * 8.0 / RATE as f64 * 1e9;
    let raw = 0.125 * (0.030 - 0.015) + 1.25 * (0.030 - 0.0);
    q.update();
    assert_eq!(q.qdelay_ns(), 30 * MS);
    assert!(
        (q.drop_prob() - raw / 2048.0).abs() < 1e-12,
        "{}",
        q.drop_prob()
    );
    // From 0.05 (scale 1/2), delay steady at 30 ms: only the alpha term.
    q.drop_prob = 0.05;
    q.update();
    assert!((q.drop_prob() - (0.05 + 0.125 * 0.015 / 2.0)).abs() < 1e-12);
    // From 0.15 a jump of the delay is capped at +0.02.
    q.drop_prob = 0.15;
    q.qdelay_old_ns = Duration::ZERO;
    q.update();
    assert!((q.drop_prob() - 0.17).abs() < 1e-12);
    // Emptied: first the fall of the delay pulls p down, then, empty for two updates, the
    // alpha term and a 2% decay.
    while q.dequeue(Instant::ZERO, &mut d).is_some() {}
    q.update();
    let p = q.drop_prob();
    assert!((p - (0.17 - 0.125 * 0.015 - 1.25 * 0.030)).abs() < 1e-12);
    q.update();
    assert!((q.drop_prob() - 0.98 * (p - 0.125 * 0.015)).abs() < 1e-12);
}
