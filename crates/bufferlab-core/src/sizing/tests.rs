use super::*;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;

fn spec(rule: &str, scale: f64) -> SizingSpec {
    SizingSpec {
        rule: rule.into(),
        scale,
    }
}

/// Seed 003 §3.1's 10 Mb/s dumbbell: 1500 B packets, RTT 102 ms (50 ms bottleneck, 0.5 ms
/// access links), here with 100 flows and 101 input links at R1.
fn ctx(n: usize) -> SizingCtx {
    SizingCtx {
        rate_bps: 10_000_000,
        flow_rtts_ns: vec![102 * MS; n],
        input_links: 101,
        pkt_bytes: 1500,
    }
}

fn pk(r: Result<(Limit, String), crate::problem::Problem>) -> u64 {
    r.unwrap().0.pkts.unwrap()
}

#[test]
fn bdp_is_rate_times_mean_rtt() {
    // 10 Mb/s x 102 ms = 127500 B = 85 packets.
    assert_eq!(pk(resolve(&spec("bdp", 1.0), &ctx(1))), 85);
    assert_eq!(pk(resolve(&spec("bdp", 0.5), &ctx(1))), 43); // 42.5 rounds up
                                                             // Seed 004 §III-C: 10 ms and 990 ms flows, 100 Mb/s, 1 KB packets -> 6250 packets.
    let c = SizingCtx {
        rate_bps: 100_000_000,
        flow_rtts_ns: vec![10 * MS, 990 * MS],
        input_links: 3,
        pkt_bytes: 1000,
    };
    let (l, name) = resolve(&spec("bdp", 1.0), &c).unwrap();
    assert_eq!((l.pkts, l.bytes, name.as_str()), (Some(6250), None, "bdp"));
}

#[test]
fn over_square_root() {
    // 85 / sqrt(100) = 8.5 -> 9 (seed 003 §3.2: "10% of the bitrate-delay product").
    assert_eq!(pk(resolve(&spec("bdp/sqrt(n)", 1.0), &ctx(100))), 9);
    assert_eq!(pk(resolve(&spec("bdp/sqrt(n)", 1.0), &ctx(4))), 43);
}

#[test]
fn connection_proportional_and_the_max() {
    assert_eq!(
        pk(resolve(&spec("connection-proportional", 1.0), &ctx(100))),
        600
    );
    assert_eq!(
        pk(resolve(&spec("connection-proportional", 1.0), &ctx(3))),
        18
    );
    // The max picks BDP for few flows, connection-proportional for many (seed 003 §3.2).
    assert_eq!(
        pk(resolve(
            &spec("max(bdp, connection-proportional)", 1.0),
            &ctx(3)
        )),
        85
    );
    assert_eq!(
        pk(resolve(
            &spec("max(bdp,connection-proportional)", 1.0),
            &ctx(100)
        )),
        600
    );
    assert_eq!(
        pk(resolve(
            &spec("MAX(BDP, Connection-Proportional)", 2.0),
            &ctx(14)
        )),
        170
    );
}

#[test]
fn two_l() {
    let (l, name) = resolve(&spec("2L", 1.0), &ctx(100)).unwrap();
    assert_eq!((l.pkts, name.as_str()), (Some(202), "2L"));
    assert_eq!(pk(resolve(&spec("2l", 0.5), &ctx(100))), 101);
}

#[test]
fn errors_say_what_to_do() {
    let e = resolve(&spec("bpd", 1.0), &ctx(1)).unwrap_err().to_string();
    assert!(e.starts_with("rule: unknown sizing rule \"bpd\""), "{e}");
    assert!(e.contains("\"bdp\""));
    // A scale of zero or less is refused by the plan's bounds, at the queue's sizing.scale.
    let plan = serde_json::json!({
        "run": {"duration_ns": 1_000_000_000u64},
        "nodes": ["a", "b"],
        "links": [{"a": "a", "b": "b",
            "forward": {"rate_bps": 1_000_000u64, "delay_ns": 0,
                        "queue": {"qdisc": {"kind": "fifo"}, "sizing": {"rule": "bdp", "scale": -1.0}}},
            "reverse": {"rate_bps": 1_000_000u64, "delay_ns": 0, "queue": {"qdisc": {"kind": "fifo"}}}}],
    });
    let sc: crate::scenario::Scenario = serde_json::from_value(plan).unwrap();
    let e = crate::bounds::check(&sc);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].to_string()
            .starts_with("links[0].forward.queue.sizing.scale: must be above 0"),
        "{}",
        e[0]
    );
    // A port no flow crosses never queues: it keeps the txqueuelen default.
    assert_eq!(pk(resolve(&spec("bdp", 1.0), &ctx(0))), 1000);
    assert_eq!(
        pk(resolve(&spec("connection-proportional", 1.0), &ctx(0))),
        1000
    );
    // 2L needs no flows.
    assert_eq!(pk(resolve(&spec("2L", 1.0), &ctx(0))), 202);
}

/// Seed 003 §4.2's argument: with buffer b (in BDPs) one NewReno flow's load oscillates between
/// (1 + b)/2 and 1 + b BDPs, its queueing delay uniformly between (b - 1)/2 and b times D, so a
/// router measuring the mean RTT over a cycle sets b' = 1 + (3b - 1)/4. From b = 1: 1.5, 1.875,
/// ... -> 3.
#[test]
fn rtt_adaptive_drifts_to_three_bdp_on_the_papers_model() {
    let c = ctx(1);
    let d_ns = (102 * MS).as_ns() as f64;
    let bdp = 10_000_000.0 * 0.102 / 8.0 / 1500.0; // 85 packets
    let mut s = AdaptiveSizer::new(&spec("rtt-adaptive", 1.0), &c, 10 * SEC).unwrap();
    assert_eq!(s.limit().pkts, Some(85));
    let mut b: f64 = 1.0; // the exact iteration, for comparison
    let mut now = Instant::ZERO;
    let mut seen = Vec::new();
    for _ in 0..30 {
        let got = s.limit().pkts.unwrap() as f64 / bdp;
        // One cycle of RTT stamps (20 s of them), queueing uniform on [(g - 1)/2, g] D, ending
        // in a drop.
        let lo = (got - 1.0) / 2.0;
        for i in 0..10_000u64 {
            let q = lo + (got - lo) * (i as f64 + 0.5) / 10_000.0;
            s.on_packet(
                now + i * 2 * MS,
                Duration::from_ns((d_ns * (1.0 + q)) as u64),
            );
        }
        now += 20 * SEC;
        assert_eq!(
            s.next_update(),
            Instant::NEVER,
            "nothing due without a drop"
        );
        s.on_drop(now);
        assert_eq!(s.next_update(), now);
        s.update(now);
        b = 1.0 + (3.0 * b - 1.0) / 4.0;
        seen.push(s.limit().pkts.unwrap());
    }
    // Whole packets: within one of 1.5 x 85 = 127.5 and 1.875 x 85 = 159.4.
    assert!((seen[0] as f64 - 1.5 * bdp).abs() <= 1.0, "{seen:?}");
    assert!((seen[1] as f64 - 1.875 * bdp).abs() <= 1.0, "{seen:?}");
    let last = *seen.last().unwrap() as f64 / bdp;
    assert!((last - 3.0).abs() < 0.03, "{last} BDP");
    assert!((b - 3.0).abs() < 1e-3);
}

/// Drops closer than the period re-size once.
#[test]
fn rtt_adaptive_resizes_once_per_period() {
    let mut s = AdaptiveSizer::new(&spec("rtt-adaptive", 1.0), &ctx(1), 10 * SEC).unwrap();
    s.on_packet(T0, 204 * MS);
    s.on_drop(T0 + 5 * SEC);
    assert_eq!(s.next_update(), Instant::NEVER);
    s.on_drop(T0 + 11 * SEC);
    s.on_drop(T0 + 12 * SEC);
    assert_eq!(s.next_update(), T0 + 11 * SEC);
    assert_eq!(s.update(T0 + 11 * SEC).pkts, Some(170));
    s.on_drop(T0 + 15 * SEC);
    assert_eq!(s.next_update(), Instant::NEVER);
}

/// The same loop with a window that grows one packet per RTT (so the queue grows slower as the
/// RTT lengthens and the flow spends longer at high delay) and halves on overflow: the buffer
/// still inflates to several BDPs — about 3.5 here, since the time-averaged queue of that
/// sawtooth is higher than the uniform one — and never comes back to one.
#[test]
fn rtt_adaptive_inflates_under_an_aimd_window() {
    let c = ctx(1);
    let bdp = 85.0;
    let mut s = AdaptiveSizer::new(&spec("rtt-adaptive", 1.0), &c, 10 * SEC).unwrap();
    let cap_pps = 10_000_000.0 / 8.0 / 1500.0;
    let d = 0.102;
    let mut w: f64 = bdp;
    let mut now = Instant::ZERO;
    let mut limits = Vec::new();
    while now < T0 + 6000 * SEC {
        let q = (w - bdp).max(0.0);
        let rtt = d + q / cap_pps;
        for _ in 0..w as u64 {
            s.on_packet(now, Duration::from_ns((rtt * 1e9) as u64));
        }
        if q > s.limit().pkts.unwrap() as f64 {
            w /= 2.0;
            s.on_drop(now);
        } else {
            w += 1.0;
        }
        now += Duration::from_ns((rtt * 1e9) as u64);
        if now >= s.next_update() {
            limits.push(s.update(now).pkts.unwrap() as f64 / bdp);
        }
    }
    let tail = &limits[limits.len() - 10..];
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(tail.iter().all(|&b| b > 2.5), "{tail:?}");
    assert!((mean - 3.5).abs() < 0.3, "{mean} BDP: {tail:?}");
}
