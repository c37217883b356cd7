//! Tail loss probes (RFC 8985 §7) in the sender, over [`super::testnet`]: a short transfer whose
//! last segments are lost, and a bulk flow whose ACKs stop for a while.

use super::params::TcpParams;
use super::testnet::Net;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const MSS: u64 = 1460;
const RATE: u64 = 10_000_000;
const DELAY: Duration = Duration::from_ms(20);

fn params(tlp: bool) -> TcpParams {
    TcpParams {
        tlp,
        // Segments of `MSS` bytes of payload, numbered by it.
        timestamps: false,
        // The probes' timing below is counted from delayed ACKs in pairs (RFC 1122's receiver):
        // without the ACK of each segment that grows the receive window.
        window_quickack: false,
        ..TcpParams::default()
    }
}

/// A 30-segment transfer whose last two segments are lost on their first sending.
fn lost_tail(tlp: bool) -> Net {
    let mut net = Net::new(params(tlp), Some(30 * MSS), RATE, DELAY, 100);
    let mut seen = std::collections::HashSet::new();
    net.drop =
        Box::new(move |p, _| p.tcp.len > 0 && p.tcp.seq >= 28 * MSS && seen.insert(p.tcp.seq));
    net.run(Instant::ZERO + 5 * SEC);
    net
}

/// When every byte was acknowledged.
fn done_at(net: &Net) -> Instant {
    net.acks_in
        .iter()
        .find(|&&(_, a)| a >= 30 * MSS)
        .expect("the transfer completes")
        .0
}

#[test]
fn a_lost_tail_is_probed_two_srtts_after_the_last_ack_and_repaired_without_a_timeout() {
    let net = lost_tail(true);
    let c = &net.sender.conns()[0];
    assert_eq!(net.stats().timeouts.total, 0);
    assert_eq!(c.loss_probes().0, 1);
    // The probe resends the highest segment, one PTO after the last ACK before it: 2·SRTT +
    // 2 ms (more than one segment out).
    let last = net.sends_of(29 * MSS);
    assert_eq!(last.len(), 2, "{last:?}");
    let probe = last[1].at;
    let ack_before = net
        .acks_in
        .iter()
        .rev()
        .find(|&&(t, _)| t < probe)
        .unwrap()
        .0;
    let srtt = c.srtt_ns().unwrap();
    let pto = probe - ack_before;
    eprintln!("probe {probe:?}, PTO {pto:?}, SRTT {srtt:?}");
    // The SRTT at the probe is within a few ms of the final one (a single, unqueued path).
    assert!(
        pto >= 2 * srtt - 4 * MS && pto <= 2 * srtt + 2 * MS + 4 * MS,
        "PTO {pto:?} against SRTT {srtt:?}"
    );
    // Its SACK shows segment 28 lost: fast recovery resends it, once.
    assert_eq!(net.sends_of(28 * MSS).len(), 2);
}

#[test]
fn without_probes_the_lost_tail_waits_for_the_timer() {
    let (probed, timed) = (lost_tail(true), lost_tail(false));
    assert_eq!(timed.stats().timeouts.total, 1);
    assert_eq!(timed.sender.conns()[0].loss_probes().0, 0);
    let (a, b) = (done_at(&probed), done_at(&timed));
    eprintln!("completed: probe {a:?}, timeout {b:?}");
    // The timer is at least the 200 ms minimum RTO after the last ACK; the probe about 84 ms.
    assert!(b - a > 100 * MS, "probe {a:?}, timeout {b:?}");
}

/// A bulk flow whose ACKs sent in [3 s, 3 s + `gap`) are all lost.
fn acks_stop(p: TcpParams, gap: Duration) -> (Net, Instant) {
    let mut net = Net::new(p, None, RATE, DELAY, 100);
    let (t1, t2) = (Instant::ZERO + 3 * SEC, Instant::ZERO + 3 * SEC + gap);
    net.drop_ack = Box::new(move |_, now| now >= t1 && now < t2);
    net.run(Instant::ZERO + 4 * SEC);
    (net, t1)
}

/// The peer's window at 30 segments, below the path's 34: no queue, an RTT of 41.2 ms.
fn window_full(dsack: bool) -> TcpParams {
    TcpParams {
        rwnd_bytes: 30 * MSS,
        dsack,
        ..params(true)
    }
}

/// The one data segment sent from a timer after `t`.
fn probe_after(net: &Net, t: Instant) -> super::testnet::Sent {
    let from_timer: Vec<_> = net.sent.iter().filter(|s| s.at > t && s.on_timer).collect();
    assert_eq!(from_timer.len(), 1, "{from_timer:?}");
    *from_timer[0]
}

#[test]
fn when_acks_stop_a_window_limited_sender_probes_with_new_data() {
    // The window fills the 100-packet queue: the ACKs' silence outlasts a PTO, which the
    // retransmission timer bounds here (2·SRTT would be later than the RTO).
    let (net, t1) = acks_stop(params(true), 150 * MS);
    let c = &net.sender.conns()[0];
    assert_eq!(net.stats().timeouts.total, 0);
    assert_eq!(c.loss_probes(), (1, 0));
    let p = probe_after(&net, t1);
    assert_eq!(net.sends_of(p.seq).len(), 1, "new data, not a resend");
    // Sent beyond the congestion window: every earlier segment was still unacknowledged.
    let before = net
        .sent
        .iter()
        .filter(|s| s.at < p.at)
        .map(|s| s.seq)
        .max()
        .unwrap();
    assert_eq!(p.seq, before + MSS);
}

#[test]
fn when_acks_stop_with_the_peer_window_full_the_last_segment_is_probed() {
    // The ACKs of the last 60 ms of data are lost, the probe's is not.
    let (net, t1) = acks_stop(window_full(true), 60 * MS);
    let c = &net.sender.conns()[0];
    assert_eq!(net.stats().timeouts.total, 0);
    let p = probe_after(&net, t1);
    let sends = net.sends_of(p.seq);
    assert_eq!(sends.len(), 2, "the highest segment, resent: {sends:?}");
    let last_ack = net
        .acks_in
        .iter()
        .rev()
        .find(|&&(t, _)| t < p.at)
        .unwrap()
        .0;
    let srtt = c.srtt_ns().unwrap();
    let pto = p.at - last_ack;
    assert!(
        pto >= 2 * srtt && pto <= 2 * srtt + 2 * MS + 2 * MS,
        "PTO {pto:?}, SRTT {srtt:?}"
    );
    // Nothing was lost: the probe's copy arrives as a duplicate, which the receiver reports
    // with a D-SACK, and the episode ends without a window reduction.
    assert_eq!(c.loss_probes(), (1, 0));
    // Without D-SACK the ACK above the probe cannot tell, and the window is reduced.
    let (net, _) = acks_stop(window_full(false), 60 * MS);
    assert_eq!(net.sender.conns()[0].loss_probes(), (1, 1));
}
