//! PIE, Proportional Integral controller Enhanced (RFC 8033): drop at enqueue with a probability
//! a PI controller updates every `t_update` from the queueing delay, estimated from the queue's
//! bytes and its measured departure rate (RFC 8033 §4, §5.2 and its pseudocode appendices).

use rand::Rng as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::band::{one_band_backlog, reserve_for, Band};
use super::params::{or_default_pkts, TXQUEUELEN_PKTS};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::rng::{stream, Rng, Stream};
use crate::time::{Duration, Instant};

/// The drop probability up to which ECN-capable packets are marked instead (RFC 8033 §5.1:
/// 10%; Linux `sch_pie` the same).
const MARK_ECN_TH: f64 = 0.1;

/// PIE's parameters (plan keys `target_ns`, `tupdate_ns`, `alpha`, `beta`, `max_burst_ns`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// QDELAY_REF, the latency target (RFC 8033 §4.2: 15 ms).
    #[schemars(range(min = 1))]
    pub target_ns: Duration,
    /// T_UPDATE, the period of the drop-probability update (RFC 8033 §4.2: 15 ms).
    #[schemars(range(min = 1))]
    pub tupdate_ns: Duration,
    /// Weight of the deviation from target, per second (RFC 8033 §4.2: 0.125).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub alpha: f64,
    /// Weight of the delay trend, per second (RFC 8033 §4.2: 1.25).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub beta: f64,
    /// MAX_BURST, how long a burst into an uncongested queue passes without drops
    /// (RFC 8033 §4.4: 150 ms).
    #[schemars(range(max = crate::time::MAX_DURATION_NS))]
    pub max_burst_ns: Duration,
    /// Mark ECN-capable packets CE instead of dropping them while the drop probability is at
    /// most 10%; above it, drop them too (RFC 8033 §5.1). Default off, as Linux's `pie`.
    pub ecn: bool,
}

impl Default for PieConfig {
    /// RFC 8033 §4.2 and §4.4 (and its pseudocode): QDELAY_REF 15 ms, T_UPDATE 15 ms, alpha
    /// 0.125 Hz, beta 1.25 Hz, MAX_BURST 150 ms; also Linux `sch_pie`'s defaults.
    fn default() -> Self {
        PieConfig {
            target_ns: Duration::from_ms(15),
            tupdate_ns: Duration::from_ms(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst_ns: Duration::from_ms(150),
            ecn: false,
        }
    }
}

/// DQ_THRESHOLD: bytes a departure-rate measurement spans (RFC 8033 §5.2: 2^14 = 16 KB).
const DQ_THRESHOLD_BYTES: u64 = 1 << 14;
/// Weight of a new measurement in the average dequeue time: DQ_THRESHOLD / 2^16 (RFC 8033's
/// pseudocode).
const DQ_WEIGHT: f64 = DQ_THRESHOLD_BYTES as f64 / 65536.0;
/// MEAN_PKTSIZE of the "fewer than two packets queued" safeguard (RFC 8033 §4.1).
const MEAN_PKT_BYTES: u64 = 1500;

pub struct Pie {
    cfg: PieConfig,
    fifo: Band,
    rng: Rng,
    drop_prob: f64,
    burst_allowance_ns: Duration,
    qdelay_old_ns: Duration,
    qdelay_ns: Duration,
    next_update: Instant,
    // Departure-rate estimation (RFC 8033 §5.2).
    in_measurement: bool,
    measurement_start: Instant,
    dq_count_bytes: u64,
    /// Average time to send DQ_THRESHOLD bytes; 0 until the first measurement.
    avg_dq_time_ns: f64,
}

impl Pie {
    pub fn new(cfg: PieConfig, limit: Limit, seed: u64) -> Self {
        let limit = or_default_pkts(limit, TXQUEUELEN_PKTS);
        Pie {
            cfg,
            fifo: Band::new(limit, reserve_for(limit)),
            rng: stream(seed, Stream::Qdisc, 0),
            drop_prob: 0.0,
            burst_allowance_ns: cfg.max_burst_ns,
            qdelay_old_ns: Duration::ZERO,
            qdelay_ns: Duration::ZERO,
            next_update: Instant::ZERO + cfg.tupdate_ns,
            in_measurement: false,
            measurement_start: Instant::ZERO,
            dq_count_bytes: 0,
            avg_dq_time_ns: 0.0,
        }
    }

    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// The latest queueing-delay estimate (bytes over the measured departure rate).
    pub fn qdelay_ns(&self) -> Duration {
        self.qdelay_ns
    }

    /// RFC 8033 §4.1 `drop_early`: the safeguards, then a random draw.
    #[inline]
    fn drop_early(&mut self) -> bool {
        if !self.burst_allowance_ns.is_zero() {
            return false;
        }
        if (self.qdelay_old_ns < self.cfg.target_ns / 2 && self.drop_prob < 0.2)
            || self.fifo.bytes() <= 2 * MEAN_PKT_BYTES
        {
            return false;
        }
        self.rng.gen::<f64>() < self.drop_prob
    }

    /// RFC 8033 §4.2 `calculate_drop_prob`, with the auto-scaling of alpha and beta, the cap of
    /// §5.5 and the burst allowance of §4.4.
    fn update(&mut self) {
        let qdelay = if self.avg_dq_time_ns > 0.0 {
            Duration::from_ns(
                (self.fifo.bytes() as f64 * self.avg_dq_time_ns / DQ_THRESHOLD_BYTES as f64) as u64,
            )
        } else {
            Duration::ZERO
        };
        let mut p = self.cfg.alpha * (qdelay.secs() - self.cfg.target_ns.secs())
            + self.cfg.beta * (qdelay.secs() - self.qdelay_old_ns.secs());
        // Small probabilities move in small steps, so a light load is not over-controlled.
        let scale = match self.drop_prob {
            x if x < 0.000_001 => 1.0 / 2048.0,
            x if x < 0.000_01 => 1.0 / 512.0,
            x if x < 0.000_1 => 1.0 / 128.0,
            x if x < 0.001 => 1.0 / 32.0,
            x if x < 0.01 => 1.0 / 8.0,
            x if x < 0.1 => 1.0 / 2.0,
            _ => 1.0,
        };
        p *= scale;
        // Cap the step once dropping is already heavy (a single update adds at most 2%).
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // Decay when the queue has been empty for two updates.
        if qdelay.is_zero() && self.qdelay_old_ns.is_zero() {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance_ns = self.burst_allowance_ns.saturating_sub(self.cfg.tupdate_ns);
        // Re-arm the burst allowance once congestion has fully cleared.
        if self.drop_prob == 0.0
            && qdelay < self.cfg.target_ns / 2
            && self.qdelay_old_ns < self.cfg.target_ns / 2
        {
            self.burst_allowance_ns = self.cfg.max_burst_ns;
        }
        self.qdelay_old_ns = qdelay;
        self.qdelay_ns = qdelay;
    }
}

impl QueueDisc for Pie {
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        if self.fifo.refuses(&item) {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        if self.drop_early() {
            let mut item = item;
            // RFC 8033 §5.1: mark rather than drop below the 10% threshold; a queue that needs
            // more than that is not being controlled by marks (unresponsive or overloaded).
            if self.cfg.ecn && self.drop_prob <= MARK_ECN_TH && drops.mark(&mut item) {
                self.fifo.push_admitted(item);
                return true;
            }
            drops.push(item, DropReason::Aqm);
            return false;
        }
        self.fifo.push_admitted(item);
        true
    }

    #[inline]
    fn dequeue(&mut self, now: Instant, _drops: &mut Drops) -> Option<QItem> {
        let it = self.fifo.pop()?;
        // Departure rate (RFC 8033 §5.2): time how long DQ_THRESHOLD bytes take to leave,
        // measuring only while the queue holds that much (a short burst says nothing of the link).
        if self.in_measurement {
            self.dq_count_bytes += it.bytes as u64;
            if self.dq_count_bytes >= DQ_THRESHOLD_BYTES {
                let dq_time = (now - self.measurement_start).as_ns() as f64;
                self.avg_dq_time_ns = if self.avg_dq_time_ns == 0.0 {
                    dq_time
                } else {
                    dq_time * DQ_WEIGHT + self.avg_dq_time_ns * (1.0 - DQ_WEIGHT)
                };
                self.in_measurement = false;
            }
        }
        if !self.in_measurement && self.fifo.bytes() >= DQ_THRESHOLD_BYTES {
            self.in_measurement = true;
            self.measurement_start = now;
            self.dq_count_bytes = 0;
        }
        Some(it)
    }

    one_band_backlog!(fifo);

    fn next_timer(&self) -> Option<Instant> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: Instant) {
        if now >= self.next_update {
            self.update();
            self.next_update = now + self.cfg.tupdate_ns;
        }
    }
}

#[cfg(test)]
mod tests;
