//! How a Linux sender cuts its data into GSO packets (`net/ipv4/tcp_output.c`): every
//! transmission hands the device one buffer of up to `tcp_tso_autosize` segments, which leave
//! back to back, and a buffer that the window would cut short may wait for the next ACK
//! (`tcp_tso_should_defer`, "a kind of TSO Nagle test"). A device segments the buffer itself
//! (TSO) or the stack does just before the driver (GSO, on every Linux device by default); on the
//! wire either gives the same packets. What it changes is *when* they leave: in bursts of two or
//! more above ~1.2 Mb/s, and a window that has room for a single segment often waits a moment to
//! send two. At one flow through a FIFO that waiting is what keeps Linux at about one loss per
//! congestion event where a sender of single segments loses two (docs/tcp.md, GSO).
//!
//! Pure functions of what the sender knows; the sender applies them to its new data.

use crate::time::{Duration, Instant};

/// The largest GSO buffer a socket builds: the device's 64 KiB (`GSO_LEGACY_MAX_SIZE`, a TUN or
/// Ethernet device's `gso_max_size`) less the header room TCP reserves (`sk_setup_caps`:
/// `MAX_TCP_HEADER + 1`, 321 B on x86-64).
pub const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;
/// `sk_pacing_shift`: a buffer carries about 1/2^10 s (~1 ms) of the pacing rate.
pub const PACING_SHIFT: u32 = 10;
/// `net.ipv4.tcp_tso_rtt_log` (9, since 5.18): below ~3 ms of minimum RTT the buffer grows by
/// 64 KiB halved for every 2^9 µs of it, so that near peers send larger buffers.
pub const TSO_RTT_LOG: u32 = 9;
/// `net.ipv4.tcp_tso_win_divisor` (3): a buffer may take up to a third of the window without
/// waiting.
pub const TSO_WIN_DIVISOR: u64 = 3;
/// `net.ipv4.tcp_min_tso_segs` (2).
pub const MIN_TSO_SEGS: u32 = 2;

/// Segments per buffer (`tcp_tso_autosize`): the pacing rate's bytes in ~1 ms, plus the
/// near-peer allowance, at most [`GSO_MAX_BYTES`], at least `min_segs`. `pacing_rate` in bytes per
/// second (`None`: not yet measured, as Linux's initial `~0` rate, i.e. the largest buffer).
pub fn autosize(
    pacing_rate: Option<u64>,
    min_rtt: Option<Duration>,
    mss: u64,
    min_segs: u32,
) -> u64 {
    let mut bytes = pacing_rate.map_or(GSO_MAX_BYTES, |r| r >> PACING_SHIFT);
    // Linux reads `tcp_min_rtt`, ~0U before a sample: no allowance then.
    if let Some(rtt) = min_rtt {
        let r = (rtt.as_ns() / 1_000) >> TSO_RTT_LOG;
        if r < 32 {
            bytes += 65_536 >> r;
        }
    }
    (bytes.min(GSO_MAX_BYTES) / mss.max(1)).max(min_segs as u64)
}

/// The size the application's writes are cut into in the send queue (`tcp_xmit_size_goal`):
/// the largest GSO buffer, or half the peer's window if that is smaller (`tcp_bound_to_half_wnd`),
/// in whole segments, at least one.
pub fn size_goal(peer_window: u64, mss: u64) -> u64 {
    let cutoff = if peer_window > 536 {
        peer_window / 2
    } else {
        peer_window
    };
    let goal = GSO_MAX_BYTES.min(cutoff.max(1));
    (goal / mss).max(1) * mss
}

/// What `tcp_tso_should_defer` looks at when the buffer at the head of the send queue holds more
/// than one segment.
#[derive(Clone, Copy, Debug)]
pub struct DeferInput {
    pub now: Instant,
    /// The departure time of the last data sent (`tcp_wstamp_ns`).
    pub last_write: Instant,
    /// In loss recovery or after a timeout (`icsk_ca_state >= TCP_CA_Recovery`).
    pub recovering: bool,
    /// Bytes the congestion window has room for, and the peer's window (or the send buffer)
    /// beyond the buffer's first byte.
    pub cong_win: u64,
    pub send_win: u64,
    /// The whole congestion window and the peer's whole window (or the send buffer), bytes: a
    /// third of the smaller is what may go without waiting.
    pub cwnd: u64,
    pub snd_wnd: u64,
    pub mss: u64,
    /// Segments per buffer ([`autosize`]).
    pub max_segs: u64,
    /// Bytes in the buffer, and whether it is the last of the send queue.
    pub skb_len: u64,
    pub tail: bool,
    /// When the oldest unacknowledged segment was last sent, and the smoothed RTT.
    pub head_sent: Option<Instant>,
    pub srtt: Option<Duration>,
}

/// Why a buffer waits, or that it goes now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Send,
    /// The congestion window cuts it short: the flow counts as window-limited.
    CwndLimited,
    /// The peer's window (or the send buffer) cuts it short.
    RwndLimited,
}

/// `tcp_tso_should_defer` as of Linux 6.18 (with the October 2025 rule for when the next ACK is
/// due): wait only if the last data left within 1 ms, the window allows less than a full buffer
/// and less than a third of itself, and the ACK of the oldest segment in flight is due within
/// min(SRTT / 2, 1 ms), so that waiting costs at most that long.
pub fn should_defer(d: &DeferInput) -> Verdict {
    const MS: u64 = 1_000_000;
    if d.recovering || d.now.saturating_since(d.last_write).as_ns() > MS {
        return Verdict::Send;
    }
    let limit = d.cong_win.min(d.send_win);
    if limit >= d.max_segs * d.mss {
        return Verdict::Send;
    }
    // A buffer in the middle of the queue gets no more data: if all of it fits, send it.
    if !d.tail && limit >= d.skb_len {
        return Verdict::Send;
    }
    let chunk = d.snd_wnd.min(d.cwnd) / TSO_WIN_DIVISOR;
    if limit >= chunk {
        return Verdict::Send;
    }
    let (Some(head), Some(srtt)) = (d.head_sent, d.srtt) else {
        return Verdict::Send;
    };
    let expected = head + srtt;
    let threshold = Duration::from_ns((srtt.as_ns() / 2).min(MS));
    if expected.saturating_since(d.now) > threshold {
        return Verdict::Send;
    }
    if d.cong_win < d.send_win {
        if d.cong_win <= d.skb_len {
            return Verdict::CwndLimited;
        }
    } else if d.send_win <= d.skb_len {
        return Verdict::RwndLimited;
    }
    // What is left is the last buffer, whole within the windows: Linux waits for the
    // application to add to it unless it carries FIN or end-of-record. bufferlab's applications
    // write whole messages and close after them, so it goes.
    Verdict::Send
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    #[test]
    fn autosize_is_a_millisecond_of_the_rate_at_least_two() {
        // 12 Mb/s (1.2 × a 10 Mb/s window rate): 1.5 kB per ms, one segment, so the floor's two.
        assert_eq!(
            autosize(Some(1_500_000), Some(Duration::from_ms(44)), MSS, 2),
            2
        );
        // 1 Gb/s: 125 kB/ms, capped at the 64 KiB buffer: 45 segments.
        assert_eq!(
            autosize(Some(125_000_000), Some(Duration::from_ms(44)), MSS, 2),
            45
        );
        // 100 Mb/s: 12.2 kB per 1024 µs, 8 segments.
        assert_eq!(
            autosize(Some(12_500_000), Some(Duration::from_ms(44)), MSS, 2),
            8
        );
        // BBR below 1.2 Mb/s asks for single segments.
        assert_eq!(
            autosize(Some(100_000), Some(Duration::from_ms(44)), MSS, 1),
            1
        );
        // A 1 ms peer: 1000 µs >> 9 = 1, half of 64 KiB more: 12.2 kB + 32.8 kB → 31 segments.
        assert_eq!(
            autosize(Some(12_500_000), Some(Duration::from_ms(1)), MSS, 2),
            31
        );
        // No rate yet: the largest buffer.
        assert_eq!(autosize(None, None, MSS, 2), 45);
    }

    #[test]
    fn size_goal_is_the_gso_buffer_or_half_the_peer_window() {
        assert_eq!(size_goal(1 << 30, MSS), 45 * MSS);
        assert_eq!(size_goal(20 * MSS, MSS), 10 * MSS);
        assert_eq!(size_goal(100, MSS), MSS);
    }

    fn base() -> DeferInput {
        let now = Instant::from_ns(1_000_000_000);
        DeferInput {
            now,
            last_write: now,
            recovering: false,
            cong_win: MSS,
            send_win: 1 << 30,
            cwnd: 40 * MSS,
            snd_wnd: 1 << 30,
            mss: MSS,
            max_segs: 2,
            skb_len: 45 * MSS,
            tail: false,
            // Sent 43.5 ms ago with a 44 ms SRTT: its ACK is due in 0.5 ms.
            head_sent: Some(now - Duration::from_us(43_500)),
            srtt: Some(Duration::from_ms(44)),
        }
    }

    #[test]
    fn one_segment_of_room_waits_when_the_ack_is_due() {
        assert_eq!(should_defer(&base()), Verdict::CwndLimited);
    }

    #[test]
    fn each_rule_that_sends_now() {
        let d = base();
        // The ACK due in 2 ms, more than min(SRTT/2, 1 ms).
        let late = DeferInput {
            head_sent: Some(d.now - Duration::from_ms(42)),
            ..d
        };
        assert_eq!(should_defer(&late), Verdict::Send);
        // Room for the full buffer of two.
        assert_eq!(
            should_defer(&DeferInput {
                cong_win: 2 * MSS,
                ..d
            }),
            Verdict::Send
        );
        // Nothing sent for more than 1 ms.
        let idle = DeferInput {
            last_write: d.now - Duration::from_us(1_001),
            ..d
        };
        assert_eq!(should_defer(&idle), Verdict::Send);
        // In recovery.
        assert_eq!(
            should_defer(&DeferInput {
                recovering: true,
                ..d
            }),
            Verdict::Send
        );
        // A third of a small window is one segment.
        assert_eq!(
            should_defer(&DeferInput { cwnd: 3 * MSS, ..d }),
            Verdict::Send
        );
        // A middle buffer that fits whole.
        assert_eq!(
            should_defer(&DeferInput { skb_len: MSS, ..d }),
            Verdict::Send
        );
        // The last buffer (bufferlab's writes are whole messages).
        let tail = DeferInput {
            tail: true,
            skb_len: 3 * MSS,
            cong_win: 4 * MSS,
            max_segs: 8,
            ..d
        };
        assert_eq!(should_defer(&tail), Verdict::Send);
        // No segment in flight.
        assert_eq!(
            should_defer(&DeferInput {
                head_sent: None,
                ..d
            }),
            Verdict::Send
        );
    }

    #[test]
    fn the_peer_window_may_be_what_waits() {
        let d = base();
        // The peer's 20-segment window has one segment of room left.
        let rwnd = DeferInput {
            cong_win: 4 * MSS,
            send_win: MSS,
            snd_wnd: 20 * MSS,
            max_segs: 8,
            ..d
        };
        assert_eq!(should_defer(&rwnd), Verdict::RwndLimited);
    }
}
