//! Buffer-sizing rules as values (seed 003 §2–§5, seed 004 §I): the limit of a port's buffer
//! computed from the link and the flows that cross it, rather than written by hand.
//!
//! | rule | packets |
//! |---|---|
//! | `bdp` | rate × mean round-trip propagation time (Villamizar & Song 1994) |
//! | `bdp/sqrt(n)` | BDP / √n, n flows (Appenzeller, Keslassy & McKeown 2004) |
//! | `connection-proportional` | [`PKTS_PER_CONNECTION`] × n (Morris 2000; Dhamdhere et al. 2005) |
//! | `max(bdp, connection-proportional)` | seed 003 §3.2's reconciling rule |
//! | `2L` | 2 × the number of input links of the router (seed 003 §5) |
//! | `rtt-adaptive` | starts at BDP, then rate × measured mean RTT, re-sized once per sawtooth cycle ([`AdaptiveSizer`]) |
//!
//! Every rule is multiplied by `scale`, rounded to whole packets, at least one. A port no flow
//! crosses never queues a packet; the rules that need flows leave it at Linux's `txqueuelen`
//! default of [`NO_FLOWS_LIMIT_PKTS`] packets.

use crate::problem::{at_key, Problem};
use crate::qdisc::Limit;
use crate::scenario::SizingSpec;
use crate::time::{Duration, Instant, NS_PER_SEC};

/// What a rule may use: the link, the flows crossing it, the router it leaves from.
#[derive(Clone, Debug)]
pub struct SizingCtx {
    pub rate_bps: u64,
    /// Round-trip propagation times of the flows crossing this link direction.
    pub flow_rtts_ns: Vec<Duration>,
    /// Links into the router this port leaves from (seed 003's L).
    pub input_links: u32,
    /// Packet size the byte quantities are converted with.
    pub pkt_bytes: u32,
}

/// Packets per connection of the connection-proportional rule. Seed 003 §2 asks for "at least
/// few datagrams per connection"; Morris's Flow-Proportional Queuing (INFOCOM 2000) provisions
/// about six per connection, the window below which TCP loses fast retransmit and falls back on
/// timeouts.
pub const PKTS_PER_CONNECTION: u64 = 6;

/// The limit of a port no flow crosses (Linux's default `txqueuelen`).
pub const NO_FLOWS_LIMIT_PKTS: u64 = crate::qdisc::params::TXQUEUELEN_PKTS;

/// The rule names, as a scenario spells them.
pub const RULES: [&str; 6] = [
    "bdp",
    "bdp/sqrt(n)",
    "connection-proportional",
    "max(bdp, connection-proportional)",
    "2L",
    "rtt-adaptive",
];

/// Canonical name of a rule, accepting any spacing and case.
pub fn canonical(rule: &str) -> Option<&'static str> {
    let key: String = rule
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    RULES
        .iter()
        .find(|r| r.replace(' ', "").to_lowercase() == key)
        .copied()
}

fn pkts(limit: f64) -> Limit {
    Limit {
        pkts: Some((limit.round() as u64).max(1)),
        bytes: None,
    }
}

impl SizingCtx {
    /// Bandwidth-delay product in packets over the mean round-trip propagation time.
    fn bdp_pkts(&self) -> Result<f64, Problem> {
        if self.flow_rtts_ns.is_empty() {
            return Err(at_key(
                "rule",
                "no flow crosses this link, so it has no round-trip time to size \
                        by (give an explicit limit such as \"100pkt\")",
            ));
        }
        let mean_ns = self
            .flow_rtts_ns
            .iter()
            .map(|r| r.as_ns() as f64)
            .sum::<f64>()
            / self.flow_rtts_ns.len() as f64;
        Ok(self.rate_bps as f64 * mean_ns / NS_PER_SEC as f64 / 8.0 / self.pkt_bytes as f64)
    }

    fn flows(&self) -> Result<f64, Problem> {
        if self.flow_rtts_ns.is_empty() {
            return Err(at_key(
                "rule",
                "no flow crosses this link, so a per-flow rule has nothing to \
                        count (give an explicit limit such as \"100pkt\")",
            ));
        }
        Ok(self.flow_rtts_ns.len() as f64)
    }
}

/// Resolve a rule to a limit in packets and its canonical name.
/// Problems name the key of the sizing spec (`rule`); `scale`'s bound (> 0) is the plan's, checked
/// by [`crate::bounds`] before any port is sized.
pub fn resolve(spec: &SizingSpec, ctx: &SizingCtx) -> Result<(Limit, String), Problem> {
    let Some(rule) = canonical(&spec.rule) else {
        return Err(at_key(
            "rule",
            format!(
                "unknown sizing rule {:?} (one of {})",
                spec.rule,
                RULES.map(|r| format!("{r:?}")).join(", ")
            ),
        ));
    };
    if ctx.pkt_bytes == 0 || ctx.rate_bps == 0 {
        return Err(at_key(
            "rule",
            "the link needs a positive rate and packet size to be sized",
        ));
    }
    let s = spec.scale;
    if ctx.flow_rtts_ns.is_empty() && rule != "2L" {
        return Ok((pkts(NO_FLOWS_LIMIT_PKTS as f64), rule.to_string()));
    }
    let limit = match rule {
        "bdp" | "rtt-adaptive" => pkts(s * ctx.bdp_pkts()?),
        "bdp/sqrt(n)" => pkts(s * ctx.bdp_pkts()? / ctx.flows()?.sqrt()),
        "connection-proportional" => pkts(s * PKTS_PER_CONNECTION as f64 * ctx.flows()?),
        "max(bdp, connection-proportional)" => pkts(
            s * ctx
                .bdp_pkts()?
                .max(PKTS_PER_CONNECTION as f64 * ctx.flows()?),
        ),
        "2L" => {
            if ctx.input_links == 0 {
                return Err(at_key(
                    "rule",
                    "\"2L\" counts the router's input links, and it has none",
                ));
            }
            pkts(s * 2.0 * ctx.input_links as f64)
        }
        _ => unreachable!("every canonical rule is handled"),
    };
    Ok((limit, rule.to_string()))
}

/// The RTT-based rule of seed 003 §4.2: the router sets its buffer to rate × the mean RTT it
/// reads from the packets' RTT stamps. The RTT includes the queueing the buffer itself causes,
/// so the buffer feeds on itself: for one NewReno flow it converges to about 3 × BDP instead of
/// BDP.
///
/// When to re-size: the paper's router knows the flow's *average* RTT, i.e. the mean over whole
/// sawtooth cycles. A router re-sizing on a clock with a period shorter than a cycle averages
/// over the rising part of the sawtooth only, always sets the buffer above the current queue,
/// never overflows, and grows without bound. So the sizer re-sizes at the end of a cycle — the
/// first drop at the port once at least `period` has passed since the last re-size — with the
/// mean RTT since then (one or more whole cycles).
#[derive(Clone, Debug)]
pub struct AdaptiveSizer {
    rate_bps: u64,
    pkt_bytes: u32,
    scale: f64,
    period_ns: Duration,
    last_ns: Instant,
    /// When a re-size became due (a drop after the period), if one is.
    due_ns: Option<Instant>,
    sum_ns: f64,
    n: u64,
    limit: Limit,
}

impl AdaptiveSizer {
    /// Seed 003 gives no period. Ours: 10 s, so that a single burst of drops re-sizes once and a
    /// cycle of many short-RTT flows is averaged over several of its sawteeth.
    pub const DEFAULT_PERIOD_NS: Duration = Duration::from_secs(10);

    /// Starts at the BDP over the flows' round-trip propagation times ("the initial buffer size
    /// is set optimally to BD", seed 003 §4.2).
    pub fn new(spec: &SizingSpec, ctx: &SizingCtx, period_ns: Duration) -> Result<Self, Problem> {
        let (limit, _) = resolve(
            &SizingSpec {
                rule: "bdp".into(),
                scale: spec.scale,
            },
            ctx,
        )?;
        if period_ns.is_zero() {
            return Err(at_key(
                "rule",
                "the update period of \"rtt-adaptive\" must be positive",
            ));
        }
        Ok(AdaptiveSizer {
            rate_bps: ctx.rate_bps,
            pkt_bytes: ctx.pkt_bytes,
            scale: spec.scale,
            period_ns,
            last_ns: Instant::ZERO,
            due_ns: None,
            sum_ns: 0.0,
            n: 0,
            limit,
        })
    }

    /// A packet reached the buffer carrying the sender's smoothed RTT (0: none).
    #[inline]
    pub fn on_packet(&mut self, _now: Instant, srtt_ns: Duration) {
        if !srtt_ns.is_zero() {
            self.sum_ns += srtt_ns.as_ns() as f64;
            self.n += 1;
        }
    }

    /// The port dropped a packet: a sawtooth cycle ended. Makes a re-size due if the period has
    /// passed.
    #[inline]
    pub fn on_drop(&mut self, now: Instant) {
        if self.due_ns.is_none() && now >= self.last_ns + self.period_ns {
            self.due_ns = Some(now);
        }
    }

    /// When the next [`AdaptiveSizer::update`] is due (`Instant::NEVER`: not yet).
    pub fn next_update(&self) -> Instant {
        self.due_ns.unwrap_or(Instant::NEVER)
    }

    /// Re-size: rate × the mean RTT since the last re-size (unchanged if no packet carried an
    /// RTT). Returns the limit now in force.
    pub fn update(&mut self, now: Instant) -> Limit {
        if self.n > 0 {
            let mean_ns = self.sum_ns / self.n as f64;
            self.limit = pkts(
                self.scale * self.rate_bps as f64 * mean_ns
                    / NS_PER_SEC as f64
                    / 8.0
                    / self.pkt_bytes as f64,
            );
        }
        self.sum_ns = 0.0;
        self.n = 0;
        self.last_ns = now;
        self.due_ns = None;
        self.limit
    }

    /// The limit now in force.
    pub fn limit(&self) -> Limit {
        self.limit
    }
}

#[cfg(test)]
mod tests;
