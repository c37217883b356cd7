//! RFC 7661 §4.1: a sender limited by its send buffer, not by cwnd, does not grow cwnd.

use crate::common;

use bufferlab_core::run;
use bufferlab_core::time::{NS_PER_MS, NS_PER_SEC};
use common::*;
use serde_json::json;

#[test]
fn window_limited_flow_keeps_cwnd_bounded() {
    // 100 Mb/s, 100 ms RTT: a BDP of 1.25 MB; the sender may keep only 64 KiB outstanding.
    let sndbuf = 64 * 1024;
    let mut v = access(
        dir(100_000_000, 50 * NS_PER_MS, 1000),
        dir(100_000_000, 50 * NS_PER_MS, 1000),
        json!([{ "kind": "tcp", "pairs": [["client", "server"]],
                 "tcp": { "cc": "newreno", "sndbuf_bytes": sndbuf } }]),
        20 * NS_PER_SEC,
        1,
    );
    v["run"]["sample_ns"] = json!(NS_PER_SEC);
    let out = run(&scenario(v)).unwrap();
    let f = out.flow("tcp-1").unwrap();
    // The window, not the network, sets the rate: 64 KiB per 100 ms.
    let expect = sndbuf as f64 * 8.0 / 0.1;
    assert!(
        (f.throughput_bps - expect).abs() / expect < 0.1,
        "{} vs {expect}",
        f.throughput_bps
    );
    let ts = &out.timeseries;
    let max_cwnd = (0..ts.len())
        .filter(|&i| ts.id[i] == "tcp-1" && ts.metric[i] == "cwnd_bytes")
        .map(|i| ts.value[i])
        .fold(0.0, f64::max);
    // Without validation cwnd grows by an MSS per ACK for 20 s (tens of MB). Linux's test counts
    // packets (`tcp_is_cwnd_limited`: cwnd < 2 × max_packets_out), and the buffer's last
    // segment is a partial one: at most twice the buffer's segments, rounded up.
    let bound = 2.0 * (sndbuf as f64 / 1448.0).ceil() * 1448.0;
    assert!(
        max_cwnd <= bound,
        "cwnd reached {max_cwnd} B with a {sndbuf} B send buffer"
    );
}

/// FreeBSD's test (`CCF_CWND_LIMITED`: snd_cwnd ≤ snd_wnd) lets the same send-buffer-limited
/// flow grow its window up to the peer's advertised window, used or not: with a 1 MiB receive
/// window cwnd passes 1 MiB within the 20 s, where Linux's latched test keeps it near 64 KiB;
/// and it stops there (it may exceed the peer's window by the last ACK's growth only).
#[test]
fn freebsd_grows_a_window_limited_flow_up_to_the_peer_window() {
    let (sndbuf, rwnd) = (64 * 1024u64, 1024 * 1024u64);
    let max_cwnd = |freebsd: bool| {
        let mut v = access(
            dir(100_000_000, 50 * NS_PER_MS, 1000),
            dir(100_000_000, 50 * NS_PER_MS, 1000),
            json!([{ "kind": "tcp", "pairs": [["client", "server"]],
                     "tcp": { "cc": "newreno", "sndbuf_bytes": sndbuf, "rwnd_bytes": rwnd,
                              "grow_below_rwnd": freebsd } }]),
            20 * NS_PER_SEC,
            1,
        );
        v["run"]["sample_ns"] = json!(NS_PER_SEC / 10);
        let out = run(&scenario(v)).unwrap();
        let ts = &out.timeseries;
        (0..ts.len())
            .filter(|&i| ts.id[i] == "tcp-1" && ts.metric[i] == "cwnd_bytes")
            .map(|i| ts.value[i])
            .fold(0.0, f64::max)
    };
    let (linux, freebsd) = (max_cwnd(false), max_cwnd(true));
    assert!(
        linux <= 2.0 * (sndbuf as f64 / 1448.0).ceil() * 1448.0,
        "Linux: {linux} B"
    );
    assert!(
        freebsd >= rwnd as f64 && freebsd <= rwnd as f64 + 2.0 * 1460.0,
        "FreeBSD: {freebsd} B"
    );
}
