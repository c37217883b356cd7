//! SplitBuff (Jabeen et al. §III, Fig. 2): the buffer split into sub-buffers by round-trip
//! propagation time (RTTP), each sized in proportion to the mean RTTP of the packets it carries,
//! the total being the port's resolved limit; sub-buffers served round robin. Blind-SplitBuff
//! (Jabeen et al. §IV-B2) maps flows to sub-buffers at random instead, each `limit / n`.
//!
//! At an update a sub-buffer whose new size is below what it holds keeps its packets (none is
//! dropped after being accepted; the paper says nothing of them) and takes no new packet until
//! it has drained below its size; every arrival is also refused when the total would pass the
//! port's limit, so the limit is a hard bound on the total.
//!
//! RTT comes from the sender's smoothed RTT stamped in each packet (Jabeen et al. §III-A, "active
//! RTT estimation"); RTTP = RTT - queueing delay, the queueing delay being the smoothed mean
//! sojourn time measured at dequeue (overall for the threshold, per sub-buffer for its size).
//! The mean RTT of a period is over flows (each flow's latest stamp) or, as Fig. 2 writes it,
//! over packets (every packet's stamp): the `rtt_mean` key.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::band::{reserve_for, Band};
use super::params::{flow_hash, or_default_pkts, TXQUEUELEN_PKTS};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::time::{Duration, Instant, NS_PER_SEC};

/// What a period's mean RTT averages (plan key `rtt_mean`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttMean {
    /// Each flow seen in the period once, with its latest stamped RTT. Weighting by packets
    /// puts the threshold on the flows that send most (the short-RTT ones, whose windows turn
    /// over fastest), and a flow whose RTT straddles the threshold is split between sub-buffers
    /// and reordered.
    #[default]
    Flows,
    /// Every packet's stamped RTT, as Jabeen et al. Fig. 2 sums them ("on every packet arrival
    /// ... RTT_s = RTT_s + p->rtt"; the sub-buffer sums likewise).
    Packets,
}

/// SplitBuff's parameters (plan keys `buffers`, `update_ns`, `smoothing`, `rtt_mean`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SplitBuffConfig {
    /// Sub-buffers: 2 (threshold at the mean RTTP) or 3 (thresholds at mean RTTP ± σ/2)
    /// (Jabeen et al. §III-B, §IV-C).
    #[schemars(range(min = 2, max = 3))]
    pub buffers: u32,
    /// T_u, the period of the threshold and size update.
    #[schemars(range(min = 1))]
    pub update_ns: Duration,
    /// α, the weight of the newest period in the smoothed queueing delays:
    /// `T_q <- (1 - α) T_q + α x` (1: no smoothing).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1.0))]
    pub smoothing: f64,
    /// What a period's mean RTT (the threshold's and each sub-buffer's) averages: `flows`, each
    /// flow's latest stamp, or `packets`, every packet's stamp as Jabeen et al. Fig. 2. Default
    /// `flows`.
    pub rtt_mean: RttMean,
}

impl Default for SplitBuffConfig {
    /// Jabeen et al. evaluates 2 sub-buffers (§IV-B) and 3 (§IV-C); it gives no value for T_u or α.
    /// Ours: T_u = 1 s, so each period sees at least one window of a 1 s RTT flow (the paper's
    /// longest, 990 ms); α = 1, the queueing delay of the last period alone. The RTTs packets
    /// carry are the senders' smoothed RTTs, which follow the queue within a few round trips,
    /// so the delay subtracted from them must be as recent: with α = 1/8 (8 s of memory) the
    /// start-up burst of a 10 ms flow was still subtracted from its 10 ms RTT 18 s later, and
    /// its sub-buffer shrank to a packet.
    fn default() -> Self {
        SplitBuffConfig {
            buffers: 2,
            update_ns: Duration::from_secs(1),
            smoothing: 1.0,
            rtt_mean: RttMean::Flows,
        }
    }
}

/// Blind-SplitBuff's parameters (plan key `buffers`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BlindSplitBuffConfig {
    /// Sub-buffers, each of an equal share of the limit (Jabeen et al. §IV-B2: 2).
    #[schemars(range(min = 2, max = 3))]
    pub buffers: u32,
}

impl Default for BlindSplitBuffConfig {
    /// Jabeen et al. §IV-B2: two sub-buffers of BDP/2 each.
    fn default() -> Self {
        BlindSplitBuffConfig { buffers: 2 }
    }
}

const MAX_BANDS: usize = 3;

/// Sums over one update period; the RTT sums run over flows or packets ([`RttMean`]).
#[derive(Clone, Copy, Default)]
struct Period {
    rtt_sum: f64,
    rtt_sq_sum: f64,
    rtt_n: u64,
    band_rtt_sum: [f64; MAX_BANDS],
    band_rtt_n: [u64; MAX_BANDS],
    soj_sum: f64,
    soj_n: u64,
    band_soj_sum: [f64; MAX_BANDS],
    band_soj_n: [u64; MAX_BANDS],
}

impl Period {
    #[inline]
    fn add_rtt(&mut self, r: f64, band: usize) {
        self.rtt_sum += r;
        self.rtt_sq_sum += r * r;
        self.rtt_n += 1;
        self.band_rtt_sum[band] += r;
        self.band_rtt_n[band] += 1;
    }
}

pub struct SplitBuff {
    cfg: SplitBuffConfig,
    /// `Some(seed)` for Blind-SplitBuff.
    blind: Option<u64>,
    n: usize,
    total: Limit,
    bands: [Band; MAX_BANDS],
    /// Next band round robin looks at.
    rr: usize,
    next_update: Instant,
    period: Period,
    /// Whether a first estimate exists; before it, one shared buffer (band 0 with the total).
    estimated: bool,
    /// RTTP thresholds between bands, ns (one for 2 bands, two for 3).
    thresh_ns: [f64; MAX_BANDS - 1],
    /// Smoothed queueing delay overall and per band, ns.
    tq_ns: f64,
    band_tq_ns: [f64; MAX_BANDS],
    /// Mean RTTP of each band's packets, ns (what the sizes are proportional to).
    band_rttp_ns: [f64; MAX_BANDS],
    /// The latest estimate of the mean RTTP of all flows, ns (Jabeen et al. Fig. 2's `thresh` for two
    /// sub-buffers; the midpoint of the thresholds for three). Reported only, never read.
    rttp_ns: f64,
    pkts: u64,
    bytes: u64,
    /// Per flow id: (period number + 1 when last seen, latest stamped RTT in ns, its sub-buffer).
    /// Flow ids are dense, so this grows only when a new flow first appears.
    flow_last: Vec<(u64, f64, u8)>,
    /// Flows seen in the current period.
    flows_seen: Vec<u32>,
    period_no: u64,
}

/// `frac` of a limit, on both axes, at least one packet.
fn share(total: Limit, frac: f64) -> Limit {
    Limit {
        pkts: total
            .pkts
            .map(|p| ((p as f64 * frac).round() as u64).max(1)),
        bytes: total
            .bytes
            .map(|b| ((b as f64 * frac).round() as u64).max(1)),
    }
}

impl SplitBuff {
    fn with(cfg: SplitBuffConfig, blind: Option<u64>, limit: Limit) -> Self {
        let total = or_default_pkts(limit, TXQUEUELEN_PKTS);
        let n = cfg.buffers as usize;
        let cap = reserve_for(total);
        let mut s = SplitBuff {
            cfg,
            blind,
            n,
            total,
            bands: [
                Band::new(total, cap),
                Band::new(total, cap / 2),
                Band::new(total, cap / 4),
            ],
            rr: 0,
            next_update: Instant::ZERO + cfg.update_ns,
            period: Period::default(),
            estimated: false,
            thresh_ns: [f64::INFINITY; MAX_BANDS - 1],
            tq_ns: 0.0,
            band_tq_ns: [0.0; MAX_BANDS],
            band_rttp_ns: [0.0; MAX_BANDS],
            rttp_ns: 0.0,
            pkts: 0,
            bytes: 0,
            flow_last: Vec::new(),
            flows_seen: Vec::with_capacity(64),
            period_no: 0,
        };
        s.resize();
        s
    }

    pub fn new(cfg: SplitBuffConfig, limit: Limit) -> Self {
        Self::with(cfg, None, limit)
    }

    pub fn blind(buffers: u32, limit: Limit, seed: u64) -> Self {
        Self::with(
            SplitBuffConfig {
                buffers,
                ..Default::default()
            },
            Some(seed),
            limit,
        )
    }

    pub fn name(&self) -> &'static str {
        if self.blind.is_some() {
            "blind_splitbuff"
        } else {
            "splitbuff"
        }
    }

    /// Sub-buffers in use.
    pub fn buffers(&self) -> usize {
        self.n
    }

    /// The limit of sub-buffer `k` now.
    pub fn band_limit(&self, k: usize) -> Limit {
        self.bands[k].limit
    }

    /// Packets in sub-buffer `k`.
    pub fn band_len(&self, k: usize) -> u64 {
        self.bands[k].len()
    }

    /// RTTP thresholds between sub-buffers, ns (`n - 1` of them); infinite before the first update.
    pub fn thresholds_ns(&self) -> &[f64] {
        &self.thresh_ns[..self.n - 1]
    }

    /// The smoothed queueing delay the RTTP estimate subtracts, ns.
    pub fn queueing_delay_ns(&self) -> f64 {
        self.tq_ns
    }

    /// The estimates in force, as (metric, value) rows of the results' time series (Jabeen et al.
    /// Fig. 3 plots `rttp_est_s`, Table I the per-sub-buffer `subK_rttp_s`): nothing before the
    /// first update, and nothing for Blind-SplitBuff, which estimates nothing.
    pub fn estimates(&self) -> Vec<(&'static str, f64)> {
        const RTTP: [&str; MAX_BANDS] = ["sub1_rttp_s", "sub2_rttp_s", "sub3_rttp_s"];
        const LIMIT: [&str; MAX_BANDS] = ["sub1_limit_pkts", "sub2_limit_pkts", "sub3_limit_pkts"];
        const LIMIT_BYTES: [&str; MAX_BANDS] =
            ["sub1_limit_bytes", "sub2_limit_bytes", "sub3_limit_bytes"];
        const LEN: [&str; MAX_BANDS] = ["sub1_qlen_pkts", "sub2_qlen_pkts", "sub3_qlen_pkts"];
        const THRESH: [&str; MAX_BANDS - 1] = ["thresh1_s", "thresh2_s"];
        if self.blind.is_some() || !self.estimated {
            return Vec::new();
        }
        let s = |ns: f64| ns / NS_PER_SEC as f64;
        let mut out = vec![
            ("rttp_est_s", s(self.rttp_ns)),
            ("queueing_delay_s", s(self.tq_ns)),
        ];
        for (k, &t) in self.thresholds_ns().iter().enumerate() {
            out.push((THRESH[k], s(t)));
        }
        for k in 0..self.n {
            out.push((RTTP[k], s(self.band_rttp_ns[k])));
            if let Some(p) = self.bands[k].limit.pkts {
                out.push((LIMIT[k], p as f64));
            }
            if let Some(b) = self.bands[k].limit.bytes {
                out.push((LIMIT_BYTES[k], b as f64));
            }
            out.push((LEN[k], self.bands[k].len() as f64));
        }
        out
    }

    /// Sub-buffer sizes from the current estimates (Jabeen et al. eq. 4: B_k = T_Bk B / Σ T_Bj).
    fn resize(&mut self) {
        if self.blind.is_some() {
            let each = share(self.total, 1.0 / self.n as f64);
            for b in &mut self.bands[..self.n] {
                b.limit = each;
            }
            return;
        }
        if !self.estimated {
            // One shared buffer until the first estimate.
            self.bands[0].limit = self.total;
            for b in &mut self.bands[1..] {
                b.limit = Limit {
                    pkts: Some(0),
                    bytes: None,
                };
            }
            return;
        }
        let sum: f64 = self.band_rttp_ns[..self.n].iter().sum();
        for k in 0..self.n {
            let frac = if sum > 0.0 {
                self.band_rttp_ns[k] / sum
            } else {
                1.0 / self.n as f64
            };
            self.bands[k].limit = share(self.total, frac);
        }
    }

    /// The sub-buffer of a packet: by RTTP against the thresholds, or by flow hash when blind.
    #[inline]
    fn classify(&self, item: &QItem) -> usize {
        if let Some(seed) = self.blind {
            return ((flow_hash(item.flow, seed) as u128 * self.n as u128) >> 64) as usize;
        }
        if item.srtt_ns.is_zero() || !self.estimated {
            // No RTT stamp (not TCP, or no sample yet): the low-delay sub-buffer.
            return 0;
        }
        let rttp = item.srtt_ns.as_ns() as f64 - self.tq_ns;
        self.thresh_ns[..self.n - 1]
            .iter()
            .position(|&t| rttp < t)
            .unwrap_or(self.n - 1)
    }

    /// Fig. 2, "on every packet arrival": the packet's stamped RTT into the period's sums, or
    /// as its flow's latest (added once per flow at the update).
    #[inline]
    fn note_rtt(&mut self, item: &QItem, k: usize) {
        let r = item.srtt_ns.as_ns() as f64;
        if self.cfg.rtt_mean == RttMean::Packets {
            self.period.add_rtt(r, k);
            return;
        }
        let f = item.flow as usize;
        if f >= self.flow_last.len() {
            self.flow_last.resize(f + 1, (0, 0.0, 0));
        }
        let e = &mut self.flow_last[f];
        if e.0 != self.period_no + 1 {
            e.0 = self.period_no + 1;
            self.flows_seen.push(item.flow);
        }
        e.1 = r;
        e.2 = k as u8;
    }

    /// Fig. 2, "after every time period T_u".
    fn update(&mut self, now: Instant) {
        for &f in &self.flows_seen {
            let (_, r, k) = self.flow_last[f as usize];
            self.period.add_rtt(r, k as usize);
        }
        self.flows_seen.clear();
        self.period_no += 1;
        let p = self.period;
        let a = self.cfg.smoothing;
        if p.soj_n > 0 {
            self.tq_ns = (1.0 - a) * self.tq_ns + a * p.soj_sum / p.soj_n as f64;
        }
        for k in 0..self.n {
            if p.band_soj_n[k] > 0 {
                self.band_tq_ns[k] =
                    (1.0 - a) * self.band_tq_ns[k] + a * p.band_soj_sum[k] / p.band_soj_n[k] as f64;
            }
        }
        if p.rtt_n > 0 {
            let mean = p.rtt_sum / p.rtt_n as f64;
            let rttp = (mean - self.tq_ns).max(0.0);
            self.rttp_ns = rttp;
            if self.n == 2 {
                self.thresh_ns[0] = rttp;
            } else {
                // §IV-C: thresholds at mean RTTP ± σ/2, σ the standard deviation of the RTTs.
                let var = (p.rtt_sq_sum / p.rtt_n as f64 - mean * mean).max(0.0);
                let half = var.sqrt() / 2.0;
                self.thresh_ns[0] = rttp - half;
                self.thresh_ns[1] = rttp + half;
            }
            for k in 0..self.n {
                if p.band_rtt_n[k] > 0 {
                    let m = p.band_rtt_sum[k] / p.band_rtt_n[k] as f64;
                    let est = m - self.band_tq_ns[k];
                    // The stamped RTTs are the senders' smoothed RTTs, which lag the queue the
                    // router sees: in a burst's period the queueing delay can exceed the RTTs
                    // stamped. A non-positive RTTP is such a transient, not a measurement: keep
                    // the previous size rather than shrink the sub-buffer to one packet (which
                    // would starve its flows).
                    if est > 0.0 || self.band_rttp_ns[k] == 0.0 {
                        self.band_rttp_ns[k] = est.max(1.0);
                    }
                } else if !self.estimated || self.band_rttp_ns[k] == 0.0 {
                    // A sub-buffer nothing has used yet: size it as the boundary it starts at.
                    let edge = if k == 0 { 0 } else { k - 1 };
                    self.band_rttp_ns[k] = self.thresh_ns[edge].max(1.0);
                }
            }
            self.estimated = true;
            self.resize();
        }
        self.period = Period::default();
        self.next_update = if now >= self.next_update + self.cfg.update_ns {
            now + self.cfg.update_ns
        } else {
            self.next_update + self.cfg.update_ns
        };
    }
}

impl QueueDisc for SplitBuff {
    #[inline]
    fn enqueue(&mut self, now: Instant, item: QItem, drops: &mut Drops) -> bool {
        if self.blind.is_none() && now >= self.next_update {
            self.update(now);
        }
        let k = self.classify(&item);
        if !item.srtt_ns.is_zero() && self.blind.is_none() {
            self.note_rtt(&item, k);
        }
        // The configured limit bounds the total at every instant (seed 004 §III-B: "the
        // cumulative size of all sub-buffers should not exceed the BDP"). Sub-buffer sizes are
        // rounded to whole packets (at least one each) and a sub-buffer that an update shrank
        // keeps the packets it already holds, so the sub-buffer limits alone could sum past it.
        if self
            .total
            .exceeded_by(self.pkts, self.bytes, item.bytes as u64)
            || !self.bands[k].push(item)
        {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        self.pkts += 1;
        self.bytes += item.bytes as u64;
        true
    }

    #[inline]
    fn dequeue(&mut self, now: Instant, _drops: &mut Drops) -> Option<QItem> {
        // Round robin over the non-empty sub-buffers (seed 004 §III-C).
        for i in 0..self.n {
            let k = (self.rr + i) % self.n;
            if let Some(it) = self.bands[k].pop() {
                self.rr = (k + 1) % self.n;
                self.pkts -= 1;
                self.bytes -= it.bytes as u64;
                let soj = now.saturating_since(it.enq).as_ns() as f64;
                let p = &mut self.period;
                p.soj_sum += soj;
                p.soj_n += 1;
                p.band_soj_sum[k] += soj;
                p.band_soj_n[k] += 1;
                return Some(it);
            }
        }
        None
    }

    fn len_pkts(&self) -> u64 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn limit(&self) -> Limit {
        self.total
    }

    fn set_limit(&mut self, limit: Limit) {
        self.total = limit;
        self.resize();
    }
}

#[cfg(test)]
mod tests;
