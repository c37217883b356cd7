//! RED, Random Early Detection (Floyd & Jacobson 1993), with the "gentle" variant (Floyd 2000)
//! and ns-2's uniformised inter-drop spacing (`wait_`): the discipline the buffer-sizing
//! literature was measured against.
//!
//! On each arrival: the average queue `avg <- (1 - w) avg + w q` (decayed over idle time as if
//! `m` small packets had gone by, §4 of the paper); between `min_th` and `max_th` a packet is
//! dropped with `p_b = max_p (avg - min_th) / (max_th - min_th)`, spread by the count since the
//! last drop; gentle RED ramps `p_b` from `max_p` to 1 between `max_th` and `2 max_th`.

use rand::Rng as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::band::{one_band_backlog, reserve_for, Band};
use super::params::{or_default_pkts, TXQUEUELEN_PKTS};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::problem::{at_key, Problem};
use crate::rng::{stream, Rng, Stream};
use crate::time::{Instant, NS_PER_SEC};

/// RED's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Average queue where early drops begin, in packets (or bytes when `bytes`).
    pub min_th: f64,
    /// Average queue where the drop probability reaches `max_p`, same unit.
    pub max_th: f64,
    /// Byte mode (ns-2 `queue_in_bytes_`): the average and thresholds count bytes.
    pub bytes: bool,
    /// Drop probability at `max_th`.
    pub max_p: f64,
    /// EWMA weight `w_q` of the average queue.
    pub weight: f64,
    /// Gentle RED: ramp from `max_p` to 1 over `[max_th, 2 max_th]` instead of jumping to 1.
    pub gentle: bool,
    /// ns-2's `wait_`: no drop before `1/p_b` arrivals since the last, so gaps are uniform on
    /// `[1/p_b, 2/p_b]` (otherwise on `[1, 1/p_b]`, the paper's §7 method).
    pub wait: bool,
    /// Typical packet size, for the idle-time decay (ns-2 `mean_pktsize_`).
    pub mean_pkt_bytes: u32,
    /// Mark ECN-capable packets CE instead of dropping them early (RFC 3168 §5; Floyd 1994).
    pub ecn: bool,
}

impl Default for RedConfig {
    /// Floyd & Jacobson 1993 and ns-2's classic `Queue/RED` defaults (`ns-default.tcl`):
    /// thresh 5, maxthresh 15 packets, linterm 10 (max_p = 0.1), q_weight 0.002, gentle true,
    /// wait true, mean_pktsize 500 B.
    fn default() -> Self {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            bytes: false,
            max_p: 0.1,
            weight: 0.002,
            gentle: true,
            wait: true,
            mean_pkt_bytes: 500,
            ecn: false,
        }
    }
}

/// RED's plan keys: each threshold as a plain number or `_pkts` (packets) or `_bytes` (byte
/// mode), both in the same unit; the rest default to [`RedConfig::default`]'s values.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedSpec {
    /// Average queue where early drops begin, in packets (ns-2 `thresh_`: 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e12))]
    pub min_th: Option<f64>,
    /// `min_th` in packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e12))]
    pub min_th_pkts: Option<f64>,
    /// `min_th` in bytes: byte mode (ns-2 `queue_in_bytes_`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e12))]
    pub min_th_bytes: Option<f64>,
    /// Average queue where the drop probability reaches `max_p` (ns-2 `maxthresh_`: 15).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e12))]
    pub max_th: Option<f64>,
    /// `max_th` in packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e12))]
    pub max_th_pkts: Option<f64>,
    /// `max_th` in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1e12))]
    pub max_th_bytes: Option<f64>,
    /// Drop probability at `max_th` (ns-2 `linterm_` 10: 0.1).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1.0))]
    pub max_p: f64,
    /// EWMA weight of the average queue (ns-2 `q_weight_`: 0.002).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1.0))]
    pub weight: f64,
    /// Gentle RED (Floyd 2000; ns-2 default on).
    pub gentle: bool,
    /// ns-2's `wait_`: uniform gaps between drops (default on).
    pub wait: bool,
    /// Typical packet size for the idle-time decay (ns-2 `mean_pktsize_`: 500 B).
    #[schemars(range(min = 1, max = 65535))]
    pub mean_pkt_bytes: u32,
    /// Mark ECN-capable packets CE instead of dropping them early, also above `max_th` (Linux
    /// `sch_red`'s `ecn` without `harddrop`; ns-2 `setbit_`). Default off, as both.
    pub ecn: bool,
}

impl Default for RedSpec {
    fn default() -> Self {
        let d = RedConfig::default();
        RedSpec {
            min_th: None,
            min_th_pkts: None,
            min_th_bytes: None,
            max_th: None,
            max_th_pkts: None,
            max_th_bytes: None,
            max_p: d.max_p,
            weight: d.weight,
            gentle: d.gentle,
            wait: d.wait,
            mean_pkt_bytes: d.mean_pkt_bytes,
            ecn: d.ecn,
        }
    }
}

/// One threshold from its three spellings: `(value, in bytes)`, or a problem naming the key.
fn threshold(
    name: &str,
    plain: Option<f64>,
    pkts: Option<f64>,
    bytes: Option<f64>,
) -> Result<Option<(f64, bool)>, Problem> {
    match (plain, pkts, bytes) {
        (None, None, None) => Ok(None),
        (Some(v), None, None) | (None, Some(v), None) => Ok(Some((v, false))),
        (None, None, Some(v)) => Ok(Some((v, true))),
        _ => Err(at_key(
            name,
            "given twice (as packets and as bytes); give one",
        )),
    }
}

impl RedSpec {
    /// The discipline's configuration: thresholds in one unit, `min_th < max_th`.
    pub fn config(&self) -> Result<RedConfig, Problem> {
        let d = RedConfig::default();
        let min = threshold("min_th", self.min_th, self.min_th_pkts, self.min_th_bytes)?;
        let max = threshold("max_th", self.max_th, self.max_th_pkts, self.max_th_bytes)?;
        let bytes = match (min, max) {
            (Some((_, a)), Some((_, b))) if a != b => {
                return Err(at_key(
                    "max_th",
                    "give min_th and max_th in the same unit (both packets or both bytes)",
                ))
            }
            (Some((_, b)), _) | (_, Some((_, b))) => b,
            _ => false,
        };
        if bytes && (min.is_none() || max.is_none()) {
            return Err(at_key(
                "min_th_bytes",
                "in byte mode give both min_th and max_th in bytes",
            ));
        }
        let c = RedConfig {
            min_th: min.map_or(d.min_th, |m| m.0),
            max_th: max.map_or(d.max_th, |m| m.0),
            bytes,
            max_p: self.max_p,
            weight: self.weight,
            gentle: self.gentle,
            wait: self.wait,
            mean_pkt_bytes: self.mean_pkt_bytes,
            ecn: self.ecn,
        };
        // min_th = max_th is allowed, as Linux's RED allows it (`red_check_params` refuses
        // only max < min; `red_set_parms` then divides by a delta of at least 1): with `max_p
        // = 1` it is the step marking DCTCP deployments configure (RFC 8257 §3.1; `tc qdisc
        // ... red min K max K probability 1.0 ecn` with a burst small enough for Wlog 0, here
        // `weight = 1`).
        if c.max_th < c.min_th {
            return Err(at_key(
                "max_th",
                format!("must not be below min_th ({}), got {}", c.min_th, c.max_th),
            ));
        }
        Ok(c)
    }
}

pub struct Red {
    cfg: RedConfig,
    fifo: Band,
    rng: Rng,
    avg: f64,
    /// Arrivals since the last early drop.
    count: u64,
    /// Whether the previous arrival already found `avg` above `min_th` (ns-2 `old`).
    above: bool,
    /// Since when the queue has been empty with the link idle, if it is.
    idle_since: Option<Instant>,
    /// Small packets the link sends per second, for the idle decay; 0 if the rate is unknown.
    pkts_per_sec: f64,
}

impl Red {
    pub fn new(cfg: RedConfig, limit: Limit, seed: u64) -> Self {
        let limit = or_default_pkts(limit, TXQUEUELEN_PKTS);
        Red {
            cfg,
            fifo: Band::new(limit, reserve_for(limit)),
            rng: stream(seed, Stream::Qdisc, 0),
            avg: 0.0,
            count: 0,
            above: false,
            idle_since: Some(Instant::ZERO),
            pkts_per_sec: 0.0,
        }
    }

    /// The average queue, in packets (bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// `p_b` for an average queue `avg` (Floyd & Jacobson §4; gentle per Floyd 2000). With
    /// `min_th = max_th` the linear part is empty: from the threshold on it is `max_p`, ramping
    /// to 1 if gentle, 1 if not.
    pub fn base_prob(&self, avg: f64) -> f64 {
        let c = &self.cfg;
        if avg < c.min_th {
            0.0
        } else if avg < c.max_th {
            c.max_p * (avg - c.min_th) / (c.max_th - c.min_th)
        } else if c.gentle && avg < 2.0 * c.max_th {
            c.max_p + (1.0 - c.max_p) * (avg - c.max_th) / c.max_th
        } else {
            1.0
        }
    }

    /// `p_a` from `p_b` and the count since the last drop, which makes the gaps between drops
    /// uniform rather than geometric (Floyd & Jacobson §7; ns-2 `modify_p`).
    pub fn spread_prob(&self, pb: f64, count: u64) -> f64 {
        let cp = count as f64 * pb;
        if self.cfg.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            pb / (1.0 - cp)
        } else {
            1.0
        }
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        let w = self.cfg.weight;
        let qlen = if self.cfg.bytes {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        };
        // Idle: decay as if m small packets had been sent meanwhile (§4 of the paper).
        let m = match self.idle_since.take() {
            Some(t0) if self.pkts_per_sec > 0.0 => {
                ((now - t0).as_ns() as f64 / NS_PER_SEC as f64 * self.pkts_per_sec).floor()
            }
            _ => 0.0,
        };
        self.avg = self.avg * (1.0 - w).powf(m + 1.0) + w * qlen;
        self.count += 1;
        let mut early = false;
        if self.avg >= self.cfg.min_th && self.fifo.len() > 1 {
            let pb = self.base_prob(self.avg);
            if pb >= 1.0 {
                early = true;
            } else if !self.above {
                // First arrival above min_th: start counting, no drop yet (ns-2 `old`).
                self.above = true;
                self.count = 1;
            } else {
                let pa = self.spread_prob(pb, self.count);
                early = self.rng.gen::<f64>() < pa;
            }
        } else {
            self.above = false;
        }
        let mut item = item;
        if early {
            self.count = 0;
            if !(self.cfg.ecn && drops.mark(&mut item)) {
                drops.push(item, DropReason::Aqm);
                return false;
            }
        }
        if !self.fifo.push(item) {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        true
    }

    fn dequeue(&mut self, now: Instant, _drops: &mut Drops) -> Option<QItem> {
        match self.fifo.pop() {
            Some(it) => Some(it),
            None => {
                // The link asked and found nothing: the idle period starts (ns-2 `idle_`).
                if self.idle_since.is_none() {
                    self.idle_since = Some(now);
                }
                None
            }
        }
    }

    one_band_backlog!(fifo);

    fn set_link_rate(&mut self, rate_bps: u64) {
        self.pkts_per_sec = rate_bps as f64 / (8.0 * self.cfg.mean_pkt_bytes as f64);
    }
}

#[cfg(test)]
mod tests;
