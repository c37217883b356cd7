//! Property: on random topologies, rates, buffers and loads, every packet is accounted for
//! (created = delivered + dropped + queued + in flight, checked by the engine at the end of every
//! run), and a run is a pure function of its scenario and seed.

use bufferlab_core::run;
use proptest::prelude::*;
use serde_json::{json, Value};

fn dir(rate_bps: u64, delay_us: u64, limit: u64, bytes: bool, loss: f64, framing: &str) -> Value {
    let mut q = json!({ "qdisc": { "kind": "fifo" } });
    if bytes {
        q["limit_bytes"] = json!(limit * 1000);
    } else {
        q["limit_pkts"] = json!(limit);
    }
    json!({ "rate_bps": rate_bps, "delay_ns": delay_us * 1000, "queue": q, "loss": loss, "framing": framing })
}

prop_compose! {
    fn arb_dir()(rate in 100_000u64..50_000_000, delay in 0u64..20_000, limit in 1u64..200,
                 bytes in any::<bool>(), lossy in 0u8..4, loss in 0.0f64..0.2,
                 framing in prop::sample::select(vec!["none", "ethernet", "atm"])) -> Value {
        dir(rate, delay, limit, bytes, if lossy == 0 { loss } else { 0.0 }, framing)
    }
}

prop_compose! {
    /// A random connected graph of `n` nodes (a random tree plus extra links) and random flows.
    fn arb_scenario()(n in 2usize..7)(
        n in Just(n),
        parents in prop::collection::vec(any::<prop::sample::Index>(), n - 1),
        extra in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..3),
        dirs in prop::collection::vec((arb_dir(), arb_dir()), n + 2),
        flows in prop::collection::vec(
            (any::<prop::sample::Index>(), any::<prop::sample::Index>(), 10.0f64..5000.0, 28u32..1500,
             any::<bool>(), 1u8..8, prop::option::of((1u64..50, 1u64..500))), 1..5),
        pings in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..2),
        seed in any::<u64>(),
    ) -> Value {
        let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
        let mut links = Vec::new();
        let mut d = dirs.into_iter();
        for i in 1..n {
            let p = parents[i - 1].index(i);
            let (f, r) = d.next().unwrap();
            links.push(json!({ "a": names[p], "b": names[i], "forward": f, "reverse": r }));
        }
        for (a, b) in extra {
            let (a, b) = (a.index(n), b.index(n));
            if a != b {
                if let Some((f, r)) = d.next() {
                    links.push(json!({ "a": names[a], "b": names[b], "forward": f, "reverse": r }));
                }
            }
        }
        let mut traffic = Vec::new();
        for (s, t, pps, size, poisson, ttl, burst) in flows {
            let (s, t) = (s.index(n), t.index(n));
            if s == t { continue; }
            let mut u = json!({ "kind": "udp", "pairs": [[names[s], names[t]]], "rate_pps": pps,
                                "size_bytes": size, "arrivals": if poisson { "poisson" } else { "cbr" }, "ttl": ttl });
            if let (Some((k, every_ms)), false) = (burst, poisson) {
                u["burst"] = json!({ "packets": k, "every_ns": every_ms * 1_000_000 });
            }
            traffic.push(u);
        }
        for (s, t) in pings {
            let (s, t) = (s.index(n), t.index(n));
            if s != t {
                traffic.push(json!({ "kind": "ping", "pairs": [[names[s], names[t]]], "interval_ns": 10_000_000 }));
            }
        }
        json!({ "run": { "duration_ns": 2_000_000_000u64, "seed": seed, "measure_ns": [500_000_000u64, 2_000_000_000u64] },
                "nodes": names, "links": links, "traffic": traffic })
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_packet_is_accounted_for(v in arb_scenario()) {
        let sc = serde_json::from_value(v).unwrap();
        let a = run(&sc).map_err(|e| TestCaseError::fail(e))?;
        let c = &a.summary.conservation;
        prop_assert_eq!(c.created, c.delivered + c.dropped + c.queued + c.in_flight);
        for q in &a.summary.queues {
            prop_assert!(q.dropped <= q.arrivals + q.drops_by_reason.get("ttl").copied().unwrap_or(0));
            if let Some(l) = q.limit_pkts {
                prop_assert!(q.occupancy_mean_pkts <= l as f64 + 1e-9);
            }
        }
        for l in &a.summary.links {
            prop_assert!(l.utilization <= 1.0 + 1e-9);
        }
        // Same scenario, same seed: the same summary, byte for byte.
        let b = run(&sc).unwrap();
        prop_assert_eq!(a.summary_json(), b.summary_json());
    }
}
