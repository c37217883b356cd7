//! What a run will cost, before it runs: each flow's rate from what it offers and the share of
//! the busiest link on its path, packets on every link from those rates, engine events from the
//! packets, and wall time from the engine's measured speed.
//!
//! An estimate to tell seconds from hours, not a prediction: TCP flows are taken to fill their
//! share (an equal split of each link among the flows that cross it) for the whole run; each
//! packet crossing a link costs about one event, and each packet a source creates one more
//! (its timer or the ACK that clocked it) — within a factor of two of the examples' counts.
//!
//! An open-loop source (UDP, ping, ballast) creates what it offers whatever the links carry: a
//! source typed `10Tbps` for `10Mbps` pays an event for each of its packets even though the first
//! queue drops nearly all of them, so its packets count at the rate offered, its links' at most
//! the rate they carry.

use serde::Serialize;

use crate::engine::Engine;
use crate::scenario::{Dist, Scenario, TrafficSpec};
use crate::time::NS_PER_SEC;

/// Engine speed assumed for the wall-time estimate, in events per wall second on one core, for
/// an event of a TCP flow (a segment, an ACK, a timer: the 100-flow dumbbell runs 13 M events/s,
/// docs/BENCHMARKS.md) and for one of an open-loop source (a UDP packet: `udp-fifo-1g` runs 20 M).
pub const TCP_EVENTS_PER_SEC: f64 = 13.0e6;
pub const OPEN_EVENTS_PER_SEC: f64 = 20.0e6;
/// The engine slows as the packets alive outgrow the caches: each arriving packet's slot, each
/// link's pipe and each connection's state is then a miss. The miss costs the same however far
/// the working set outgrows the caches, and the engine prefetches the next arrival, so the
/// slowdown saturates: the speed is divided by 1 + `MISS_SLOWDOWN` · x / (x + `CACHED_PKTS`), x
/// the packets in flight. Fitted on `stanford-2.5G-2000` (32 k packets in flight, 5.7 M
/// events/s) and `stanford-10G-10000` (126 k, 4.2 M events/s) against the 100-flow dumbbell's
/// 13 M, with the look-ahead in two stages (docs/BENCHMARKS.md; 2.7 before it).
pub const MISS_SLOWDOWN: f64 = 2.0;
pub const CACHED_PKTS: f64 = 8_000.0;

/// A TCP ACK's IP size (no payload).
const ACK_BYTES: f64 = 40.0;

#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    pub flows: u64,
    /// Packets the sources create.
    pub packets: u64,
    /// Packet transmissions summed over all links.
    pub link_packets: u64,
    /// The busiest link and its transmissions.
    pub busiest_link: String,
    pub busiest_link_packets: u64,
    pub events: u64,
    /// Packets on the wires at once, on average (each link's packet rate times its delay).
    pub in_flight: u64,
    pub wall_s: f64,
    /// The speed `wall_s` assumes.
    pub events_per_s: f64,
    /// This machine's speed against the one the constants were fitted on, by which `wall_s`
    /// and `events_per_s` are scaled (1 for [`estimate`], measured for [`estimate_here`]).
    pub speed_factor: f64,
}

/// The mean of a distribution, if it has one.
fn mean(d: &Dist) -> Option<f64> {
    Some(match *d {
        Dist::Const { value } => value,
        Dist::Exp { mean } | Dist::Pareto { mean, .. } => mean,
        Dist::Uniform { lo, hi } => (lo + hi) / 2.0,
        Dist::Zipf { s, max, unit } => {
            let (mut num, mut den) = (0.0, 0.0);
            for k in 1..=max.min(1_000_000) {
                let w = (k as f64).powf(-s);
                num += k as f64 * w;
                den += w;
            }
            unit * num / den
        }
        Dist::Lognormal { mean, .. } => mean,
    })
    .filter(|m| m.is_finite() && *m >= 0.0)
}

/// Per flow, in the order the engine built them: the data bits per second it offers over the
/// run (infinite for a bulk transfer), and whether it is TCP (its ACKs come back).
fn offered(sc: &Scenario, duration_s: f64) -> Vec<(f64, bool)> {
    let mut out = Vec::new();
    for (_, t) in crate::agent::rrul::plain(&sc.traffic) {
        let (n, bps, tcp) = match t.as_ref() {
            TrafficSpec::Udp(u) => {
                let on = u.stop_ns.map_or(1.0, |s| {
                    (s.as_ns() as f64 / NS_PER_SEC as f64 / duration_s).min(1.0)
                });
                (
                    u.pairs.len(),
                    u.rate_pps * u.size_bytes as f64 * 8.0 * on,
                    false,
                )
            }
            TrafficSpec::Ping(p) => (
                p.pairs.len(),
                p.size_bytes as f64 * 8.0 * NS_PER_SEC as f64 / p.interval_ns.as_ns().max(1) as f64,
                false,
            ),
            TrafficSpec::Tcp(s) => (
                s.pairs.len() * s.count as usize,
                s.size_bytes
                    .map_or(f64::INFINITY, |b| b as f64 * 8.0 / duration_s),
                true,
            ),
            TrafficSpec::Web(s) => (
                s.pairs.len(),
                mean(&s.size_bytes).map_or(f64::INFINITY, |m| m * 8.0 * s.arrival_rate),
                true,
            ),
            TrafficSpec::TcpOnoff(s) => (
                s.pairs.len(),
                match (mean(&s.size_bytes), mean(&s.idle_ns)) {
                    (Some(b), Some(i)) if i > 0.0 => b * 8.0 * NS_PER_SEC as f64 / i,
                    _ => f64::INFINITY,
                },
                true,
            ),
            // A fixed ballast sends its rate (a burst's packets per period); the automatic one
            // at most its absolute cap.
            TrafficSpec::Ballast(s) => {
                let pps = match (s.rate_pps, &s.burst) {
                    (Some(_), Some(b)) => {
                        b.packets as f64 * NS_PER_SEC as f64 / b.every_ns.as_ns().max(1) as f64
                    }
                    (Some(r), None) => r,
                    (None, _) => crate::ballast::AutoConfig::default().max_pps,
                };
                (s.pairs.len(), pps * s.size_bytes as f64 * 8.0, false)
            }
            // `rrul::plain` has replaced it by its blocks.
            TrafficSpec::Rrul(_) => (0, 0.0, false),
        };
        out.extend(std::iter::repeat_n((bps, tcp), n));
    }
    out
}

/// Estimate the run `eng` was built for (from `sc`).
pub fn estimate(eng: &Engine, sc: &Scenario) -> Estimate {
    let duration_s = sc.run.duration_ns.as_ns() as f64 / NS_PER_SEC as f64;
    let offers = offered(sc, duration_s);
    let flows = eng.flow_info();
    let paths: Vec<(Vec<u32>, Vec<u32>)> = flows
        .iter()
        .map(|f| {
            (
                eng.topology().path(f.src, f.dst).unwrap_or_default(),
                eng.topology().path(f.dst, f.src).unwrap_or_default(),
            )
        })
        .collect();
    let np = eng.ports().len();
    let mut crossing = vec![0u32; np];
    for (fw, _) in &paths {
        for &p in fw {
            crossing[p as usize] += 1;
        }
    }
    // Each flow: what it offers, at most an equal share of every link on its way.
    let mut load_bps = vec![0.0f64; np];
    let mut pkts = vec![0.0f64; np];
    let mut created = 0.0;
    // Events of TCP flows (their share of link packets and of packets created).
    let mut tcp_pkts = vec![0.0f64; np];
    let mut tcp_created = 0.0;
    for ((f, (fw, bw)), &(offer, tcp)) in flows.iter().zip(&paths).zip(&offers) {
        let share = fw
            .iter()
            .map(|&p| eng.ports()[p as usize].params.rate_bps as f64 / crossing[p as usize] as f64)
            .fold(f64::INFINITY, f64::min);
        let bps = offer.min(share);
        if !bps.is_finite() {
            continue;
        }
        let pkt_bits = 8.0 * f.pkt_bytes.max(1) as f64;
        let n = bps * duration_s / pkt_bits;
        // A closed-loop (TCP) source creates what its share lets through; an open-loop one
        // creates all it offers, dropped at the first queue or not.
        let n_created = if tcp {
            n
        } else {
            offer * duration_s / pkt_bits
        };
        // Replies: a TCP ACK every second segment; a ping reply per request.
        let back = if tcp {
            n / 2.0
        } else if f.kind == "ping" {
            n
        } else {
            0.0
        };
        created += n_created + back;
        if tcp {
            tcp_created += n_created + back;
        }
        for &p in fw {
            load_bps[p as usize] += bps;
            pkts[p as usize] += n;
            if tcp {
                tcp_pkts[p as usize] += n;
            }
        }
        for &p in bw {
            load_bps[p as usize] += back * ACK_BYTES * 8.0 / duration_s;
            pkts[p as usize] += back;
            if tcp {
                tcp_pkts[p as usize] += back;
            }
        }
    }
    // No link carries more than its rate.
    for p in 0..np {
        let rate = eng.ports()[p].params.rate_bps as f64;
        if load_bps[p] > rate {
            pkts[p] *= rate / load_bps[p];
            tcp_pkts[p] *= rate / load_bps[p];
        }
    }
    // Little's law on every wire: packets per second times the propagation delay.
    let in_flight: f64 = (0..np)
        .map(|p| {
            pkts[p] / duration_s.max(1e-9) * eng.ports()[p].params.delay_ns.as_ns() as f64
                / NS_PER_SEC as f64
        })
        .sum();
    let link_packets: f64 = pkts.iter().sum();
    // The first of the busiest (a dumbbell's bottleneck before its equally busy access links).
    let busiest = (0..np).rev().max_by(|&a, &b| pkts[a].total_cmp(&pkts[b]));
    let events = link_packets + created;
    let tcp_events = tcp_pkts.iter().sum::<f64>() + tcp_created;
    let slowdown = 1.0 + MISS_SLOWDOWN * in_flight / (in_flight + CACHED_PKTS);
    let wall_s = slowdown
        * (tcp_events / TCP_EVENTS_PER_SEC + (events - tcp_events).max(0.0) / OPEN_EVENTS_PER_SEC);
    Estimate {
        flows: flows.len() as u64,
        packets: created as u64,
        link_packets: link_packets as u64,
        busiest_link: busiest.map_or(String::new(), |p| eng.ports()[p].params.name.clone()),
        busiest_link_packets: busiest.map_or(0, |p| pkts[p] as u64),
        events: events as u64,
        in_flight: in_flight as u64,
        wall_s,
        events_per_s: if wall_s > 0.0 {
            events / wall_s
        } else {
            TCP_EVENTS_PER_SEC
        },
        speed_factor: 1.0,
    }
}

/// [`estimate`] at this machine's speed ([`crate::speed`]: measured on the process's first
/// call, a few milliseconds), what `run`, `sweep` and `bench` show.
pub fn estimate_here(eng: &Engine, sc: &Scenario) -> Estimate {
    estimate(eng, sc).at_speed(crate::speed::factor())
}

impl Estimate {
    /// The same work at `factor` times the fitted speed.
    pub fn at_speed(mut self, factor: f64) -> Estimate {
        self.wall_s /= factor;
        self.events_per_s *= factor;
        self.speed_factor = factor;
        self
    }
}

/// Build a scenario and estimate its cost, or every problem found.
pub fn check_and_estimate(sc: &Scenario) -> Result<Estimate, Vec<crate::problem::Problem>> {
    let eng = crate::build::build(sc)?;
    Ok(estimate(&eng, sc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(v: serde_json::Value) -> Scenario {
        serde_json::from_value(v).unwrap()
    }

    fn dumbbell(pairs: usize, traffic: serde_json::Value) -> Scenario {
        let mut nodes = vec!["r1".to_string(), "r2".to_string()];
        let dir = |rate: u64| serde_json::json!({ "rate_bps": rate, "delay_ns": 1_000_000, "queue": { "qdisc": { "kind": "fifo" }, "limit_pkts": 100 } });
        let mut links = vec![
            serde_json::json!({ "a": "r1", "b": "r2", "forward": dir(10_000_000), "reverse": dir(10_000_000) }),
        ];
        let mut pairs_v = Vec::new();
        for i in 0..pairs {
            let (s, d) = (format!("s{i}"), format!("d{i}"));
            links.push(serde_json::json!({ "a": s, "b": "r1", "forward": dir(20_000_000), "reverse": dir(20_000_000) }));
            links.push(serde_json::json!({ "a": "r2", "b": d, "forward": dir(20_000_000), "reverse": dir(20_000_000) }));
            pairs_v.push(serde_json::json!([s, d]));
            nodes.push(s);
            nodes.push(d);
        }
        let mut t = traffic;
        t["pairs"] = serde_json::Value::Array(pairs_v);
        scenario(
            serde_json::json!({ "run": { "duration_ns": 10_000_000_000u64, "seed": 1 },
            "nodes": nodes, "links": links, "traffic": [t] }),
        )
    }

    /// Bulk TCP fills the 10 Mb/s bottleneck: 10 s / 1.2 ms per 1500 B packet = 8333 packets
    /// there, whatever the number of flows; each packet crosses three links.
    #[test]
    fn bulk_tcp_fills_the_bottleneck() {
        for pairs in [1, 10, 100] {
            let sc = dumbbell(pairs, serde_json::json!({ "kind": "tcp" }));
            let e = check_and_estimate(&sc).unwrap();
            assert_eq!(e.busiest_link, "r1->r2");
            assert!((8300..=8340).contains(&e.busiest_link_packets), "{e:?}");
            assert!(
                (3 * 8300..3 * 8340 + 2 * 8340).contains(&e.link_packets),
                "{e:?}"
            );
        }
    }

    /// UDP below the bottleneck: its own rate, 100 pps x 10 s x 3 links.
    #[test]
    fn udp_offers_its_rate() {
        let sc = dumbbell(
            2,
            serde_json::json!({ "kind": "udp", "rate_pps": 100.0, "size_bytes": 1000 }),
        );
        let e = check_and_estimate(&sc).unwrap();
        assert_eq!(e.packets, 2000);
        assert_eq!(e.link_packets, 6000);
        assert_eq!(e.events, 8000);
    }

    /// A UDP source offering ~800 Gb/s into 20 Mb/s access links (`Tbps` typed for `Mbps`):
    /// every packet it creates is counted, not only the few the links carry, and the count is
    /// within 2x of the events the engine processes.
    #[test]
    fn open_loop_overload_counts_every_packet_created() {
        let mut sc = dumbbell(
            1,
            serde_json::json!({ "kind": "udp", "rate_pps": 1.0e8, "size_bytes": 1000 }),
        );
        sc.run.duration_ns = crate::time::Duration::from_ns(20_000_000);
        let e = check_and_estimate(&sc).unwrap();
        // 1e8 pps x 20 ms = 2 M packets created; the links carry ~20 Mb/s worth (50 of them).
        assert!((1_990_000..=2_010_000).contains(&e.packets), "{e:?}");
        assert!(e.link_packets < 200, "{e:?}");
        let out = crate::simulate::run(&sc).unwrap();
        let ratio = e.events as f64 / out.summary.engine.events as f64;
        assert!(
            (0.5..=2.0).contains(&ratio),
            "estimate {e:?} against {} events",
            out.summary.engine.events
        );
    }
}
