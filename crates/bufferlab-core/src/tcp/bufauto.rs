//! FreeBSD's socket-buffer auto-sizing (`net.inet.tcp.sendbuf_auto`, `net.inet.tcp.recvbuf_auto`,
//! both on by default since FreeBSD 7.0; `sys/netinet/tcp_output.c` and `tcp_input.c`): a
//! connection's send and receive buffers start at their defaults (`sendspace`, `recvspace`) and
//! grow by a step (`sendbuf_inc`, `recvbuf_inc`) up to a ceiling (`sendbuf_max`, `recvbuf_max`)
//! whenever the connection uses nearly all of one. They never shrink.
//!
//! Send side, checked as segments go out (`tcp_output`): the buffer grows when the peer's window
//! is at least 4/5 of it, the application keeps it at least 7/8 full, and the sending window
//! (the smaller of the peer's window and cwnd) covers every byte in it not yet sent: the buffer,
//! not the network or the peer, is what holds the connection back.
//!
//! Receive side, checked as in-order data arrives (`tcp_input`'s fast path): from the first ACK
//! the receiver sends after a reset (its timestamp is the mark), it counts the payload bytes that
//! arrive until a segment echoes a later timestamp of its own, one round trip on. If the ACK so
//! echoed left within a second of the mark and the round trip brought more than 7/8 of the
//! buffer, the buffer grows by a step; either way the count starts over (an echo a second or
//! more after the mark keeps counting instead). A window-limited bulk transfer brings its whole
//! window every round trip, so its receive window grows by a step per round trip, and its send
//! buffer follows; the two stop only at their ceilings or when cwnd, not the windows, limits.
//! Without the timestamp option nothing is measured and the buffer keeps its size.

use crate::time::{Duration, Instant};

/// How one buffer grows: by `inc_bytes` at a time, never past `max_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AutoSize {
    pub inc_bytes: u64,
    pub max_bytes: u64,
}

impl AutoSize {
    fn step(&self, size: u64) -> u64 {
        (size + self.inc_bytes).min(self.max_bytes).max(size)
    }

    /// The send buffer after a segment goes out: `size` now, `held` bytes in it (written by the
    /// application and not yet acknowledged), `flight` of them sent, the peer's window and cwnd.
    pub fn grow_send(&self, size: u64, held: u64, flight: u64, peer_wnd: u64, cwnd: u64) -> u64 {
        let unsent = held.saturating_sub(flight);
        if peer_wnd / 4 * 5 >= size
            && held >= size / 8 * 7
            && held < self.max_bytes
            && peer_wnd.min(cwnd) >= unsent
        {
            self.step(size)
        } else {
            size
        }
    }
}

/// The receive side's measurement (FreeBSD's `rfbuf_ts` and `rfbuf_cnt`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RecvAuto {
    mark: Option<Instant>,
    count: u64,
}

/// The longest round trip a measurement may take (FreeBSD: `hz` ticks, one second).
const MAX_ROUND: Duration = Duration::from_secs(1);

impl RecvAuto {
    /// The receiver sends an ACK stamped `now`: the first after a reset opens a measurement.
    pub fn on_ack_sent(&mut self, now: Instant) {
        if self.mark.is_none() {
            self.mark = Some(now);
        }
    }

    /// An in-order segment of `len` payload bytes echoing `ts_ecr` arrives at a buffer of
    /// `size` bytes: the buffer's new size.
    pub fn on_segment(&mut self, a: &AutoSize, size: u64, ts_ecr: Instant, len: u64) -> u64 {
        match self.mark {
            Some(m) if ts_ecr > m && ts_ecr.saturating_since(m) < MAX_ROUND => {
                let grow = self.count > size / 8 * 7 && size < a.max_bytes;
                *self = RecvAuto::default();
                if grow {
                    a.step(size)
                } else {
                    size
                }
            }
            _ => {
                self.count += len;
                size
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // FreeBSD 9's defaults (sys/netinet/tcp_output.c, tcp_input.c).
    const SEND: AutoSize = AutoSize {
        inc_bytes: 8192,
        max_bytes: 2_097_152,
    };
    const RECV: AutoSize = AutoSize {
        inc_bytes: 16384,
        max_bytes: 2_097_152,
    };

    #[test]
    fn send_buffer_grows_only_when_it_is_the_limit() {
        // Bulk sender, all of the buffer in flight, peer's window 64 KiB: 32 KiB -> 40 KiB.
        assert_eq!(SEND.grow_send(32768, 32768, 32768, 65536, 1 << 20), 40960);
        // The peer's window (x 5/4) below the buffer: no growth (64 KiB x 5/4 = 80 KiB).
        assert_eq!(SEND.grow_send(81920, 81920, 81920, 65536, 1 << 20), 90112);
        assert_eq!(SEND.grow_send(90112, 90112, 90112, 65536, 1 << 20), 90112);
        // Application-limited (buffer under 7/8 full): no growth.
        assert_eq!(SEND.grow_send(32768, 20000, 20000, 65536, 1 << 20), 32768);
        // cwnd-limited: unsent bytes beyond the window: no growth.
        assert_eq!(SEND.grow_send(32768, 32768, 10000, 65536, 10000), 32768);
        // The ceiling.
        assert_eq!(
            SEND.grow_send(2_093_056, 2_093_056, 2_093_056, 1 << 30, 1 << 30),
            2_097_152
        );
        assert_eq!(
            SEND.grow_send(2_097_152, 2_097_152, 2_097_152, 1 << 30, 1 << 30),
            2_097_152
        );
    }

    fn ms(x: u64) -> Instant {
        Instant::ZERO + Duration::from_ms(x)
    }

    /// One round trip of `rtt_ms` bringing `bytes` in 1448 B segments, then the echo that closes it.
    fn round(r: &mut RecvAuto, size: u64, t0: u64, rtt_ms: u64, bytes: u64) -> u64 {
        r.on_ack_sent(ms(t0));
        let mut s = size;
        let mut got = 0;
        while got < bytes {
            // segments echo an older timestamp than the mark until the round trip is over
            s = r.on_segment(&RECV, s, ms(t0.saturating_sub(1)), 1448);
            got += 1448;
        }
        r.on_segment(&RECV, s, ms(t0 + rtt_ms), 1448)
    }

    #[test]
    fn receive_buffer_grows_when_a_round_trip_fills_seven_eighths() {
        let mut r = RecvAuto::default();
        // 60 000 B in one 200 ms round trip > 7/8 of 64 KiB (57 344): 64 KiB -> 80 KiB.
        assert_eq!(round(&mut r, 65536, 1000, 200, 60_000), 81920);
        // 50 000 B < 7/8 of 80 KiB: stays.
        assert_eq!(round(&mut r, 81920, 2000, 200, 50_000), 81920);
    }

    #[test]
    fn a_round_trip_of_a_second_or_more_stops_growth() {
        let mut r = RecvAuto::default();
        assert_eq!(round(&mut r, 65536, 1000, 1000, 200_000), 65536);
        // The mark was kept: a later echo within a second of it grows on everything counted.
        assert_eq!(r.on_segment(&RECV, 65536, ms(1500), 1448), 81920);
    }
}
