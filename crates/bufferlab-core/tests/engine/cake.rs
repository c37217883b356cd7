//! CAKE in the engine: its shaper against the link's cell framing, DSCP from traffic blocks to
//! tins, per-host fairness, and the port's counters.

use crate::common;

use bufferlab_core::time::NS_PER_SEC;
use bufferlab_core::{run, Scenario};
use common::*;
use serde_json::{json, Value};

/// `client` -> `server` over a 2 Mb/s ATM link, CAKE `cake` in front of it, the given traffic;
/// measured over [5 s, 20 s].
fn over_atm(cake: Value, traffic: Value) -> Scenario {
    let mut up = dir(2_000_000, 10_000_000, 1000);
    up["framing"] = json!("atm");
    up["queue"] = json!({ "qdisc": cake, "limit_pkts": 10240 });
    let mut v = access(
        up,
        dir(2_000_000, 10_000_000, 1000),
        traffic,
        20 * NS_PER_SEC,
        1,
    );
    v["run"]["measure_ns"] = json!([5 * NS_PER_SEC, 20 * NS_PER_SEC]);
    scenario(v)
}

fn udp(rate_pps: f64, size: u32, dscp: u8) -> Value {
    json!({ "kind": "udp", "pairs": [["client", "server"]], "rate_pps": rate_pps,
            "size_bytes": size, "dscp": dscp })
}

/// tc-cake(8)'s `atm overhead N` on a link that sends ceil((P + 16) / 48) cells of 53 B per P-byte
/// packet (AAL5/LLC): with N = 16 the shaper charges exactly what the wire carries, so the wire
/// runs at the shaped rate B: B / (8 · 53 · ceil((1000 + 16) / 48)) = 107.2 packets/s at 1 Mb/s.
/// Without `atm` the shaper undercounts by 13% and the wire runs that much faster.
#[test]
fn atm_compensation_puts_the_shaped_rate_on_the_wire() {
    let b = 1_000_000.0;
    let cake = json!({ "kind": "cake", "bandwidth_bps": 1_000_000, "atm": "atm",
                       "overhead_bytes": 16, "diffserv": "besteffort" });
    let out = run(&over_atm(cake, json!([udp(200.0, 1000, 0)]))).unwrap();
    let l = out.link("client->server").unwrap();
    let wire_bps = l.wire_bytes_sent as f64 * 8.0 / 15.0;
    assert!((wire_bps / b - 1.0).abs() < 0.005, "wire {wire_bps} b/s");
    let cells = (1000u64 + 16).div_ceil(48) as f64;
    let pps = b / (8.0 * 53.0 * cells);
    let got = l.pkts_sent as f64 / 15.0;
    assert!((got / pps - 1.0).abs() < 0.005, "{got} pkt/s vs {pps}");
    let q = out.queue("client->server").unwrap();
    assert_eq!(q.discipline, "cake");
    assert!(q.drops_by_reason.get("aqm").copied().unwrap_or(0) > 0);

    // Raw (IP + 14 B counted): 1014 B a packet against 1166 B on the wire.
    let raw = json!({ "kind": "cake", "bandwidth_bps": 1_000_000, "diffserv": "besteffort" });
    let out = run(&over_atm(raw, json!([udp(200.0, 1000, 0)]))).unwrap();
    let l = out.link("client->server").unwrap();
    let wire_bps = l.wire_bytes_sent as f64 * 8.0 / 15.0;
    assert!(
        (wire_bps / b - 1166.0 / 1014.0).abs() < 0.01,
        "wire {wire_bps} b/s"
    );
}

/// A block's `dscp` reaches CAKE's tins: shaped diffserv3, an EF flow beside a best-effort one,
/// both sending more than the link, is held to about Voice's quarter (Linux
/// `cake_config_diffserv3`; a little under it, as COBALT's drops sometimes empty its queue at its
/// turn); with `besteffort` the two are flows of one tin and share equally.
#[test]
fn dscp_from_traffic_blocks_selects_tins() {
    let ef_share = |diffserv: &str| {
        let cake = json!({ "kind": "cake", "bandwidth_bps": 1_000_000, "atm": "atm",
                           "overhead_bytes": 16, "diffserv": diffserv });
        let out = run(&over_atm(
            cake,
            json!([udp(150.0, 1000, 46), udp(150.0, 1000, 0)]),
        ))
        .unwrap();
        let ef = out.flow("udp-1").unwrap().bytes_delivered as f64;
        let be = out.flow("udp-2").unwrap().bytes_delivered as f64;
        ef / (ef + be)
    };
    let d3 = ef_share("diffserv3");
    assert!((0.18..=0.26).contains(&d3), "EF share {d3}");
    let be = ef_share("besteffort");
    assert!((be - 0.5).abs() < 0.03, "EF share {be}");
}
