//! The pacing rate a Linux sender keeps for every connection (`sk_pacing_rate`, set by
//! `tcp_update_pacing_rate` in `net/ipv4/tcp_input.c` after each ACK): a multiple of the rate
//! the window sustains, cwnd·MSS / SRTT. It paces the connection only where something uses it
//! (the `fq` qdisc, TCP's internal pacing, BBR), but TCP small queues size their per-flow budget
//! from it whether or not the connection is paced.

use crate::time::Duration;

/// `net.ipv4.tcp_pacing_ss_ratio`: 200 %, twice the window's rate in slow start, so the window
/// can still double every round trip (Linux since 4.3).
pub const SS_RATIO_PERCENT: u64 = 200;
/// `net.ipv4.tcp_pacing_ca_ratio`: 120 % in congestion avoidance, a little above the window's
/// rate so that pacing does not slow the ACK clock.
pub const CA_RATIO_PERCENT: u64 = 120;

/// The window a rate is computed from.
#[derive(Clone, Copy, Debug)]
pub struct PacingInput {
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    /// Bytes sent and not yet cumulatively acknowledged (Linux's `packets_out` in bytes).
    pub outstanding_bytes: u64,
    pub srtt: Option<Duration>,
}

/// Linux's rate in bytes per second, or `None` (unlimited) before the first RTT sample: with
/// `srtt_us` = 0 the kernel skips the division and the rate is far above any link.
///
/// The slow-start ratio applies while cwnd < ssthresh / 2, not cwnd < ssthresh: near the end of
/// slow start the kernel already slows to the congestion-avoidance ratio. The window counted is
/// max(cwnd, packets out), so a recovery that has more in flight than its window is not starved.
pub fn linux_rate(w: &PacingInput, ss_ratio: u64, ca_ratio: u64) -> Option<u64> {
    let srtt = w.srtt?.as_ns();
    if srtt == 0 {
        return None;
    }
    let ratio = if w.cwnd_bytes < w.ssthresh_bytes / 2 {
        ss_ratio
    } else {
        ca_ratio
    };
    let window = w.cwnd_bytes.max(w.outstanding_bytes) as u128;
    let rate = window * ratio as u128 * 1_000_000_000 / (100 * srtt as u128);
    Some(rate.min(u64::MAX as u128) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(cwnd: u64, ssthresh: u64, out: u64, srtt_ms: u64) -> PacingInput {
        PacingInput {
            cwnd_bytes: cwnd,
            ssthresh_bytes: ssthresh,
            outstanding_bytes: out,
            srtt: Some(Duration::from_ms(srtt_ms)),
        }
    }

    #[test]
    fn twice_the_window_rate_in_slow_start_and_six_fifths_after() {
        // 10 segments of 1448 B over 100 ms: 144,800 B/s; slow start (ssthresh unset) doubles
        // it, congestion avoidance takes 1.2 times.
        let ss = linux_rate(&input(14_480, u64::MAX / 4, 0, 100), 200, 120).unwrap();
        assert_eq!(ss, 289_600);
        let ca = linux_rate(&input(14_480, 14_480, 0, 100), 200, 120).unwrap();
        assert_eq!(ca, 173_760);
    }

    #[test]
    fn slow_start_ratio_ends_at_half_ssthresh() {
        // cwnd = 40 segments, ssthresh = 60: cwnd < ssthresh but not < ssthresh / 2.
        let r = linux_rate(&input(40 * 1448, 60 * 1448, 0, 10), 200, 120).unwrap();
        assert_eq!(r, 40 * 1448 * 120 * 1_000_000_000 / (100 * 10_000_000));
        let r = linux_rate(&input(29 * 1448, 60 * 1448, 0, 10), 200, 120).unwrap();
        assert_eq!(r, 29 * 1448 * 2 * 100);
    }

    #[test]
    fn counts_what_is_out_when_it_exceeds_the_window() {
        let a = linux_rate(&input(10 * 1448, 10 * 1448, 30 * 1448, 20), 200, 120).unwrap();
        let b = linux_rate(&input(30 * 1448, 30 * 1448, 0, 20), 200, 120).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn unlimited_before_the_first_sample() {
        let mut w = input(14_480, u64::MAX, 0, 1);
        w.srtt = None;
        assert_eq!(linux_rate(&w, 200, 120), None);
    }
}
