//! The TCP state machines over [`super::testnet`]: recovery, timeouts, delayed ACKs.

use std::collections::HashSet;

use super::params::{RtoFloor, RttSamples, TcpParams};
use super::testnet::Net;
use crate::time::{tx_time, Duration, Instant};

const MS: Duration = Duration::from_ms(1);
const SEC: Duration = Duration::from_secs(1);
const T0: Instant = Instant::ZERO;

const MSS: u64 = 1460;
const RATE: u64 = 10_000_000;
/// One-way delay: RTT = 2 × 20 ms plus serialization.
const DELAY: Duration = Duration::from_ms(20);

/// Segments of `MSS` bytes of payload, numbered by it: the timestamp option's 12 B are left off
/// the wire (what they cost is `params.rs`'s and `tests/engine/tcp_buffers.rs`'s to check).
fn params(sack: bool) -> TcpParams {
    TcpParams {
        sack,
        timestamps: false,
        // The recovery tests' arithmetic counts delayed ACKs in pairs from the first segment
        // (RFC 1122's receiver); Linux's quick ACKs at the start shift which segments pair up.
        quickack: false,
        // ... and so do the ACKs of segments that grow the receive window (`window_quickack`).
        window_quickack: false,
        ..TcpParams::default()
    }
}

/// Drop the first transmission of each segment number listed.
fn drop_first(net: &mut Net, segs: &[u64]) {
    drop_copies(net, segs, 1);
}

/// A window-limited flow losing three segments of one window. The window (30 segments) is
/// below the path's BDP (34), so nothing queues and the RTT is the propagation time.
fn three_losses(sack: bool) -> Net {
    let mut p = params(sack);
    p.rwnd_bytes = 30 * MSS;
    let mut net = Net::new(p, None, RATE, DELAY, 1000);
    drop_first(&mut net, &[200, 205, 210]);
    net.run(T0 + 10 * SEC);
    net
}

#[test]
fn newreno_partial_acks_repair_one_hole_per_rtt() {
    let net = three_losses(false);
    let st = net.stats();
    assert_eq!(
        st.timeouts.total, 0,
        "no timeout: partial ACKs drive recovery"
    );
    assert_eq!(
        st.retransmits.total, 3,
        "each lost segment resent once, nothing else"
    );
    let r: Vec<_> = [200, 205, 210]
        .iter()
        .map(|k| net.sends_of(k * MSS)[1].at)
        .collect();
    // RFC 6582: the partial ACK for the first retransmission reveals the next hole, one RTT
    // later.
    let rtt = 2 * DELAY;
    for w in r.windows(2) {
        let gap = w[1] - w[0];
        assert!(
            gap > rtt * 9 / 10 && gap < rtt * 3 / 2,
            "gap {gap:?} for RTT {rtt:?}"
        );
    }
}

#[test]
fn sack_recovery_repairs_all_holes_in_one_rtt() {
    let net = three_losses(true);
    let st = net.stats();
    assert_eq!(st.timeouts.total, 0);
    assert_eq!(st.retransmits.total, 3);
    // The first hole goes at once (RFC 6675 §5 step 4.3), the others as the pipe falls below
    // the halved window, all within one RTT; NewReno needs an RTT per hole.
    let first = net.sends_of(200 * MSS)[1].at;
    let last = net.sends_of(210 * MSS)[1].at;
    assert!(
        last - first < 2 * DELAY,
        "RFC 6675: every hole resent within the same RTT ({:?})",
        last - first
    );
}

#[test]
fn one_window_reduction_per_loss_event() {
    for sack in [false, true] {
        let net = three_losses(sack);
        // The window was 30 segments; one halving leaves 15, and the ~100 RTTs of congestion
        // avoidance since bring it back to the receiver's window. Two halvings, or a timeout,
        // would leave it lower in slow start's absence.
        let st = net.stats();
        assert_eq!(st.timeouts.total, 0);
        let cwnd = net.sender.conns()[0].cwnd_bytes() / MSS;
        assert!(cwnd >= 30, "sack={sack}: cwnd {cwnd} segments");
    }
}

#[test]
fn blackhole_backs_off_exponentially_and_recovers() {
    // The timer's back-off alone: a tail loss probe would go before the first timeout.
    let p = TcpParams {
        tlp: false,
        ..params(true)
    };
    let mut net = Net::new(p, None, RATE, DELAY, 100);
    let (t1, t2) = (T0 + 5 * SEC, T0 + 8 * SEC);
    net.drop = Box::new(move |_, now| now >= t1 && now < t2);
    net.drop_ack = Box::new(move |_, now| now >= t1 && now < t2);
    net.run(T0 + 20 * SEC);
    // During the blackhole, only timeouts send: the first unacknowledged segment, again and
    // again, spaced by doubling RTOs.
    let head = net.sent.iter().rev().find(|s| s.at < t2).unwrap().seq;
    assert!(net
        .sent
        .iter()
        .filter(|s| s.at >= t1 && s.at < t2)
        .all(|s| s.dropped));
    let times: Vec<Instant> = net
        .sends_of(head)
        .iter()
        .map(|s| s.at)
        .filter(|&t| t >= t1 && t < t2 + 2 * SEC)
        .collect();
    assert!(times.len() >= 4, "{times:?}");
    let gaps: Vec<f64> = times
        .windows(2)
        .map(|w| (w[1] - w[0]).as_ns() as f64)
        .collect();
    for g in gaps.windows(2).skip(1) {
        let r = g[1] / g[0];
        assert!(
            (r - 2.0).abs() < 0.01,
            "RTO back-off ratio {r}: gaps {gaps:?}"
        );
    }
    let st = net.stats();
    assert!(st.timeouts.total >= 3);
    // After the blackhole the flow fills the link again.
    let before = net.receiver.conn(0).unwrap().rcv_nxt();
    let delivered_after = {
        let mut n2 = net;
        let _ = before;
        let b0 = n2.receiver.conn(0).unwrap().rcv_nxt();
        n2.run(T0 + 30 * SEC);
        n2.receiver.conn(0).unwrap().rcv_nxt() - b0
    };
    let rate = delivered_after as f64 * 8.0 / 10.0;
    let cap = RATE as f64 * MSS as f64 / (MSS + 40) as f64;
    assert!(
        rate > 0.9 * cap,
        "goodput after the blackhole {rate} of {cap}"
    );
}

#[test]
fn clean_path_has_no_retransmissions() {
    for sack in [false, true] {
        let mut p = params(sack);
        p.rwnd_bytes = 80 * MSS; // below BDP + buffer: never overflows
        let mut net = Net::new(p, Some(20_000_000), RATE, DELAY, 100);
        net.run(T0 + 60 * SEC);
        let st = net.stats();
        assert_eq!(st.retransmits.total, 0);
        assert_eq!(st.timeouts.total, 0);
        assert_eq!(st.bytes_delivered.total, 20_000_000);
        assert!(net.transfers[0].completed.is_some());
    }
}

#[test]
fn delayed_acks_halve_the_ack_count() {
    let count = |delayed_ack: bool| {
        let mut p = params(true);
        p.delayed_ack = delayed_ack;
        // Every second segment, as RFC 1122 has it: without Linux's ACK of a pushed segment,
        // which ACKs the last segment of each GSO buffer of odd size alone
        // (`psh_ends_each_gso_buffer_and_the_data`).
        p.push_ack = false;
        // Count data ACKs only: no SYN-ACK or FIN exchange.
        p.handshake = false;
        let mut net = Net::new(p, Some(2_000 * MSS), RATE, DELAY, 1000);
        net.run(T0 + 30 * SEC);
        assert_eq!(net.stats().bytes_delivered.total, 2_000 * MSS);
        net.acks
    };
    let (on, off) = (count(true), count(false));
    assert_eq!(off, 2000, "one ACK per segment without delayed ACKs");
    let r = on as f64 / off as f64;
    assert!((0.5..0.53).contains(&r), "{on} / {off} = {r}");
}

/// ns-2's timer (`rtt_samples = "one_per_rtt"`): one segment timed at a time, so a transfer
/// takes about one sample per round trip where every ACK gives one by default; the RTO floor on
/// the total (`rto_floor = "total"`) lets the RTO of a steady 40 ms path sit at `min_rto`.
#[test]
fn one_rtt_sample_per_round_trip() {
    let run = |one_per_rtt: bool| {
        let mut p = params(false);
        p.handshake = false;
        p.delayed_ack = false;
        p.initial_window = 2;
        p.rwnd_bytes = 20 * MSS; // below the BDP (34 segments): every round trip is 40 ms
        if one_per_rtt {
            p.rtt_samples = RttSamples::OnePerRtt;
            p.rto_floor = RtoFloor::Total;
        }
        let mut net = Net::new(p, Some(2_000 * MSS), RATE, DELAY, 1000);
        net.run(T0 + 30 * SEC);
        assert_eq!(net.stats().bytes_delivered.total, 2_000 * MSS);
        let c = &net.sender.conns()[0];
        (c.rtt_samples(), c.rto())
    };
    let (every, rto_linux) = run(false);
    let (one, rto_ns2) = run(true);
    assert_eq!(every, 2000, "one sample per ACK");
    // 2000 segments in windows of at most 20: at least 100 round trips, about one sample each.
    assert!((95..=110).contains(&one), "{one} samples");
    assert!(rto_linux >= 240 * MS, "{rto_linux:?}: SRTT + 200 ms");
    assert_eq!(rto_ns2, 200 * MS, "max(200 ms, SRTT + 4 RTTVAR)");
}

#[test]
fn handshake_costs_one_rtt() {
    let done = |handshake: bool| {
        let mut p = params(true);
        p.handshake = handshake;
        let mut net = Net::new(p, Some(100 * MSS), RATE, DELAY, 1000);
        net.run(T0 + 10 * SEC);
        net.transfers[0].completed.unwrap()
    };
    let extra = done(true) - done(false);
    let rtt = 2 * DELAY + 2 * tx_time(40, RATE);
    assert!(extra.abs_diff(rtt) < MS, "{extra:?} vs {rtt:?}");
}

/// The network delivers one segment five times. Each late copy makes the receiver send an ACK
/// that carries no new SACK information: with SACK these are not duplicate ACKs (RFC 6675 §2,
/// condition (e)), so nothing is resent and the window stays; without SACK, three of them are
/// indistinguishable from a loss (RFC 5681 §3.2) and NewReno retransmits.
#[test]
fn network_duplicates_start_no_recovery_with_sack() {
    let run = |sack: bool| {
        let mut p = params(sack);
        p.rwnd_bytes = 30 * MSS; // below the BDP: no queue, no loss
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        net.dup = Box::new(|p, _| {
            if p.tcp.len > 0 && p.tcp.seq == 300 * MSS {
                4
            } else {
                0
            }
        });
        net.run(T0 + 5 * SEC);
        (
            net.stats().retransmits.total,
            net.sender.conns()[0].ssthresh_bytes(),
        )
    };
    let (retx, ssthresh) = run(true);
    assert_eq!(retx, 0);
    assert!(ssthresh > 1 << 40, "never reduced: {ssthresh}");
    let (retx, _) = run(false);
    assert!(retx >= 1, "NewReno takes three duplicates for a loss");
}

/// Every ACK is lost for 1.5 s: the timer fires, then fires again for the segment it already
/// resent. The second timeout does not halve ssthresh again (RFC 5681 §3.1): with a single
/// segment in flight it would fall to two segments.
#[test]
fn repeated_timeout_holds_ssthresh() {
    let mut p = params(true);
    p.rwnd_bytes = 30 * MSS;
    let mut net = Net::new(p, None, RATE, DELAY, 1000);
    let (t1, t2) = (T0 + 5 * SEC, T0 + 6_500 * MS);
    net.drop_ack = Box::new(move |_, now| now >= t1 && now < t2);
    while net.stats().timeouts.total == 0 {
        let t = net.now + MS;
        net.run(t);
    }
    let first = net.sender.conns()[0].ssthresh_bytes();
    assert!(first >= 10 * MSS, "half the window in flight: {first}");
    net.run(t2);
    assert!(net.stats().timeouts.total >= 2);
    assert_eq!(net.sender.conns()[0].ssthresh_bytes(), first);
}

/// The fast retransmit leaves on the ACK that starts recovery (RFC 6675 §5 step 4.3), although
/// the pipe (about 27 segments) still exceeds the halved window (15): waiting for the pipe to
/// fall below it would hold the hole open for another dozen ACKs.
#[test]
fn fast_retransmit_leaves_when_recovery_starts() {
    let net = three_losses(true);
    let s = net.sends_of(200 * MSS);
    // The third duplicate ACK answers segment 203: one RTT after segment 200 left, plus the
    // three segments' serialization.
    let third_dupack = s[0].at + 2 * DELAY + 4 * tx_time(MSS + 40, RATE) + tx_time(40, RATE);
    assert!(
        s[1].at <= third_dupack + MS,
        "resent {:?} after the loss, third duplicate ACK at {:?}",
        s[1].at - s[0].at,
        third_dupack - s[0].at
    );
}

/// The first SYN is lost: the connection opens after the SYN's 1 s timeout with a one-segment
/// window (RFC 5681 §3.1), so the first round trip carries one segment, not the initial window.
#[test]
fn a_lost_syn_leaves_an_initial_window_of_one_segment() {
    let first_round = |lose_syn: bool| {
        let mut p = params(true);
        p.rwnd_bytes = 30 * MSS;
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        let mut lost = !lose_syn;
        net.drop = Box::new(move |p, _| {
            let syn = p.tcp.len == 0 && p.tcp.flags & crate::packet::tcp_flags::SYN != 0;
            let first = syn && !lost;
            lost |= syn;
            first
        });
        net.run(T0 + 10 * SEC);
        let first = net.sends_of(0)[0].at;
        (0..20u64)
            .filter(|k| {
                net.sends_of(k * MSS)
                    .first()
                    .is_some_and(|s| s.at < first + DELAY)
            })
            .count()
    };
    assert_eq!(first_round(false), 10, "IW 10 without a loss");
    assert_eq!(first_round(true), 1, "one segment after the SYN's timeout");
}

/// One loss in slow start (segment 100; the window is not limited by the receiver). RFC 6675
/// alone halves the window at once and sends nothing until the pipe has fallen below it: half
/// a window of ACKs in silence after the fast retransmit. PRR (RFC 6937) sends on every second
/// segment delivered from the start, so the recovery's round trip has no gap longer than a few
/// ACKs.
#[test]
fn prr_spreads_the_recovery_over_its_round_trip() {
    let longest_gap = |prr: bool| {
        let mut p = params(true);
        p.prr = prr;
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        drop_first(&mut net, &[100]);
        net.run(T0 + 10 * SEC);
        assert_eq!(net.stats().timeouts.total, 0);
        let r = net.sends_of(100 * MSS)[1].at;
        // Sends in the round trip after the fast retransmit, and the round trip's end.
        let end = r + 2 * DELAY;
        let mut during: Vec<_> = net
            .sent
            .iter()
            .map(|s| s.at)
            .filter(|&t| t >= r && t < end)
            .collect();
        during.push(end);
        during.windows(2).map(|w| w[1] - w[0]).max().unwrap()
    };
    let seg = tx_time(MSS + 40, RATE);
    let (with, without) = (longest_gap(true), longest_gap(false));
    assert!(
        with <= 5 * seg,
        "PRR: longest gap {with:?}, segment time {seg:?}"
    );
    assert!(
        without >= 2 * DELAY - seg,
        "RFC 6675 alone: longest gap {without:?}"
    );
}

/// Drop the first `n` transmissions of each segment number listed.
fn drop_copies(net: &mut Net, segs: &[u64], n: u32) {
    let want: HashSet<u64> = segs.iter().map(|k| k * MSS).collect();
    let mut seen = std::collections::HashMap::new();
    net.drop = Box::new(move |p, _| {
        if p.tcp.len == 0 || !want.contains(&p.tcp.seq) {
            return false;
        }
        let c = seen.entry(p.tcp.seq).or_insert(0u32);
        *c += 1;
        *c <= n
    });
}

/// A flow in slow start whose segment 100 is lost, then lost again when fast retransmit
/// resends it. RFC 6675 cannot see the second loss (the segments above it were SACKed before
/// it was resent) and waits for the timer; RACK (RFC 8985 §6.2) sees the new segments PRR sent
/// after the retransmission delivered, and resends it about one RTT after the retransmission
/// left.
#[test]
fn rack_finds_a_lost_retransmission_within_a_round_trip() {
    let run = |rack: bool| {
        let mut p = params(true);
        p.rack = rack;
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        drop_copies(&mut net, &[100], 2);
        net.run(T0 + 10 * SEC);
        net
    };
    let (with, without) = (run(true), run(false));
    assert_eq!(
        without.stats().timeouts.total,
        1,
        "RFC 6675 alone: the timer"
    );
    assert_eq!(with.stats().timeouts.total, 0, "RACK: no timeout");
    assert_eq!(
        with.stats().retransmits.total,
        2,
        "segment 100 sent three times, nothing else"
    );
    let sends = with.sends_of(100 * MSS);
    assert_eq!(sends.len(), 3);
    // One round trip of the retransmission's time (40 ms of propagation and the slow-start
    // queue, ~90 ms), before the 200 ms floor of the timer.
    let gap = sends[2].at - sends[1].at;
    assert!(
        gap > 2 * DELAY && gap < 150 * MS,
        "the second retransmission {gap:?} after the first"
    );
    // Both recover everything; RACK is a full minimum RTO (200 ms) sooner.
    let done = |n: &Net| n.sends_of(100 * MSS).last().unwrap().at;
    assert!(done(&without) - done(&with) > 100 * MS);
}

/// A window of three segments whose first segment is lost: only two duplicate ACKs can come,
/// so RFC 6675's DupThresh is never reached and only the timer repairs it. RACK calls it lost a
/// quarter of the minimum RTT (its reordering window outside recovery) after the next
/// segment's delivery, via its own timer.
#[test]
fn rack_repairs_a_small_window_loss_without_the_timer() {
    let run = |rack: bool| {
        let mut p = params(true);
        p.rack = rack;
        p.rwnd_bytes = 3 * MSS;
        p.delayed_ack = false;
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        drop_first(&mut net, &[60]);
        net.run(T0 + 5 * SEC);
        net
    };
    let (with, without) = (run(true), run(false));
    assert_eq!(without.stats().timeouts.total, 1);
    assert_eq!(with.stats().timeouts.total, 0);
    assert_eq!(with.stats().retransmits.total, 1);
    let s = with.sends_of(60 * MSS);
    // Sent, then resent one RTT and a quarter of it later (plus serialization).
    let gap = s[1].at - s[0].at;
    let rtt = 2 * DELAY;
    assert!(
        gap >= rtt + rtt / 4 && gap < rtt + rtt / 4 + 5 * MS,
        "resent {gap:?} after the first copy"
    );
}

/// Without losses RACK changes nothing: the same packets at the same times.
#[test]
fn rack_leaves_a_clean_path_alone() {
    let sends = |rack: bool| {
        let mut p = params(true);
        p.rack = rack;
        let mut net = Net::new(p, Some(2_000_000), RATE, DELAY, 1000);
        net.run(T0 + 10 * SEC);
        assert_eq!(net.stats().retransmits.total, 0);
        net.sent.iter().map(|s| (s.at, s.seq)).collect::<Vec<_>>()
    };
    assert_eq!(sends(true), sends(false));
}

/// Linux's sender as the kernel captures show it: PSH on the last segment of every GSO buffer of
/// two or more segments, none on a single split off a buffer, and on the data's last segment.
#[test]
fn psh_ends_each_gso_buffer_and_the_data() {
    let p = TcpParams {
        timestamps: false,
        ..TcpParams::default()
    };
    // A queue of 40 packets: congestion avoidance, with single segments sent now and then.
    let size = 3000 * MSS;
    let mut net = Net::new(p, Some(size), RATE, DELAY, 40);
    net.run(T0 + 30 * SEC);
    // First transmissions only (dropped ones too: the PSH is set before the queue).
    let mut seen = HashSet::new();
    let sent: Vec<_> = net
        .sent
        .iter()
        .filter(|s| seen.insert(s.seq))
        .copied()
        .collect();
    let mut groups: Vec<Vec<super::testnet::Sent>> = Vec::new();
    for s in &sent {
        match groups.last_mut() {
            Some(g) if g[0].at == s.at => g.push(*s),
            _ => groups.push(vec![*s]),
        }
    }
    let (mut pairs, mut singles) = (0, 0);
    for g in &groups {
        let last_of_data = g.last().unwrap().seq + g.last().unwrap().len as u64 == size;
        let pushed: Vec<_> = g.iter().map(|s| s.push).collect();
        if g.len() >= 2 {
            pairs += 1;
            // One sending round may hold more than one buffer (a pair then a single, or in
            // slow start buffers of ~1 ms of the pacing rate): a buffer's first segment never
            // carries PSH, the first buffer's last one does.
            assert!(!pushed[0] && pushed.contains(&true), "{:?}", g);
        } else if !last_of_data {
            singles += 1;
            assert!(!pushed[0], "a single split off a buffer: {:?}", g);
        }
    }
    assert!(
        pairs > 100 && singles > 0,
        "{pairs} pairs, {singles} singles"
    );
    assert!(sent.last().unwrap().push, "the data's last segment");
}

/// After a timeout, the ACK of the resent head also covers every segment SACKed above it. Linux
/// grows the window by what that ACK newly delivered (`acked_sacked`, `tcp_newly_delivered`):
/// one segment, so slow start goes on from two. Counting SND.UNA's advance instead, with no
/// per-ACK limit, the same ACK would take the window to ssthresh at once and send a burst.
#[test]
fn growth_counts_what_an_ack_delivered_not_the_advance() {
    let burst = |delivered: bool| {
        let mut p = params(true);
        // RFC 6675 alone, so that the lost retransmission waits for the timer (as in the RACK
        // test above), and no F-RTO, which would send new data on that ACK whatever the window.
        p.rack = false;
        p.frto = false;
        p.abc_limit = 0;
        p.grow_by_delivered = delivered;
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        drop_copies(&mut net, &[100], 2);
        net.run(T0 + 10 * SEC);
        assert_eq!(net.stats().timeouts.total, 1);
        let resent = net.sends_of(100 * MSS)[2].at;
        let &(at, ack) = net
            .acks_in
            .iter()
            .find(|&&(t, a)| t > resent && a > 100 * MSS)
            .expect("the resent head is acknowledged");
        // The ACK covers the head and the SACKed segments above it.
        assert!(ack >= 150 * MSS, "ACK of {} segments", ack / MSS);
        net.sent.iter().filter(|s| s.at == at).count()
    };
    assert_eq!(burst(true), 2, "one segment delivered: a window of two");
    assert!(
        burst(false) > 20,
        "the advance counted: a burst to ssthresh"
    );
}

/// Ten holes in one window without SACK: NewReno repairs one per round trip (40 ms), so the
/// recovery outlasts the retransmission timeout (200 ms floor) unless each partial ACK restarts
/// the timer. RFC 6582's Impatient variant (ns-2's default, `rto_rearm = false`) restarts it on
/// the first partial ACK only and times out; Linux restarts it whenever it resends the oldest
/// segment, on every partial ACK (`rto_rearm`, the default: the Slow-but-Steady variant), and
/// repairs every hole by fast retransmission.
#[test]
fn newreno_partial_acks_restart_the_timer_as_linux() {
    let run = |rearm: bool| {
        let mut p = params(false);
        p.rwnd_bytes = 30 * MSS;
        p.rto_rearm = rearm;
        let mut net = Net::new(p, None, RATE, DELAY, 1000);
        let holes: Vec<u64> = (200..220).step_by(2).collect();
        drop_first(&mut net, &holes);
        net.run(T0 + 10 * SEC);
        (net.stats().timeouts.total, net.stats().retransmits.total)
    };
    assert_eq!(run(true), (0, 10), "Slow-but-Steady: each hole resent once");
    let (timeouts, retransmits) = run(false);
    assert_eq!(timeouts, 1, "Impatient: the timer ends the recovery");
    assert!(
        retransmits > 10,
        "and resends what had arrived: {retransmits}"
    );
}
