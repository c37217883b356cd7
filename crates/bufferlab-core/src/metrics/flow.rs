//! Per-flow counters: what the flows table reports.
//!
//! Counters only go up. Each is kept for the whole run (conservation checks use those) and for
//! the `measure` window (what the summary reports); the window is fixed when the run starts, so
//! recording needs only `now`.

use super::hist::Hist;
use crate::time::Time;

/// A counter kept over the whole run and over the measurement window.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counter {
    pub total: u64,
    pub window: u64,
}

/// The measurement window `[start, end)`.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: Time,
    pub end: Time,
}

impl Window {
    #[inline]
    pub fn contains(&self, t: Time) -> bool {
        t >= self.start && t < self.end
    }
    pub fn len(&self) -> Time {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

impl Counter {
    #[inline]
    pub fn add(&mut self, w: &Window, now: Time, v: u64) {
        self.total += v;
        if w.contains(now) {
            self.window += v;
        }
    }
}

/// Everything measured about one flow. Agents update it through [`crate::agent::Io`].
#[derive(Clone)]
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
    /// Application bytes delivered in order to the receiver (goodput).
    pub bytes_delivered: Counter,
    /// Retransmitted segments (TCP).
    pub retransmits: Counter,
    /// Retransmission timeouts (TCP).
    pub timeouts: Counter,
    /// RTT samples in ns (TCP sender samples, ping echo RTTs), within the window.
    pub rtt: Hist,
    /// One-way delay of data packets, within the window.
    pub owd: Hist,
    /// Latest congestion window in bytes (TCP), for time series.
    pub cwnd_bytes: u64,
    /// Latest smoothed RTT in ns (TCP), for time series.
    pub srtt_ns: Time,
    /// When a finite flow finished (all bytes acknowledged), if it did.
    pub completed_at: Option<Time>,
    /// When the flow started sending.
    pub started_at: Option<Time>,
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
            rtt: Hist::default(),
            owd: Hist::default(),
            cwnd_bytes: 0,
            srtt_ns: 0,
            completed_at: None,
            started_at: None,
        }
    }

    #[inline]
    pub fn on_rtt_sample(&mut self, now: Time, rtt: Time) {
        if self.window.contains(now) {
            self.rtt.record(rtt);
        }
    }

    #[inline]
    pub fn on_delivered(&mut self, now: Time, app_bytes: u64) {
        let w = self.window;
        self.bytes_delivered.add(&w, now, app_bytes);
    }
}

/// One finite transfer (web, on/off and sized TCP flows): the transfers table.
#[derive(Clone, Debug)]
pub struct TransferRecord {
    pub flow: u32,
    pub size_bytes: u64,
    pub start: Time,
    /// `None` if the run ended first.
    pub completed: Option<Time>,
}
