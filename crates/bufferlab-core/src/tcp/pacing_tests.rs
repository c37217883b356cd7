//! Pacing end to end over [`super::testnet`] (its bottleneck FIFO takes the sender's packets at
//! once: an access link infinitely faster than the bottleneck).

use super::params::TcpParams;
use super::testnet::Net;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const US: Duration = Duration::from_ns(1_000);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;
const RATE: u64 = 10_000_000;
const DELAY: Duration = Duration::from_ms(20);
/// A full segment's payload (MSS 1460 less the timestamp option).
const SEG: u64 = 1448;

/// One segment per departure (GSO off): the slots below are a segment's; with GSO a buffer of
/// several leaves per slot of their total (`gso.rs`).
fn params(pacing: bool) -> TcpParams {
    TcpParams {
        pacing,
        gso: false,
        // ACKs for every second segment, so that the pacing timer, whose slots are under test,
        // sends most segments rather than the ACK clock (a receiver ACKing each segment while
        // its window grows, Linux's, clocks more of them out on ACKs, still a slot apart).
        window_quickack: false,
        ..TcpParams::default()
    }
}

/// A segment's slot at `rate` bytes/s (Linux: payload × 10⁹ / `sk_pacing_rate`, in ns).
fn slot(len: u32, rate: u64) -> Duration {
    Duration::from_ns(len as u64 * 1_000_000_000 / rate)
}

#[test]
fn paced_segments_leave_one_slot_apart() {
    let mut net = Net::new(params(true), None, RATE, DELAY, 1000);
    net.run(T0 + 5 * SEC);
    let s = &net.sent;
    let (mut timed, mut pairs) = (0, 0);
    // The first ten segments go unpaced (Linux's `data_segs_out >= 10`).
    for w in s[10..].windows(2) {
        pairs += 1;
        let rate = w[0]
            .pacing_rate
            .expect("a rate once the handshake gave an RTT");
        let want = slot(w[0].len, rate);
        let gap = w[1].at - w[0].at;
        // At most half a slot is given back to a segment that left late.
        assert!(
            gap >= want / 2,
            "gap {gap:?} < half of {want:?} at {:?}",
            w[1].at
        );
        // Two segments both sent by the pacing timer: exactly one slot apart.
        if w[0].on_timer && w[1].on_timer {
            timed += 1;
            assert!(
                gap.abs_diff(want) * 100 <= want,
                "gap {gap:?} vs slot {want:?} at {:?}",
                w[1].at
            );
        }
    }
    // Many leave on the pacing timer (the rest on the ACK clock, once the window is full).
    assert!(timed * 4 > pairs, "{timed} of {pairs}");
}

/// With GSO a buffer of several segments is one skb to Linux's pacing: it leaves at one time,
/// the next buffer's departure moves on by the whole buffer's slot, and a buffer that left late
/// earns back up to half of *its* slot (`tcp_update_skb_after_send`), not half of one segment's.
#[test]
fn a_gso_buffer_is_paced_as_one() {
    let mut net = Net::new(
        TcpParams {
            gso: true,
            ..params(true)
        },
        None,
        RATE,
        DELAY,
        1000,
    );
    net.run(T0 + 5 * SEC);
    // The buffers: segments sent at one instant, in order.
    let mut bufs: Vec<(Instant, u32, Option<u64>, bool)> = Vec::new();
    for x in net.sent.iter().skip(10) {
        match bufs.last_mut() {
            Some(b) if b.0 == x.at => b.1 += x.len,
            _ => bufs.push((x.at, x.len, x.pacing_rate, x.on_timer)),
        }
    }
    let (mut multi, mut beyond_half_a_segment) = (0, 0);
    for w in bufs.windows(2) {
        let (at, len, rate, _) = w[0];
        let rate = rate.expect("a rate once the handshake gave an RTT");
        let want = slot(len, rate);
        let gap = w[1].0 - at;
        assert!(
            gap >= want / 2,
            "gap {gap:?} < half of {want:?} at {:?}",
            w[1].0
        );
        if len as u64 > SEG {
            multi += 1;
            // A buffer that left late (on an ACK) followed by one the pacing timer sent, at the
            // departure time the first set: more given back than half of one segment's slot
            // is a whole buffer's credit.
            if !w[0].3 && w[1].3 && gap + slot(SEG as u32, rate) / 2 + 10 * US < want {
                beyond_half_a_segment += 1;
            }
        }
        if w[0].3 && w[1].3 {
            assert!(
                gap.abs_diff(want) * 100 <= want,
                "gap {gap:?} vs slot {want:?} at {:?}",
                w[1].0
            );
        }
    }
    assert!(multi > 100, "{multi} buffers of two or more segments");
    assert!(
        beyond_half_a_segment > 0,
        "no buffer earned more than half a segment's slot back"
    );
}

/// cwnd (segments) of a flow over a 1 Gb/s path (a BDP of 3,300 segments), once per round
/// trip from the first ACK on.
fn slow_start(pacing: bool) -> Vec<u64> {
    let mut net = Net::new(params(pacing), None, 1_000_000_000, DELAY, 100_000);
    (0..10u64)
        .map(|k| {
            net.run(T0 + 60 * MS + k * 41 * MS);
            net.sender.conns()[0].cwnd_bytes() / SEG
        })
        .collect()
}

#[test]
fn paced_slow_start_still_doubles_the_window_every_round_trip() {
    // Slow start paces at twice cwnd / SRTT (`tcp_pacing_ss_ratio`), so a round's window
    // leaves in half a round trip and its ACKs come back in time to double it.
    let paced = slow_start(true);
    let unpaced = slow_start(false);
    assert_eq!(&unpaced[..4], &[10, 20, 40, 80]);
    for w in paced.windows(2) {
        let r = w[1] as f64 / w[0] as f64;
        assert!((1.8..=2.2).contains(&r), "{paced:?}");
    }
    let (p, u) = (paced[9] as f64, unpaced[9] as f64);
    assert!((p - u).abs() / u < 0.1, "{paced:?} vs {unpaced:?}");
}

/// The most packets the bottleneck held after the initial window (sent at 40 ms, when the
/// handshake ends; it goes unpaced either way), for a flow whose window (half the BDP) never
/// fills the path.
fn queue_after_first_round(pacing: bool) -> usize {
    let mut p = params(pacing);
    p.rwnd_bytes = 17 * SEG;
    let mut net = Net::new(p, None, RATE, DELAY, 1000);
    net.trace_queue = true;
    net.run(T0 + 10 * SEC);
    assert!(net.stats().timeouts.total == 0 && net.sent.iter().all(|s| !s.dropped));
    net.queue_trace
        .iter()
        .filter(|(t, _)| *t > T0 + 45 * MS)
        .map(|&(_, q)| q)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_paced_flow_sends_no_bursts_into_a_deep_fifo() {
    // Unpaced, each ACK of slow start releases four segments at once (two acknowledged, two of
    // growth) into a bottleneck that serves two in that time, and later ACKs release pairs:
    // the FIFO holds up to about half the window. Paced at 2 × cwnd / SRTT (below the
    // bottleneck's rate at half a BDP), each segment meets an empty queue.
    let unpaced = queue_after_first_round(false);
    let paced = queue_after_first_round(true);
    assert!(unpaced >= 6, "unpaced {unpaced}");
    assert!(paced <= 2, "paced {paced}");
}

#[test]
fn paced_runs_are_deterministic() {
    let run = || {
        let mut p = params(true);
        p.cc = super::params::CcConfig::Cubic(Default::default());
        let mut net = Net::new(p, None, RATE, DELAY, 60);
        net.run(T0 + 5 * SEC);
        net.sent
    };
    let (a, b) = (run(), run());
    assert!(a.iter().any(|s| s.dropped), "the 60-packet FIFO overflows");
    assert_eq!(a, b);
}
