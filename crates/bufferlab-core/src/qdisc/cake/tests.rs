use super::*;
use crate::packet::Ecn;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);

/// COBALT out of the way: these tests look at the scheduler and the shaper.
fn patient(c: CakeConfig) -> CakeConfig {
    CakeConfig {
        target_ns: 10 * SEC,
        rtt_ns: 20 * SEC,
        ..c
    }
}

fn item(id: u32, flow: u32, bytes: u32, at: Instant) -> QItem {
    QItem {
        id,
        bytes,
        enq: at,
        flow,
        ..Default::default()
    }
}

/// A packet source for the tests: flow, hosts, DSCP.
#[derive(Clone, Copy)]
struct Src {
    flow: u32,
    src: u32,
    dst: u32,
    dscp: u8,
}

fn src(flow: u32, src: u32, dst: u32) -> Src {
    Src {
        flow,
        src,
        dst,
        dscp: 0,
    }
}

/// Keep every source backlogged (topped up to `depth` packets of `bytes`) and take `n` packets
/// out at time 0: the bytes each source sent.
fn backlogged_shares(cfg: CakeConfig, srcs: &[Src], bytes: u32, n: usize) -> Vec<u64> {
    let mut q = Cake::new(patient(cfg), Limit::default(), 1);
    let mut drops = Drops::default();
    let mut queued = vec![0u32; srcs.len()];
    let mut sent = vec![0u64; srcs.len()];
    let mut id = 0;
    let t = Instant::ZERO;
    for _ in 0..n {
        for (i, s) in srcs.iter().enumerate() {
            while queued[i] < 4 {
                id += 1;
                assert!(q.enqueue_from(
                    t,
                    item(id, s.flow, bytes, t),
                    s.src,
                    s.dst,
                    s.dscp,
                    &mut drops
                ));
                queued[i] += 1;
            }
        }
        let it = q.dequeue(t, &mut drops).expect("backlogged");
        let i = srcs.iter().position(|s| s.flow == it.flow).unwrap();
        queued[i] -= 1;
        sent[i] += it.bytes as u64;
    }
    assert!(drops.items.is_empty());
    sent
}

/// Host A with 8 flows, host B with 1: the share of B and of each of A's flows.
fn host_shares(isolation: Isolation, same_server: bool) -> f64 {
    let mut srcs: Vec<Src> = (0..8).map(|f| src(f, 1, 10)).collect();
    srcs.push(src(8, 2, if same_server { 10 } else { 11 }));
    let cfg = CakeConfig {
        isolation,
        diffserv: Diffserv::Besteffort,
        ..Default::default()
    };
    let sent = backlogged_shares(cfg, &srcs, 1500, 9000);
    sent[8] as f64 / sent.iter().sum::<u64>() as f64
}

/// Per-host fairness (paper §III-B; tc-cake(8) `triple-isolate`): a host with 8 bulk flows and a
/// host with 1 share the link equally, each to its own server; per-flow fairness (`flows`) gives
/// the 8-flow host 8/9. With one server for both, triple isolation is also fair between
/// destinations, where all 9 flows are one host's: per-flow shares, as Linux gives; `dual-srchost`
/// then restores host fairness.
#[test]
fn triple_isolate_is_fair_between_hosts_flows_between_flows() {
    let triple = host_shares(Isolation::TripleIsolate, false);
    assert!((triple - 0.5).abs() < 0.01, "host B's share {triple}");
    let flows = host_shares(Isolation::Flows, false);
    assert!((flows - 1.0 / 9.0).abs() < 0.01, "host B's share {flows}");
    let one_server = host_shares(Isolation::TripleIsolate, true);
    assert!((one_server - 1.0 / 9.0).abs() < 0.01, "{one_server}");
    let dual = host_shares(Isolation::DualSrchost, true);
    assert!((dual - 0.5).abs() < 0.01, "{dual}");
    let srchost = host_shares(Isolation::Srchost, true);
    assert!((srchost - 0.5).abs() < 0.01, "{srchost}");
    let blind = host_shares(Isolation::Flowblind, true);
    // One FIFO: served in arrival order, each source topped up alike.
    assert!((blind - 1.0 / 9.0).abs() < 0.01, "{blind}");
}

/// Serve a backlog through the shaper with an infinitely fast wire: dequeue whenever the
/// shaper opens. Returns (packets sent, time of the last one).
fn drain_shaped(cfg: CakeConfig, srcs: &[Src], bytes: u32, horizon: Instant) -> Vec<u64> {
    let mut q = Cake::new(cfg, Limit::default(), 1);
    let mut drops = Drops::default();
    let mut sent = vec![0u64; srcs.len()];
    let mut queued = vec![0u32; srcs.len()];
    let mut id = 0;
    let mut now = Instant::ZERO;
    while now < horizon {
        for (i, s) in srcs.iter().enumerate() {
            while queued[i] < 4 {
                id += 1;
                q.enqueue_from(
                    now,
                    item(id, s.flow, bytes, now),
                    s.src,
                    s.dst,
                    s.dscp,
                    &mut drops,
                );
                queued[i] += 1;
            }
        }
        match q.dequeue(now, &mut drops) {
            Some(it) => {
                let i = srcs.iter().position(|s| s.flow == it.flow).unwrap();
                queued[i] -= 1;
                sent[i] += 1;
            }
            None => {
                now = q.next_timer().expect("shaper closed: a watchdog");
                q.on_timer(now);
            }
        }
    }
    sent
}

/// The deficit shaper with ATM compensation (tc-cake(8) `atm overhead N`): a packet of P bytes
/// costs ceil((P + N) / 48) cells of 53 B, so at bandwidth B the packet rate is exactly
/// B / (8 · 53 · ceil((P + N) / 48)). Without `atm` the same packets would go 10% faster.
#[test]
fn shaper_charges_atm_cells() {
    let b = 1_000_000u64;
    let cfg = CakeConfig {
        bandwidth_bps: Some(b),
        overhead_bytes: Some(40),
        atm: AtmMode::Atm,
        ..Default::default()
    };
    let horizon = Instant::ZERO + 20 * SEC;
    let sent = drain_shaped(cfg, &[src(1, 1, 2)], 1000, horizon);
    let cells = (1000u64 + 40).div_ceil(48);
    let expect = b as f64 * 20.0 / (8.0 * 53.0 * cells as f64);
    let got = sent[0] as f64;
    assert!(
        (got / expect - 1.0).abs() < 0.005,
        "{got} packets, expected {expect:.1}"
    );
    // PTM: 1040 B + 17 B of coding.
    let ptm = CakeConfig {
        atm: AtmMode::Ptm,
        ..cfg
    };
    let got = drain_shaped(ptm, &[src(1, 1, 2)], 1000, horizon)[0] as f64;
    let expect = b as f64 * 20.0 / (8.0 * (1040.0 + 17.0));
    assert!((got / expect - 1.0).abs() < 0.005, "{got} vs {expect:.1}");
}

/// DiffServ3 (Linux `cake_config_diffserv3`): shaped, Voice (EF) has priority up to a quarter
/// of the rate and Bulk (CS1) up to a sixteenth; backlogged beside Best Effort they get exactly
/// those shares.
#[test]
fn diffserv3_thresholds_when_shaped() {
    let cfg = patient(CakeConfig {
        bandwidth_bps: Some(10_000_000),
        ..Default::default()
    });
    let mut voice = src(1, 1, 9);
    voice.dscp = 46;
    let mut bulk = src(2, 2, 9);
    bulk.dscp = 8;
    let be = src(3, 3, 9);
    let sent = drain_shaped(cfg, &[voice, bulk, be], 1000, Instant::ZERO + 10 * SEC);
    let total = sent.iter().sum::<u64>() as f64;
    let share = |i: usize| sent[i] as f64 / total;
    assert!((share(0) - 0.25).abs() < 0.01, "voice {}", share(0));
    assert!((share(1) - 1.0 / 16.0).abs() < 0.01, "bulk {}", share(1));
    // Unshaped, tins share by their DRR weights: 256 : 1024 for Voice : Best Effort.
    let unshaped = CakeConfig::default();
    let sent = backlogged_shares(unshaped, &[voice, be], 1000, 5000);
    let v = sent[0] as f64 / (sent[0] + sent[1]) as f64;
    assert!((v - 0.2).abs() < 0.01, "voice unshaped {v}");
    // Besteffort ignores the DSCP.
    let be_only = CakeConfig {
        diffserv: Diffserv::Besteffort,
        ..Default::default()
    };
    let sent = backlogged_shares(be_only, &[voice, be], 1000, 5000);
    assert!(sent[0].abs_diff(sent[1]) <= 2000);
}

/// `cake_set_rate` at 1 Mbit/s: one 1514 B MTU takes 12.1 ms, so the target rises to 1.5 of it
/// and the interval by as much; the quantum is 300 B (rate / 4096 is smaller). Memory limit:
/// 4 MB floor at low rates, 4 rtt of traffic above, `limit` MTUs at most.
#[test]
fn parameters_scale_with_rate() {
    let q = Cake::new(
        CakeConfig {
            bandwidth_bps: Some(1_000_000),
            diffserv: Diffserv::Besteffort,
            ..Default::default()
        },
        Limit::default(),
        1,
    );
    let (target, interval, quantum) = q.tin_params(0);
    assert_eq!(target, Duration::from_ns(18_168_000));
    assert_eq!(interval, Duration::from_ns(113_168_000));
    assert_eq!(quantum, 300);
    assert_eq!(q.buffer_limit(), 4 << 20);
    let fast = |bps: u64, pkts: Option<u64>| {
        let cfg = CakeConfig {
            bandwidth_bps: Some(bps),
            ..Default::default()
        };
        Cake::new(cfg, Limit { pkts, bytes: None }, 1).buffer_limit()
    };
    assert_eq!(fast(100_000_000, None), 5_000_000);
    assert_eq!(fast(400_000_000, None), 10240 * 1514);
    assert_eq!(fast(10_000_000_000, None), 10240 * 1514);
    assert_eq!(fast(400_000_000, Some(100)), 151_400);
    let unshaped = Cake::new(CakeConfig::default(), Limit::default(), 1);
    assert_eq!(unshaped.tin_params(0), (5 * MS, 100 * MS, 1514));
    assert_eq!(unshaped.buffer_limit(), 10240 * 1514);
}

/// COBALT's CoDel half: a standing queue (sojourn 20 ms) is first signalled one interval after
/// it forms, the next interval/sqrt(2) later; ECN-capable packets are marked and sent, the others
/// dropped. (A flow whose very first packet is above target is signalled at its second: its
/// `drop_next` starts at 0, as Linux's `cobalt_vars_init` leaves it.)
#[test]
fn cobalt_signals_on_codel_schedule() {
    for ecn in [Ecn::Ect0, Ecn::NotEct] {
        let mut q = Cake::new(CakeConfig::default(), Limit::default(), 1);
        let mut drops = Drops::default();
        let mut signals = Vec::new();
        let mut id = 0;
        // For 10 ms one packet a ms, sent at once; then two a ms, each having waited 20 ms, the
        // flow never empty.
        for ms in 0..400u64 {
            let now = Instant::ZERO + SEC + ms * MS;
            let (n, waited) = if ms < 10 {
                (1, Duration::ZERO)
            } else {
                (2, 20 * MS)
            };
            for _ in 0..n {
                id += 1;
                let mut it = item(id, 1, 1500, now - waited);
                it.ecn = ecn;
                q.enqueue_from(now, it, 1, 2, 0, &mut drops);
            }
            let before = (drops.items.len(), drops.marks);
            let got = q.dequeue(now, &mut drops).unwrap();
            if drops.items.len() > before.0 || drops.marks > before.1 {
                signals.push(ms);
                assert_eq!(got.ecn == Ecn::Ce, ecn == Ecn::Ect0);
            }
        }
        assert_eq!(signals[0], 110, "{signals:?}");
        assert_eq!(signals[1], 181, "{signals:?}");
        let reasons: Vec<DropReason> = drops.items.iter().map(|d| d.1).collect();
        if ecn == Ecn::NotEct {
            assert!(reasons.iter().all(|r| *r == DropReason::Aqm) && !reasons.is_empty());
            assert_eq!(drops.marks, 0);
        } else {
            assert!(reasons.is_empty());
            assert_eq!(drops.marks as usize, signals.len());
        }
    }
}

/// Over the memory limit CAKE drops from the fattest queue (Linux `cake_drop`), whichever flow
/// brought the packet, and BLUE learns that flow is unresponsive: its later packets see random
/// drops even while CoDel is quiet.
#[test]
fn memlimit_drops_from_fattest_and_arms_blue() {
    let cfg = CakeConfig {
        memlimit_bytes: Some(30_000),
        diffserv: Diffserv::Besteffort,
        ..Default::default()
    };
    let mut q = Cake::new(cfg, Limit::default(), 3);
    let mut drops = Drops::default();
    let mut id = 0;
    let t0 = Instant::ZERO + SEC;
    // Flow 1 floods 40 packets; flow 2 sends one.
    for _ in 0..40 {
        id += 1;
        q.enqueue_from(t0, item(id, 1, 1000, t0), 1, 3, 0, &mut drops);
    }
    id += 1;
    assert!(q.enqueue_from(t0, item(id, 2, 1000, t0), 2, 3, 0, &mut drops));
    assert!(q.len_bytes() <= 30_000);
    assert_eq!(drops.items.len(), 11);
    assert!(drops
        .items
        .iter()
        .all(|(it, r)| it.flow == 1 && *r == DropReason::FqOverflow));
    assert_eq!(q.tin_stats(0).unresponsive, 1);
    // Keep flow 1 overflowing for a while: BLUE's probability climbs by 1/256 per 5 ms.
    let mut blue = 0;
    for ms in 1..2000u64 {
        let now = t0 + ms * MS;
        for _ in 0..2 {
            id += 1;
            q.enqueue_from(now, item(id, 1, 1000, now), 1, 3, 0, &mut drops);
        }
        q.dequeue(now, &mut drops);
        blue += drops
            .items
            .iter()
            .filter(|d| d.1 == DropReason::Blue)
            .count();
        drops.items.clear();
    }
    assert!(blue > 50, "BLUE drops {blue}");
}

/// The set-associative hash: 100 flows into 1024 queues, 8 ways, land in distinct queues
/// (a plain hash would put two of them together with probability ~99%).
#[test]
fn set_associative_hash_keeps_flows_apart() {
    let cfg = patient(CakeConfig {
        diffserv: Diffserv::Besteffort,
        isolation: Isolation::Flows,
        ..Default::default()
    });
    let mut q = Cake::new(cfg, Limit::default(), 5);
    let mut drops = Drops::default();
    for f in 0..100 {
        q.enqueue_from(
            Instant::ZERO,
            item(f, f, 100, Instant::ZERO),
            1,
            2,
            0,
            &mut drops,
        );
    }
    let used = q.tins[0].flows.iter().filter(|f| f.backlog > 0).count();
    assert_eq!(used, 100);
    let w = q.way_stats(0);
    assert_eq!(w.collisions, 0);
    assert_eq!(w.misses, 100);
}

/// Conservation and list invariants under a random mix of enqueues and dequeues in every
/// isolation mode: packets in = out + dropped + queued, counts match the lists.
#[test]
fn conservation_every_mode() {
    use rand::{Rng as _, SeedableRng};
    for mode in [
        Isolation::Flowblind,
        Isolation::Srchost,
        Isolation::Dsthost,
        Isolation::Hosts,
        Isolation::Flows,
        Isolation::DualSrchost,
        Isolation::DualDsthost,
        Isolation::TripleIsolate,
    ] {
        let cfg = CakeConfig {
            isolation: mode,
            bandwidth_bps: Some(5_000_000),
            memlimit_bytes: Some(50_000),
            ..Default::default()
        };
        let mut q = Cake::new(cfg, Limit::default(), 9);
        let mut r = crate::rng::Rng::seed_from_u64(4);
        let mut drops = Drops::default();
        let (mut inn, mut out) = (0u64, 0u64);
        let mut now = Instant::ZERO;
        for i in 0..20_000u32 {
            now += Duration::from_us(r.gen_range(0..400));
            if r.gen_bool(0.6) {
                let f = r.gen_range(0..30u32);
                let mut it = item(i, f, r.gen_range(40..1500), now);
                it.ecn = if f % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
                q.enqueue_from(now, it, f % 5, 100 + f % 3, (f * 7 % 64) as u8, &mut drops);
                inn += 1;
            } else if q.dequeue(now, &mut drops).is_some() {
                out += 1;
            }
        }
        assert_eq!(
            inn,
            out + drops.items.len() as u64 + q.len_pkts(),
            "{mode:?}"
        );
        for t in &q.tins {
            let n = |p: &dyn Fn(&Flow) -> bool| t.flows.iter().filter(|f| p(f)).count() as u32;
            let sparse = n(&|f| matches!(f.set, Set::Sparse | Set::SparseWait));
            assert_eq!(sparse, t.sparse, "{mode:?}");
            assert_eq!(n(&|f| f.set == Set::Bulk), t.bulk, "{mode:?}");
            assert_eq!(n(&|f| f.set == Set::Decaying), t.decaying, "{mode:?}");
            // Every flow in the rotation is on a list; every flow with packets is sparse or bulk.
            assert_eq!(n(&|f| f.set != Set::None), n(&|f| f.list != ListId::None));
            assert!(t
                .flows
                .iter()
                .all(|f| f.pkts.is_empty() || matches!(f.set, Set::Sparse | Set::Bulk)));
        }
    }
}
