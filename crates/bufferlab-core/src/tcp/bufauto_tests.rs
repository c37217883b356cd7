//! FreeBSD's buffer auto-sizing end to end over [`super::testnet`]: one bulk upload over an
//! 800 kb/s path with a 94 ms RTT and a deep buffer (Braud et al.'s testbed uplink), where the
//! largest queue says which window held the connection back.

use super::bufauto::AutoSize;
use super::params::TcpParams;
use super::testnet::Net;
use crate::time::{Duration, Instant};

const RATE: u64 = 800_000;
const DELAY: Duration = Duration::from_ms(47);
/// A full segment on the wire: 1448 B of payload, 52 B of headers with the timestamp option.
const WIRE: u64 = 1500;
const SEG: u64 = 1448;

fn peak_queue(sndbuf_auto: bool, rwnd_auto: bool) -> usize {
    let p = TcpParams {
        sndbuf_bytes: 32768,
        rwnd_bytes: 65536,
        sndbuf_auto: sndbuf_auto.then_some(AutoSize {
            inc_bytes: 8192,
            max_bytes: 2 << 20,
        }),
        rwnd_auto: rwnd_auto.then_some(AutoSize {
            inc_bytes: 16384,
            max_bytes: 2 << 20,
        }),
        ..TcpParams::default()
    };
    let mut net = Net::new(p, None, RATE, DELAY, 1000);
    net.run(Instant::ZERO + Duration::from_secs(60));
    net.qmax
}

/// Segments a window of `bytes` keeps in the bottleneck's queue: those beyond the path's
/// bandwidth-delay product (800 kb/s × 94 ms = 9400 B, 6.3 wire segments).
fn queued(bytes: u64) -> f64 {
    (bytes / SEG) as f64 - RATE as f64 * 0.094 / 8.0 / WIRE as f64
}

#[test]
fn fixed_buffers_hold_the_send_buffer() {
    let q = peak_queue(false, false) as f64;
    assert!(
        (q - queued(32768)).abs() <= 2.0,
        "peak queue {q}, 32 KiB send buffer gives {}",
        queued(32768)
    );
}

#[test]
fn a_growing_send_buffer_stops_at_the_receive_window() {
    // The send buffer grows 32 → 80 KiB (while the 64 KiB window × 5/4 covers it); the window
    // then holds the flight at 64 KiB.
    let q = peak_queue(true, false) as f64;
    assert!(
        (q - queued(65536)).abs() <= 2.0,
        "peak queue {q}, a 64 KiB window gives {}",
        queued(65536)
    );
}

#[test]
fn both_growing_chase_each_other_past_the_starting_window() {
    // Each round trip brings the whole window (> 7/8 of it), so the receive window grows by 16
    // KiB per round trip and the send buffer follows it (while 5/4 of the window covers it):
    // the window outgrows its 64 KiB start by many steps within the minute.
    let q = peak_queue(true, true) as f64;
    assert!(
        q > queued(65536 + 4 * 16384),
        "peak queue {q}: the windows did not keep growing"
    );
}
