//! HyStart (Ha & Rhee, "Hybrid Slow Start for High-Bandwidth and Long-Distance Networks",
//! PFLDnet 2008), as Linux's Cubic runs it by default (`tcp_cubic.c`, module parameters
//! `hystart = 1`, `hystart_detect = 3`): slow start ends, with ssthresh = cwnd, before the first
//! loss, when either
//!
//! - **the ACK train** of the current round, ACKs no more than 2 ms apart from the round's start,
//!   has lasted longer than half the minimum RTT (the window's data already spans the path), or
//! - **the delay** has grown: the smallest RTT among the round's samples (at least 8 of them)
//!   exceeds the minimum RTT by `clamp(min_rtt / 8, 4 ms, 16 ms)` (a queue is building).
//!
//! Only from a window of 16 segments (`hystart_low_window`). A round is one window: it starts when
//! SND.UNA passes the SND.NXT recorded at the last round's start. Without it, slow start runs on
//! until a loss, with a window twice what the path and its buffer hold; in a deep buffer that
//! overshoot costs a burst of losses worth half a window. RFC 9438 §4.10 lets Cubic use it.
//!
//! State apart from [`super::cubic::Cubic`], which feeds it its RTT samples and ACKs.

use super::CwndState;
use crate::time::{Duration, Instant};

/// Linux's `hystart_low_window`: no detection below this window (segments).
pub const LOW_WINDOW: u64 = 16;
/// `HYSTART_MIN_SAMPLES`: RTT samples a round needs before the delay test.
const MIN_SAMPLES: u32 = 8;
/// `hystart_ack_delta_us`: ACKs this close belong to one train.
const ACK_DELTA: Duration = Duration::from_ms(2);
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: bounds of the delay threshold.
const DELAY_MIN: Duration = Duration::from_ms(4);
const DELAY_MAX: Duration = Duration::from_ms(16);
/// The cushion `hystart_ack_delay` adds for TSO/GRO aggregation: GSO's 64 KiB, four times, at
/// the pacing rate, at most 1 ms.
const ACK_DELAY_CAP: Duration = Duration::from_ms(1);
const GSO_BYTES_X4: f64 = 4.0 * 65_536.0;

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Slow start was ended (until the next timeout).
    found: bool,
    round_start: Instant,
    last_ack: Instant,
    /// SND.NXT at the round's start; `None` before the first round.
    end_seq: Option<u64>,
    /// Smallest RTT this round, and how many samples it has seen.
    curr_rtt: Option<Duration>,
    samples: u32,
    /// Smallest RTT of the connection (Linux's `delay_min`).
    delay_min: Option<Duration>,
    /// The RTT sample of the ACK being processed.
    pending: Option<Duration>,
}

impl HyStart {
    /// An RTT sample (every ACK of new data).
    pub fn on_rtt_sample(&mut self, rtt: Duration) {
        let rtt = rtt.max(Duration::from_ns(1_000));
        self.delay_min = Some(self.delay_min.map_or(rtt, |d| d.min(rtt)));
        self.pending = Some(rtt);
    }

    /// The ACK whose sample came last, in slow start: ends slow start (ssthresh = cwnd) if a
    /// test fires. `snd_una`, `snd_nxt` after the ACK; `srtt` sets the pacing rate Linux
    /// derives the ACK-delay cushion from (2 × cwnd / SRTT in slow start).
    pub fn on_ack(
        &mut self,
        now: Instant,
        w: &mut CwndState,
        snd_una: u64,
        snd_nxt: u64,
        srtt: Duration,
    ) {
        let Some(delay) = self.pending.take() else {
            return;
        };
        if self.found || !w.in_slow_start() {
            return;
        }
        if self.end_seq.is_none_or(|e| snd_una > e) {
            self.round_start = now;
            self.last_ack = now;
            self.end_seq = Some(snd_nxt);
            self.curr_rtt = None;
            self.samples = 0;
        }
        if w.cwnd_bytes < LOW_WINDOW * w.mss_bytes {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        // The ACK train.
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let rate = 2.0 * w.cwnd_bytes as f64 / srtt.secs().max(1e-9);
            let cushion = Duration::from_ns((GSO_BYTES_X4 / rate * 1e9) as u64).min(ACK_DELAY_CAP);
            // Half the minimum RTT: no pacing delays the train here (no fq qdisc).
            let threshold = Duration::from_ns((delay_min + cushion).as_ns() / 2);
            if now.saturating_since(self.round_start) > threshold {
                self.exit(w);
                return;
            }
        }
        // The delay increase.
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else {
            let eta = Duration::from_ns(delay_min.as_ns() / 8).clamp(DELAY_MIN, DELAY_MAX);
            if curr > delay_min + eta {
                self.exit(w);
            }
        }
    }

    fn exit(&mut self, w: &mut CwndState) {
        self.found = true;
        w.ssthresh_bytes = w.cwnd_bytes;
    }

    /// A timeout: the next slow start may end early again, with rounds and the minimum RTT
    /// learnt afresh (Linux `cubictcp_state(TCP_CA_Loss)` clears the whole state).
    pub fn on_timeout(&mut self) {
        *self = HyStart::default();
    }

    /// Whether a test has ended slow start.
    pub fn found(&self) -> bool {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: Duration = Duration::from_ms(1);

    fn w(cwnd: u64) -> CwndState {
        CwndState {
            cwnd_bytes: cwnd * MSS,
            ssthresh_bytes: u64::MAX / 2,
            mss_bytes: MSS,
            whole_segments: false,
            abc_limit_bytes: 0,
        }
    }

    /// Feed one round of `n` ACKs `gap` apart with RTT `rtt`, SND.UNA advancing one segment per
    /// ACK from `una`; returns the ACK index at which slow start ended.
    fn round(
        h: &mut HyStart,
        w: &mut CwndState,
        t: &mut Instant,
        una: &mut u64,
        n: u64,
        gap: Duration,
        rtt: Duration,
    ) -> Option<u64> {
        let nxt = *una + n * MSS;
        for i in 0..n {
            *t += gap;
            *una += MSS;
            h.on_rtt_sample(rtt);
            h.on_ack(*t, w, *una, nxt, rtt);
            if h.found() {
                return Some(i);
            }
        }
        None
    }

    #[test]
    fn a_growing_delay_ends_slow_start_and_a_flat_one_does_not() {
        // 100 ms minimum RTT: the threshold is clamp(12.5 ms, 4, 16) = 12.5 ms above it.
        let (mut h, mut cw, mut t, mut una) = (HyStart::default(), w(32), Instant::ZERO, 0);
        // ACKs 3 ms apart (no train). Flat delay: nothing.
        assert_eq!(
            round(&mut h, &mut cw, &mut t, &mut una, 32, 3 * MS, 100 * MS),
            None
        );
        assert_eq!(
            round(&mut h, &mut cw, &mut t, &mut una, 32, 3 * MS, 112 * MS),
            None
        );
        // 13 ms above the minimum: found on the ninth sample of the round (8 first).
        cw.cwnd_bytes = 64 * MSS;
        assert_eq!(
            round(&mut h, &mut cw, &mut t, &mut una, 32, 3 * MS, 113 * MS),
            Some(8)
        );
        assert_eq!(cw.ssthresh_bytes, 64 * MSS);
        assert!(!cw.in_slow_start());
    }

    #[test]
    fn an_ack_train_longer_than_half_the_minimum_rtt_ends_slow_start() {
        // 40 ms minimum RTT at 10 Mb/s: the cushion is 1 ms, the threshold (40 + 1) / 2 ms.
        let (mut h, mut cw, mut t, mut una) = (HyStart::default(), w(20), Instant::ZERO, 0);
        h.on_rtt_sample(40 * MS);
        // ACKs 1 ms apart: the train passes 20.5 ms on its 21st ACK after the round's first.
        assert_eq!(
            round(&mut h, &mut cw, &mut t, &mut una, 30, MS, 40 * MS),
            Some(21)
        );
        // The same with 2.5 ms between ACKs is no train.
        let (mut h, mut cw, mut t, mut una) = (HyStart::default(), w(20), Instant::ZERO, 0);
        assert_eq!(
            round(
                &mut h,
                &mut cw,
                &mut t,
                &mut una,
                30,
                2_500_000 * Duration::from_ns(1),
                40 * MS
            ),
            None
        );
    }

    #[test]
    fn nothing_below_sixteen_segments_nor_after_a_detection_until_a_timeout() {
        let (mut h, mut cw, mut t, mut una) = (HyStart::default(), w(15), Instant::ZERO, 0);
        assert_eq!(
            round(&mut h, &mut cw, &mut t, &mut una, 40, MS, 10 * MS),
            None
        );
        cw.cwnd_bytes = 16 * MSS;
        assert!(round(&mut h, &mut cw, &mut t, &mut una, 40, MS, 10 * MS).is_some());
        // Found already: a later slow start (the window set by hand) runs on untouched.
        cw = w(32);
        round(&mut h, &mut cw, &mut t, &mut una, 40, MS, 10 * MS);
        assert!(cw.in_slow_start());
        h.on_timeout();
        assert!(!h.found());
        assert!(round(&mut h, &mut cw, &mut t, &mut una, 40, MS, 10 * MS).is_some());
    }
}
