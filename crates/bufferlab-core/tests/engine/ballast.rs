//! The ballast of Braud et al. (2013) end to end on their Table II link: 800 kb/s up (52 ms),
//! 5 Mb/s down (42 ms), 120-packet FIFOs, one NewReno upload and a ping every 100 ms.

use bufferlab_core::results::RunOutput;
use bufferlab_core::{run, Scenario};
use serde_json::{json, Value};

fn scenario(
    seed: u64,
    duration_s: u64,
    ballast: Option<Value>,
    upload_bytes: Option<u64>,
) -> Value {
    let fifo = json!({"qdisc": {"kind": "fifo"}, "limit_pkts": 120});
    let mut tcp = json!({"kind": "tcp", "pairs": [["client", "server"]], "count": 1,
        "start_ns": {"dist": "uniform", "lo": 0.0, "hi": 1e9}, "tcp": {"cc": "newreno"}});
    if let Some(b) = upload_bytes {
        tcp["size_bytes"] = json!(b);
    }
    let mut traffic = vec![
        tcp,
        json!({"kind": "ping", "pairs": [["client", "server"]], "interval_ns": 100_000_000u64}),
    ];
    if let Some(mut b) = ballast {
        b["kind"] = json!("ballast");
        b["pairs"] = json!([["client", "server"]]);
        traffic.push(b);
    }
    json!({
        "run": {"duration_ns": duration_s * 1_000_000_000, "seed": seed,
                "measure_ns": [20_000_000_000u64, duration_s * 1_000_000_000],
                "sample_ns": 100_000_000u64},
        "nodes": ["client", "server"],
        "links": [{"a": "client", "b": "server",
            "forward": {"rate_bps": 800_000, "delay_ns": 52_000_000, "queue": fifo},
            "reverse": {"rate_bps": 5_000_000, "delay_ns": 42_000_000, "queue": fifo}}],
        "traffic": traffic,
    })
}

fn go(v: Value) -> RunOutput {
    let sc: Scenario = serde_json::from_value(v).unwrap();
    run(&sc).unwrap()
}

/// Mean over seeds of (upload goodput, ping RTT, ballast packets sent).
fn measure(ballast: Option<Value>) -> (f64, f64, f64) {
    let seeds = [1, 2, 3];
    let (mut g, mut r, mut n) = (0.0, 0.0, 0.0);
    for s in seeds {
        let out = go(scenario(s, 100, ballast.clone(), None));
        let f = &out.summary.flows;
        g += f[0].goodput_bps;
        r += f[1].rtt_mean_s.unwrap();
        n += f.get(2).map_or(0.0, |b| b.pkts_sent as f64);
    }
    let k = seeds.len() as f64;
    (g / k, r / k, n / k)
}

#[test]
fn continuous_bursty_and_auto_ballast_cut_the_rtt() {
    let (g0, r0, _) = measure(None);
    // Without ballast the upload fills the 120 packets: ~1.3 s of RTT.
    assert!(r0 > 1.0, "no ballast: {r0} s");
    let (g1, r1, n1) = measure(Some(json!({"rate_pps": 250.0})));
    // §II and Table II: a 250 pkt/s ballast cuts the RTT more than twice for a few % of goodput
    // (eq. 7: 6.8 % of the bytes).
    assert!(r0 / r1 >= 2.0, "continuous: {r0} -> {r1}");
    assert!(g1 >= 0.8 * g0, "continuous: goodput {g0} -> {g1}");
    // Bursts of 80 packets a second: over 3x fewer packets for at least 80 % of the cut.
    let (_, r2, n2) = measure(Some(
        json!({"rate_pps": 250.0, "burst": {"packets": 80, "every_ns": 1_000_000_000u64}}),
    ));
    assert!(n1 / n2 >= 3.0, "bursty sends {n2} packets against {n1}");
    assert!(
        (r0 - r2) >= 0.8 * (r0 - r1),
        "bursty cut {} s of {} s",
        r0 - r2,
        r0 - r1
    );
    // The controller, told nothing about the buffer: at least a 2x cut within the 20 % share.
    let (g3, r3, _) = measure(Some(json!({"auto": true})));
    assert!(r0 / r3 >= 2.0, "auto: {r0} -> {r3}");
    assert!(g3 >= 0.8 * g0, "auto: goodput {g0} -> {g3}");
}

#[test]
fn auto_ballast_goes_quiet_when_the_upload_ends() {
    // A 600 kB upload ends after ~8 s; the ballast must stop within 2 s of its last segment.
    let out = go(scenario(4, 30, Some(json!({"auto": true})), Some(600_000)));
    let done = out.summary.flows[0]
        .completion_time_s
        .expect("upload completes");
    let ts = &out.timeseries;
    let mut last_sent = 0.0f64;
    let mut sent_while_busy = false;
    for i in 0..ts.time_s.len() {
        if ts.id[i] == "ballast-1" && ts.metric[i] == "goodput_bps" && ts.value[i] > 0.0 {
            last_sent = last_sent.max(ts.time_s[i]);
            sent_while_busy |= ts.time_s[i] < done;
        }
    }
    assert!(sent_while_busy, "the ballast ran during the upload");
    // Arrivals trail emissions by the uplink's queue (~0.4 s) and propagation; the series'
    // 100 ms bins add one more step.
    assert!(
        last_sent <= done + 2.0 + 0.6,
        "last ballast arrival {last_sent} s, upload done {done} s"
    );
}

#[test]
fn ballast_runs_are_deterministic() {
    let a = go(scenario(7, 40, Some(json!({"auto": true})), None));
    let b = go(scenario(7, 40, Some(json!({"auto": true})), None));
    assert_eq!(a.summary.flows[2].pkts_sent, b.summary.flows[2].pkts_sent);
    assert_eq!(
        a.summary.flows[0].bytes_delivered,
        b.summary.flows[0].bytes_delivered
    );
}

#[test]
fn bad_ballast_blocks_are_refused() {
    for (b, msg) in [
        (json!({}), "give a rate"),
        (
            json!({"auto": true, "rate_pps": 10.0}),
            "remove rate and burst",
        ),
        (json!({"auto": true, "max_share": 1.5}), "max_share"),
        (json!({"auto": true, "period_ns": 0}), "period"),
    ] {
        let sc: Scenario = serde_json::from_value(scenario(1, 30, Some(b.clone()), None)).unwrap();
        let err = run(&sc).err().unwrap_or_else(|| panic!("{b} accepted"));
        assert!(err.contains(msg), "{b}: {err}");
    }
}
