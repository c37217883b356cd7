//! D-SACK (RFC 2883) at the sender: which blocks report duplicates, and the undo of a recovery
//! whose every retransmission proves needless.
//!
//! A receiver that gets a segment twice reports it in the first SACK block of its next ACK
//! ([`super::receiver`]): below the cumulative ACK, or inside the second block (RFC 2883 §4).
//! Such a block says nothing new about what is missing, so the scoreboard is not marked from it.
//! What it does say is that a retransmission was not needed. Linux counts the retransmissions
//! sent since a recovery began (`undo_retrans`, from `undo_marker` = SND.UNA then) and takes one
//! off for each segment a D-SACK reports above that point; when none is left every
//! retransmission reached a receiver that already had the data, the loss was not one (a
//! reordering, a delay), and the window reduction is undone (`tcp_try_undo_dsack`,
//! `tcp_undo_cwnd_reduction`; RFC 3708 proposes the same test). The undo stays possible after
//! the recovery ends, until the next one begins, since the D-SACKs of its last retransmissions
//! come a round trip after them.
//!
//! RACK's reordering window also reads D-SACKs ([`super::rack`]); the sender passes them on.

use super::cc::{Cc, CwndState};

/// RFC 2883 §4 (Linux's `tcp_check_dsack`): the first of `blocks` is a D-SACK when it starts
/// below the cumulative ACK `ack`, or lies inside the second block.
pub fn first_is_dsack(blocks: &[(u64, u64)], ack: u64) -> bool {
    match *blocks {
        [(s0, _), ..] if s0 < ack => true,
        [(s0, e0), (s1, e1), ..] => s1 <= s0 && e0 <= e1,
        _ => false,
    }
}

/// The state a D-SACK undo restores, and what counts toward it.
#[derive(Clone, Debug, Default)]
pub struct DsackUndo {
    recovery: Option<Recovery>,
    /// Duplicate segments reported so far (Linux's `dsack_dups`): more than were ever resent
    /// means the reports are not about this sender's retransmissions.
    dups: u64,
    /// Recoveries undone.
    undone: u64,
}

#[derive(Clone, Debug)]
struct Recovery {
    /// SND.UNA when it began: D-SACKs of data below it are about an earlier episode.
    marker: u64,
    /// Retransmissions counted before it: the connection's total then, less those still in
    /// flight (Linux starts `undo_retrans` at `retrans_out`).
    base: u64,
    /// Retransmissions reported needless by D-SACKs (at most those counted).
    needless: u64,
    /// The window and the algorithm's state before the reduction; `None` when the recovery
    /// reduced nothing (it began inside an ECN reduction: Linux's `prior_ssthresh = 0`).
    saved: Option<(CwndState, Cc)>,
}

impl Recovery {
    fn resent(&self, resent_total: u64) -> u64 {
        resent_total.saturating_sub(self.base)
    }
}

impl DsackUndo {
    /// A recovery begins at SND.UNA `una`; `resent_total` retransmissions so far, `in_flight`
    /// of them not yet delivered nor lost again; `saved` as [`Recovery::saved`].
    pub fn start(
        &mut self,
        una: u64,
        resent_total: u64,
        in_flight: u64,
        saved: Option<(CwndState, Cc)>,
    ) {
        self.recovery = Some(Recovery {
            marker: una,
            base: resent_total.saturating_sub(in_flight),
            needless: 0,
            saved,
        });
    }

    /// Nothing to undo any more (a timeout: F-RTO judges it).
    pub fn forget(&mut self) {
        self.recovery = None;
    }

    /// A D-SACK block `[lo, hi)`: how many duplicate segments it reports (one per `mss`, at
    /// least one), or `None` for a dubious one (Linux's `tcp_dsack_seen`): longer than
    /// `max_window`, or more duplicates in all than the `resent_total` retransmissions sent.
    pub fn duplicates(
        &mut self,
        lo: u64,
        hi: u64,
        mss: u64,
        max_window: u64,
        resent_total: u64,
    ) -> Option<u64> {
        if lo >= hi || hi - lo > max_window {
            return None;
        }
        let segs = (hi - lo).div_ceil(mss).max(1);
        self.dups += segs;
        (self.dups <= resent_total).then_some(segs)
    }

    /// `segs` retransmissions ending at `end` were reported needless; `resent_total` sent so far.
    pub fn on_needless(&mut self, end: u64, segs: u64, resent_total: u64) {
        if let Some(r) = self.recovery.as_mut().filter(|r| end > r.marker) {
            r.needless = (r.needless + segs).min(r.resent(resent_total));
        }
    }

    /// Whether every retransmission of the recovery has been reported needless.
    pub fn due(&self, resent_total: u64) -> bool {
        self.recovery
            .as_ref()
            .is_some_and(|r| r.resent(resent_total) > 0 && r.needless >= r.resent(resent_total))
    }

    /// The recovery is undone: what to restore (as [`Recovery::saved`]).
    pub fn take(&mut self) -> Option<(CwndState, Cc)> {
        self.undone += 1;
        self.recovery.take().and_then(|r| r.saved)
    }

    /// Recoveries undone so far.
    pub fn undone(&self) -> u64 {
        self.undone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc2883_section_4_tells_a_dsack_from_a_sack() {
        // Below the cumulative ACK (RFC 2883 §4.1.1).
        assert!(first_is_dsack(&[(3000, 3500)], 4000));
        // Inside the second block (§4.1.2).
        assert!(first_is_dsack(&[(5000, 5500), (4500, 5500)], 4000));
        // Plain SACK blocks: disjoint, above the ACK.
        assert!(!first_is_dsack(&[(5000, 5500), (6000, 6500)], 4000));
        assert!(!first_is_dsack(&[(5000, 5500)], 4000));
        assert!(!first_is_dsack(&[], 4000));
        // Reaching past the second block: not inside it.
        assert!(!first_is_dsack(&[(5000, 6000), (4500, 5500)], 4000));
    }

    fn saved(cwnd: u64) -> Option<(CwndState, Cc)> {
        let w = CwndState {
            cwnd_bytes: cwnd,
            ssthresh_bytes: cwnd / 2,
            mss_bytes: 1000,
            whole_segments: true,
            abc_limit_bytes: 0,
        };
        Some((w, Cc::NewReno(crate::tcp::cc::newreno::NewReno::new(0.5))))
    }

    /// Linux's `undo_retrans`: counted from the recovery's start, one off per needless
    /// retransmission above its marker; the undo once none is left, not before.
    #[test]
    fn the_undo_waits_for_every_retransmission() {
        let mut u = DsackUndo::default();
        // 4 retransmissions before, 1 of them still in flight: the recovery counts it.
        u.start(10_000, 4, 1, saved(20_000));
        assert!(!u.due(4), "nothing resent yet but the old one");
        u.on_needless(9_000, 1, 6);
        assert!(
            !u.due(6),
            "a D-SACK below the marker is about an earlier episode"
        );
        u.on_needless(11_000, 1, 6);
        u.on_needless(12_000, 1, 6);
        assert!(!u.due(6), "two of three");
        u.on_needless(13_000, 1, 6);
        assert!(u.due(6));
        assert!(!u.due(7), "another retransmission since");
        assert_eq!(u.take().map(|(w, _)| w.cwnd_bytes), Some(20_000));
        assert!(!u.due(7), "undone once");
        assert_eq!(u.undone(), 1);
        // A recovery with no retransmission has nothing to prove needless.
        u.start(20_000, 7, 0, saved(1));
        u.on_needless(21_000, 1, 7);
        assert!(!u.due(7));
        // Forgotten at a timeout.
        u.on_needless(21_000, 1, 8);
        u.forget();
        assert!(!u.due(8));
    }

    #[test]
    fn dubious_dsacks_count_nothing() {
        let mut u = DsackUndo::default();
        assert_eq!(u.duplicates(0, 3000, 1448, 65535, 5), Some(3));
        assert_eq!(u.duplicates(0, 100, 1448, 65535, 5), Some(1));
        assert_eq!(
            u.duplicates(0, 2896, 1448, 65535, 5),
            None,
            "6 duplicates of 5 sent"
        );
        assert_eq!(
            u.duplicates(0, 100_000, 1448, 65535, 100),
            None,
            "wider than any window"
        );
        assert_eq!(u.duplicates(10, 10, 1448, 65535, 100), None);
    }
}
