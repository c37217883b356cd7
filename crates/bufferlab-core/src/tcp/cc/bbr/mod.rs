//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016),
//! as Linux's `net/ipv4/tcp_bbr.c` (the module Linux 6.x runs as `bbr`).
//!
//! BBR keeps a model of the path — the bottleneck bandwidth, the windowed maximum of the
//! delivery-rate samples over 10 round trips ([`super::super::rate`], [`WindowedMax`]), and the
//! round-trip propagation time, the minimum RTT over 10 s — and sends at `pacing_gain × bw` with
//! at most `cwnd_gain × bw × min_rtt` in flight. Losses do not set the rate. Four modes:
//!
//! - STARTUP: gains of 2/ln 2 ≈ 2.89 (the smallest that doubles the delivery rate each round
//!   trip), until three rounds in a row grow the bandwidth estimate by less than 25 %;
//! - DRAIN: pacing gain 1/2.89, until what is in flight falls to one BDP (the queue STARTUP made
//!   is gone);
//! - PROBE_BW: the pacing gain cycles through 1.25, 0.75 and six phases of 1, each about one
//!   min RTT long, from a random phase (never the 0.75 one); cwnd gain 2;
//! - PROBE_RTT: when the min RTT has not been seen again for 10 s, at most 4 packets in flight
//!   for 200 ms and a round trip, so that the queue drains and the min RTT is measured again.
//!
//! Besides: a long-term estimate for token-bucket policers ([`lt_bw`]), an allowance for ACK
//! aggregation ([`aggregation`]), packet conservation in the first round of a recovery, and the
//! window restored after it. ECN is ignored (v1). Amounts are bytes where Linux counts packets;
//! on full segments they are the same. The gains are Linux's, in units of 1/256 (`BBR_UNIT`),
//! so that the modes' thresholds fall where the kernel's do.

mod aggregation;
mod lt_bw;
#[cfg(test)]
mod tests;

use rand::{Rng as _, SeedableRng};

use self::aggregation::{AckAggregation, MAX_EXTRA};
use self::lt_bw::{LtBw, LtEvent};
use super::{AckInfo, CaState, CongestionControl, ConnState, Control, CwndState};
use crate::rng::Rng;
use crate::tcp::gso::{GSO_MAX_BYTES, PACING_SHIFT};
use crate::tcp::minmax::WindowedMax;
use crate::tcp::rate::RateSample;
use crate::time::{Duration, Instant};

/// Gains are in units of 1/256 (`BBR_UNIT`).
pub const UNIT: u64 = 256;
/// STARTUP's pacing and cwnd gain: 2/ln 2 (`bbr_high_gain` = 739/256 ≈ 2.887).
pub const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1;
/// DRAIN's pacing gain, 1/high_gain (`bbr_drain_gain` = 88/256), to drain STARTUP's queue in
/// about one round.
pub const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
/// The cwnd gain outside STARTUP (`bbr_cwnd_gain`): room for delayed and stretched ACKs.
pub const CWND_GAIN: u64 = UNIT * 2;
/// PROBE_BW's gain cycle (`bbr_pacing_gain`): probe at 5/4, drain at 3/4, cruise at 1.
pub const PACING_GAIN: [u64; CYCLE_LEN] = [
    UNIT * 5 / 4,
    UNIT * 3 / 4,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
];
const CYCLE_LEN: usize = 8;
/// The cycle starts at one of this many phases at random (`bbr_cycle_rand`): any but 3/4.
const CYCLE_RAND: u64 = 7;
/// Round trips of the bandwidth filter's window (`bbr_bw_rtts` = CYCLE_LEN + 2).
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// The min RTT filter's window (`bbr_min_rtt_win_sec`).
pub const MIN_RTT_WIN: Duration = Duration::from_secs(10);
/// Least time in PROBE_RTT (`bbr_probe_rtt_mode_ms`).
pub const PROBE_RTT_TIME: Duration = Duration::from_ms(200);
/// The least window, packets (`bbr_cwnd_min_target`): two delayed-ACK pairs in flight.
pub const CWND_MIN_PKTS: u64 = 4;
/// Growth that still counts as growth in STARTUP (`bbr_full_bw_thresh`: 5/4)...
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
/// ...and rounds without it that mean the pipe is full (`bbr_full_bw_cnt`).
const FULL_BW_CNT: u32 = 3;
/// Pace 1 % below the estimate (`bbr_pacing_margin_percent`), to keep the queue small.
const PACING_MARGIN_PERCENT: u64 = 1;
/// Below this pacing rate BBR sends single segments (`bbr_min_tso_rate`, 1.2 Mb/s), above it
/// pairs; the window budgets three such bursts (`bbr_tso_segs_goal`).
const MIN_TSO_RATE_BYTES: u64 = 1_200_000 / 8;
/// The window without an RTT sample, packets (`TCP_INIT_CWND`).
const INIT_CWND_PKTS: u64 = 10;
/// The nominal RTT before any sample (`bbr_init_pacing_rate_from_rtt`: `USEC_PER_MSEC`).
const NOMINAL_RTT: Duration = Duration::from_ms(1);

/// BBR's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// One connection's BBR state (Linux's `struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr {
    /// Draws the gain cycle's starting phase (seeded per connection from the run's seed).
    rng: Rng,
    mode: Mode,
    pacing_gain: u64,
    cwnd_gain: u64,
    /// The bandwidth filter (bytes/s over round trips), and packet-timed round trips: a round
    /// ends when a segment sent after the last one began is delivered.
    bw: WindowedMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// The min RTT and when it was last seen (or refreshed).
    min_rtt: Option<Duration>,
    min_rtt_at: Instant,
    probe_rtt_done_at: Option<Instant>,
    probe_rtt_round_done: bool,
    /// When the current gain-cycle phase began (a delivery time), and its index.
    cycle_at: Instant,
    cycle_idx: usize,
    /// STARTUP's full-pipe detection.
    full_bw_reached: bool,
    full_bw: u64,
    full_bw_cnt: u32,
    /// The congestion-avoidance state on the previous ACK, packet conservation in the first
    /// round of a recovery, and the window to restore after it (or after PROBE_RTT).
    prev_ca: CaState,
    packet_conservation: bool,
    prior_cwnd: u64,
    /// Sending again after an idle period, until an ACK delivers data.
    idle_restart: bool,
    has_seen_rtt: bool,
    lt: LtBw,
    aggr: AckAggregation,
    /// The connection's pacing rate (`sk_pacing_rate`), bytes/s; `None` before BBR sets it.
    pacing_rate: Option<u64>,
    /// Times PROBE_RTT was entered.
    probe_rtts: u64,
    /// bw × min RTT in 1/256 B for the (bw, min RTT in ns) it was computed from: both change
    /// seldom, and every ACK needs the BDP at two or three gains.
    bdp_memo: (u64, u64, u64),
}

impl Bbr {
    /// A new connection's BBR, its random choices drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        let mut b = Bbr {
            rng: Rng::seed_from_u64(seed),
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_at: Instant::ZERO,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            cycle_at: Instant::ZERO,
            cycle_idx: 0,
            full_bw_reached: false,
            full_bw: 0,
            full_bw_cnt: 0,
            prev_ca: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0,
            idle_restart: false,
            has_seen_rtt: false,
            lt: LtBw::default(),
            aggr: AckAggregation::default(),
            pacing_rate: None,
            probe_rtts: 0,
            bdp_memo: (0, 0, 0),
        };
        b.bw.reset(0, 0);
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The current pacing gain and cwnd gain, in 1/256.
    pub fn gains(&self) -> (u64, u64) {
        (self.pacing_gain, self.cwnd_gain)
    }

    /// The gain cycle's phase (PROBE_BW).
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    /// The windowed maximum delivery rate, bytes/s.
    pub fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// The bandwidth BBR uses: the policed rate if it suspects a policer, else the maximum.
    pub fn bw(&self) -> u64 {
        self.lt.policed().unwrap_or_else(|| self.bw.get())
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// The long-term rate in use when a policer is suspected, bytes/s.
    pub fn policed_bw(&self) -> Option<u64> {
        self.lt.policed()
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// Packet-timed round trips so far.
    pub fn rounds(&self) -> u64 {
        self.rtt_cnt
    }

    /// Times PROBE_RTT was entered.
    pub fn probe_rtts(&self) -> u64 {
        self.probe_rtts
    }

    /// A spurious timeout was undone (`bbr_undo_cwnd`): the window stays, full-pipe and policer
    /// detection start over.
    pub fn on_undo(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.lt.reset();
    }

    /// `rate` bytes/s times `gain`, less the 1 % margin (`bbr_rate_bytes_per_sec`).
    fn pacing_of(rate: u64, gain: u64) -> u64 {
        rate.saturating_mul(gain * (100 - PACING_MARGIN_PERCENT)) / (UNIT * 100)
    }

    /// Start from the initial window over the RTT (`bbr_init_pacing_rate_from_rtt`).
    fn init_pacing_rate(&mut self, w: &CwndState, srtt: Option<Duration>) {
        let rtt = match srtt {
            Some(r) if !r.is_zero() => {
                self.has_seen_rtt = true;
                r
            }
            _ => NOMINAL_RTT,
        };
        let bw = (w.cwnd_bytes as u128 * 1_000_000_000 / rtt.as_ns() as u128) as u64;
        self.pacing_rate = Some(Self::pacing_of(bw, HIGH_GAIN));
    }

    /// `bbr_set_pacing_rate`: never slower before the pipe is full (STARTUP's estimate only
    /// grows), exactly `gain × bw` after.
    fn set_pacing_rate(&mut self, w: &CwndState, bw: u64, gain: u64, srtt: Option<Duration>) {
        let rate = Self::pacing_of(bw, gain);
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate(w, srtt);
        }
        if self.full_bw_reached || self.pacing_rate.is_none_or(|p| rate > p) {
            self.pacing_rate = Some(rate);
        }
    }

    /// Segments per burst Linux budgets for (`bbr_tso_segs_goal`): ~1 ms at the pacing rate,
    /// at least 1 or 2, at most 127.
    fn tso_segs_goal(&self, mss: u64) -> u64 {
        let rate = self.pacing_rate.unwrap_or(u64::MAX);
        let bytes = (rate >> PACING_SHIFT).min(GSO_MAX_BYTES);
        (bytes / mss).max(self.min_segs() as u64).min(0x7f)
    }

    /// `bbr_min_tso_segs`: single segments below 1.2 Mb/s of pacing rate, pairs above.
    fn min_segs(&self) -> u32 {
        if self.pacing_rate.unwrap_or(u64::MAX) < MIN_TSO_RATE_BYTES {
            1
        } else {
            2
        }
    }

    /// gain × bw × min RTT in packets, rounded up (`bbr_bdp`); the initial window without an
    /// RTT sample.
    fn bdp_pkts(&mut self, bw: u64, gain: u64, mss: u64) -> u64 {
        let Some(rtt) = self.min_rtt else {
            return INIT_CWND_PKTS;
        };
        let rtt = rtt.as_ns();
        if (self.bdp_memo.0, self.bdp_memo.1) != (bw, rtt) {
            let x = bw as u128 * rtt as u128 * UNIT as u128 / 1_000_000_000;
            self.bdp_memo = (bw, rtt, x.min(u64::MAX as u128) as u64);
        }
        self.bdp_memo
            .2
            .saturating_mul(gain)
            .div_ceil(UNIT * UNIT * mss)
    }

    /// Room for the end hosts' bursts, rounded up to an even count, and two more in the probing
    /// phase of PROBE_BW, the cycle's first (`bbr_quantization_budget`; Linux 5.1 on, which tests
    /// `cycle_idx == 0`: before, any gain above 1, so the window's target, at a gain of 2, had
    /// the two in every phase), packets.
    fn quantization_budget(&self, pkts: u64, mss: u64) -> u64 {
        let mut c = pkts + 3 * self.tso_segs_goal(mss);
        c = (c + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2;
        }
        c
    }

    /// The flight a gain aims at, bytes (`bbr_inflight`).
    fn inflight(&mut self, bw: u64, gain: u64, mss: u64) -> u64 {
        let bdp = self.bdp_pkts(bw, gain, mss);
        self.quantization_budget(bdp, mss) * mss
    }

    /// What of `inflight` bytes will still be in the network when the next segment leaves
    /// (`bbr_packets_in_net_at_edt`, Linux 4.20 on): with departure-time pacing the next one
    /// waits `c.edt_wait`, in which the path delivers at the estimated rate; when probing, the
    /// burst about to leave counts too. Whole packets delivered, as Linux's arithmetic.
    fn in_net_at_edt(&self, inflight: u64, c: &ConnState, mss: u64) -> u64 {
        let mut at_edt = inflight;
        if self.pacing_gain > UNIT {
            at_edt += self.tso_segs_goal(mss) * mss;
        }
        let delivered = per_sec_over(self.bw(), c.edt_wait) / mss * mss;
        at_edt.saturating_sub(delivered)
    }

    /// Remember the window to return to (`bbr_save_cwnd`): the current one, unless a recovery or
    /// PROBE_RTT has cut it.
    fn save_cwnd(&mut self, cwnd: u64) {
        self.prior_cwnd = if self.prev_ca < CaState::Recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn reset_startup_mode(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    /// Into PROBE_BW at a random phase other than the draining one
    /// (`bbr_reset_probe_bw_mode`: the phase before one of the last seven, then advanced).
    fn reset_probe_bw_mode(&mut self, delivered_at: Instant) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = CWND_GAIN;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.gen_range(0..CYCLE_RAND) as usize;
        self.advance_cycle_phase(delivered_at);
    }

    fn reset_mode(&mut self, delivered_at: Instant) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(delivered_at);
        } else {
            self.reset_startup_mode();
        }
    }

    fn advance_cycle_phase(&mut self, delivered_at: Instant) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_at = delivered_at;
        self.pacing_gain = if self.lt.policed().is_some() {
            UNIT
        } else {
            PACING_GAIN[self.cycle_idx]
        };
    }

    /// Whether the gain-cycle phase ends (`bbr_is_next_cycle_phase`): after a min RTT at gain
    /// 1; when probing, once the flight reached gain × BDP (or a loss says it will not fit);
    /// when draining, as soon as the flight is down to one BDP.
    fn is_next_cycle_phase(&mut self, rs: &RateSample, c: &ConnState, mss: u64) -> bool {
        let full_length = self
            .min_rtt
            .is_some_and(|m| c.delivered_at.saturating_since(self.cycle_at) > m);
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let bw = self.bw.get();
        let inflight = self.in_net_at_edt(rs.prior_in_flight, c, mss);
        if self.pacing_gain > UNIT {
            return full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain, mss));
        }
        full_length || inflight <= self.inflight(bw, UNIT, mss)
    }

    /// The bandwidth filter and round counting (`bbr_update_bw`).
    fn update_bw(&mut self, rs: &RateSample, c: &ConnState) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        if interval.is_zero() {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = c.delivered_bytes;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        match self
            .lt
            .sample(rs, c, self.round_start, self.mode == Mode::ProbeBw)
        {
            LtEvent::None => {}
            LtEvent::Policed => self.pacing_gain = UNIT,
            LtEvent::Expired => self.reset_probe_bw_mode(c.delivered_at),
        }
        let bw = per_sec(delivered, interval);
        // An application-limited sample shows the application's rate: it may only raise the
        // estimate.
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds in a row without 25 % growth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let max = self.bw.get();
        if max as u128 * UNIT as u128 >= self.full_bw as u128 * FULL_BW_THRESH as u128 {
            self.full_bw = max;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP → DRAIN once the pipe is full, DRAIN → PROBE_BW once the
    /// flight is down to one BDP.
    fn check_drain(&mut self, w: &mut CwndState, c: &ConnState) {
        let mss = w.mss_bytes;
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = DRAIN_GAIN;
            self.cwnd_gain = HIGH_GAIN;
            w.ssthresh_bytes = self.inflight(self.bw.get(), UNIT, mss);
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(c.in_flight_bytes, c, mss)
                <= self.inflight(self.bw.get(), UNIT, mss)
        {
            self.reset_probe_bw_mode(c.delivered_at);
        }
    }

    /// `bbr_check_probe_rtt_done`: 200 ms and a round at 4 packets are over.
    fn check_probe_rtt_done(&mut self, w: &mut CwndState, c: &ConnState) {
        if self.probe_rtt_done_at.is_none_or(|t| c.now <= t) {
            return;
        }
        // Wait a full window before the next one.
        self.min_rtt_at = c.now;
        w.cwnd_bytes = w.cwnd_bytes.max(self.prior_cwnd);
        self.reset_mode(c.delivered_at);
    }

    /// The min RTT filter and PROBE_RTT (`bbr_update_min_rtt`); whether to mark the flow
    /// application-limited (PROBE_RTT's samples would drag the estimate down).
    fn update_min_rtt(&mut self, rs: &RateSample, w: &mut CwndState, c: &ConnState) -> bool {
        let expired = c.now > self.min_rtt_at + MIN_RTT_WIN;
        if let Some(rtt) = rs.rtt {
            // Whole microseconds, as Linux's `rtt_us` and `min_rtt_us`: a sample below the
            // minimum by less than a microsecond is a tie, which does not restart the filter.
            let rtt = Duration::from_us(rtt.as_ns() / 1000);
            if self.min_rtt.is_none_or(|m| rtt < m) || (expired && !rs.is_ack_delayed) {
                self.min_rtt = Some(rtt);
                self.min_rtt_at = c.now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = UNIT;
            self.cwnd_gain = UNIT;
            self.save_cwnd(w.cwnd_bytes);
            self.probe_rtt_done_at = None;
            self.probe_rtts += 1;
        }
        let probing = self.mode == Mode::ProbeRtt;
        if probing {
            if self.probe_rtt_done_at.is_none() && c.in_flight_bytes <= CWND_MIN_PKTS * w.mss_bytes
            {
                // At 4 packets: hold for 200 ms and a round trip from now.
                self.probe_rtt_done_at = Some(c.now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = c.delivered_bytes;
            } else if self.probe_rtt_done_at.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(w, c);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
        probing
    }

    /// Packet conservation in a recovery's first round, the window restored at its end
    /// (`bbr_set_cwnd_to_recover_or_restore`); `Some(window)` while conserving.
    fn recover_or_restore(
        &mut self,
        rs: &RateSample,
        acked: u64,
        w: &CwndState,
        c: &ConnState,
    ) -> (u64, bool) {
        let (prev, state) = (self.prev_ca, c.ca);
        let mut cwnd = w.cwnd_bytes;
        // An ACK for P packets releases at most 2P: first take the losses off.
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(w.mss_bytes);
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // The recovery's first round: send what is delivered, and start a round now.
            self.packet_conservation = true;
            self.next_rtt_delivered = c.delivered_bytes;
            cwnd = c.in_flight_bytes + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca = state;
        if self.packet_conservation {
            return (cwnd.max(c.in_flight_bytes + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: toward the target cwnd_gain × BDP plus the aggregation allowance —
    /// growing by what was delivered, never above the target once the pipe is full.
    fn set_cwnd(&mut self, w: &mut CwndState, rs: &RateSample, c: &ConnState, bw: u64) {
        let mss = w.mss_bytes;
        let acked = rs.acked_sacked;
        let mut cwnd = w.cwnd_bytes;
        if acked > 0 {
            let (c2, conserving) = self.recover_or_restore(rs, acked, w, c);
            cwnd = c2;
            if !conserving {
                let mut target = self.bdp_pkts(bw, self.cwnd_gain, mss);
                target += self.aggregation_pkts(bw, mss);
                let target = self.quantization_budget(target, mss) * mss;
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || c.delivered_bytes < INIT_CWND_PKTS * mss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_PKTS * mss);
            }
        }
        w.cwnd_bytes = cwnd;
        if self.mode == Mode::ProbeRtt {
            w.cwnd_bytes = w.cwnd_bytes.min(CWND_MIN_PKTS * mss);
        }
    }

    /// The aggregation allowance in packets, once the pipe is full (`bbr_ack_aggregation_cwnd`).
    fn aggregation_pkts(&self, bw: u64, mss: u64) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let cap = per_sec_over(bw, MAX_EXTRA);
        self.aggr.extra_acked().min(cap) / mss
    }
}

/// `bytes` over `d` in bytes per second.
#[inline]
pub(super) fn per_sec(bytes: u64, d: Duration) -> u64 {
    let ns = d.as_ns().max(1);
    match bytes.checked_mul(1_000_000_000) {
        Some(x) => x / ns,
        None => (bytes as u128 * 1_000_000_000 / ns as u128) as u64,
    }
}

/// What `rate` bytes per second delivers in `d`, bytes.
#[inline]
pub(super) fn per_sec_over(rate: u64, d: Duration) -> u64 {
    match rate.checked_mul(d.as_ns()) {
        Some(x) => x / 1_000_000_000,
        None => (rate as u128 * d.as_ns() as u128 / 1_000_000_000).min(u64::MAX as u128) as u64,
    }
}

impl CongestionControl for Bbr {
    fn min_tso_segs(&self) -> Option<u32> {
        Some(self.min_segs())
    }

    /// BBR sets the window in [`Self::cong_control`].
    fn on_ack(&mut self, _w: &mut CwndState, _ack: &AckInfo) {}

    /// Recovery or an ECN reduction begins (`bbr_ssthresh`): remember the window; nothing is
    /// reduced.
    fn on_congestion(&mut self, _now: Instant, w: &mut CwndState, _flight_bytes: u64) {
        self.save_cwnd(w.cwnd_bytes);
    }

    /// `tcp_enter_loss` with `bbr_ssthresh`: the window to restore is saved, one segment may
    /// leave.
    fn on_rto(&mut self, _now: Instant, w: &mut CwndState, _flight_bytes: u64) {
        self.save_cwnd(w.cwnd_bytes);
        w.cwnd_bytes = w.mss_bytes;
    }

    /// `bbr_set_state(TCP_CA_Loss)`: the full-pipe estimate starts over, the timeout ends a
    /// round, and counts as a loss for the policer estimate.
    fn on_enter_loss(&mut self, c: &ConnState) {
        self.prev_ca = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        let rs = RateSample {
            losses: 1,
            ..RateSample::default()
        };
        if self.lt.sample(&rs, c, true, self.mode == Mode::ProbeBw) == LtEvent::Expired {
            self.reset_probe_bw_mode(c.delivered_at);
        }
    }

    fn controls_rate(&self) -> bool {
        true
    }

    /// `bbr_init`, once the handshake's RTT is known.
    fn on_established(&mut self, w: &CwndState, c: &ConnState) -> Option<u64> {
        self.min_rtt = c.srtt;
        self.min_rtt_at = c.now;
        self.init_pacing_rate(w, c.srtt);
        self.aggr.restart(c.now);
        self.pacing_rate
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)` while application-limited: restarting from idle,
    /// pace at the estimate (no need to probe), and end a PROBE_RTT that the idle period made.
    fn on_tx_start(&mut self, w: &mut CwndState, c: &ConnState) -> Option<u64> {
        self.idle_restart = true;
        self.aggr.restart(c.now);
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(w, self.bw(), UNIT, c.srtt),
            Mode::ProbeRtt => self.check_probe_rtt_done(w, c),
            _ => {}
        }
        self.pacing_rate
    }

    /// `bbr_main`: update the model, then the pacing rate and the window.
    fn cong_control(&mut self, w: &mut CwndState, rs: &RateSample, c: &ConnState) -> Control {
        self.update_bw(rs, c);
        if rs.acked_sacked > 0 && rs.delivered.is_some() && rs.interval.is_some() {
            self.aggr.update(
                rs.acked_sacked,
                c,
                self.round_start,
                self.bw(),
                w.cwnd_bytes,
                w.mss_bytes,
            );
        }
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, c, w.mss_bytes) {
            self.advance_cycle_phase(c.delivered_at);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(w, c);
        let app_limited = self.update_min_rtt(rs, w, c);
        let bw = self.bw();
        self.set_pacing_rate(w, bw, self.pacing_gain, c.srtt);
        self.set_cwnd(w, rs, c, bw);
        Control {
            pacing_rate: self.pacing_rate,
            app_limited,
        }
    }
}
