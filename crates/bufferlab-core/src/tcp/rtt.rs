//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! Samples come from echoed timestamps (RFC 7323 §4), which tell which transmission an ACK
//! answers, so Karn's sampling ambiguity does not arise; Karn's other rule — keep the backed-off
//! timeout until an ACK for new data brings a fresh sample — is [`RttEstimator::on_timeout`] and
//! [`RttEstimator::sample`].

use super::params::RtoFloor;
use crate::time::Duration;

/// RFC 6298 §2.1: the RTO before any sample (the `initial_rto` key's default).
pub const INITIAL_RTO_NS: Duration = Duration::from_secs(1);
/// RFC 6298 §5.7: the RTO once data flows, when the SYN had to be retransmitted.
pub const SYN_LOST_RTO_NS: Duration = Duration::from_secs(3);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    /// RTO before back-off.
    rto: Duration,
    /// Number of consecutive timeouts (the back-off exponent).
    backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
    floor: RtoFloor,
    /// Smallest sample seen.
    min_rtt: Option<Duration>,
    /// Samples taken (a counter).
    samples: u64,
}

impl RttEstimator {
    pub fn new(min_rto: Duration, max_rto: Duration) -> Self {
        Self::with(min_rto, max_rto, RtoFloor::Rttvar, INITIAL_RTO_NS)
    }

    /// `floor` says where `min_rto` applies (see [`RtoFloor`]); `initial` is the RTO before any
    /// sample.
    pub fn with(min_rto: Duration, max_rto: Duration, floor: RtoFloor, initial: Duration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            rto: initial.clamp(min_rto, max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            floor,
            min_rtt: None,
            samples: 0,
        }
    }

    /// A new measurement `r` (RFC 6298 §2.2–2.3, α = 1/8, β = 1/4, K = 4).
    ///
    /// With [`RtoFloor::Rttvar`],
    /// `RTO = SRTT + max(G, K·RTTVAR)` with the granularity term G set to `min_rto`: that is how
    /// Linux applies its 200 ms floor (`rttvar` is never below `tcp_rto_min`), and it keeps the
    /// RTO above the RTT when queueing makes the RTT large and steady. With the RFC's own
    /// reading (floor on the total) a 200 ms floor fires spuriously whenever the RTT is close to
    /// 200 ms and varies little. The RFC 6298 §2.4 floor on the total still holds, and is the
    /// only one with [`RtoFloor::Total`] (ns-2).
    pub fn sample(&mut self, r: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let s = self.srtt.unwrap_or(r);
        let var = match self.floor {
            RtoFloor::Rttvar => (4 * self.rttvar).max(self.min_rto),
            RtoFloor::Total => 4 * self.rttvar,
        };
        // RFC 6298 §2.4-2.5: rounded up to min_rto, capped at max_rto.
        self.rto = (s + var).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.samples += 1;
    }

    /// The timer expired (RFC 6298 §5.5): double the RTO, up to `max_rto`.
    pub fn on_timeout(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// RFC 6298 §5.7: the SYN timed out and no sample exists; data starts with a 3 s RTO.
    pub fn syn_lost(&mut self) {
        if self.srtt.is_none() {
            self.rto = SYN_LOST_RTO_NS.clamp(self.min_rto, self.max_rto);
        }
        self.backoff = 0;
    }

    /// The timeout in force, back-off included.
    pub fn rto(&self) -> Duration {
        self.rto
            .saturating_mul(1u64 << self.backoff.min(40))
            .min(self.max_rto)
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// The floor of the RTO (Linux's `tcp_rto_min`).
    pub fn min_rto(&self) -> Duration {
        self.min_rto
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Samples taken so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_ms(x)
    }

    #[test]
    fn first_and_second_sample_per_rfc6298() {
        // No lower bound, so the formula shows through.
        let mut e = RttEstimator::new(Duration::from_ns(1), Duration::from_secs(60));
        assert_eq!(
            e.rto(),
            Duration::from_secs(1),
            "RFC 6298 §2.1: 1 s before any sample"
        );
        e.sample(ms(100));
        // §2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300));
        e.sample(ms(200));
        // §2.3: RTTVAR = 3/4·50 + 1/4·|100 − 200| = 62.5 ms; SRTT = 7/8·100 + 1/8·200 = 112.5 ms.
        assert_eq!(e.rttvar(), Duration::from_ns(62_500_000));
        assert_eq!(e.srtt(), Some(Duration::from_ns(112_500_000)));
        assert_eq!(e.rto(), Duration::from_ns(112_500_000 + 250_000_000));
    }

    #[test]
    fn min_rto_and_backoff() {
        let mut e = RttEstimator::new(ms(200), Duration::from_secs(60));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(210), "SRTT + max(min_rto, 4 RTTVAR)");
        e.on_timeout();
        assert_eq!(e.rto(), ms(420));
        e.on_timeout();
        assert_eq!(e.rto(), ms(840));
        for _ in 0..20 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), Duration::from_secs(60), "capped at max_rto (§2.5)");
        // Karn: the back-off holds until a new sample.
        e.sample(ms(10));
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), ms(210));
        // A steady 300 ms RTT (RTTVAR → 0) keeps the timer min_rto above it.
        for _ in 0..100 {
            e.sample(ms(300));
        }
        assert!(e.rto() >= ms(499), "{:?}", e.rto());
    }

    #[test]
    fn syn_loss_gives_three_seconds() {
        let mut e = RttEstimator::new(ms(200), Duration::from_secs(60));
        e.on_timeout();
        e.syn_lost();
        assert_eq!(e.rto(), Duration::from_secs(3));
    }

    /// RFC 6298 §2.4 / ns-2: the floor bounds the whole RTO, so a steady RTT (RTTVAR → 0) brings
    /// the RTO down to it, where Linux's reading keeps it `min_rto` above.
    #[test]
    fn floor_on_the_total() {
        let mut e = RttEstimator::with(ms(200), Duration::from_secs(60), RtoFloor::Total, ms(3000));
        assert_eq!(e.rto(), ms(3000), "ns-2's rtxcur_init_");
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(200), "max(200, 10 + 4·5)");
        e.sample(ms(10));
        e.sample(ms(100));
        // RTTVAR = 3/4·(3/4·5) + 1/4·90 = 25.3125 ms, SRTT = 7/8·10 + 1/8·100 = 21.25 ms:
        // 122.5 ms, raised to the floor.
        assert_eq!(e.rto(), ms(200));
        for _ in 0..100 {
            e.sample(ms(300));
        }
        assert!(e.rto() < ms(301) && e.rto() >= ms(300), "{:?}", e.rto());
    }
}
