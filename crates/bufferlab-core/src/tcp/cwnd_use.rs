//! Whether the congestion window is what limits a flow, as Linux decides it before growing the
//! window (`tcp_cwnd_validate` after each transmission round, `tcp_is_cwnd_limited` on each ACK).
//!
//! A window only grows while the flow fills it (RFC 7661 §4.1's concern: a window an
//! application- or receiver-limited flow never used says nothing about the path). Asking whether
//! the *last* send attempt was stopped by the window is too narrow a test: a cumulative ACK that
//! ends a recovery, or a stretch ACK after ACK losses, finds the window momentarily open and stops
//! growth a flow still needs, and the opposite reading (grow on every ACK) lets such an ACK regrow
//! a window in one burst. Linux latches the answer for a window of data: once the window filled
//! (packets in flight reached cwnd) anywhere in the data sent since the latch was last set, every
//! ACK of that data may grow it; and in slow start it grows whenever cwnd is below twice the most
//! packets that were out in that window, so that slow start can double what the flow used.

/// The latch: `tcp_sock`'s `is_cwnd_limited`, `max_packets_out` and `cwnd_usage_seq`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwndUse {
    limited: bool,
    max_out: u64,
    /// One past the last byte sent when the latch was set: the window it covers ends there.
    until: u64,
}

impl CwndUse {
    /// A transmission round ended (`tcp_cwnd_validate`, called when `tcp_write_xmit` sent
    /// something or was stopped by the window): `out` segments are outstanding, SND.UNA is `una`,
    /// SND.NXT `nxt`, and `limited` says whether the window stopped it or is full. The latch is
    /// renewed when its window has been acknowledged, when the window limits now, or, while it is
    /// not set, when more segments are out than its maximum.
    pub fn on_write(&mut self, una: u64, nxt: u64, out: u64, limited: bool) {
        if una >= self.until || limited || (!self.limited && out > self.max_out) {
            self.limited = limited;
            self.max_out = out;
            self.until = nxt;
        }
    }

    /// `tcp_is_cwnd_limited`: may an ACK grow a window of `cwnd` segments? `slow_start`: cwnd is
    /// below ssthresh.
    pub fn cwnd_limited(&self, cwnd: u64, slow_start: bool) -> bool {
        self.limited || (slow_start && cwnd < 2 * self.max_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_window_is_remembered_until_its_data_is_acknowledged() {
        let mut u = CwndUse::default();
        // The window filled while bytes up to 10,000 were sent.
        u.on_write(0, 10_000, 10, true);
        // A later round finds room (an ACK opened the window): the latch holds.
        u.on_write(4_000, 12_000, 8, false);
        assert!(u.cwnd_limited(10, false));
        // Everything sent under the latch is acknowledged: a round with room clears it.
        u.on_write(10_000, 14_000, 3, false);
        assert!(!u.cwnd_limited(10, false));
    }

    #[test]
    fn slow_start_grows_below_twice_the_most_packets_out() {
        let mut u = CwndUse::default();
        u.on_write(0, 6_000, 6, false);
        assert!(u.cwnd_limited(11, true), "11 < 2·6");
        assert!(!u.cwnd_limited(12, true), "12 is twice what was used");
        assert!(!u.cwnd_limited(11, false), "not in congestion avoidance");
        // A round with more out raises the maximum while the latch is clear.
        u.on_write(1_000, 9_000, 7, false);
        assert!(u.cwnd_limited(13, true));
    }
}
