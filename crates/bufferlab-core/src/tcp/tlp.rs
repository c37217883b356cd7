//! Tail loss probes (RFC 8985 §7; Linux's `tcp_schedule_loss_probe`, `tcp_send_loss_probe` and
//! `tcp_process_tlp_ack`, on by default: `net.ipv4.tcp_early_retrans = 3`).
//!
//! RACK finds a loss only when a segment sent after it is delivered. When the last segments of a
//! flight are lost (the end of a short transfer, or of what an application-limited sender had),
//! nothing follows them and only the retransmission timer is left: at least 200 ms, then a
//! window of one segment. A probe timeout (PTO) of two smoothed RTTs after the last transmission
//! sends one segment instead: new data if the peer's window allows, else the highest segment
//! again. Its ACK, with SACK, lets RACK or the duplicate-ACK count find what was lost and repair
//! it by fast recovery.
//!
//! This file holds the probe's timer deadline, the episode (RFC 8985's TLP.end_seq and whether
//! the probe was a retransmission) and the PTO's formula; the sender decides when a probe may be
//! scheduled and sends it.

use crate::time::{Duration, Instant};

/// Linux's `TCP_TIMEOUT_MIN_US`: 2 ms added to 2·SRTT when more than one segment is out, so that
/// timer slack does not fire the probe just before the ACK.
pub const PTO_SLACK: Duration = Duration::from_ms(2);

/// The PTO before any RTT sample (Linux's `TCP_TIMEOUT_INIT`, RFC 6298's initial RTO).
pub const PTO_INITIAL: Duration = Duration::from_secs(1);

/// How an ACK reads against an outstanding probe (`tcp_process_tlp_ack`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AckFlags {
    /// The cumulative ACK point (SND.UNA after it).
    pub ack: u64,
    /// SND.UNA advanced (`FLAG_SND_UNA_ADVANCED`).
    pub advanced: bool,
    /// The ACK carried data or a window update, or acknowledged data (`FLAG_NOT_DUP`).
    pub not_dup: bool,
    /// It SACKed something new (`FLAG_DATA_SACKED`).
    pub sacked: bool,
    /// A D-SACK (RFC 2883) reported the probe's own segment as a duplicate (`FLAG_DSACK_TLP`).
    pub dsack_probe: bool,
}

/// One connection's tail-loss-probe state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tlp {
    /// When the probe timer expires, if it is scheduled.
    pub at: Option<Instant>,
    /// The engine timer set for it (a later deadline sleeps until then).
    pub armed: Option<Instant>,
    /// The probe episode under way: SND.NXT when the probe went (`tlp_high_seq`) and whether
    /// the probe was a retransmission (`tlp_retrans`). At most one probe per episode.
    episode: Option<(u64, bool)>,
}

impl Tlp {
    /// The probe timeout (RFC 8985 §7.2; Linux's `tcp_schedule_loss_probe`): two SRTTs, plus the
    /// minimum RTO when a single segment is out (its ACK may be delayed) or 2 ms otherwise,
    /// [`PTO_INITIAL`] without an RTT sample; never later than the retransmission timer,
    /// `rto_left` from now.
    pub fn pto(
        srtt: Option<Duration>,
        out: u64,
        min_rto: Duration,
        rto_left: Duration,
    ) -> Duration {
        let t = match srtt {
            Some(s) => s + s + if out == 1 { min_rto } else { PTO_SLACK },
            None => PTO_INITIAL,
        };
        if rto_left > Duration::ZERO {
            t.min(rto_left)
        } else {
            t
        }
    }

    /// Whether a probe was sent and its episode has not ended (no second probe until it has).
    pub fn in_episode(&self) -> bool {
        self.episode.is_some()
    }

    /// TLP.end_seq: SND.NXT when the episode's probe went, if one is under way.
    pub fn high(&self) -> Option<u64> {
        self.episode.map(|(h, _)| h)
    }

    /// A probe went: `high` is SND.NXT after it, `retrans` whether it resent a segment.
    pub fn sent(&mut self, high: u64, retrans: bool) {
        self.episode = Some((high, retrans));
    }

    /// A window reduction started (a recovery, an ECN reduction) or the timer expired: the
    /// episode is over (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    pub fn end_episode(&mut self) {
        self.episode = None;
    }

    /// RFC 8985 §7.4 (`tcp_process_tlp_ack`): read an ACK against the episode. Returns true when
    /// the probe repaired a loss (an ACK above TLP.end_seq with neither a D-SACK of the probe
    /// nor a duplicate ACK for it first), which calls for a window reduction.
    pub fn on_ack(&mut self, f: &AckFlags) -> bool {
        let Some((high, retrans)) = self.episode else {
            return false;
        };
        if f.ack < high {
            return false;
        }
        if !retrans || f.dsack_probe {
            // New data probed and acknowledged, or both the original and the probe arrived.
            self.episode = None;
            false
        } else if f.ack > high {
            self.episode = None;
            true
        } else {
            if !(f.advanced || f.not_dup || f.sacked) {
                // A pure duplicate ACK at TLP.end_seq: the probe's copy arrived after the
                // original, so nothing was lost.
                self.episode = None;
            }
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_ms(1);

    #[test]
    fn pto_is_two_srtts_plus_slack_or_the_minimum_rto_for_one_segment() {
        let srtt = Some(Duration::from_ms(40));
        assert_eq!(Tlp::pto(srtt, 10, 200 * MS, 1000 * MS), 82 * MS);
        assert_eq!(Tlp::pto(srtt, 1, 200 * MS, 1000 * MS), 280 * MS);
        // Never later than the retransmission timer.
        assert_eq!(Tlp::pto(srtt, 10, 200 * MS, 50 * MS), 50 * MS);
        assert_eq!(Tlp::pto(None, 10, 200 * MS, 3000 * MS), PTO_INITIAL);
        // A timer already past due does not bound it (Linux's `rto_delta_us > 0`).
        assert_eq!(Tlp::pto(srtt, 10, 200 * MS, Duration::ZERO), 82 * MS);
    }

    fn ack(ack: u64, advanced: bool, sacked: bool) -> AckFlags {
        AckFlags {
            ack,
            advanced,
            not_dup: advanced,
            sacked,
            dsack_probe: false,
        }
    }

    #[test]
    fn an_ack_above_a_retransmitted_probe_reports_a_repaired_loss() {
        let mut t = Tlp::default();
        t.sent(10_000, true);
        assert!(!t.on_ack(&ack(9_000, true, false)), "below TLP.end_seq");
        assert!(!t.on_ack(&ack(10_000, true, false)), "at it, advancing");
        assert!(t.in_episode());
        assert!(t.on_ack(&ack(11_000, true, false)));
        assert!(!t.in_episode());
    }

    #[test]
    fn a_duplicate_ack_or_dsack_for_the_probe_ends_the_episode_without_a_loss() {
        let mut t = Tlp::default();
        t.sent(10_000, true);
        assert!(!t.on_ack(&ack(10_000, false, false)));
        assert!(!t.in_episode());
        t.sent(10_000, true);
        let mut f = ack(12_000, true, false);
        f.dsack_probe = true;
        assert!(!t.on_ack(&f));
        assert!(!t.in_episode());
        // A SACKing duplicate is news of something else: the episode goes on.
        t.sent(10_000, true);
        assert!(!t.on_ack(&ack(10_000, false, true)));
        assert!(t.in_episode());
    }

    #[test]
    fn a_probe_of_new_data_ends_when_acknowledged() {
        let mut t = Tlp::default();
        t.sent(10_000, false);
        assert!(!t.on_ack(&ack(12_000, true, false)));
        assert!(!t.in_episode());
    }
}
