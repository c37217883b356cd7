//! Pacing as Linux's TCP does it without the `fq` qdisc (`tcp_output.c`, since 4.20's
//! earliest-departure-time model): the connection keeps the earliest departure time of its next
//! data segment (`tcp_wstamp_ns`); each segment sent pushes it on by the segment's payload over
//! the pacing rate (`tcp_update_skb_after_send`), less up to half of that when the segment left
//! late (Linux's credit for timer slack); while it lies in the future nothing is sent, and a
//! timer is armed for it (`tcp_pacing_check`, the `pacing_timer` hrtimer). Retransmissions wait
//! their turn too. The first ten data segments go unpaced ("original sch_fq does not pace first
//! 10 MSS"). A GSO buffer of several segments is one skb to Linux: it leaves at one departure
//! time and moves the next on by its whole length, with the credit for leaving late up to half
//! of that length (`paced_buffer`), not half of one segment's.

use super::*;

impl SendConn {
    /// Whether the next data segment must wait for its departure time (`tcp_pacing_check`); if
    /// so, the pacing timer is armed for it (once per deadline). Not when the host's `fq` paces
    /// the connection (`SK_PACING_FQ`: Linux's internal pacing is for `SK_PACING_NEEDED` only).
    #[inline]
    pub(super) fn pacing_wait(&mut self, io: &mut Io) -> bool {
        if !self.cfg.pacing || self.v.wstamp <= io.now || self.v.fq_paced {
            return false;
        }
        let at = self.v.wstamp;
        if self.v.pace_armed.is_none_or(|a| at < a) {
            self.v.pace_armed = Some(at);
            io.set_timer(at, self.conn);
        }
        true
    }

    /// A data segment of `len` payload bytes leaves at `now`: the next one's departure time.
    /// (The `Packet` carries this segment's, `max(wstamp, now)` as it stood before the advance,
    /// for the host's `fq`.)
    #[inline]
    pub(super) fn paced_sent(&mut self, now: Instant, len: u32) {
        if self.v.pace_prepaid > 0 {
            // A later segment of a buffer `paced_buffer` already accounted for.
            self.v.pace_prepaid -= 1;
            return;
        }
        self.paced_skb(now, len as u64, 1);
    }

    /// A GSO buffer of `segs` segments and `bytes` of payload is about to leave at `now`, its
    /// segments one after another: its departure time moves the next on as one skb does
    /// (`tcp_update_skb_after_send` after `tcp_transmit_skb` of the whole skb), and the
    /// segments' own `paced_sent` then move nothing.
    pub(super) fn paced_buffer(&mut self, now: Instant, bytes: u64, segs: u64) {
        if segs < 2 || !(self.cfg.pacing || self.v.fq_paced) {
            return;
        }
        self.paced_skb(now, bytes, segs);
        self.v.pace_prepaid = segs.min(u8::MAX as u64) as u8;
    }

    /// One skb of `segs` segments and `bytes` of payload left at `now`.
    fn paced_skb(&mut self, now: Instant, bytes: u64, segs: u64) {
        let prior = self.v.wstamp;
        self.v.wstamp = prior.max(now);
        self.v.data_segs_out += segs;
        let Some(rate) = self.v.pacing_rate.filter(|&r| r > 0) else {
            return;
        };
        if self.v.data_segs_out < 10 {
            return;
        }
        let len_ns = bytes * 1_000_000_000 / rate;
        // Leaving late (after an idle period, or a timer that fired late) earns up to half a
        // slot back.
        let credit = self.v.wstamp.saturating_since(prior).as_ns();
        let len_ns = len_ns - (len_ns / 2).min(credit);
        self.v.wstamp += Duration::from_ns(len_ns);
    }

    /// The connection's timer fired: if the pacing deadline has come, send what waits
    /// (`tcp_pace_kick`). Not while F-RTO waits for the ACK that decides (RFC 5682 step 3).
    pub(super) fn on_pace_timer(&mut self, io: &mut Io, peer: &Peer) {
        if self.v.pace_armed.is_none_or(|a| a > io.now) {
            return;
        }
        self.v.pace_armed = None;
        if self.state == State::Open && self.frto.phase() != Phase::Second {
            self.pump(io, peer);
            self.update_gauges(io, peer);
        }
    }
}
