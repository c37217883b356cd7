use super::*;
use crate::time::{Duration, Instant, NS_PER_MS};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;

fn it(id: u32, flow: u32, srtt_ns: Duration, enq: Instant) -> QItem {
    QItem {
        id,
        bytes: 1000,
        enq,
        flow,
        srtt_ns,
        ecn: Default::default(),
    }
}

fn pkts(n: u64) -> Limit {
    Limit {
        pkts: Some(n),
        bytes: None,
    }
}

/// Drive `q` over `[from_ms, to_ms)`: each ms, one packet of each flow `(flow, rttp)` arrives
/// stamped with RTT = RTTP + `d`, and from `from_ms + d` on the packets that arrived `d`
/// earlier leave (one per sub-buffer, so round robin takes each sub-buffer's head). The queue
/// must be empty at `from_ms`.
fn drive(q: &mut SplitBuff, flows: &[(u32, Duration)], d: Duration, from_ms: u64, to_ms: u64) {
    let mut drops = Drops::default();
    for s in from_ms..to_ms {
        let now = T0 + s * MS;
        for (i, &(f, rttp)) in flows.iter().enumerate() {
            q.enqueue(
                now,
                it((s * 8 + i as u64) as u32, f, rttp + d, now),
                &mut drops,
            );
        }
        if now >= T0 + from_ms * MS + d {
            for _ in flows {
                let got = q.dequeue(now, &mut drops).expect("backlog");
                assert_eq!(got.enq, now - d, "every packet waits exactly d");
            }
        }
    }
    assert!(drops.items.is_empty());
}

/// Seed 004 §III-C's example: 10 ms and 990 ms flows, 6250 packets of buffer (BDP at 100 Mb/s
/// for the 500 ms mean RTT with 1 KB packets) -> sub-buffers of ~62 and ~6187 packets, the
/// threshold at the 500 ms mean RTTP, each flow in its own sub-buffer.
#[test]
fn paper_example_sizes() {
    let mut q = SplitBuff::new(SplitBuffConfig::default(), pkts(6250));
    drive(
        &mut q,
        &[(1, 10 * MS), (2, 990 * MS)],
        Duration::ZERO,
        0,
        3000,
    );
    assert_eq!(q.thresholds_ns(), &[500.0 * NS_PER_MS as f64]);
    assert_eq!(q.band_limit(0).pkts, Some(63)); // 6250 x 10 / 1000 = 62.5 -> 63
    assert_eq!(q.band_limit(1).pkts, Some(6188));
    let mut d = Drops::default();
    q.enqueue(T0 + 3_000 * MS, it(9, 1, 10 * MS, T0 + 3_000 * MS), &mut d);
    q.enqueue(
        T0 + 3_000 * MS,
        it(10, 2, 990 * MS, T0 + 3_000 * MS),
        &mut d,
    );
    assert_eq!((q.band_len(0), q.band_len(1)), (1, 1));
}

/// RTTP = RTT - queueing delay: flows of 20 and 100 ms RTTP whose packets all queue 30 ms are
/// split at 60 ms with sizes 1/6 and 5/6; sizing by raw RTT would give 50/180 and 130/180.
#[test]
fn subtracts_queueing_delay() {
    let cfg = SplitBuffConfig {
        update_ns: 100 * MS,
        smoothing: 0.5,
        ..Default::default()
    };
    let mut q = SplitBuff::new(cfg, pkts(1000));
    let flows = [(1, 20 * MS), (2, 100 * MS)];
    // First without queueing (so each flow settles in its sub-buffer), then with 30 ms.
    drive(&mut q, &flows, Duration::ZERO, 0, 1000);
    drive(&mut q, &flows, 30 * MS, 1000, 5000);
    let tq = q.queueing_delay_ns() / NS_PER_MS as f64;
    assert!((tq - 30.0).abs() < 0.01, "T_q {tq} ms");
    let th = q.thresholds_ns()[0] / NS_PER_MS as f64;
    assert!((th - 60.0).abs() < 0.05, "threshold {th} ms");
    assert_eq!(q.band_limit(0).pkts, Some(167));
    assert_eq!(q.band_limit(1).pkts, Some(833));
}

/// Three sub-buffers (seed 004 §IV-C): thresholds at mean RTTP ± σ/2. RTTPs 20, 60, 100 ms in
/// equal numbers: mean 60, σ = 32.66 -> thresholds 43.67 and 76.33 ms; sizes 1:3:5.
#[test]
fn three_buffers_thresholds_and_sizes() {
    let cfg = SplitBuffConfig {
        buffers: 3,
        ..Default::default()
    };
    let mut q = SplitBuff::new(cfg, pkts(900));
    let flows = [(1, 20 * MS), (2, 60 * MS), (3, 100 * MS)];
    drive(&mut q, &flows, Duration::ZERO, 0, 3000);
    let sigma = (3200.0f64 / 3.0).sqrt();
    let th: Vec<f64> = q
        .thresholds_ns()
        .iter()
        .map(|t| t / NS_PER_MS as f64)
        .collect();
    assert!((th[0] - (60.0 - sigma / 2.0)).abs() < 1e-6, "{th:?}");
    assert!((th[1] - (60.0 + sigma / 2.0)).abs() < 1e-6, "{th:?}");
    assert_eq!(q.band_limit(0).pkts, Some(100));
    assert_eq!(q.band_limit(1).pkts, Some(300));
    assert_eq!(q.band_limit(2).pkts, Some(500));
}

/// Round robin between backlogged sub-buffers, and a full sub-buffer tail-drops its own
/// arrivals only.
#[test]
fn round_robin_and_per_buffer_overflow() {
    let mut q = SplitBuff::new(SplitBuffConfig::default(), pkts(100));
    // Two updates: the first splits, the second sizes from each sub-buffer's own packets.
    drive(
        &mut q,
        &[(1, 10 * MS), (2, 90 * MS)],
        Duration::ZERO,
        0,
        2500,
    );
    assert_eq!(q.band_limit(0).pkts, Some(10));
    let mut d = Drops::default();
    let t = T0 + 2_500 * MS;
    for i in 0..20 {
        q.enqueue(t, it(100 + i, 1, 10 * MS, t), &mut d);
        q.enqueue(t, it(200 + i, 2, 90 * MS, t), &mut d);
    }
    assert_eq!(d.items.len(), 10, "the short-RTT buffer holds 10");
    assert!(d
        .items
        .iter()
        .all(|x| x.0.flow == 1 && x.1 == DropReason::Overflow));
    let order: Vec<u32> = (0..8).map(|_| q.dequeue(t, &mut d).unwrap().flow).collect();
    assert!(order.windows(2).all(|w| w[0] != w[1]), "{order:?}");
}

/// Blind-SplitBuff: limit/2 each, flows mapped at random but each flow always to the same one.
#[test]
fn blind_maps_flows_at_random() {
    let mut q = SplitBuff::blind(2, pkts(1000), 11);
    assert_eq!(q.band_limit(0).pkts, Some(500));
    assert_eq!(q.band_limit(1).pkts, Some(500));
    let mut d = Drops::default();
    for f in 0..200u32 {
        for r in 0..2 {
            q.enqueue(
                Instant::ZERO,
                it(f * 2 + r, f, 10 * MS * (1 + f as u64 % 2), T0),
                &mut d,
            );
        }
    }
    let (a, b) = (q.band_len(0), q.band_len(1));
    assert_eq!(a + b, 400);
    assert!(a % 2 == 0 && b % 2 == 0, "a flow's packets stay together");
    assert!((75..=125).contains(&(a / 2)), "{a} {b}");
    assert_eq!(q.name(), "blind_splitbuff");
}

/// A burst the senders' smoothed RTTs have not caught up with yet: for one period packets wait
/// 30 ms while flow 1 keeps stamping 10 ms, so its sub-buffer's RTT - T_q is negative. The sub-buffer
/// keeps its size through that period (sizing on a non-positive RTTP would shrink it to one
/// packet and starve its flows) and after it, once the queue has drained.
#[test]
fn burst_keeps_sub_buffer_size() {
    let mut q = SplitBuff::new(SplitBuffConfig::default(), pkts(6250));
    let flows = [(1, 10 * MS), (2, 990 * MS)];
    drive(&mut q, &flows, Duration::ZERO, 0, 3000);
    assert_eq!(q.band_limit(0).pkts, Some(63));
    // 3-4 s: packets wait 30 ms, but the flows keep stamping their propagation RTTs.
    let mut drops = Drops::default();
    let wait = 30 * MS;
    for s in 3000..4000u64 {
        let now = T0 + s * MS;
        for &(f, rttp) in &flows {
            q.enqueue(now, it(s as u32, f, rttp, now), &mut drops);
        }
        if now >= T0 + 3000 * MS + wait {
            for _ in &flows {
                assert_eq!(q.dequeue(now, &mut drops).expect("backlog").enq, now - wait);
            }
        }
    }
    let mut d = Drops::default();
    while q.dequeue(T0 + 4000 * MS, &mut d).is_some() {}
    assert!(drops.items.is_empty());
    drive(&mut q, &flows, Duration::ZERO, 4000, 5000); // the update at 4 s sees the 30 ms period
    assert!(q.band_tq_ns[0] > 10.0 * NS_PER_MS as f64);
    // 6250 x 10 / (10 + 960): flow 2's sub-buffer also queued 30 ms.
    assert_eq!(q.band_limit(0).pkts, Some(64), "kept through the burst");
    drive(&mut q, &flows, Duration::ZERO, 5000, 6000); // the update at 5 s sees the drained queue
    assert!(q.band_tq_ns[0] < NS_PER_MS as f64);
    assert_eq!(q.band_limit(0).pkts, Some(63), "and after it");
}

/// The configured limit bounds the total even when an update shrinks a full sub-buffer: the
/// shrunk one keeps its packets (none dropped), and the grown one may only fill what the total
/// leaves. Before the first update band 0 holds the whole limit; after it, band 1 (the 990 ms
/// flow's) is sized ~99% of it and fills only as band 0 drains.
#[test]
fn total_never_exceeds_limit_across_an_update() {
    let limit = 100;
    let mut q = SplitBuff::new(SplitBuffConfig::default(), pkts(limit));
    let mut d = Drops::default();
    let mut id = 0;
    // 0-1 s, no estimate yet: every packet goes to band 0, filled to the whole limit.
    for f in [1u32, 2] {
        for _ in 0..limit {
            id += 1;
            q.enqueue(
                Instant::ZERO,
                it(id, f, (10 + 980 * (f as u64 - 1)) * MS, T0),
                &mut d,
            );
        }
    }
    assert_eq!(q.len_pkts(), limit);
    assert_eq!(d.items.len() as u64, limit);
    d.items.clear();
    // 1 s: the update moves flow 2 to band 1, sized ~99 packets; band 0 shrinks to ~1 but keeps
    // its 100. The total is full: flow 2's packets are refused although band 1 is empty.
    let t = T0 + SEC;
    for _ in 0..50 {
        id += 1;
        q.enqueue(t, it(id, 2, 990 * MS, t), &mut d);
        assert!(q.len_pkts() <= limit);
    }
    assert_eq!(
        q.band_len(0),
        limit,
        "the shrunk sub-buffer keeps what it holds"
    );
    assert_eq!(q.band_len(1), 0);
    assert_eq!(d.items.len(), 50);
    // As band 0 drains, band 1 takes exactly the room freed, never more.
    for s in 1..=30u64 {
        let now = t + s * MS;
        q.dequeue(now, &mut d).expect("backlog");
        for _ in 0..3 {
            id += 1;
            q.enqueue(now, it(id, 2, 990 * MS, now), &mut d);
            assert!(q.len_pkts() <= limit, "{} > {limit}", q.len_pkts());
        }
    }
    assert_eq!(q.len_pkts(), limit);
    assert!(q.band_len(1) > 0);
}

/// Blind-SplitBuff with a 1-packet limit: each sub-buffer is sized one packet (the least a
/// sub-buffer can hold), but the port holds at most one in all.
#[test]
fn blind_one_packet_limit_holds_one() {
    for buffers in [2, 3] {
        let mut q = SplitBuff::blind(buffers, pkts(1), 5);
        let mut d = Drops::default();
        for f in 0..4u32 {
            q.enqueue(Instant::ZERO, it(f, f, Duration::ZERO, T0), &mut d);
        }
        assert_eq!(q.len_pkts(), 1);
        assert_eq!(d.items.len(), 3);
    }
}

/// The reported estimates (seed 004 Fig. 3, Table I): none before the first update; after it,
/// the mean RTTP of all flows, each sub-buffer's RTTP and size, and the thresholds, in seconds.
/// Flows of 20 and 100 ms RTTP queueing 30 ms: mean RTTP 60 ms, sub-buffers 20 and 100 ms.
#[test]
fn estimates_report_rttp_per_sub_buffer() {
    let cfg = SplitBuffConfig {
        update_ns: 100 * MS,
        ..Default::default()
    };
    let mut q = SplitBuff::new(cfg, pkts(1200));
    assert!(
        q.estimates().is_empty(),
        "no estimate before the first update"
    );
    let flows = [(1, 20 * MS), (2, 100 * MS)];
    drive(&mut q, &flows, Duration::ZERO, 0, 1000);
    drive(&mut q, &flows, 30 * MS, 1000, 3000);
    let e: std::collections::HashMap<&str, f64> = q.estimates().into_iter().collect();
    let ms = |k: &str| e[k] * 1e3;
    assert!((ms("rttp_est_s") - 60.0).abs() < 0.05, "{e:?}");
    assert!((ms("queueing_delay_s") - 30.0).abs() < 0.05, "{e:?}");
    assert!((ms("thresh1_s") - ms("rttp_est_s")).abs() < 1e-9, "{e:?}");
    assert!((ms("sub1_rttp_s") - 20.0).abs() < 0.05, "{e:?}");
    assert!((ms("sub2_rttp_s") - 100.0).abs() < 0.05, "{e:?}");
    assert_eq!(e["sub1_limit_pkts"], 200.0);
    assert_eq!(e["sub2_limit_pkts"], 1000.0);
    assert!(e.contains_key("sub1_qlen_pkts") && !e.contains_key("sub3_rttp_s"));
    assert!(!e.contains_key("thresh2_s"));
    // Blind-SplitBuff estimates nothing.
    let mut b = SplitBuff::blind(2, pkts(100), 7);
    drive(&mut b, &flows, Duration::ZERO, 0, 2000);
    assert!(b.estimates().is_empty());
}

/// `rtt_mean`: a 10 ms flow sending three packets for each one of a 100 ms flow puts Fig. 2's
/// per-packet mean (and threshold) at (3 x 10 + 100) / 4 = 32.5 ms; the per-flow mean is 55 ms.
/// Each flow still gets its own sub-buffer, sized by its RTTP either way.
#[test]
fn rtt_mean_over_packets_or_flows() {
    let flows = [(1, 10 * MS), (1, 10 * MS), (1, 10 * MS), (2, 100 * MS)];
    for (mean, want_ms) in [(RttMean::Packets, 32.5), (RttMean::Flows, 55.0)] {
        let cfg = SplitBuffConfig {
            rtt_mean: mean,
            ..Default::default()
        };
        let mut q = SplitBuff::new(cfg, pkts(1100));
        drive(&mut q, &flows, Duration::ZERO, 0, 3000);
        let th = q.thresholds_ns()[0] / NS_PER_MS as f64;
        assert!((th - want_ms).abs() < 1e-9, "{mean:?}: threshold {th} ms");
        assert_eq!(q.band_limit(0).pkts, Some(100), "{mean:?}");
        assert_eq!(q.band_limit(1).pkts, Some(1000), "{mean:?}");
    }
}
