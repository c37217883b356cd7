//! RTT samples from ACKs that only SACK (`sack_rtt`, Linux's `sack_rtt_us` in
//! `tcp_clean_rtx_queue`): through a recovery the smoothed RTT follows the path, where samples
//! from ACKs of new data alone leave it at its value from before the loss.

use std::cell::Cell;
use std::rc::Rc;

use super::params::TcpParams;
use super::testnet::Net;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const T0: Instant = Instant::ZERO;
const MSS: u64 = 1460;
const RATE: u64 = 10_000_000;
const DELAY: Duration = Duration::from_ms(20);
/// What the return path adds once segment 200 is lost.
const EXTRA: Duration = Duration::from_ms(60);

/// A window-limited flow (30 segments, below the path's 34 of BDP: no queue, a 40 ms RTT) loses
/// segment 200; from then on the ACKs take `EXTRA` longer. Returns the smoothed RTT when the
/// first duplicate ACK is due and 150 ms after the loss, and the samples taken in between: the
/// fast retransmission's own ACK is not back yet (it comes about 205 ms after the loss), so
/// every ACK in between only SACKs.
fn srtt_through_recovery(sack_rtt: bool) -> (Duration, Duration, u64) {
    let p = TcpParams {
        sack_rtt,
        delayed_ack: false,
        // Segments of `MSS` bytes of payload, numbered by it.
        timestamps: false,
        rwnd_bytes: 30 * MSS,
        ..TcpParams::default()
    };
    let mut net = Net::new(p, None, RATE, DELAY, 1000);
    let lost_at: Rc<Cell<Option<Instant>>> = Rc::default();
    let seen = lost_at.clone();
    net.drop = Box::new(move |pkt, now| {
        let lose = pkt.tcp.len > 0 && pkt.tcp.seq == 200 * MSS && seen.get().is_none();
        if lose {
            seen.set(Some(now));
        }
        lose
    });
    let slow = lost_at.clone();
    // ACKs sent once the hole has reached the receiver: the first duplicate onwards (the
    // cumulative ACK of segment 199 leaves a little before).
    net.ack_extra = Box::new(move |now| match slow.get() {
        Some(d) if now > d + DELAY + 2 * MS => EXTRA,
        _ => Duration::ZERO,
    });
    let mut t = T0;
    while lost_at.get().is_none() {
        assert!(t < T0 + Duration::from_secs(10), "segment 200 never sent");
        t = t + MS;
        net.run(t);
    }
    // The ACKs of the segments sent before the hole are back by 90 ms after it (the first
    // duplicate ACK comes back at about 102 ms).
    let d = lost_at.get().unwrap();
    net.run(d + 90 * MS);
    let c = &net.sender.conns()[0];
    let before = c.srtt_ns().unwrap();
    let samples = c.rtt_samples();
    net.run(d + 150 * MS);
    let c = &net.sender.conns()[0];
    assert_eq!(
        net.stats().retransmits.total,
        1,
        "one fast retransmission by then"
    );
    (before, c.srtt_ns().unwrap(), c.rtt_samples() - samples)
}

#[test]
fn the_smoothed_rtt_follows_the_path_through_a_recovery() {
    let (before, on, samples_on) = srtt_through_recovery(true);
    let (before_off, off, samples_off) = srtt_through_recovery(false);
    assert_eq!(before, before_off, "the same run up to the loss");
    assert!(
        before.abs_diff(40 * MS) < 3 * MS,
        "{before:?}: the propagation RTT"
    );
    // Without: nothing but duplicate ACKs came back, so the estimate has not moved.
    assert_eq!(samples_off, 0);
    assert_eq!(off, before);
    // With: one sample per duplicate ACK (29 for the rest of the window, then those of the new
    // segments PRR sent), each 100 ms, the path's RTT with its slower return: SRTT (gain 1/8)
    // is within a few ms of it after 29.
    assert!(samples_on >= 29, "{samples_on} samples");
    let path = 40 * MS + EXTRA;
    assert!(on.abs_diff(path) < 6 * MS, "{on:?} against {path:?}");
}
