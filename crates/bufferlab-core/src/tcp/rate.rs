//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02; Linux
//! `net/ipv4/tcp_rate.c`): on every ACK, the rate at which the network delivered this flow's data
//! over the interval between sending a segment and its acknowledgement, for any congestion
//! control that wants one (BBR).
//!
//! Each segment, when sent, takes a [`TxStamp`] of the connection's delivery state: how much had
//! been delivered (`C.delivered`), when the last delivery was (`C.delivered_time`), when the first
//! segment of the current flight was sent (`C.first_sent_time`) and whether the flow was
//! application-limited (`C.app_limited`). When an ACK delivers it (cumulatively or by SACK), the
//! most recently sent segment it delivers gives the sample:
//!
//! - `delivered` = C.delivered now − its stamp's C.delivered;
//! - `interval` = max(send elapsed, ACK elapsed): the send phase (its sending − its stamp's
//!   `C.first_sent_time`) and the ACK phase (now − its stamp's `C.delivered_time`); the longer
//!   one, so that compressed ACKs (or a burst sent faster than the path) cannot overstate the
//!   rate (draft §3.3; `tcp_rate_gen`);
//! - the sample is invalid if the interval is shorter than the minimum RTT (a spurious
//!   retransmission's ACK, `tcp_rate_gen`), or if no delivered segment carried a stamp.
//!
//! Amounts are bytes (the draft allows octets or packets; Linux counts packets, the same on a
//! flow of full segments). The per-segment stamps live beside the scoreboard's entries
//! ([`super::scoreboard::Scoreboard::enable_rate`]), in a ring that is reused, so the per-packet
//! cost is a 32-byte copy and no allocation.

use crate::time::{Duration, Instant};

/// The connection's delivery state when a segment was last sent (Linux's `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStamp {
    /// `C.delivered` when it was sent (bytes).
    pub delivered: u64,
    /// `C.delivered_time` when it was sent.
    pub delivered_at: Instant,
    /// `C.first_sent_time` when it was sent: the sending of the first segment of the flight.
    pub first_tx_at: Instant,
    /// Whether the flow was application-limited then.
    pub app_limited: bool,
    /// Cleared once the segment is SACKed, so the cumulative ACK that later covers it does not
    /// count it again (Linux zeroes `tx.delivered_mstamp`).
    pub valid: bool,
}

/// One ACK's delivery-rate sample (Linux's `struct rate_sample`), plus what the ACK did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered over the interval; `None` when no segment this ACK delivered carried a
    /// stamp (nothing to measure from).
    pub delivered: Option<u64>,
    /// max(send elapsed, ACK elapsed); `None` if invalid (no stamp, or shorter than the minimum
    /// RTT).
    pub interval: Option<Duration>,
    /// The send and ACK phases the interval is the longer of.
    pub send_interval: Duration,
    pub ack_interval: Duration,
    /// `C.delivered` and `C.delivered_time` when the most recently sent segment this ACK
    /// delivered was sent.
    pub prior_delivered: u64,
    pub prior_at: Instant,
    /// That segment was sent while the flow was application-limited: the sample may show the
    /// application's rate rather than the path's.
    pub is_app_limited: bool,
    /// That segment had been retransmitted.
    pub is_retrans: bool,
    /// Bytes this ACK newly delivered (cumulatively acknowledged or SACKed).
    pub acked_sacked: u64,
    /// Bytes newly marked lost while this ACK was processed.
    pub losses: u64,
    /// The round trip of the most recently sent segment this ACK delivered that was never
    /// resent (Linux's `ca_rtt_us`), else the echoed timestamp's; `None` if neither.
    pub rtt: Option<Duration>,
    /// Bytes in flight before the ACK (Linux's `prior_in_flight`).
    pub prior_in_flight: u64,
    /// The ACK delivered one short segment only: it may have waited for the delayed-ACK timer,
    /// so its RTT is not a path RTT (Linux's `FLAG_ACK_MAYBE_DELAYED`).
    pub is_ack_delayed: bool,
}

impl RateSample {
    /// The delivery rate in bytes per second, when the sample is valid.
    pub fn rate_bytes_per_sec(&self) -> Option<u64> {
        let (d, i) = (self.delivered?, self.interval?);
        if i.is_zero() {
            return None;
        }
        Some((d as u128 * 1_000_000_000 / i.as_ns() as u128).min(u64::MAX as u128) as u64)
    }
}

/// The connection's side of the estimator (the draft's `C.*`), and the sample the ACK being
/// processed is building.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateEstimator {
    /// `C.delivered`: bytes delivered so far (cumulatively acknowledged or SACKed).
    delivered: u64,
    /// `C.delivered_time`: when `delivered` last grew.
    delivered_at: Instant,
    /// `C.first_sent_time`: the sending of the most recently delivered segment, or of the first
    /// segment after an idle period.
    first_tx_at: Instant,
    /// `C.app_limited`: 0, or the value `delivered` must pass for the application-limited
    /// stretch (the "bubble") to be acknowledged and gone.
    app_limited: u64,
    /// Bytes marked lost so far (Linux's `tp->lost`).
    lost: u64,
    /// Without SACK: bytes counted as delivered for duplicate ACKs, not yet set against a
    /// cumulative ACK (Linux's `sacked_out` of a Reno connection).
    dup_credit: u64,
    // The sample under construction.
    rs: RateSample,
    has_prior: bool,
    /// The sending time and end of the segment that gives the sample.
    last_sent: Instant,
    last_end: u64,
    /// The latest sending of a delivered segment never resent, for the sample's RTT.
    latest_sent: Option<Instant>,
    delivered_before: u64,
    lost_before: u64,
    /// Segments delivered by this ACK, and whether any by SACK.
    segs: u32,
    any_sacked: bool,
}

impl RateEstimator {
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn delivered_at(&self) -> Instant {
        self.delivered_at
    }

    /// Bytes marked lost so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Whether the application-limited bubble is still to be acknowledged.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// A segment is sent at `now` (draft §3.2, `tcp_rate_skb_sent`); `idle`: nothing was
    /// outstanding before it, so the delivery interval starts now rather than at the last ACK.
    #[inline]
    pub fn on_sent(&mut self, now: Instant, idle: bool) -> TxStamp {
        if idle {
            self.first_tx_at = now;
            self.delivered_at = now;
        }
        TxStamp {
            delivered: self.delivered,
            delivered_at: self.delivered_at,
            first_tx_at: self.first_tx_at,
            app_limited: self.app_limited != 0,
            valid: true,
        }
    }

    /// Bytes were marked lost.
    #[inline]
    pub fn on_lost(&mut self, bytes: u64) {
        self.lost += bytes;
    }

    /// An ACK arrives with `in_flight` bytes in flight: a new sample starts.
    pub fn begin(&mut self, in_flight: u64) {
        self.rs = RateSample {
            prior_in_flight: in_flight,
            ..RateSample::default()
        };
        self.has_prior = false;
        self.latest_sent = None;
        self.delivered_before = self.delivered;
        self.lost_before = self.lost;
        self.segs = 0;
        self.any_sacked = false;
    }

    /// The segment `[end − len, end)` last sent at `sent`, carrying `stamp`, was delivered by
    /// the ACK being processed (draft §3.3, `tcp_rate_skb_delivered`); `sacked`: by a SACK
    /// block, so its stamp is spent; `resent`: it had been retransmitted.
    #[inline]
    pub fn on_delivered(
        &mut self,
        stamp: &mut TxStamp,
        sent: Instant,
        end: u64,
        len: u32,
        resent: bool,
        sacked: bool,
    ) {
        self.delivered += len as u64;
        self.segs += 1;
        self.any_sacked |= sacked;
        if !resent && self.latest_sent.is_none_or(|t| sent > t) {
            self.latest_sent = Some(sent);
        }
        if !stamp.valid {
            return;
        }
        // The most recently sent segment decides (Linux 6.0's `tcp_skb_sent_after`: by sending
        // time, then by sequence; the draft's "largest C.delivered" cannot order the segments
        // of one flight, which all carry the same).
        if !self.has_prior || (sent, end) > (self.last_sent, self.last_end) {
            self.has_prior = true;
            self.last_sent = sent;
            self.last_end = end;
            self.rs.prior_delivered = stamp.delivered;
            self.rs.prior_at = stamp.delivered_at;
            self.rs.is_app_limited = stamp.app_limited;
            self.rs.is_retrans = resent;
            // The next flight's send phase starts at this segment's sending.
            self.first_tx_at = sent;
            self.rs.send_interval = sent.saturating_since(stamp.first_tx_at);
        }
        if sacked {
            stamp.valid = false;
        }
    }

    /// Without SACK, a duplicate ACK says one more segment (`mss` bytes) arrived (Linux's
    /// `tcp_add_reno_sack`); the cumulative ACK that passes them settles the count.
    pub fn on_dup_ack(&mut self, mss: u64) {
        self.delivered += mss;
        self.dup_credit += mss;
    }

    /// Without SACK, a cumulative ACK of `acked` bytes: its segments were counted as they were
    /// delivered, but all except the first had already been counted for duplicate ACKs
    /// (`tcp_remove_reno_sacks`: "one ACK acked hole, the rest eat duplicate ACKs").
    pub fn settle_dup_acks(&mut self, acked: u64, mss: u64) {
        let again = self.dup_credit.min(acked.saturating_sub(mss));
        self.delivered -= again;
        self.dup_credit -= again;
    }

    /// The ACK is processed (draft §3.3, `tcp_rate_gen`): the sample, given the connection's
    /// minimum RTT, a full segment's bytes, and the echoed timestamp's RTT if the ACK advanced
    /// the cumulative ACK.
    pub fn end(
        &mut self,
        now: Instant,
        min_rtt: Duration,
        mss: u64,
        ts_rtt: Option<Duration>,
    ) -> RateSample {
        // The application-limited bubble is acknowledged and gone.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let newly = self.delivered.saturating_sub(self.delivered_before);
        if newly > 0 {
            self.delivered_at = now;
        }
        let mut rs = self.rs;
        rs.acked_sacked = newly;
        rs.losses = self.lost - self.lost_before;
        rs.rtt = self.latest_sent.map(|t| now.saturating_since(t)).or(ts_rtt);
        rs.is_ack_delayed = self.segs == 1 && !self.any_sacked && newly < mss;
        if !self.has_prior {
            return rs;
        }
        rs.delivered = Some(self.delivered - rs.prior_delivered);
        rs.ack_interval = now.saturating_since(rs.prior_at);
        let interval = rs.send_interval.max(rs.ack_interval);
        // Shorter than a round trip: an ACK for a segment resent needlessly (its original
        // delivered it), which would overstate the rate.
        if interval >= min_rtt {
            rs.interval = Some(interval);
        }
        rs
    }

    /// The flow is application-limited from now until what is now in flight (`in_flight` bytes)
    /// is delivered (draft §3.4, `tcp_rate_check_app_limited`), if it has less than a segment
    /// left to send, room in its window and no lost segment waiting to be resent.
    pub fn check_app_limited(
        &mut self,
        unsent_below_mss: bool,
        window_open: bool,
        no_lost_waiting: bool,
        in_flight: u64,
    ) {
        if unsent_below_mss && window_open && no_lost_waiting {
            self.mark_app_limited(in_flight);
        }
    }

    /// Samples taken until what is in flight now is delivered are application-limited (BBR
    /// marks them so in PROBE_RTT, where it holds its flight down on purpose).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_ms(1);
    const T0: Instant = Instant::ZERO;
    const MSS: u64 = 1000;

    /// One past segment `k`'s last byte.
    fn end(k: u64) -> u64 {
        (k + 1) * MSS
    }

    /// A sender over a path of `rate` bytes per ms and a round trip of `rtt_ms`, sending `n`
    /// segments back to back at time 0; each is delivered (cumulatively) when it has crossed the
    /// bottleneck and a round trip has passed. The samples of every ACK.
    fn paced_by_bottleneck(n: u64, rate_per_ms: u64, rtt_ms: u64) -> Vec<RateSample> {
        let mut r = RateEstimator::default();
        let mut stamps: Vec<TxStamp> = (0..n).map(|k| r.on_sent(T0, k == 0)).collect();
        (0..n as usize)
            .map(|k| {
                let at = T0
                    + rtt_ms * MS
                    + Duration::from_ns((k as u64 + 1) * MSS * 1_000_000 / rate_per_ms);
                r.begin(0);
                r.on_delivered(&mut stamps[k], T0, end(k as u64), MSS as u32, false, false);
                r.end(at, Duration::ZERO, MSS, None)
            })
            .collect()
    }

    #[test]
    fn a_burst_from_idle_is_measured_over_its_round_trip() {
        // 100 segments sent at once (a send phase of zero) over a 10 MB/s bottleneck: the ACK
        // phase is the longer one, so no sample exceeds the bottleneck's rate; sample k
        // delivered k + 1 segments over the round trip plus their crossing.
        let s = paced_by_bottleneck(100, 10_000, 40);
        for (k, x) in s.iter().enumerate() {
            assert_eq!(x.send_interval, Duration::ZERO);
            assert_eq!(x.interval, Some(x.ack_interval));
            let expect =
                (k as u64 + 1) * MSS * 1_000_000_000 / (40_000_000 + (k as u64 + 1) * 100_000);
            assert_eq!(x.rate_bytes_per_sec(), Some(expect));
            assert!(expect < 10_000_000);
        }
    }

    /// A steady flow: one segment sent every `gap` (its pacing), each delivered one `rtt` after
    /// its sending, for `n` segments; the samples once the flight is steady.
    fn steady(n: u64, gap: Duration, rtt: Duration) -> Vec<RateSample> {
        let mut r = RateEstimator::default();
        let mut events: Vec<(Instant, u8, u64)> = Vec::new(); // (time, 0 = ack / 1 = send, seg)
        for k in 0..n {
            events.push((T0 + gap * k, 1, k));
            events.push((T0 + gap * k + rtt, 0, k));
        }
        events.sort();
        let mut stamps = vec![TxStamp::default(); n as usize];
        let mut sent = vec![T0; n as usize];
        let mut out_n = 0u64;
        let mut samples = Vec::new();
        for (at, kind, k) in events {
            if kind == 1 {
                stamps[k as usize] = r.on_sent(at, out_n == 0);
                sent[k as usize] = at;
                out_n += 1;
            } else {
                r.begin(out_n * MSS);
                let (st, t) = (&mut stamps[k as usize], sent[k as usize]);
                r.on_delivered(st, t, end(k), MSS as u32, false, false);
                out_n -= 1;
                samples.push(r.end(at, rtt, MSS, None));
            }
        }
        samples
    }

    #[test]
    fn a_steady_flow_samples_its_sending_rate() {
        // 1 kB every 0.8 ms (1.25 MB/s = 10 Mb/s) over a 40 ms round trip: once a round trip of
        // segments is out, every sample is exactly the rate (the draft's steady state).
        let gap = Duration::from_us(800);
        let s = steady(500, gap, 40 * MS);
        let rate = 1_250_000u64;
        for x in &s[60..] {
            let got = x.rate_bytes_per_sec().unwrap();
            assert!(got.abs_diff(rate) * 100 <= rate, "{got} vs {rate}");
        }
        // The first samples cover less than a round trip of sending: lower, never higher.
        assert!(s[0].rate_bytes_per_sec().unwrap() < rate);
    }

    #[test]
    fn compressed_acks_do_not_overstate_the_rate() {
        // Ten segments sent 1 ms apart, their ACKs arriving together 50 ms after the first was
        // sent: the ACK phase is short, the send phase (9 ms) bounds the rate.
        let mut r = RateEstimator::default();
        let mut st: Vec<TxStamp> = (0..10).map(|k| r.on_sent(T0 + MS * k, k == 0)).collect();
        r.begin(10 * MSS);
        for (k, s) in st.iter_mut().enumerate() {
            r.on_delivered(
                s,
                T0 + MS * k as u64,
                end(k as u64),
                MSS as u32,
                false,
                false,
            );
        }
        let x = r.end(T0 + 50 * MS, 40 * MS, MSS, None);
        assert_eq!(x.send_interval, 9 * MS);
        assert_eq!(x.ack_interval, 50 * MS);
        assert_eq!(x.delivered, Some(10 * MSS));
        assert_eq!(x.acked_sacked, 10 * MSS);
        assert_eq!(x.rtt, Some(41 * MS), "the latest sent segment's round trip");
    }

    #[test]
    fn app_limited_marks_until_the_bubble_is_delivered() {
        let mut r = RateEstimator::default();
        // Three segments out, then the application runs dry: the bubble ends once what is in
        // flight (3 kB) is delivered.
        let mut a: Vec<TxStamp> = (0..3).map(|k| r.on_sent(T0, k == 0)).collect();
        r.check_app_limited(true, true, true, 3 * MSS);
        assert!(r.is_app_limited());
        let mut b = r.on_sent(T0 + MS, false);
        assert!(b.app_limited && !a[0].app_limited);
        for (k, s) in a.iter_mut().enumerate() {
            r.begin(0);
            r.on_delivered(s, T0, end(k as u64), MSS as u32, false, false);
            let x = r.end(T0 + 40 * MS + MS * k as u64, 40 * MS, MSS, None);
            assert!(!x.is_app_limited, "sent before the bubble");
        }
        // delivered == 3 kB: not yet past the mark.
        assert!(r.is_app_limited());
        r.begin(0);
        r.on_delivered(&mut b, T0 + MS, end(3), MSS as u32, false, false);
        let x = r.end(T0 + 45 * MS, 40 * MS, MSS, None);
        assert!(x.is_app_limited, "a segment sent inside the bubble");
        assert!(!r.is_app_limited(), "delivered passed the mark");
        // Not limited when the window is full or data waits.
        r.check_app_limited(true, false, true, 0);
        r.check_app_limited(false, true, true, 0);
        assert!(!r.is_app_limited());
    }

    #[test]
    fn a_sacked_segment_counts_once() {
        let mut r = RateEstimator::default();
        let mut s = [r.on_sent(T0, true), r.on_sent(T0, false)];
        // Segment 1 SACKed at 40 ms: its stamp is spent.
        r.begin(2 * MSS);
        r.on_delivered(&mut s[1], T0, end(1), MSS as u32, false, true);
        let x = r.end(T0 + 40 * MS, 40 * MS, MSS, None);
        assert_eq!((x.delivered, x.acked_sacked), (Some(MSS), MSS));
        assert!(!s[1].valid);
        // Segment 0, resent at 45 ms, is acknowledged at 90 ms; the resent copy's stamp gives
        // the sample (one segment since segment 1's delivery at 40 ms) and its RTT comes from
        // the timestamp (a resent segment's own time is ambiguous).
        s[0] = r.on_sent(T0 + 45 * MS, false);
        r.begin(MSS);
        r.on_delivered(&mut s[0], T0 + 45 * MS, end(0), MSS as u32, true, false);
        let x = r.end(T0 + 90 * MS, 40 * MS, MSS, Some(45 * MS));
        assert_eq!((x.delivered, x.prior_delivered), (Some(MSS), MSS));
        assert_eq!(x.ack_interval, 50 * MS);
        assert!(x.is_retrans);
        assert_eq!(x.rtt, Some(45 * MS));
        assert_eq!(r.delivered(), 2 * MSS);
    }

    #[test]
    fn an_interval_shorter_than_the_min_rtt_is_invalid() {
        // Two segments sent at 0; the first delivered at 10 ms on a path whose minimum RTT is
        // 40 ms: the ACK must answer an earlier copy, and would overstate the rate.
        let mut r = RateEstimator::default();
        let mut s = r.on_sent(T0, true);
        r.on_sent(T0, false);
        r.begin(2 * MSS);
        r.on_delivered(&mut s, T0, end(0), MSS as u32, false, false);
        let x = r.end(T0 + 10 * MS, 40 * MS, MSS, None);
        assert_eq!((x.delivered, x.interval), (Some(MSS), None));
        assert_eq!(x.rate_bytes_per_sec(), None);
    }

    #[test]
    fn duplicate_acks_without_sack_are_settled_by_the_cumulative_ack() {
        let mut r = RateEstimator::default();
        // Segment 0 lost; three duplicate ACKs count three segments; the ACK covering 0..4
        // counts one more (4 segments in all), as Linux's Reno accounting.
        for _ in 0..3 {
            r.on_dup_ack(MSS);
        }
        assert_eq!(r.delivered(), 3 * MSS);
        let mut st: Vec<TxStamp> = (0..4).map(|_| TxStamp::default()).collect();
        r.begin(0);
        for (k, s) in st.iter_mut().enumerate() {
            r.on_delivered(s, T0, end(k as u64), MSS as u32, false, false);
        }
        r.settle_dup_acks(4 * MSS, MSS);
        assert_eq!(r.delivered(), 4 * MSS);
        let x = r.end(T0 + 50 * MS, 40 * MS, MSS, None);
        assert_eq!(x.acked_sacked, MSS);
    }
}
