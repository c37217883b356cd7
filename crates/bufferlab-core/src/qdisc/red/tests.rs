use super::*;

fn item(id: u32) -> QItem {
    QItem {
        id,
        bytes: 1000,
        ..Default::default()
    }
}

/// The average of a queue held at q from avg = 0 is q (1 - (1 - w)^n) after n arrivals.
#[test]
fn average_follows_ewma_closed_form() {
    let mut r = Red::new(RedConfig::default(), Limit::default(), 1);
    let mut d = Drops::default();
    // Fill to 8 packets (each arrival updates avg with the length it finds: 0..7).
    let mut avg = 0.0;
    for i in 0..8u32 {
        assert!(r.enqueue(Instant::ZERO, item(i), &mut d));
        avg = avg * (1.0 - 0.002) + 0.002 * i as f64;
    }
    assert!((r.avg() - avg).abs() < 1e-12);
    // Hold at 8: arrive, leave.
    for n in 1..=400u32 {
        assert!(r.enqueue(Instant::ZERO, item(100 + n), &mut d));
        r.dequeue(Instant::ZERO, &mut d).unwrap();
        let expect = 8.0 + (avg - 8.0) * (1.0 - 0.002f64).powi(n as i32);
        assert!(
            (r.avg() - expect).abs() < 1e-9,
            "n={n}: {} vs {expect}",
            r.avg()
        );
    }
    assert!(d.items.is_empty());
}

/// An idle period of T on a link that sends `pkts_per_sec` small packets decays the average by
/// (1 - w)^(m + 1), m = floor(T x pkts_per_sec).
#[test]
fn idle_time_decays_average() {
    let mut r = Red::new(RedConfig::default(), Limit::default(), 1);
    r.set_link_rate(10_000_000); // 500 B take 0.4 ms: 2500 per second
    let mut d = Drops::default();
    for i in 0..10 {
        r.enqueue(Instant::ZERO, item(i), &mut d);
    }
    while r.dequeue(Instant::from_ms(1), &mut d).is_some() {}
    assert!(r.dequeue(Instant::from_ms(1), &mut d).is_none()); // idle from 1 ms
    let before = r.avg();
    r.enqueue(Instant::from_ms(41), item(99), &mut d); // 40 ms later: m = 100
    let expect = before * (1.0 - 0.002f64).powi(101);
    assert!((r.avg() - expect).abs() < 1e-12, "{} vs {expect}", r.avg());
}

/// Mean arrivals per drop for a constant p_b, from the hazard p_a(count):
/// E[gap] = sum_{n>=0} prod_{c=1..n} (1 - p_a(c)).
fn mean_gap(r: &Red, pb: f64) -> f64 {
    let (mut s, mut e) = (1.0, 0.0);
    for c in 1..100_000u64 {
        e += s;
        s *= 1.0 - r.spread_prob(pb, c);
        if s == 0.0 {
            break;
        }
    }
    e
}

/// Drop fraction with the average held in the linear region, against the closed form; with
/// `wait` the gaps are uniform on [1/p_b, 2/p_b] (mean 1.5/p_b), without on [1, 1/p_b].
#[test]
fn drop_fraction_matches_closed_form() {
    for wait in [true, false] {
        let cfg = RedConfig {
            weight: 1.0, // avg = instantaneous queue, so p_b is fixed by the held length
            wait,
            ..Default::default()
        };
        let mut r = Red::new(cfg, Limit::default(), 5);
        let mut d = Drops::default();
        let mut i = 0;
        while r.len_pkts() < 10 {
            r.enqueue(Instant::ZERO, item(i), &mut d);
            i += 1;
        }
        d.items.clear();
        // Hold the queue at 10: p_b = 0.1 (10 - 5) / 10 = 0.05.
        let n = 400_000u32;
        let mut dropped = 0u32;
        for i in 0..n {
            if r.enqueue(Instant::ZERO, item(1000 + i), &mut d) {
                r.dequeue(Instant::ZERO, &mut d);
            } else {
                dropped += 1;
            }
        }
        assert_eq!(r.len_pkts(), 10);
        let pb = r.base_prob(10.0);
        assert!((pb - 0.05).abs() < 1e-12);
        let expect = 1.0 / mean_gap(&r, pb);
        let got = dropped as f64 / n as f64;
        assert!(
            (got - expect).abs() / expect < 0.02,
            "wait={wait}: {got} vs {expect}"
        );
        // And it is not the naive geometric p_b.
        assert!((got - pb).abs() / pb > 0.2);
        // The hazards make the gap uniform: on {20..39} with wait (mean 29.5), on {1..19}
        // without (mean 10).
        let uniform_mean = if wait { 29.5 } else { 10.0 };
        assert!(
            (mean_gap(&r, pb) - uniform_mean).abs() < 1e-6,
            "{}",
            mean_gap(&r, pb)
        );
    }
}

/// Gentle RED ramps from max_p at max_th to 1 at 2 max_th; plain RED jumps to 1.
#[test]
fn gentle_ramp() {
    let r = Red::new(RedConfig::default(), Limit::default(), 1);
    assert_eq!(r.base_prob(4.9), 0.0);
    assert!((r.base_prob(15.0) - 0.1).abs() < 1e-12);
    assert!((r.base_prob(22.5) - 0.55).abs() < 1e-12);
    assert_eq!(r.base_prob(30.0), 1.0);
    let plain = Red::new(
        RedConfig {
            gentle: false,
            ..Default::default()
        },
        Limit::default(),
        1,
    );
    assert_eq!(plain.base_prob(15.0), 1.0);
}

/// Plan keys: thresholds in packets (plain or `_pkts`) or bytes, one unit for both.
#[test]
fn thresholds_in_packets_or_bytes() {
    let spec = |v: serde_json::Value| serde_json::from_value::<RedSpec>(v).unwrap();
    let c = spec(serde_json::json!({"min_th": 3, "max_th_pkts": 9}))
        .config()
        .unwrap();
    assert_eq!((c.min_th, c.max_th, c.bytes), (3.0, 9.0, false));
    let c = spec(serde_json::json!({"min_th_bytes": 30000, "max_th_bytes": 90000, "weight": 1.0}))
        .config()
        .unwrap();
    let mut r = Red::new(c, Limit::default(), 1);
    assert!(r.cfg.bytes);
    let mut d = Drops::default();
    for i in 0..3 {
        r.enqueue(Instant::ZERO, item(i), &mut d);
    }
    r.enqueue(Instant::ZERO, item(9), &mut d);
    assert_eq!(r.avg(), 3000.0, "the average counts bytes");
    let e = spec(serde_json::json!({"min_th_bytes": 3000, "max_th": 9}))
        .config()
        .unwrap_err();
    assert!(e.to_string().starts_with("max_th: "), "{e}");
    let e = spec(serde_json::json!({"min_th": 5, "min_th_bytes": 9}))
        .config()
        .unwrap_err();
    assert!(e.to_string().starts_with("min_th: given twice"), "{e}");
    assert!(serde_json::from_value::<RedSpec>(serde_json::json!({"min_th": "5"})).is_err());
}

/// Step marking (RFC 8257 §3.1): min_th = max_th = K, max_p = 1, weight 1 (the instantaneous
/// queue), ECN. Every ECN-capable arrival that finds K or more packets queued is marked and
/// none below K; a Not-ECT one finding K or more is dropped, as RED drops what it cannot mark.
#[test]
fn min_equal_max_is_step_marking_on_the_instantaneous_queue() {
    use crate::packet::Ecn;
    const K: usize = 5;
    let spec: RedSpec = serde_json::from_value(serde_json::json!({
        "min_th": K, "max_th": K, "max_p": 1.0, "weight": 1.0, "ecn": true
    }))
    .unwrap();
    let mut r = Red::new(spec.config().unwrap(), Limit::default(), 1);
    let mut d = Drops::default();
    for i in 0..12u32 {
        let before = r.len_pkts() as usize;
        let it = QItem {
            ecn: Ecn::Ect1,
            ..item(i)
        };
        assert!(r.enqueue(Instant::ZERO, it, &mut d));
        assert_eq!(
            d.marks as usize,
            before.saturating_sub(K - 1),
            "arrival {i} found {before}"
        );
    }
    let mut marked = Vec::new();
    while let Some(it) = r.dequeue(Instant::ZERO, &mut d) {
        marked.push(it.ecn == Ecn::Ce);
    }
    assert_eq!(marked, (0..12).map(|i| i >= K).collect::<Vec<_>>());
    // Not-ECT at the step: dropped.
    for i in 0..6u32 {
        r.enqueue(Instant::ZERO, item(100 + i), &mut d);
    }
    assert_eq!(d.items.len(), 1);
    // Below min_th is still refused.
    let bad: RedSpec =
        serde_json::from_value(serde_json::json!({"min_th": 6, "max_th": 5})).unwrap();
    assert!(bad
        .config()
        .unwrap_err()
        .to_string()
        .starts_with("max_th: must not be below"));
}
