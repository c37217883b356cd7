//! D-SACK (RFC 2883) end to end over [`super::testnet`]: a fast retransmit that a reordered
//! segment set off is undone, a D-SACK block marks nothing, and RACK's reordering window widens
//! until a path's reordering stops setting off retransmissions.

use super::params::TcpParams;
use super::testnet::Net;
use crate::time::{Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const T0: Instant = Instant::ZERO;
const MSS: u64 = 1460;
const DELAY: Duration = Duration::from_ms(20);

fn params(dsack: bool) -> TcpParams {
    TcpParams {
        dsack,
        // Segments of `MSS` bytes of payload, numbered by it.
        timestamps: false,
        ..TcpParams::default()
    }
}

/// Delay the first copy of each listed segment by its duration after the bottleneck.
fn reorder(net: &mut Net, late: Vec<(u64, Duration)>) {
    let mut seen = std::collections::HashSet::new();
    net.reorder = Box::new(move |p| {
        let Some(&(_, d)) = late
            .iter()
            .find(|(k, _)| p.tcp.len > 0 && p.tcp.seq == k * MSS)
        else {
            return Duration::ZERO;
        };
        if seen.insert(p.tcp.seq) {
            d
        } else {
            Duration::ZERO
        }
    });
}

/// Segment 300 of a window-limited flow (30 segments, below the 34 of the 10 Mb/s path's
/// BDP) arrives 15 ms late: a dozen segments overtake it, three SACKed ones start a recovery
/// and it is resent. The original fills the hole first and the copy is acknowledged with a
/// D-SACK below the cumulative ACK; that was the recovery's only retransmission, so it was
/// needless and Linux undoes the reduction (`tcp_try_undo_dsack`). Without D-SACK the halved
/// window stays.
#[test]
fn a_needless_fast_retransmit_is_undone_by_its_dsack() {
    let run = |dsack: bool| {
        let mut p = params(dsack);
        p.rwnd_bytes = 30 * MSS;
        let mut net = Net::new(p, None, 10_000_000, DELAY, 1000);
        reorder(&mut net, vec![(300, 15 * MS)]);
        let at = loop {
            net.run(net.now + MS);
            if let Some(s) = net.sends_of(300 * MSS).first() {
                break s.at;
            }
        };
        let c = &net.sender.conns()[0];
        let before = (c.cwnd_bytes(), c.ssthresh_bytes());
        net.run(at + 300 * MS);
        let c = &net.sender.conns()[0];
        let after = (c.cwnd_bytes(), c.ssthresh_bytes());
        (
            net.sends_of(300 * MSS).len(),
            before,
            after,
            c.spurious_recoveries(),
        )
    };
    let (sends, before, after, undone) = run(true);
    assert_eq!(sends, 2, "the reordering set off a fast retransmit");
    assert_eq!(undone, 1);
    assert_eq!(after.1, before.1, "ssthresh restored");
    assert!(
        after.0 >= before.0,
        "cwnd restored: {after:?} after, {before:?} before"
    );
    let (sends, before, after, undone) = run(false);
    assert_eq!((sends, undone), (2, 0));
    assert!(
        after.1 <= before.0 / 2 + MSS,
        "ssthresh halved: {after:?}, {before:?}"
    );
    assert!(after.0 < before.0, "cwnd reduced");
}

/// RFC 2883 §4: a first block that starts below the cumulative ACK is a D-SACK even where it
/// reaches above it; the sender marks nothing from it. Segment 300 is lost and the first ACK
/// that reports the hole is rewritten to carry a D-SACK block over segments 299-300: marked,
/// segment 300 would pass for delivered, nothing would resend it and the timer would fire.
#[test]
fn a_dsack_block_marks_nothing() {
    let mut p = params(true);
    p.rwnd_bytes = 30 * MSS;
    let mut net = Net::new(p, None, 10_000_000, DELAY, 1000);
    let mut dropped = false;
    net.drop = Box::new(move |p, _| {
        let first = p.tcp.len > 0 && p.tcp.seq == 300 * MSS && !dropped;
        dropped |= first;
        first
    });
    let mut done = false;
    net.ack_rewrite = Box::new(move |a| {
        let h = &mut a.tcp;
        if !done && h.ack == 300 * MSS && h.nsack == 1 {
            h.sack = [(299 * MSS, 301 * MSS), h.sack[0], (0, 0)];
            h.nsack = 2;
            done = true;
        }
    });
    net.run(T0 + 5_000 * MS);
    assert_eq!(net.sends_of(300 * MSS).len(), 2, "resent once");
    assert_eq!(
        net.stats().timeouts.total,
        0,
        "by the fast retransmit, not the timer"
    );
}

/// A 2 Mb/s path (6 ms per segment, a minimum RTT near 50 ms: RACK's window a quarter of it,
/// about 12 ms) that reorders. Segment 100 arrives 9 ms late, after segment 101, within the
/// window: the first reordering seen (segment 100 was never resent and arrives below a SACKed
/// one). Segments 200 and 300 arrive 17 ms late: beyond the window, after two others (short of
/// DupThresh). Segment 200 is resent needlessly and its D-SACK widens the window by a step, so
/// 300 waits inside it and is sent once. Without D-SACK the window stays and 300 is resent too.
#[test]
fn dsacks_widen_racks_window_until_the_reordering_fits() {
    let run = |dsack: bool| {
        let mut p = params(dsack);
        p.rwnd_bytes = 8 * MSS;
        let mut net = Net::new(p, None, 2_000_000, DELAY, 1000);
        reorder(
            &mut net,
            vec![(100, 9 * MS), (200, 17 * MS), (300, 17 * MS)],
        );
        net.run(T0 + 4_000 * MS);
        assert!(net.receiver.conn(0).unwrap().rcv_nxt() > 320 * MSS);
        [100, 200, 300].map(|k| net.sends_of(k * MSS).len())
    };
    assert_eq!(run(true), [1, 2, 1]);
    assert_eq!(run(false), [1, 2, 2]);
}
