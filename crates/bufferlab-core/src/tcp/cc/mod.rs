//! Congestion control behind one narrow trait; the built-ins are reached through [`Cc`], so the
//! per-ACK call is a `match`, not a virtual call.
//!
//! The sender owns loss detection and recovery (RFC 6582, RFC 6675); an algorithm only decides
//! how the window grows on new ACKs and how far it falls on a congestion signal — or, if it
//! [controls the rate](CongestionControl::controls_rate) as BBR does, sets the window and the
//! pacing rate itself from a delivery-rate sample on every ACK (Linux's `cong_control` op).

pub mod bbr;
pub mod cubic;
pub mod cubic_segments;
pub mod dctcp;
pub mod hystart;
pub mod newreno;
pub mod prague;
pub mod vegas;

use super::rate::RateSample;
use crate::time::{Duration, Instant};

/// The window state an algorithm acts on, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwndState {
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    pub mss_bytes: u64,
    /// The window counts whole segments, as Linux's (`TcpOptions::cwnd_unit`): reductions round
    /// down to a segment and growth comes a segment at a time.
    pub whole_segments: bool,
    /// Slow start's growth per ACK at most (RFC 3465's L, bytes); 0: no limit, as Linux
    /// (`TcpOptions::abc_limit`).
    pub abc_limit_bytes: u64,
}

impl CwndState {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd_bytes < self.ssthresh_bytes
    }

    /// `max(flight · beta, 2 · MSS)` (RFC 5681 eq. 4 with the AIMD factor in place of 1/2); in
    /// whole segments, rounded down as Linux's `ssthresh()` ops do in integer packets.
    #[inline]
    pub fn reduced(&self, flight_bytes: u64, beta: f64) -> u64 {
        let mss = self.mss_bytes;
        let r = if self.whole_segments {
            // The small epsilon keeps 10 × 0.7 at 7 whatever the float rounding does.
            ((flight_bytes / mss) as f64 * beta + 1e-9).floor() as u64 * mss
        } else {
            (flight_bytes as f64 * beta) as u64
        };
        r.max(2 * mss)
    }
}

/// An acknowledgement of new data that arrived outside loss recovery.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Instant,
    /// Bytes newly acknowledged by this ACK.
    pub acked_bytes: u64,
    /// The connection's smoothed RTT (0 before the first sample).
    pub srtt_ns: Duration,
    /// Next byte to be sent and highest byte acknowledged after this ACK (Vegas times its
    /// once-per-RTT decisions with them).
    pub snd_nxt: u64,
    pub snd_una: u64,
}

/// What every ACK of an open connection delivered, and how much of it the receiver reports
/// CE-marked (Linux's `tp->delivered` and `tp->delivered_ce` increments, which its `in_ack_event`
/// hook reads): with RFC 3168 feedback every segment an ECE-carrying ACK delivers counts as
/// marked (`tcp_count_delivered`); with AccECN the ACE field's increase is the count.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    pub now: Instant,
    /// Segments newly delivered (cumulatively acknowledged or SACKed).
    pub delivered_segs: u64,
    /// Of them, CE-marked as far as the feedback tells.
    pub ce_segs: u64,
    /// SND.UNA after the ACK and the highest byte sent (Linux's `snd_nxt`).
    pub snd_una: u64,
    pub snd_nxt: u64,
}

/// Linux's congestion-avoidance states (`icsk_ca_state`), in its order: a rate-controlling
/// algorithm sees which one each ACK leaves the connection in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    /// Reducing for an ECN-Echo (RFC 3168).
    Cwr,
    /// Fast recovery (RFC 6675, RFC 6582).
    Recovery,
    /// After a retransmission timeout, until what was outstanding then is acknowledged.
    Loss,
}

/// The connection as a rate-controlling algorithm reads it on an ACK (the `tcp_sock` fields
/// Linux's BBR reads), besides the rate sample.
#[derive(Clone, Copy, Debug)]
pub struct ConnState {
    pub now: Instant,
    pub ca: CaState,
    /// Bytes in flight after the ACK (Linux's `tcp_packets_in_flight`).
    pub in_flight_bytes: u64,
    pub srtt: Option<Duration>,
    /// Bytes delivered so far, when they last grew, and bytes marked lost so far (Linux's
    /// `tp->delivered`, `tp->delivered_mstamp`, `tp->lost`).
    pub delivered_bytes: u64,
    pub delivered_at: Instant,
    pub lost_bytes: u64,
    /// The window limited what was sent (Linux's `tcp_is_cwnd_limited`).
    pub cwnd_limited: bool,
    /// How long until the next data segment may leave: its earliest departure time less now,
    /// zero when it may leave at once or when not paced (Linux's
    /// `max(tcp_wstamp_ns, tcp_clock_cache) - tcp_clock_cache`).
    pub edt_wait: Duration,
}

/// What a rate-controlling algorithm decides on an ACK besides the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Control {
    /// The pacing rate, bytes per second (`None`: unlimited).
    pub pacing_rate: Option<u64>,
    /// Mark the samples of what is in flight now application-limited (BBR's PROBE_RTT).
    pub app_limited: bool,
}

/// The hooks of a congestion control algorithm.
pub trait CongestionControl {
    /// New data was acknowledged outside loss recovery: grow (or shrink) the window.
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo);
    /// A loss was detected by duplicate ACKs or SACK (entering fast recovery): set `ssthresh`
    /// and `cwnd` to the window recovery works with.
    fn on_congestion(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64);
    /// An ECN-Echo starts a window reduction (RFC 3168 §6.1.2, once per window; Linux's
    /// `tcp_enter_cwr`, which calls the same `ssthresh` op as a loss). The classic algorithms
    /// reduce as for a loss; DCTCP and Prague by the marked fraction.
    fn on_ecn(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64) {
        self.on_congestion(now, w, flight_bytes)
    }
    /// Every ACK of an open connection, after the sender has processed it (Linux's
    /// `in_ack_event`): what it delivered and how much was marked.
    fn on_ack_event(&mut self, _ev: &AckEvent) {}
    /// The retransmission timer expired: set `ssthresh`; `cwnd` becomes one segment
    /// (RFC 5681 §3.1, loss window).
    fn on_rto(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64);
    /// An RTT sample was taken (every ACK of new data).
    fn on_rtt_sample(&mut self, _now: Instant, _rtt_ns: Duration) {}
    /// Loss recovery ended with a full acknowledgement.
    fn on_recovery_exit(&mut self, _now: Instant, _w: &mut CwndState) {}
    /// The connection sends again after being idle for more than an RTO (RFC 5681 §4.1).
    fn on_idle_restart(&mut self, _now: Instant) {}

    /// Whether the algorithm sets the window and pacing rate itself from delivery-rate samples
    /// (Linux's `cong_control` op). The sender then estimates the delivery rate
    /// ([`super::rate`]), paces, calls [`Self::cong_control`] after each ACK in place of
    /// [`Self::on_ack`], and leaves the window alone in recoveries (no PRR, no RFC 6582
    /// inflation, no `cwnd = ssthresh` at their end; Linux's `tcp_cong_control` and
    /// `tcp_end_cwnd_reduction` step aside the same way). [`Self::on_congestion`] still marks
    /// the start of a recovery or an ECN reduction (Linux's `ssthresh` op).
    fn controls_rate(&self) -> bool {
        false
    }
    /// After every ACK, when [`Self::controls_rate`]: set the window from the sample `rs`.
    fn cong_control(&mut self, _w: &mut CwndState, _rs: &RateSample, _c: &ConnState) -> Control {
        Control::default()
    }
    /// The connection is open, with the handshake's RTT if it had one (Linux's `init` op, run
    /// after the SYN-ACK); the pacing rate to start with.
    fn on_established(&mut self, _w: &CwndState, _c: &ConnState) -> Option<u64> {
        None
    }
    /// Data leaves with nothing in flight while the flow is application-limited (Linux's
    /// `CA_EVENT_TX_START`); a new pacing rate, if it sets one.
    fn on_tx_start(&mut self, _w: &mut CwndState, _c: &ConnState) -> Option<u64> {
        None
    }
    /// After [`Self::on_rto`], with the connection's delivery state (Linux's
    /// `set_state(TCP_CA_Loss)`).
    fn on_enter_loss(&mut self, _c: &ConnState) {}
    /// The fewest segments per GSO burst, if the algorithm sets it (Linux's `min_tso_segs` op);
    /// otherwise the block's `min_tso_segs`.
    fn min_tso_segs(&self) -> Option<u32> {
        None
    }
}

/// The built-in algorithms.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(newreno::NewReno),
    Cubic(cubic::Cubic),
    Vegas(vegas::Vegas),
    Bbr(bbr::Bbr),
    Dctcp(dctcp::Dctcp),
    Prague(prague::Prague),
}

macro_rules! cc_dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Vegas($c) => $e,
            Cc::Bbr($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Prague($c) => $e,
        }
    };
}

impl Cc {
    /// A timeout was found spurious: return to `before`, the algorithm's state saved when it
    /// fired (RFC 9438 §4.9 lets Cubic restore W_max, K and its epoch). BBR keeps its model and
    /// only restarts its full-pipe and policer detection (Linux's `bbr_undo_cwnd`).
    pub fn undo_to(&mut self, before: Cc) {
        match self {
            Cc::Bbr(b) => b.on_undo(),
            Cc::Prague(p) => p.on_undo(),
            _ => *self = before,
        }
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut CwndState, ack: &AckInfo) {
        cc_dispatch!(self, c => c.on_ack(w, ack))
    }
    fn on_congestion(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64) {
        cc_dispatch!(self, c => c.on_congestion(now, w, flight_bytes))
    }
    fn on_ecn(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64) {
        cc_dispatch!(self, c => c.on_ecn(now, w, flight_bytes))
    }
    #[inline]
    fn on_ack_event(&mut self, ev: &AckEvent) {
        cc_dispatch!(self, c => c.on_ack_event(ev))
    }
    fn on_rto(&mut self, now: Instant, w: &mut CwndState, flight_bytes: u64) {
        cc_dispatch!(self, c => c.on_rto(now, w, flight_bytes))
    }
    #[inline]
    fn on_rtt_sample(&mut self, now: Instant, rtt_ns: Duration) {
        cc_dispatch!(self, c => c.on_rtt_sample(now, rtt_ns))
    }
    fn on_recovery_exit(&mut self, now: Instant, w: &mut CwndState) {
        cc_dispatch!(self, c => c.on_recovery_exit(now, w))
    }
    fn on_idle_restart(&mut self, now: Instant) {
        cc_dispatch!(self, c => c.on_idle_restart(now))
    }
    #[inline]
    fn controls_rate(&self) -> bool {
        cc_dispatch!(self, c => c.controls_rate())
    }
    fn cong_control(&mut self, w: &mut CwndState, rs: &RateSample, cs: &ConnState) -> Control {
        cc_dispatch!(self, c => c.cong_control(w, rs, cs))
    }
    fn on_established(&mut self, w: &CwndState, cs: &ConnState) -> Option<u64> {
        cc_dispatch!(self, c => c.on_established(w, cs))
    }
    fn on_tx_start(&mut self, w: &mut CwndState, cs: &ConnState) -> Option<u64> {
        cc_dispatch!(self, c => c.on_tx_start(w, cs))
    }
    fn min_tso_segs(&self) -> Option<u32> {
        cc_dispatch!(self, c => c.min_tso_segs())
    }
    fn on_enter_loss(&mut self, cs: &ConnState) {
        cc_dispatch!(self, c => c.on_enter_loss(cs))
    }
}

/// Slow start with byte counting (RFC 3465 §2.2): the window grows by the bytes acknowledged, so
/// delayed ACKs still double it each RTT; at most `abc_limit_bytes` per ACK (RFC 3465's L, the
/// default 2), or, as Linux's `tcp_slow_start` (no limit since `tcp_abc` was removed in 3.8), all
/// of them, so a stretch ACK grows the window by everything it covers.
/// Returns the acknowledged bytes left over once the window reaches `ssthresh`.
#[inline]
pub fn slow_start(w: &mut CwndState, acked: u64) -> u64 {
    let room = w.ssthresh_bytes.saturating_sub(w.cwnd_bytes);
    let inc = match w.abc_limit_bytes {
        0 => acked,
        l => acked.min(l),
    };
    let used = inc.min(room);
    w.cwnd_bytes += used;
    if inc > room {
        acked - room
    } else {
        0
    }
}

/// Congestion avoidance with byte counting (RFC 5681 §3.1, RFC 3465 §2.1): one segment more
/// each time a whole window has been acknowledged, whatever the ACK spacing.
#[inline]
pub fn reno_avoidance(w: &mut CwndState, acc_bytes: &mut u64, acked: u64) {
    *acc_bytes += acked;
    if *acc_bytes >= w.cwnd_bytes {
        *acc_bytes -= w.cwnd_bytes;
        w.cwnd_bytes += w.mss_bytes;
    }
}

/// Reno's growth (Linux's `tcp_reno_cong_avoid`): slow start up to `ssthresh`, the rest of the
/// acknowledged bytes to congestion avoidance.
#[inline]
pub fn reno_growth(w: &mut CwndState, acc_bytes: &mut u64, acked: u64) {
    let mut acked = acked;
    if w.in_slow_start() {
        acked = slow_start(w, acked);
        if acked == 0 {
            return;
        }
    }
    reno_avoidance(w, acc_bytes, acked);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cwnd: u64, ssthresh: u64) -> CwndState {
        CwndState {
            cwnd_bytes: cwnd,
            ssthresh_bytes: ssthresh,
            mss_bytes: 1000,
            whole_segments: false,
            abc_limit_bytes: 0,
        }
    }

    #[test]
    fn slow_start_caps_at_l_and_ssthresh() {
        // Linux: a stretch ACK of five segments grows the window by five.
        let mut s = w(10_000, 100_000);
        assert_eq!(slow_start(&mut s, 5000), 0);
        assert_eq!(s.cwnd_bytes, 15_000);
        // RFC 3465 with L = 2: by two.
        let mut s = w(10_000, 100_000);
        s.abc_limit_bytes = 2000;
        assert_eq!(slow_start(&mut s, 5000), 0);
        assert_eq!(s.cwnd_bytes, 12_000);
        let mut s = w(10_000, 10_500);
        assert_eq!(slow_start(&mut s, 2000), 1500);
        assert_eq!(s.cwnd_bytes, 10_500);
    }

    /// Linux counts the window in packets: 11 segments halve to 5 (`tcp_reno_ssthresh`), 9 fall
    /// to 6 with β = 0.7 (`cubictcp_recalc_ssthresh`: 9 · 717 / 1024 = 6.3); in bytes the
    /// fraction stays. Never below two segments either way.
    #[test]
    fn whole_segment_reductions_round_down() {
        let mut s = w(0, 0);
        assert_eq!(s.reduced(11_000, 0.5), 5500);
        assert_eq!(s.reduced(9_000, 0.7), 6300);
        s.whole_segments = true;
        assert_eq!(s.reduced(11_000, 0.5), 5000);
        assert_eq!(s.reduced(9_000, 0.7), 6000);
        assert_eq!(s.reduced(10_000, 0.7), 7000, "10 × 0.7 is 7, not 6.999…");
        assert_eq!(
            s.reduced(11_999, 0.5),
            5000,
            "a partial segment does not count"
        );
        assert_eq!(s.reduced(3_000, 0.5), 2000);
    }

    #[test]
    fn avoidance_adds_one_segment_per_window() {
        let mut s = w(10_000, 0);
        let mut acc = 0;
        for _ in 0..10 {
            reno_avoidance(&mut s, &mut acc, 1000);
        }
        assert_eq!(s.cwnd_bytes, 11_000);
        for _ in 0..5 {
            reno_avoidance(&mut s, &mut acc, 2000); // delayed ACKs: same growth per window
        }
        assert_eq!(s.cwnd_bytes, 11_000);
        reno_avoidance(&mut s, &mut acc, 2000);
        assert_eq!(s.cwnd_bytes, 12_000);
    }
}
