//! TCP small queues (Linux `tcp_small_queue_check` in `net/ipv4/tcp_output.c`, E. Dumazet,
//! 2012): a connection may keep only so many bytes in its own host's egress — qdisc, NIC ring,
//! the packet being serialized — before it stops and waits for one of them to leave (the TX
//! completion frees the skb; `tcp_wfree` schedules the socket's `tcp_write_xmit`). The queue
//! then forms in the socket, where it delays nothing else, instead of below it.
//!
//! The budget (Linux 6.16+): max(2 packets, pacing rate >> `sk_pacing_shift`), that is about 1 ms
//! of the pacing rate and never less than two packets, capped by `tcp_limit_output_bytes`, and
//! doubled for a retransmission. The check is against the connection's bytes in the host
//! (`sk_wmem_alloc`, which counts from 1 for the socket's own reference: two queued packets of
//! exactly the budget already stop a third), and a connection with at most one segment
//! unacknowledged always sends (`tcp_rtx_queue_empty_or_single_skb`, 6.6+: nothing would call
//! it back soon enough when TX completions are slow).
//!
//! Linux counts `skb->truesize` (the packet and its buffer overhead); bytes here are IP bytes,
//! so "two packets" is exactly two full segments.

use crate::net::host_tx::HostTx;

/// Linux's `sk_pacing_shift` default (`sock_init_data`: 10): the budget is the pacing rate over
/// 2^10, about 1 ms of it. (Some Wi-Fi drivers lower it to 7 or 8; not modelled.)
pub const PACING_SHIFT: u32 = 10;

/// `net.ipv4.tcp_limit_output_bytes` in Linux 6.16 and later (commit 9ea3bfa61b09, "tcp:
/// increase tcp_limit_output_bytes default value to 4MB"; it was 1 MiB, 16 × 64 KiB, from 4.20
/// and 256 KiB before).
pub const LIMIT_OUTPUT_BYTES: u64 = 4 << 20;

/// What one check reads.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// The connection's pacing rate in bytes per second (`None` before the first RTT sample:
    /// Linux's `sk_pacing_rate` is then ~0, unlimited).
    pub pacing_rate: Option<u64>,
    /// The packet about to leave, in IP bytes (Linux: its `truesize`): a segment, or a GSO
    /// buffer's segments together.
    pub pkt_bytes: u32,
    /// `tcp_limit_output_bytes`.
    pub limit_output: u64,
    /// A retransmission: the budget doubles (Linux's `factor` 1, from
    /// `tcp_xmit_retransmit_queue`).
    pub retransmit: bool,
    /// At most one segment sent and not yet acknowledged.
    pub alone: bool,
}

impl Check {
    /// The bytes the connection may keep in its host's egress.
    pub fn budget(&self) -> u64 {
        let rate = self.pacing_rate.unwrap_or(u64::MAX);
        let l = (2 * self.pkt_bytes as u64).max(rate >> PACING_SHIFT);
        l.min(self.limit_output) << self.retransmit as u32
    }

    /// Whether the segment must wait, given the connection's bytes in the host now.
    pub fn holds(&self, queued_bytes: u64) -> bool {
        queued_bytes + 1 > self.budget() && !self.alone
    }
}

/// `tcp_small_queue_check` for connection `conn` of the flow whose egress reports `host`: if
/// the segment must wait, the connection is marked as waiting for a completion (Linux's
/// `TSQ_THROTTLED`), which wakes it. A flow its egress does not track never waits.
#[inline]
pub fn throttles(host: &mut HostTx, conn: u32, check: &Check) -> bool {
    if !host.tracked || !check.holds(host.conn(conn).queued_bytes) {
        return false;
    }
    host.throttle(conn);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(rate: Option<u64>) -> Check {
        Check {
            pacing_rate: rate,
            pkt_bytes: 1500,
            limit_output: LIMIT_OUTPUT_BYTES,
            retransmit: false,
            alone: false,
        }
    }

    #[test]
    fn about_one_millisecond_of_the_pacing_rate_and_at_least_two_packets() {
        // 10 Mb/s paced at 1.2x: 1.5 MB/s, 1464 B a "millisecond": two packets win.
        assert_eq!(check(Some(1_500_000)).budget(), 3000);
        // 1 Gb/s: 125 MB/s >> 10 = 122,070 B, about 81 packets.
        assert_eq!(check(Some(125_000_000)).budget(), 125_000_000 >> 10);
        // Scales with the rate: ten times the rate, ten times the budget (to within rounding).
        let a = check(Some(50_000_000)).budget();
        let b = check(Some(500_000_000)).budget();
        assert!((b as f64 / a as f64 - 10.0).abs() < 1e-3);
        // No RTT sample yet: unlimited rate, capped at tcp_limit_output_bytes.
        assert_eq!(check(None).budget(), 4 << 20);
        let mut c = check(None);
        c.limit_output = 1 << 20;
        assert_eq!(c.budget(), 1 << 20);
    }

    #[test]
    fn retransmissions_get_twice_the_budget() {
        let mut c = check(Some(1_500_000));
        c.retransmit = true;
        assert_eq!(c.budget(), 6000);
    }

    #[test]
    fn two_packets_stop_a_third_unless_alone() {
        let c = check(Some(1_500_000));
        assert!(!c.holds(1500));
        assert!(c.holds(3000));
        let alone = Check { alone: true, ..c };
        assert!(!alone.holds(1 << 30));
    }

    #[test]
    fn only_a_tracked_flow_waits_and_is_marked() {
        let c = check(Some(1_500_000));
        let mut h = HostTx::default();
        h.tracked = true;
        h.on_send(0, 3000);
        assert!(throttles(&mut h, 0, &c));
        h.tracked = false;
        assert!(!throttles(&mut h, 0, &c));
        h.tracked = true;
        assert!(h.conn(0).throttled);
        assert!(!throttles(&mut h, 1, &c));
    }
}
