//! BBR and paced senders through the engine: two BBR flows share a bottleneck, BBR keeps a
//! deep FIFO short where Cubic fills it, and runs repeat exactly.

use crate::tcp_util;

use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use serde_json::json;
use tcp_util::*;

/// Two flows of `tcp` over 10 Mb/s with a 40 ms round trip and a FIFO of `limit` packets, the
/// second starting 2 s after the first, measured over 10–40 s.
fn two_flows(tcp: serde_json::Value, limit: u64, seed: u64) -> bufferlab_core::results::RunOutput {
    let mut d = Dumbbell::new(2, 10 * MBPS, 19 * NS_PER_MS, limit);
    d.duration_ns = 40 * NS_PER_SEC;
    d.measure_ns = Some([10 * NS_PER_SEC, 40 * NS_PER_SEC]);
    d.seed = seed;
    let t = |start: f64| json!({"kind": "tcp", "start_ns": {"dist": "const", "value": start}, "tcp": tcp.clone()});
    run_ok(&d.scenario(vec![(vec![0], t(0.0)), (vec![1], t(2e9))]))
}

#[test]
fn two_bbr_flows_share_a_bottleneck_equally() {
    // One BDP is 34 packets; a FIFO of 2 BDP.
    for seed in [1, 2] {
        let out = two_flows(json!({"cc": "bbr"}), 68, seed);
        let g: Vec<f64> = out.summary.flows.iter().map(|f| f.goodput_bps).collect();
        let j = jain(&g);
        assert!(j >= 0.95, "seed {seed}: Jain {j:.3} over {g:?}");
        assert!(out.link("r1->r2").unwrap().utilization > 0.95);
    }
}

#[test]
fn bbr_keeps_a_deep_fifo_short_where_cubic_fills_it() {
    // A FIFO of 10 BDP: Cubic's window grows until it overflows; each BBR flow's flight is
    // bounded by twice its estimated BDP. Two BBR flows still queue more than one does (each
    // estimate includes the other's probing, and their PROBE_RTTs do not coincide): 64 ms here,
    // against Cubic's 349 ms.
    let sojourn = |cc: &str| {
        let out = two_flows(json!({"cc": cc}), 340, 1);
        let q = out.queue("r1->r2").unwrap();
        (
            q.sojourn_mean_s.unwrap(),
            out.link("r1->r2").unwrap().utilization,
        )
    };
    let (bbr, ub) = sojourn("bbr");
    let (cubic, uc) = sojourn("cubic");
    assert!(ub > 0.95 && uc > 0.95, "utilization {ub} {uc}");
    // One BDP of queue is 40 ms.
    assert!(bbr < 0.080, "BBR: {:.1} ms", bbr * 1e3);
    assert!(
        cubic > 4.0 * bbr,
        "Cubic {:.1} ms, BBR {:.1} ms",
        cubic * 1e3,
        bbr * 1e3
    );
}

#[test]
fn bbr_and_paced_runs_repeat_exactly() {
    for tcp in [json!({"cc": "bbr"}), json!({"cc": "cubic", "pacing": true})] {
        let a = two_flows(tcp.clone(), 20, 3);
        let b = two_flows(tcp, 20, 3);
        assert_eq!(
            serde_json::to_string(&a.summary).unwrap(),
            serde_json::to_string(&b.summary).unwrap()
        );
    }
}
