//! F-RTO (RFC 5682) in the sender, over [`super::testnet`]: a delay spike longer than the RTO
//! (nothing lost) and a timeout after the whole window was lost, with and without SACK.

use super::params::TcpParams;
use super::testnet::{Net, Sent};
use crate::time::{Duration, Instant};

pub(super) const MS: Duration = Duration::from_ms(1);
pub(super) const SEC: Duration = Duration::from_secs(1);

pub(super) const MSS: u64 = 1460;
pub(super) const RATE: u64 = 10_000_000;
pub(super) const DELAY: Duration = Duration::from_ms(20);
/// Window 30 segments, below the path's BDP (34): nothing queues, the RTT is 40 ms and the RTO
/// its 200 ms floor plus about 40 ms.
pub(super) const RWND: u64 = 30;
pub(super) const SPIKE_AT: Instant = Instant::from_ns(5_000_000_000);

fn params(sack: bool, frto: bool) -> TcpParams {
    TcpParams {
        sack,
        frto,
        // The timeout alone: a tail loss probe would go before it (tlp_tests.rs).
        tlp: false,
        // The window restored and held: with Linux's latch the timeout's full window (one
        // segment) lets the undone window grow on the rest of that flight's ACKs.
        cwnd_latch: false,
        // Segments of `MSS` bytes of payload, numbered by it.
        timestamps: false,
        rwnd_bytes: RWND * MSS,
        ..TcpParams::default()
    }
}

/// What one run shows around its timeout (also read by badrxt_tests.rs).
#[derive(Debug)]
pub(super) struct Outcome {
    pub(super) timeouts: u64,
    pub(super) retransmits: u64,
    pub(super) spurious: u64,
    /// cwnd and ssthresh (segments) just before the timeout and at the end.
    pub(super) before: (u64, u64),
    pub(super) after: (u64, u64),
    /// When the timeout's retransmission left, if one did.
    pub(super) retx_at: Option<Instant>,
    /// The data sends from the timeout's retransmission on, as segment numbers.
    sends: Vec<u64>,
    /// Highest segment sent before the timeout, plus one.
    max_before: u64,
    delivered: u64,
}

pub(super) fn outcome(mut net: Net, end: Instant) -> Outcome {
    net.run(SPIKE_AT);
    let c = &net.sender.conns()[0];
    let before = (c.cwnd_bytes() / MSS, c.ssthresh_bytes() / MSS);
    net.run(end);
    let st = net.stats();
    let c = &net.sender.conns()[0];
    // The timeout's retransmission: the first send of a segment already sent.
    let mut max = 0;
    let mut first_retx = None;
    for (i, s) in net.sent.iter().enumerate() {
        if s.seq < max {
            first_retx = Some(i);
            break;
        }
        max = max.max(s.seq + MSS);
    }
    let i = first_retx.unwrap_or(net.sent.len());
    Outcome {
        timeouts: st.timeouts.total,
        retransmits: st.retransmits.total,
        spurious: c.spurious_timeouts(),
        before,
        after: (c.cwnd_bytes() / MSS, c.ssthresh_bytes() / MSS),
        retx_at: first_retx.map(|i| net.sent[i].at),
        sends: net.sent[i..].iter().map(|s: &Sent| s.seq / MSS).collect(),
        max_before: max / MSS,
        delivered: net.receiver.conn(0).unwrap().rcv_nxt(),
    }
}

/// The run of `net` with every ACK the receiver sends in [SPIKE_AT, release) held until
/// `release` (also badrxt_tests.rs).
pub(super) fn acks_held_until(mut net: Net, release: Instant) -> Outcome {
    net.ack_extra = Box::new(move |now| {
        if now >= SPIKE_AT && now < release {
            release - now
        } else {
            Duration::ZERO
        }
    });
    outcome(net, SPIKE_AT + 3 * SEC)
}

/// Every ACK the receiver sends in [SPIKE_AT, SPIKE_AT + 600 ms) is held until the spike ends:
/// longer than the RTO (about 240 ms), shorter than the backed-off one (480 ms more), so one
/// timeout fires and nothing is lost.
fn spike(sack: bool, frto: bool) -> Outcome {
    let net = Net::new(params(sack, frto), None, RATE, DELAY, 1000);
    acks_held_until(net, SPIKE_AT + 600 * MS)
}

/// The spike with F-RTO: the first ACK after the timeout's retransmission covers new data, so
/// two segments never sent go out instead of retransmissions (step 2b); the next ACK covers
/// more of the window sent before the timeout (step 3b): spurious. One segment was resent in
/// all, and the window and ssthresh are back where they were (the flow had never lost a
/// segment, so ssthresh is unbounded again).
#[test]
fn spurious_timeout_is_undone_after_one_retransmission() {
    for sack in [false, true] {
        let o = spike(sack, true);
        let head = o.max_before - RWND;
        assert_eq!(o.timeouts, 1, "sack={sack}");
        assert_eq!(o.spurious, 1, "sack={sack}");
        assert_eq!(o.retransmits, 1, "sack={sack}: only the timeout's own");
        assert_eq!(
            o.sends[..4],
            [head, o.max_before, o.max_before + 1, o.max_before + 2],
            "sack={sack}: new data after the first ACK"
        );
        assert_eq!(o.after, o.before, "sack={sack}: cwnd and ssthresh restored");
        assert!(o.before.1 > 1 << 40, "ssthresh unbounded before the spike");
    }
}

/// The same spike without F-RTO: after the retransmission, every segment of the window the
/// first ACK did not cover is resent (go-back-N, or RFC 6675 §5.1 with SACK), though all were
/// about to be acknowledged, and ssthresh stays halved. Without SACK the duplicates then set
/// off a fast retransmit as well (more retransmissions, a second halving).
#[test]
fn spurious_timeout_without_frto_resends_the_window() {
    for sack in [false, true] {
        let o = spike(sack, false);
        let head = o.max_before - RWND;
        // The first ACK covered two segments (delayed ACKs): the head and the one above it.
        let expect: Vec<u64> = std::iter::once(head)
            .chain(head + 2..o.max_before)
            .collect();
        assert_eq!(o.timeouts, 1);
        assert_eq!(o.spurious, 0);
        assert_eq!(o.sends[..expect.len()], expect[..], "sack={sack}");
        if sack {
            assert_eq!(o.retransmits, RWND - 1);
            // Halved from the window (Linux's base, `ssthresh_from = "cwnd"`): the peer's window
            // held the flight at 30 while slow start had taken cwnd a little past it.
            assert!(o.before.0 >= RWND);
            assert_eq!(o.after.1, o.before.0 / 2, "ssthresh halved from cwnd");
        } else {
            assert!(o.retransmits > RWND - 1, "{}", o.retransmits);
            assert!(o.after.1 < RWND / 2, "{}", o.after.1);
        }
    }
}

/// Every data packet sent in [SPIKE_AT, SPIKE_AT + 60 ms) is lost: the whole window in flight
/// (the ACKs of the segments before it stop after one RTT, so nothing more is sent until the
/// timeout). A transfer of 6000 segments, to see that everything arrives.
fn blackout(sack: bool, frto: bool) -> Outcome {
    let mut net = Net::new(params(sack, frto), Some(6000 * MSS), RATE, DELAY, 1000);
    let end = SPIKE_AT + 60 * MS;
    net.drop = Box::new(move |p, now| p.tcp.len > 0 && now >= SPIKE_AT && now < end);
    outcome(net, SPIKE_AT + 10 * SEC)
}

/// The window really lost. F-RTO sends the timeout's retransmission; its ACK covers that one
/// segment, so a new segment goes out (step 2b: one, not two, because the peer's window has
/// room for one more only); the next ACK is a duplicate (no SACK) or SACKs only that new
/// segment, above "recover" (step 3a): the conventional recovery resends the rest of the
/// window, everything arrives, and nothing is undone. Without F-RTO the same recovery starts
/// one segment earlier.
#[test]
fn real_timeout_falls_back_to_the_conventional_recovery() {
    for sack in [false, true] {
        let (o, plain) = (blackout(sack, true), blackout(sack, false));
        let head = o.max_before - RWND;
        assert_eq!((o.timeouts, o.spurious), (1, 0), "sack={sack}");
        assert_eq!(o.delivered, 6000 * MSS, "sack={sack}: everything arrives");
        assert_eq!(plain.delivered, 6000 * MSS);
        let window: Vec<u64> = (head..o.max_before).collect();
        assert_eq!(plain.sends[..window.len()], window[..], "sack={sack}");
        assert_eq!(o.sends[..2], [head, o.max_before], "sack={sack}");
        assert_eq!(o.sends[2..window.len() + 1], window[1..], "sack={sack}");
        assert_eq!(
            o.after.1,
            o.before.0 / 2,
            "sack={sack}: ssthresh halved from cwnd, not restored"
        );
        assert_eq!(plain.retransmits, RWND);
        // With SACK the new segment is SACKed and never resent; go-back-N resends it.
        assert_eq!(o.retransmits, if sack { RWND } else { RWND + 1 });
    }
}

/// A timeout during fast recovery (segment 3000 and its fast retransmit both lost, so the
/// timer has to resend it) runs no F-RTO: RFC 5682 step 1 leaves a timeout alone when a loss
/// recovery is under way (§3.2: the ACKs of the recovery's own retransmissions would pass for
/// originals), and so does Linux (`tcp_enter_loss`: only from the Open or Disorder state, or a
/// repeated timeout). Every send is the same as without F-RTO.
#[test]
fn timeout_during_fast_recovery_runs_no_frto() {
    for sack in [false, true] {
        let run = |frto: bool| {
            let mut net = Net::new(params(sack, frto), None, RATE, DELAY, 1000);
            let mut copies = 0;
            net.drop = Box::new(move |p, _| {
                let hit = p.tcp.len > 0 && p.tcp.seq == 3000 * MSS && copies < 2;
                copies += hit as u32;
                hit
            });
            net.run(Instant::ZERO + 10 * SEC);
            net
        };
        let (with, without) = (run(true), run(false));
        assert_eq!(with.stats().timeouts.total, 1, "sack={sack}");
        assert_eq!(with.sender.conns()[0].spurious_timeouts(), 0);
        let seqs = |n: &Net| n.sent.iter().map(|s| s.seq).collect::<Vec<_>>();
        let (a, b) = (seqs(&with), seqs(&without));
        let differ = a.iter().zip(&b).position(|(x, y)| x != y);
        assert!(
            a.len() == b.len() && differ.is_none(),
            "sack={sack}: sends differ from the {differ:?}th on ({} and {} sends)",
            a.len(),
            b.len()
        );
    }
}
