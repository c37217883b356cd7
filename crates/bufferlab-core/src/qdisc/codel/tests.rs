use super::*;
use crate::qdisc::testkit::{cbr, merge, run};
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);

const RATE: u64 = 10_000_000; // 1500 B take 1.2 ms
const TX_1500: Duration = Duration::from_us(1200);
const T0: Instant = Instant::ZERO;

fn codel() -> Codel {
    Codel::new(CodelConfig::default(), Limit::default())
}

/// Open-loop overload at 120% of the link: one dropping state that never ends, so the drop
/// times must follow RFC 8289's schedule t_{k+1} = t_k + interval / sqrt(k), each drop taken at
/// the first dequeue at or after its due time (dequeues come every 1.2 ms).
#[test]
fn drop_spacing_follows_interval_over_sqrt_count() {
    let mut q = codel();
    let arr = cbr(1, 1500, Duration::ZERO, MS, 3 * SEC);
    let mut first_above: Option<Instant> = None;
    let tr = run(&mut q, RATE, &arr, 3 * SEC, |_, _| {});
    for (t, it) in &tr.sent {
        if first_above.is_none() && *t - it.enq >= 5 * MS {
            first_above = Some(*t);
        }
    }
    let drops = tr.aqm_drop_times();
    assert!(drops.len() > 100, "only {} drops", drops.len());
    // The first drop waits one interval after the sojourn first crossed target.
    let fa = first_above.unwrap();
    assert!(drops[0] >= fa + 100 * MS, "{:?} vs {:?}", drops[0], fa);
    assert!(drops[0] <= fa + 100 * MS + 2 * TX_1500);
    // Then the schedule: due_k = drops[0] + sum_{j<=k} interval/sqrt(j).
    let mut due = drops[0];
    for (k, &t) in drops.iter().enumerate().skip(1) {
        due += Duration::from_ns((100.0 * MS.as_ns() as f64 / (k as f64).sqrt()) as u64);
        assert!(
            t >= due && t < due + TX_1500 + Duration::from_ns(1),
            "drop {k} at {t:?}, due {due:?} (gap {:?})",
            t - drops[k - 1]
        );
    }
    // And the count is the number of drops in this one dropping state.
    assert_eq!(q.vars().count() as usize, drops.len());
    assert!(q.vars().dropping());
}

/// Bursts whose sojourn never reaches target: no drop, ever.
#[test]
fn no_drop_while_sojourn_below_target() {
    let mut q = codel();
    // 4 packets back to back every 6 ms: 80% load, the 4th waits 3.6 ms < 5 ms.
    let arr = merge(
        (0..4)
            .map(|k| cbr(1, 1500, Duration::from_ns(k), 6 * MS, 5 * SEC))
            .collect(),
    );
    let mut max_sojourn = Duration::ZERO;
    let tr = run(&mut q, RATE, &arr, 5 * SEC, |_, _| {});
    for (t, it) in &tr.sent {
        max_sojourn = max_sojourn.max(*t - it.enq);
    }
    assert!(max_sojourn < 5 * MS && max_sojourn > 3 * MS);
    assert!(tr.drops.is_empty());
}

/// Sojourn above target, but for less than an interval each time (the queue drains every 40 ms):
/// a good queue, no drop.
#[test]
fn no_drop_when_above_target_for_less_than_interval() {
    let mut q = codel();
    // 20 packets back to back every 40 ms: 60% load, the tail waits 22.8 ms.
    let arr = merge(
        (0..20)
            .map(|k| cbr(1, 1500, Duration::from_ns(k), 40 * MS, 5 * SEC))
            .collect(),
    );
    let tr = run(&mut q, RATE, &arr, 5 * SEC, |_, _| {});
    let max_sojourn = tr.sent.iter().map(|(t, it)| *t - it.enq).max().unwrap();
    assert!(max_sojourn > 20 * MS);
    assert!(tr.drops.is_empty());
}

/// RFC 8289: re-entering the dropping state soon after leaving it resumes at
/// count - lastcount instead of 1.
#[test]
fn reentry_resumes_count() {
    let mut q = codel();
    // 1 s of overload, 150 ms of silence (the queue drains), overload again.
    let mut arr = cbr(1, 1500, Duration::ZERO, MS, SEC);
    arr.extend(cbr(1, 1500, 1_400 * MS, MS, 2 * SEC));
    let mut counts = Vec::new();
    let tr = run(&mut q, RATE, &arr, 2 * SEC, |t, q| {
        counts.push((t, q.vars().count(), q.vars().dropping()))
    });
    let drops = tr.aqm_drop_times();
    let first_ep: Vec<_> = drops.iter().filter(|&&t| t < T0 + 1_400 * MS).collect();
    let c1 = first_ep.len() as u32;
    assert!(c1 > 5);
    // The count right after the first drop of the second episode.
    let t2 = *drops.iter().find(|&&t| t > T0 + 1_400 * MS).unwrap();
    let c2 = counts.iter().find(|c| c.0 == t2).unwrap().1;
    assert_eq!(
        c2,
        c1 - 1,
        "first episode {c1} drops (entered with count 1)"
    );
}
