//! The ballast's closed forms: Braud, Heusse, Duda (2013), "TCP over Large Buffers: When Adding
//! Traffic Improves Latency", §II, eqs. 6–7.
//!
//! A packet-count buffer fills with whatever arrives. Beside a TCP upload sending `R_T` segments
//! per second, a stream of `R_U` tiny UDP packets per second makes the buffer's occupancy grow
//! `(R_U + R_T) / R_T` times faster (eq. 5), so the upload's window stops growing that much
//! earlier and the queueing delay shrinks by the same factor `α`.

/// Eq. 6: the UDP packet rate that cuts the upload's queueing delay by the factor `alpha` (≥ 1):
/// `R_U = R_T (α − 1)`. Matching the TCP segment rate (`α = 2`) halves the delay (§II-D).
pub fn rate_for_reduction(tcp_pps: f64, alpha: f64) -> f64 {
    tcp_pps * (alpha - 1.0).max(0.0)
}

/// The reduction factor a UDP rate gives (eq. 6 solved for `α`): `α = 1 + R_U / R_T`.
pub fn reduction_for_rate(tcp_pps: f64, udp_pps: f64) -> f64 {
    if tcp_pps > 0.0 {
        1.0 + udp_pps / tcp_pps
    } else {
        f64::INFINITY
    }
}

/// Eq. 7: the share of the uplink's bytes the UDP stream takes for a reduction `alpha`, with TCP
/// segments of `tcp_bytes` and UDP packets of `udp_bytes`:
/// `OH_U = 1 / (1 + (S_T / S_U) / (α − 1))`.
pub fn overhead_share(alpha: f64, tcp_bytes: f64, udp_bytes: f64) -> f64 {
    if alpha <= 1.0 {
        return 0.0;
    }
    1.0 / (1.0 + (tcp_bytes / udp_bytes) / (alpha - 1.0))
}

/// The largest UDP rate whose share of the bytes sent (`R_U S_U / (R_U S_U + R_T S_T)`, eq. 7's
/// left side) stays at or below `share` (in [0, 1)).
pub fn max_rate_for_share(tcp_pps: f64, tcp_bytes: f64, udp_bytes: f64, share: f64) -> f64 {
    if share <= 0.0 || tcp_pps <= 0.0 {
        return 0.0;
    }
    if share >= 1.0 {
        return f64::INFINITY;
    }
    share / (1.0 - share) * tcp_pps * tcp_bytes / udp_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    // §II-D: "matching this rate will halve queueing delay".
    #[test]
    fn matching_the_segment_rate_halves_the_delay() {
        assert_eq!(rate_for_reduction(66.7, 2.0), 66.7);
        assert_eq!(reduction_for_rate(66.7, 66.7), 2.0);
        assert_eq!(rate_for_reduction(66.7, 1.0), 0.0);
        assert_eq!(rate_for_reduction(66.7, 0.5), 0.0);
    }

    // Eq. 7 with the paper's sizes: 1500 B segments, 29 B UDP packets, α = 2 costs
    // 1 / (1 + 1500/29) = 1.90 % of the bytes; α = 5 costs 1 / (1 + 1500/(29·4)) = 7.18 %.
    #[test]
    fn overhead_of_eq_7() {
        assert!((overhead_share(2.0, 1500.0, 29.0) - 0.018_97).abs() < 1e-4);
        assert!((overhead_share(5.0, 1500.0, 29.0) - 0.071_78).abs() < 1e-4);
        assert_eq!(overhead_share(1.0, 1500.0, 29.0), 0.0);
    }

    // The share cap and eq. 7 are one relation read both ways.
    #[test]
    fn share_cap_inverts_eq_7() {
        for alpha in [1.5, 2.0, 4.0, 13.0, 40.0] {
            let share = overhead_share(alpha, 1500.0, 29.0);
            let r = max_rate_for_share(70.0, 1500.0, 29.0, share);
            assert!(
                (r - rate_for_reduction(70.0, alpha)).abs() < 1e-9 * r.max(1.0),
                "{alpha}"
            );
        }
        assert_eq!(max_rate_for_share(70.0, 1500.0, 29.0, 0.0), 0.0);
        assert_eq!(max_rate_for_share(0.0, 1500.0, 29.0, 0.2), 0.0);
    }
}
