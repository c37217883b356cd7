//! Throughput under random loss against the square-root law (Mathis et al. 1997; seed 004
//! eq. 1): `S = C · MSS / (RTT · √p)`, with `C = √(3 / (2b))` for `b` segments per window
//! increase step. Seed 004 quotes C = 0.87 (b = 2: delayed ACKs with per-ACK growth); the model
//! counts acknowledged bytes (RFC 3465, RFC 5681 §3.1's recommended way), so the window grows
//! one MSS per RTT whatever the ACK ratio, b = 1 and C = √1.5 = 1.22.

use crate::tcp_util;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use serde_json::json;
use tcp_util::*;

fn ratio_to_mathis(rtt_ms: u64, p: f64) -> f64 {
    let seeds = 3;
    let mut sum = 0.0;
    for seed in 1..=seeds {
        // A fast bottleneck with room to spare: losses come only from the link's random loss.
        let mut d = Dumbbell::new(1, 100 * MBPS, NS_PER_MS, 5000);
        d.access_ns = vec![(rtt_ms * NS_PER_MS / 2 - NS_PER_MS) / 2];
        d.loss = p;
        d.seed = seed;
        d.duration_ns = 60 * NS_PER_SEC;
        d.measure_ns = Some([5 * NS_PER_SEC, 60 * NS_PER_SEC]);
        let out = run_ok(&d.scenario(vec![(vec![0], bulk(json!({})))]));
        let f = &out.summary.flows[0];
        let rtt_s = f.rtt_mean_s.unwrap();
        let mathis = 1.5f64.sqrt() * 1460.0 * 8.0 / (rtt_s * p.sqrt());
        let q = out.queue("r1->r2").unwrap();
        assert_eq!(q.drops_by_reason.get("overflow"), None, "no overflow");
        assert!(q.drops_by_reason.get("loss").is_some_and(|&n| n > 20));
        sum += f.goodput_bps / mathis;
    }
    sum / seeds as f64
}

#[test]
fn random_loss_follows_the_square_root_law() {
    for (rtt_ms, p) in [(20, 0.001), (20, 0.004), (60, 0.001), (60, 0.003)] {
        let r = ratio_to_mathis(rtt_ms, p);
        assert!(
            (0.8..1.2).contains(&r),
            "RTT {rtt_ms} ms, p = {p}: goodput / Mathis = {r:.3}"
        );
    }
}

#[test]
fn quadrupling_loss_halves_throughput() {
    // The law's shape, independent of its constant: S ∝ 1/√p.
    let a = ratio_to_mathis(40, 0.0005);
    let b = ratio_to_mathis(40, 0.002);
    assert!((a / b - 1.0).abs() < 0.15, "{a:.3} vs {b:.3}");
}
