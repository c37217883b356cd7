//! Per-flow counters: what the flows table reports.
//!
//! Counters only go up. Each is kept for the whole run (conservation checks use those) and for
//! the `measure` window (what the summary reports); the window is fixed when the run starts.
//!
//! A windowed count never exceeds what the window can carry (docs/measurement.md): sends count
//! when sent; drops in the window their packet was sent in, so `pkts_dropped <= pkts_sent`;
//! goodput only the bytes first sent inside the window and delivered in order before its end, so
//! every byte counted crossed every link of the path inside the window.

use super::hist::Hist;
use crate::time::{Duration, Instant};

/// A counter kept over the whole run and over the measurement window.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counter {
    pub total: u64,
    pub window: u64,
}

/// The measurement window `[start, end)`.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: Instant,
    pub end: Instant,
}

impl Window {
    #[inline]
    pub fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
    pub fn len(&self) -> Duration {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

impl Counter {
    #[inline]
    pub fn add(&mut self, w: &Window, now: Instant, v: u64) {
        self.total += v;
        if w.contains(now) {
            self.window += v;
        }
    }
}

/// Everything measured about one flow. Agents update it through [`crate::agent::Io`].
/// Aligned to a cache line (`repr(C)`: in this order), so that [`FlowStats::prefetch`] names
/// each of its lines.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct FlowStats {
    pub window: Window,
    /// Packets the sending side emitted (data direction; retransmissions included).
    pub pkts_sent: Counter,
    /// IP bytes the sending side emitted.
    pub bytes_sent: Counter,
    /// Packets of this flow dropped anywhere (any direction, any reason).
    pub pkts_dropped: Counter,
    /// IP bytes of data-direction packets that reached the receiver (throughput).
    pub bytes_received: Counter,
    /// Application bytes delivered in order to the receiver (goodput); in the window, only bytes
    /// first sent inside it (see [`FlowStats::on_delivered`]).
    pub bytes_delivered: Counter,
    /// Retransmitted segments (TCP).
    pub retransmits: Counter,
    /// Retransmission timeouts (TCP).
    pub timeouts: Counter,
    /// Data packets that reached the receiver marked CE (RFC 3168).
    pub ce_received: Counter,
    /// Window reductions the sender made for an ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: Counter,
    /// RTT samples in ns (TCP sender samples, ping echo RTTs), within the window.
    pub rtt: Hist,
    /// One-way delay of data packets, within the window.
    pub owd: Hist,
    /// Every RTT sample of the run (in or out of the window), counted and summed in ns, for the
    /// time series' mean RTT per step.
    pub rtt_samples_total: u64,
    pub rtt_sum_ns_total: u64,
    /// Latest congestion window in bytes (TCP), for time series.
    pub cwnd_bytes: u64,
    /// Latest smoothed RTT in ns (TCP), for time series.
    pub srtt_ns: Duration,
    /// When a finite flow finished (all bytes acknowledged), if it did.
    pub completed_at: Option<Instant>,
    /// When the flow started sending.
    pub started_at: Option<Instant>,
    /// The packet being handed to this flow's receiving agent now (set by the engine before the
    /// agent sees it), which `on_delivered` attributes the bytes it releases to.
    pub rx: Arrival,
    /// TCP, per connection: the end of the data first sent before the window opened (the
    /// sender's highest sequence then), and the bytes delivered in order so far. Kept only when
    /// the window starts after 0.
    sent_before_window: Vec<u64>,
    delivered_by_conn: Vec<u64>,
}

/// What `on_delivered` needs of the packet being delivered.
#[derive(Clone, Copy, Debug, Default)]
pub struct Arrival {
    /// When the source sent this copy.
    pub sent_at: Instant,
    /// Its TCP connection, or `None` for a datagram (delivered as it arrives).
    pub conn: Option<u32>,
}

impl FlowStats {
    pub fn new(window: Window) -> Self {
        FlowStats {
            window,
            pkts_sent: Counter::default(),
            bytes_sent: Counter::default(),
            pkts_dropped: Counter::default(),
            bytes_received: Counter::default(),
            bytes_delivered: Counter::default(),
            retransmits: Counter::default(),
            timeouts: Counter::default(),
            ce_received: Counter::default(),
            ecn_reductions: Counter::default(),
            rtt: Hist::default(),
            owd: Hist::default(),
            rtt_samples_total: 0,
            rtt_sum_ns_total: 0,
            cwnd_bytes: 0,
            srtt_ns: Duration::ZERO,
            completed_at: None,
            started_at: None,
            rx: Arrival::default(),
            sent_before_window: Vec::new(),
            delivered_by_conn: Vec::new(),
        }
    }

    /// A TCP segment of connection `conn` ending at byte `end` left the source before the
    /// window opened.
    /// Prefetch every line of the books: the engine's look-ahead, when the next arriving packet
    /// is delivered to this flow's receiver or sender (with thousands of flows, each flow's books
    /// are a cache miss).
    #[inline]
    pub fn prefetch(&self) {
        crate::prefetch::line(&self.window);
        crate::prefetch::line(&self.bytes_received);
        self.rtt.prefetch();
        self.owd.prefetch();
        crate::prefetch::line(&self.rtt_samples_total);
        crate::prefetch::line(&self.rx);
    }

    #[inline]
    pub fn on_sent_before_window(&mut self, conn: u32, end: u64) {
        let c = conn as usize;
        if c >= self.sent_before_window.len() {
            self.sent_before_window.resize(c + 1, 0);
        }
        let e = &mut self.sent_before_window[c];
        *e = (*e).max(end);
    }

    #[inline]
    pub fn on_rtt_sample(&mut self, now: Instant, rtt: Duration) {
        self.rtt_samples_total += 1;
        self.rtt_sum_ns_total = self.rtt_sum_ns_total.saturating_add(rtt.as_ns());
        if self.window.contains(now) {
            self.rtt.record(rtt.as_ns());
        }
    }

    /// `app_bytes` reach the application in order now, released by the packet in `rx`. The
    /// window counts those of them first sent inside it: a datagram if it was sent in the
    /// window; a TCP connection's bytes beyond the highest it had sent when the window opened
    /// (its bytes are sent first in sequence order and delivered in order, so those are exactly
    /// the ones whose first transmission was in the window). Bytes sent before the window and
    /// released inside it by a recovery are not the window's: they crossed the links before it.
    #[inline]
    pub fn on_delivered(&mut self, now: Instant, app_bytes: u64) {
        let w = self.window;
        self.bytes_delivered.total += app_bytes;
        if now >= w.end {
            return;
        }
        if w.start == Instant::ZERO {
            // Everything was sent inside a window that opens with the run.
            self.bytes_delivered.window += app_bytes;
            return;
        }
        let fresh = match self.rx.conn {
            None => {
                if self.rx.sent_at >= w.start {
                    app_bytes
                } else {
                    0
                }
            }
            Some(conn) => {
                let c = conn as usize;
                if c >= self.delivered_by_conn.len() {
                    self.delivered_by_conn.resize(c + 1, 0);
                }
                let from = self.delivered_by_conn[c];
                let to = from + app_bytes;
                self.delivered_by_conn[c] = to;
                let first = self.sent_before_window.get(c).copied().unwrap_or(0);
                if now < w.start {
                    0
                } else {
                    to.saturating_sub(from.max(first))
                }
            }
        };
        self.bytes_delivered.window += fresh;
    }
}

/// One finite transfer (web, on/off and sized TCP flows): the transfers table.
#[derive(Clone, Debug)]
pub struct TransferRecord {
    pub flow: u32,
    pub size_bytes: u64,
    pub start: Instant,
    /// `None` if the run ended first.
    pub completed: Option<Instant>,
}
