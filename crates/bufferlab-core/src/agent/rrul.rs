//! Flent's RRUL test (Realtime Response Under Load, `tests/rrul.conf`) as the blocks it is made of.
//!
//! Per `(client, server)` pair: `uploads` bulk TCP streams client -> server (netperf TCP_STREAM)
//! and `downloads` server -> client (TCP_MAERTS), starting `delay` after the run; one ICMP ping
//! and `udp_probes` UDP echo probes (irtt) from the client, from the start. Each pair's blocks
//! carry one group label, so its flows can be found and grouped in the results. Flent marks the
//! streams with DSCP (BE, BK, CS5, EF); the simulator's packets carry no DSCP, so the marks are
//! names only (docs/traffic-rrul.md).

use std::borrow::Cow;

use crate::scenario::{Dist, PingProto, PingSpec, RrulSpec, TcpSpec, TrafficSpec};

/// The label of a pair's flows: the block's `group` (with `-i` when the block has several pairs),
/// else `rrul-n`, `n` counting the tests before it (`first` of them came before this block).
pub fn label(spec: &RrulSpec, first: usize, pair: usize) -> String {
    match &spec.group {
        Some(g) if spec.pairs.len() == 1 => g.clone(),
        Some(g) => format!("{g}-{}", pair + 1),
        None => format!("rrul-{}", first + pair + 1),
    }
}

/// The blocks one rrul block stands for, pair after pair: uploads, downloads, the ICMP ping, the
/// UDP probes (a kind with no flow is left out). `first` is the number of rrul tests before it.
pub fn expand(spec: &RrulSpec, first: usize) -> Vec<TrafficSpec> {
    let mut out = Vec::new();
    let tcp_start = spec.delay_ns.clone();
    let at_start = Dist::Const { value: 0.0 };
    for (i, (client, server)) in spec.pairs.iter().enumerate() {
        let group = Some(label(spec, first, i));
        let tcp = |src: &String, dst: &String, count: u32| {
            TrafficSpec::Tcp(TcpSpec {
                pairs: vec![(src.clone(), dst.clone())],
                count,
                start_ns: tcp_start.clone(),
                size_bytes: None,
                tcp: spec.tcp.clone(),
                group: group.clone(),
                dscp: 0,
            })
        };
        if spec.uploads > 0 {
            out.push(tcp(client, server, spec.uploads));
        }
        if spec.downloads > 0 {
            out.push(tcp(server, client, spec.downloads));
        }
        let ping = |pairs: Vec<(String, String)>, interval_ns, proto| {
            TrafficSpec::Ping(PingSpec {
                pairs,
                interval_ns,
                size_bytes: PingSpec::DEFAULT_SIZE_BYTES,
                proto,
                start_ns: at_start.clone(),
                stop_ns: None,
                group: group.clone(),
                dscp: 0,
            })
        };
        let pair = (client.clone(), server.clone());
        out.push(ping(
            vec![pair.clone()],
            spec.ping_interval_ns,
            PingProto::Icmp,
        ));
        if spec.udp_probes > 0 {
            let probes = vec![pair; spec.udp_probes as usize];
            out.push(ping(probes, spec.udp_interval_ns, PingProto::Udp));
        }
    }
    out
}

/// A plan's blocks with each rrul block replaced by the blocks it stands for, labelled as the
/// scenario reader labels them; each with the index of the plan's block it comes from.
pub fn plain(traffic: &[TrafficSpec]) -> Vec<(usize, Cow<'_, TrafficSpec>)> {
    let mut out = Vec::with_capacity(traffic.len());
    let mut tests = 0;
    for (i, t) in traffic.iter().enumerate() {
        match t {
            TrafficSpec::Rrul(s) => {
                out.extend(expand(s, tests).into_iter().map(|b| (i, Cow::Owned(b))));
                tests += s.pairs.len();
            }
            other => out.push((i, Cow::Borrowed(other))),
        }
    }
    out
}

/// Flows one test makes: its streams and probes.
pub fn flows_per_pair(spec: &RrulSpec) -> u64 {
    spec.uploads as u64 + spec.downloads as u64 + 1 + spec.udp_probes as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(uploads: u32, downloads: u32, pairs: usize) -> RrulSpec {
        let p: Vec<(String, String)> = (0..pairs)
            .map(|i| (format!("c{i}"), format!("s{i}")))
            .collect();
        serde_json::from_value(serde_json::json!({
            "pairs": p, "uploads": uploads, "downloads": downloads,
        }))
        .unwrap()
    }

    fn count(blocks: &[TrafficSpec], kind: &str) -> u64 {
        blocks
            .iter()
            .map(|b| match b {
                TrafficSpec::Tcp(t) if kind == "tcp" => t.count as u64 * t.pairs.len() as u64,
                TrafficSpec::Ping(p) if kind == format!("{:?}", p.proto) => p.pairs.len() as u64,
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn flents_shape_by_default() {
        let s: RrulSpec =
            serde_json::from_value(serde_json::json!({"pairs": [["c", "s"]]})).unwrap();
        let b = expand(&s, 0);
        // tests/rrul.conf: 4 TCP_STREAM, 4 TCP_MAERTS, 3 udp_rtt, 1 ping, every 0.2 s, after 5 s.
        assert_eq!(b.len(), 4);
        let TrafficSpec::Tcp(up) = &b[0] else {
            panic!()
        };
        let TrafficSpec::Tcp(down) = &b[1] else {
            panic!()
        };
        assert_eq!((up.count, &up.pairs[0].0[..]), (4, "c"));
        assert_eq!((down.count, &down.pairs[0].0[..]), (4, "s"));
        assert!(matches!(up.start_ns, Dist::Const { value } if value == 5e9));
        let TrafficSpec::Ping(icmp) = &b[2] else {
            panic!()
        };
        let TrafficSpec::Ping(udp) = &b[3] else {
            panic!()
        };
        assert_eq!((icmp.proto, icmp.pairs.len()), (PingProto::Icmp, 1));
        assert_eq!((udp.proto, udp.pairs.len()), (PingProto::Udp, 3));
        assert_eq!(icmp.interval_ns.as_ns(), 200_000_000);
        assert_eq!(udp.interval_ns.as_ns(), 200_000_000);
        assert!(b.iter().all(|x| x.group() == Some("rrul-1")));
        assert_eq!(flows_per_pair(&s), 12);
    }

    #[test]
    fn the_papers_fifty_and_one() {
        let s = spec(1, 50, 1);
        let b = expand(&s, 0);
        assert_eq!(count(&b, "tcp"), 51);
        assert_eq!(count(&b, "Icmp"), 1);
        assert_eq!(count(&b, "Udp"), 3);
        assert_eq!(flows_per_pair(&s), 55);
    }

    #[test]
    fn one_test_per_pair_each_labelled() {
        let s = spec(2, 0, 3);
        let b = expand(&s, 1);
        // No downloads: no block for them.
        assert_eq!(b.len(), 3 * 3);
        let labels: Vec<&str> = b.iter().filter_map(TrafficSpec::group).collect();
        assert_eq!(labels[0], "rrul-2");
        assert_eq!(labels[8], "rrul-4");
        assert_eq!(count(&b, "tcp"), 6);
        let mut named = s.clone();
        named.group = Some("home".into());
        assert_eq!(label(&named, 0, 1), "home-2");
        named.pairs.truncate(1);
        assert_eq!(label(&named, 0, 0), "home");
    }
}
