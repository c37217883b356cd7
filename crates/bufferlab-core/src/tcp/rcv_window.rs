//! Linux's receive window as it opens, for the one thing it decides here: while the window a
//! receiver advertises is still growing, each segment that grows it is acknowledged at once
//! (`tcp_grow_window` sets `icsk_ack.quick`), so in slow start a Linux receiver ACKs segment by
//! segment, not every second one. That ACK train, 1.2 ms apart at 10 Mb/s rather than the
//! delayed ACKs' 2.4 ms, is what lets Cubic's HyStart see a train longer than half the minimum
//! RTT and leave slow start (`tcp_cubic.c`, `hystart_ack_delta_us` = 2 ms).
//!
//! The window (`rcv_ssthresh`) grows by two segments for every segment of at least 128 bytes
//! (`tcp_event_data_recv`; `tcp_grow_window`'s increment for a segment whose buffer fits its
//! share of the receive buffer), up to what the receive buffer allows (`window_clamp`, with
//! `tcp_space` the same while the application reads at once). The receive buffer itself grows
//! once per receiver RTT (dynamic right-sizing, `tcp_rcv_space_adjust` and `tcp_rcvbuf_grow` as
//! of Linux 6.18): when the bytes read in the last RTT, n, exceed the most ever read in one, o,
//! the window may reach 2n (one RTT late) plus twice that times the growth (n − o)/o (slow
//! start doubles the rate each RTT). So in slow start the bound runs ahead of the window for
//! part of each round trip, and the receiver ACKs segment by segment for that part, in pairs
//! (delayed ACKs) for the rest: the pattern captured from Linux 6.18 on the kernel backend.
//!
//! The window is not advertised here (the block's `rwnd` is): in slow start Linux's bound grows
//! threefold per RTT and the sender's window twofold, so it rarely limits a sender; it only
//! times the ACKs.
//!
//! State apart from [`super::receiver::RecvConn`], time and the receiver's RTT passed in.

use crate::time::{Duration, Instant};

/// `tcp_rmem[1]`: the receive buffer's starting size (bytes).
const RMEM_DEFAULT: u64 = 131_072;
/// `tcp_rmem[2]` (32 MiB since Linux 6.16, as on the kernel backend).
const RMEM_MAX: u64 = 32 << 20;
/// The share of buffer memory that is payload (`scaling_ratio`, out of 256: a segment's
/// length over its buffer's `truesize`). 160 is what Linux 6.18 measures for 1448-byte segments
/// on the kernel backend's devices (its `tcp_rcvbuf_grow` trace: `scaling_ratio=160`, a window
/// clamp of 81,920 bytes for the first 131,072 of buffer). It depends on the driver's buffers;
/// 128 (`TCP_DEFAULT_SCALING_RATIO`) before any data arrives.
const SCALING_RATIO: u64 = 160;
const DEFAULT_SCALING_RATIO: u64 = 128;
/// `TCP_INIT_CWND`: the first measure of bytes read per RTT is ten segments.
const INIT_SPACE_SEGS: u64 = 10;
/// Segments shorter than this do not grow the window (`tcp_event_data_recv`).
const MIN_GROW_LEN: u32 = 128;

/// `tcp_win_from_space`: the window a buffer of `space` bytes may advertise.
fn win_from_space(space: u64) -> u64 {
    (space * SCALING_RATIO) >> 8
}

#[derive(Clone, Debug, Default)]
pub struct RcvWindow {
    /// `rcv_ssthresh`: how far the window has opened (bytes); 0 before the first data.
    ssthresh: u64,
    /// `window_clamp`: what the receive buffer lets it open to.
    clamp: u64,
    /// `rcvq_space`: the most bytes read in one RTT, and where and when this RTT's count began.
    space: u64,
    space_seq: u64,
    space_time: Instant,
}

impl RcvWindow {
    /// In-order (or, with SACK, out-of-order) data of `len` bytes arrived at `now`, with
    /// segments of `mss` bytes: whether it grew the window, in which case Linux ACKs it at once.
    /// Called before the application reads it ([`RcvWindow::on_read`]).
    pub fn on_segment(&mut self, now: Instant, len: u32, mss: u32) -> bool {
        let mss = mss.max(1) as u64;
        if self.ssthresh == 0 {
            // `tcp_select_initial_window`: the buffer's window at the default ratio, whole
            // segments; `tcp_init_buffer_space`: the clamp at the measured ratio, the first
            // measure ten segments.
            self.ssthresh = ((RMEM_DEFAULT * DEFAULT_SCALING_RATIO) >> 8) / mss * mss;
            self.clamp = win_from_space(RMEM_DEFAULT);
            self.space = INIT_SPACE_SEGS * mss;
            self.space_time = now;
        }
        // The room is up to the clamp and to the free buffer (`tcp_space`), which the segment
        // being taken in already occupies: its share of the buffer is its length (the ratio is
        // measured from such segments). Linux 6.18's window stopped at 80,480 bytes, 81,920 less
        // one 1448-byte segment.
        let bound = self.clamp.saturating_sub(len as u64);
        if len < MIN_GROW_LEN || self.ssthresh >= bound {
            return false;
        }
        self.ssthresh = (self.ssthresh + 2 * mss.max(len as u64)).min(bound);
        true
    }

    /// The application has read everything up to `copied` at `now` (the applications here read
    /// at once), with the receiver's RTT estimate `rtt` (`rcv_rtt_est`): once per RTT, the
    /// buffer grows if more was read in it than in any before.
    pub fn on_read(&mut self, now: Instant, copied: u64, rtt: Option<Duration>) {
        let Some(rtt) = rtt else { return };
        if self.ssthresh == 0 || now.saturating_since(self.space_time) < rtt {
            return;
        }
        let n = copied.saturating_sub(self.space_seq);
        let o = self.space.max(1);
        if n > o {
            // `tcp_rcvbuf_grow`: 2n, plus twice that times the growth.
            let win = 2 * n;
            let win =
                win + 2 * (win as u128 * (n - o) as u128 / o as u128).min(u64::MAX as u128) as u64;
            // `tcp_space_from_win` then `tcp_win_from_space`: the buffer is capped, not the window.
            let buf = ((win as u128) << 8) / SCALING_RATIO as u128;
            let buf = buf.min(RMEM_MAX as u128) as u64;
            self.clamp = self.clamp.max(win_from_space(buf));
            self.space = n;
        }
        self.space_seq = copied;
        self.space_time = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_ms(ms)
    }

    /// A Linux 6.18 receiver's first rounds of slow start on the kernel backend (10 Mb/s, 44 ms
    /// RTT, segments 1.2 ms apart): 10 segments, then 20, then 40. Traced (`tcp_rcvbuf_grow`):
    /// the first RTT's read, 11 segments against the first measure's 10, leaves the buffer at
    /// 131,072 B; the second, 20 against 11, lifts the clamp to 152,697 B = 2·28,960·(1 +
    /// 2·(28,960 − 15,928)/15,928); the third, 40 against 20, to 347,520 B. The window (65,160 B
    /// at first) grew on the first 6 segments and stopped at 80,480 B, then on segments 33–63.
    #[test]
    fn the_bound_triples_each_round_of_slow_start_and_the_window_follows_two_segments_a_segment() {
        let mut w = RcvWindow::default();
        let rtt = Some(Duration::from_ms(45));
        let mut copied = 0u64;
        let mut quick = Vec::new();
        // Round 3 up to 134 ms, before the third RTT's read.
        for (start, n) in [(0u64, 10u64), (45, 20), (90, 38)] {
            let mut q = 0;
            for i in 0..n {
                let t = at(start) + Duration::from_us(1200 * i);
                q += w.on_segment(t, MSS, MSS) as u32;
                copied += MSS as u64;
                w.on_read(t, copied, rtt);
            }
            quick.push(q);
        }
        assert_eq!(w.clamp, 152_697);
        assert_eq!(quick[..2], [6, 0]);
        assert!((22..=34).contains(&quick[2]), "{quick:?}");
        assert_eq!(w.space, 20 * MSS as u64);
    }

    #[test]
    fn short_segments_and_a_full_window_do_not_hurry_the_ack() {
        let mut w = RcvWindow::default();
        assert!(w.on_segment(at(0), MSS, MSS));
        assert!(!w.on_segment(at(1), 100, MSS), "under 128 bytes");
        while w.on_segment(at(2), MSS, MSS) {}
        assert_eq!(
            w.ssthresh,
            w.clamp - MSS as u64,
            "the segment taken in holds its share"
        );
        assert!(!w.on_segment(at(3), MSS, MSS));
    }

    /// `tcp_rcv_space_adjust`: no growth within an RTT of the last measure, nor when an RTT
    /// read no more than the most before; the measure restarts either way.
    #[test]
    fn the_buffer_grows_once_per_rtt_and_only_past_the_most_read() {
        let mut w = RcvWindow::default();
        let rtt = Some(Duration::from_ms(40));
        w.on_segment(at(0), MSS, MSS);
        let clamp0 = w.clamp;
        w.on_read(at(39), 100 * MSS as u64, rtt);
        assert_eq!(w.clamp, clamp0, "within the RTT");
        w.on_read(at(40), 10 * MSS as u64, rtt);
        assert_eq!(
            (w.clamp, w.space_seq),
            (clamp0, 10 * MSS as u64),
            "ten segments: not more"
        );
        w.on_read(at(80), 30 * MSS as u64, rtt);
        // n = 20 segments against 10: 2·20·(1 + 2) = 120 segments.
        assert_eq!(w.clamp, 120 * MSS as u64);
        assert_eq!(w.space, 20 * MSS as u64);
        w.on_read(at(85), 1000 * MSS as u64, None);
        assert_eq!(
            w.space_seq,
            30 * MSS as u64,
            "no RTT estimate: nothing measured"
        );
    }
}
