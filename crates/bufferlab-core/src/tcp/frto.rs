//! F-RTO (RFC 5682): was a retransmission timeout spurious?
//!
//! A timeout is spurious when the segments it presumed lost were only delayed: a queue that
//! suddenly holds more than an RTO's worth of packets, a link that pauses. After a spurious
//! timeout the conventional recovery (go-back-N, or RFC 6675 §5.1's "every segment lost" with
//! SACK) resends the whole window the ACKs of the originals are about to cover, and slow-starts
//! from one segment. F-RTO sends the timeout's one retransmission, then answers the first ACK
//! that advances the window with up to two segments never sent before instead of more
//! retransmissions: if the next ACK covers data sent before the timeout and not resent, the
//! originals are getting through and the timeout was spurious (§2 step 3b, §3 step 3b).
//!
//! This is the detection only; the sender owns the response (what to undo) and the sending.
//! Connections with SACK follow §3 (the SACK-enhanced algorithm), others §2 (the basic one).

/// Where the detection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No detection under way.
    Off,
    /// Step 2: the timeout's retransmission is out; the first ACK that advances SND.UNA decides.
    First,
    /// Step 3: new segments went out after that ACK; the next ACK decides.
    Second,
}

/// What one ACK showed, as F-RTO reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSeen {
    /// The cumulative ACK, and whether it advanced SND.UNA.
    pub ack: u64,
    pub advanced: bool,
    /// An ACK that neither advanced SND.UNA nor carried data or a window change (RFC 5681 §2).
    pub duplicate: bool,
    /// SACK only: the ACK SACKed data not SACKed before.
    pub new_sack: bool,
    /// SACK only: one of its SACK blocks reaches above `recover` (data sent in step 2b).
    pub sack_above_recover: bool,
}

/// What the sender does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not decided yet: carry on as after any ACK.
    Wait,
    /// Step 2b: send up to two new segments instead of retransmitting, and nothing else until
    /// the next ACK; if nothing new can be sent, call [`Frto::abandon`].
    SendNew,
    /// Steps 2a/3a: the timeout was real; continue with the conventional recovery, the window
    /// at most `cwnd_cap` segments (`None`: as the recovery has it).
    Conventional { cwnd_cap: Option<u64> },
    /// Step 3b: the timeout was spurious.
    Spurious,
}

#[derive(Clone, Copy, Debug)]
pub struct Frto {
    phase: Phase,
    sack: bool,
    /// RFC 5682 "recover": one past the highest byte sent when the timeout fired.
    recover: u64,
    /// One past the data the timeout resent (§2 step 2a: an ACK below it did not take it).
    retx_end: u64,
}

impl Frto {
    pub fn new(sack: bool) -> Frto {
        Frto {
            phase: Phase::Off,
            sack,
            recover: 0,
            retx_end: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// One past the highest byte sent when the timeout fired.
    pub fn recover(&self) -> u64 {
        self.recover
    }

    /// Step 1: the timer expired with `[una, retx_end)` resent and `recover` the highest byte
    /// sent. A timeout during steps 2-3 starts over here (§3 step 2: "go to step 1").
    pub fn start(&mut self, retx_end: u64, recover: u64) {
        self.phase = Phase::First;
        self.retx_end = retx_end;
        self.recover = recover;
    }

    /// Step 2b could send nothing new (no data, or the peer's window is full): the RFC's
    /// recommended action is the conventional recovery.
    pub fn abandon(&mut self) {
        self.phase = Phase::Off;
    }

    /// An ACK arrived (after the sender has read its SACK blocks and moved SND.UNA).
    pub fn on_ack(&mut self, a: &AckSeen) -> Verdict {
        let v = match self.phase {
            Phase::Off => return Verdict::Wait,
            Phase::First => self.first(a),
            Phase::Second => self.second(a),
        };
        self.phase = match v {
            Verdict::Wait => self.phase,
            Verdict::SendNew => Phase::Second,
            Verdict::Conventional { .. } | Verdict::Spurious => Phase::Off,
        };
        v
    }

    /// Step 2: the first ACK after the timeout's retransmission.
    fn first(&self, a: &AckSeen) -> Verdict {
        if self.sack {
            // §3 step 2: duplicate ACKs only update the scoreboard; wait for one that advances.
            if !a.advanced {
                return Verdict::Wait;
            }
            if a.ack >= self.recover {
                // 2a: everything outstanding is acknowledged; nothing to tell.
                return Verdict::Conventional { cwnd_cap: Some(2) };
            }
            Verdict::SendNew
        } else {
            if a.duplicate {
                return Verdict::Conventional { cwnd_cap: None };
            }
            if !a.advanced {
                return Verdict::Wait; // neither (a window update): no information
            }
            // §2 step 2a: the ACK covers "recover", or not all of the resent data.
            if a.ack >= self.recover || a.ack < self.retx_end {
                return Verdict::Conventional { cwnd_cap: None };
            }
            Verdict::SendNew
        }
    }

    /// Step 3: the ACK after the new segments left.
    fn second(&self, a: &AckSeen) -> Verdict {
        let real = Verdict::Conventional { cwnd_cap: Some(3) };
        if self.sack {
            // §3 step 3a: data above "recover" (the new segments) arrived and was acknowledged
            // before what was outstanding at the timeout: that was lost.
            if a.ack > self.recover || a.sack_above_recover {
                return real;
            }
            // 3b: the ACK covers data sent before the timeout and never resent.
            if a.advanced || a.new_sack {
                return Verdict::Spurious;
            }
            if a.duplicate {
                return real;
            }
            Verdict::Wait
        } else if a.advanced {
            Verdict::Spurious // §2 step 3b
        } else if a.duplicate {
            real // §2 step 3a
        } else {
            Verdict::Wait
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECOVER: u64 = 30_000;
    const RETX_END: u64 = 1000;

    fn adv(ack: u64) -> AckSeen {
        AckSeen {
            ack,
            advanced: true,
            ..Default::default()
        }
    }

    fn dup() -> AckSeen {
        AckSeen {
            duplicate: true,
            ..Default::default()
        }
    }

    fn started(sack: bool) -> Frto {
        let mut f = Frto::new(sack);
        f.start(RETX_END, RECOVER);
        f
    }

    /// Two ACKs below "recover" that advance SND.UNA: new data, then spurious, in both variants.
    #[test]
    fn two_advancing_acks_declare_the_timeout_spurious() {
        for sack in [false, true] {
            let mut f = started(sack);
            assert_eq!(f.on_ack(&adv(2000)), Verdict::SendNew);
            assert_eq!(f.phase(), Phase::Second);
            assert_eq!(f.on_ack(&adv(4000)), Verdict::Spurious);
            assert_eq!(f.phase(), Phase::Off);
            assert_eq!(f.on_ack(&adv(6000)), Verdict::Wait, "no longer detecting");
        }
    }

    /// The whole window lost: the retransmission is acknowledged, the new segments then bring
    /// duplicate ACKs (basic) or SACKs above "recover" (SACK): conventional recovery with at
    /// most three segments (step 3a).
    #[test]
    fn new_data_acknowledged_alone_means_the_loss_was_real() {
        let mut f = started(false);
        assert_eq!(f.on_ack(&adv(RETX_END)), Verdict::SendNew);
        assert_eq!(
            f.on_ack(&dup()),
            Verdict::Conventional { cwnd_cap: Some(3) }
        );

        let mut f = started(true);
        assert_eq!(f.on_ack(&adv(RETX_END)), Verdict::SendNew);
        let sacked_new = AckSeen {
            ack: RETX_END,
            duplicate: true,
            new_sack: true,
            sack_above_recover: true,
            ..Default::default()
        };
        assert_eq!(
            f.on_ack(&sacked_new),
            Verdict::Conventional { cwnd_cap: Some(3) }
        );
    }

    /// Duplicate ACKs in step 2: the basic algorithm gives up (§2 step 2a), the SACK one only
    /// updates its scoreboard and keeps waiting (§3 step 2).
    #[test]
    fn duplicate_before_the_first_advance() {
        let mut f = started(false);
        assert_eq!(f.on_ack(&dup()), Verdict::Conventional { cwnd_cap: None });
        let mut f = started(true);
        let d = AckSeen {
            new_sack: true,
            ..dup()
        };
        assert_eq!(f.on_ack(&d), Verdict::Wait);
        assert_eq!(f.on_ack(&adv(2000)), Verdict::SendNew);
    }

    /// A first ACK covering "recover" tells nothing (2a); a SACK below "recover" in step 3
    /// shows an original segment arrived (3b).
    #[test]
    fn recover_bounds_both_steps() {
        for sack in [false, true] {
            let mut f = started(sack);
            assert!(matches!(
                f.on_ack(&adv(RECOVER)),
                Verdict::Conventional { .. }
            ));
        }
        let mut f = started(true);
        f.on_ack(&adv(2000));
        let sack_below = AckSeen {
            ack: 2000,
            duplicate: true,
            new_sack: true,
            ..Default::default()
        };
        assert_eq!(f.on_ack(&sack_below), Verdict::Spurious);
        // A duplicate with nothing new is step 3a.
        let mut f = started(true);
        f.on_ack(&adv(2000));
        assert_eq!(
            f.on_ack(&AckSeen { ack: 2000, ..dup() }),
            Verdict::Conventional { cwnd_cap: Some(3) }
        );
    }
}
