//! FreeBSD's undo of a bad retransmission timeout (`badrxt_undo`, `t_badrxtwin`) in the sender,
//! over [`super::testnet`]: the ACKs of a window held back past the RTO, released either within
//! half an SRTT of the timeout's retransmission (undone) or after it (not), with and without
//! SACK; and the key's refusal beside F-RTO.

use super::params::{TcpOptions, TcpParams};
use super::testnet::Net;
use crate::time::{Duration, Instant};

// The path of frto_tests.rs: 10 Mb/s, 20 ms each way, a 30-segment window (RTT 40 ms, half an
// SRTT 20 ms, RTO about 240 ms), the spike at 5 s.
use super::frto_tests::{
    acks_held_until, outcome, Outcome, DELAY, MS, MSS, RATE, RWND, SEC, SPIKE_AT,
};

fn params(sack: bool, undo: bool) -> TcpParams {
    TcpParams {
        sack,
        frto: false,
        badrxt_undo: undo,
        tlp: false,
        cwnd_latch: false,
        timestamps: false,
        rwnd_bytes: RWND * MSS,
        ..TcpParams::default()
    }
}

/// The time of the first retransmission in a run where every ACK sent from `SPIKE_AT` on is
/// held for good: when the timeout fires.
fn timeout_at(sack: bool) -> Instant {
    let mut net = Net::new(params(sack, false), None, RATE, DELAY, 1000);
    net.ack_extra = Box::new(|now| {
        if now >= SPIKE_AT {
            100 * SEC
        } else {
            Duration::ZERO
        }
    });
    outcome(net, SPIKE_AT + 2 * SEC)
        .retx_at
        .expect("a retransmission")
}

/// The ACKs sent in [SPIKE_AT, release) all arrive at `release` (plus the path's delay).
fn held_until(sack: bool, undo: bool, release: Instant) -> Outcome {
    acks_held_until(
        Net::new(params(sack, undo), None, RATE, DELAY, 1000),
        release,
    )
}

/// The held ACKs land 10 ms after the timeout's retransmission left (the last one sent before
/// the spike takes a one-way delay, 20 ms, to come back): inside half an SRTT. The first of
/// them answers the original head segment: cwnd and ssthresh return, and only the timeout's own
/// retransmission was sent. (The ACK that undoes is then taken as any other, and the one-segment
/// window the timeout left had been in full use, so it may grow the restored window by what it
/// acknowledges: two segments, a delayed ACK's.)
#[test]
fn an_ack_within_half_an_srtt_undoes_the_timeout() {
    for sack in [false, true] {
        let t = timeout_at(sack);
        let o = held_until(sack, true, t + 10 * MS - DELAY);
        assert_eq!((o.timeouts, o.spurious), (1, 1), "sack={sack}");
        assert_eq!(o.retransmits, 1, "sack={sack}: only the timeout's own");
        assert_eq!(o.after.1, o.before.1, "sack={sack}: ssthresh restored");
        assert!(
            (o.before.0..=o.before.0 + 2).contains(&o.after.0),
            "sack={sack}: cwnd restored, {:?} -> {:?}",
            o.before,
            o.after
        );
    }
}

/// The same ACKs 30 ms after the retransmission, past half an SRTT: the timeout stands, the
/// window is resent as without the key (go-back-N, or RFC 6675 §5.1 with SACK) and ssthresh
/// stays reduced; the run is the same as with the key off.
#[test]
fn a_later_ack_leaves_the_timeout_alone() {
    for sack in [false, true] {
        let t = timeout_at(sack);
        let release = t + 30 * MS - DELAY;
        let (o, off) = (
            held_until(sack, true, release),
            held_until(sack, false, release),
        );
        assert_eq!((o.timeouts, o.spurious), (1, 0), "sack={sack}");
        assert!(o.retransmits >= RWND - 1, "sack={sack}: {}", o.retransmits);
        assert!(o.after.1 < o.before.1, "sack={sack}: ssthresh reduced");
        assert_eq!(
            (o.retransmits, o.after),
            (off.retransmits, off.after),
            "sack={sack}: as with the key off"
        );
    }
}

/// With F-RTO on as well the key is refused, naming it: both would judge the same timeout.
#[test]
fn badrxt_undo_beside_frto_is_refused() {
    let both = TcpOptions {
        badrxt_undo: true,
        ..TcpOptions::default()
    };
    let e = both.check().unwrap_err();
    assert!(format!("{e:?}").contains("badrxt_undo"), "{e:?}");
    let alone = TcpOptions {
        badrxt_undo: true,
        frto: false,
        ..TcpOptions::default()
    };
    assert!(alone.check().is_ok());
}
