//! The resolved scenario: what crosses from the Python front into the engine, as JSON.
//!
//! The user-facing TOML (units as strings, templates, groups) is parsed and checked by the Python
//! package, which reports every problem with its key path. What reaches the engine is this plain
//! form: explicit nodes and links, quantities as integers in base units with the unit in the key
//! name (`_ns`, `_bps`, `_bytes`), traffic groups expanded into `(src, dst)` pairs. The engine
//! still checks it ([`Scenario::check`]) and never panics on it.
//!
//! Parameters a discipline or a transport has defaults for are optional here: their `Default`
//! implementations carry the defaults and cite their source.

use serde::{Deserialize, Serialize};

/// A whole run.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub run: RunSpec,
    /// Node names; a node's index in this list is its id.
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    pub duration_ns: u64,
    #[serde(default)]
    pub seed: u64,
    /// Window `[start, end)` for the summary statistics; the whole run if absent.
    #[serde(default)]
    pub measure_ns: Option<[u64; 2]>,
    /// Record time series at this step.
    #[serde(default)]
    pub sample_ns: Option<u64>,
}

/// A bidirectional link between nodes `a` and `b`; `forward` is the direction a -> b.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub forward: DirSpec,
    pub reverse: DirSpec,
}

/// One direction of a link and the egress port at its head.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DirSpec {
    pub rate_bps: u64,
    pub delay_ns: u64,
    #[serde(default)]
    pub framing: Framing,
    pub queue: QueueSpec,
    #[serde(default)]
    pub ring: Option<RingSpec>,
    /// Random loss probability per packet on the wire (for model checks), 0 by default.
    #[serde(default)]
    pub loss: f64,
}

/// Link-layer framing: what a packet costs on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Framing {
    /// The IP packet is what is sent.
    #[default]
    None,
    /// Ethernet II: 14 B header + 4 B FCS, 64 B minimum frame, + 8 B preamble and 12 B IFG.
    Ethernet,
    /// AAL5 over ATM (as on ADSL): 8 B LLC/SNAP + 8 B AAL5 trailer, padded to 48 B cell payloads,
    /// 53 B per cell (RFC 2684, ITU-T I.363.5).
    Atm,
}

/// The qdisc of a port and its buffer limit: explicit, or a sizing rule the engine resolves.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub qdisc: QdiscSpec,
    #[serde(default)]
    pub limit_pkts: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    #[serde(default)]
    pub sizing: Option<SizingSpec>,
}

/// A buffer-sizing rule in place of an explicit limit (seed 003 §2, seed 004 §II).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SizingSpec {
    /// `"bdp"`, `"bdp/sqrt(n)"`, `"connection-proportional"`, `"max(bdp, connection-proportional)"`,
    /// `"2L"`, `"rtt-adaptive"`.
    pub rule: String,
    #[serde(default = "one")]
    pub scale: f64,
}

fn one() -> f64 {
    1.0
}

/// The discipline and its parameters. Absent parameters take the discipline's defaults.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscSpec {
    Fifo {},
    Red(serde_json::Map<String, serde_json::Value>),
    Codel(serde_json::Map<String, serde_json::Value>),
    FqCodel(serde_json::Map<String, serde_json::Value>),
    Pie(serde_json::Map<String, serde_json::Value>),
    Splitbuff(serde_json::Map<String, serde_json::Value>),
    BlindSplitbuff(serde_json::Map<String, serde_json::Value>),
    PrioSmall(serde_json::Map<String, serde_json::Value>),
}

impl QdiscSpec {
    pub fn name(&self) -> &'static str {
        match self {
            QdiscSpec::Fifo {} => "fifo",
            QdiscSpec::Red(_) => "red",
            QdiscSpec::Codel(_) => "codel",
            QdiscSpec::FqCodel(_) => "fq_codel",
            QdiscSpec::Pie(_) => "pie",
            QdiscSpec::Splitbuff(_) => "splitbuff",
            QdiscSpec::BlindSplitbuff(_) => "blind_splitbuff",
            QdiscSpec::PrioSmall(_) => "prio_small",
        }
    }
}

/// A NIC transmit ring between the qdisc and the wire (seed 001 §2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RingSpec {
    /// Descriptors (packets) the ring holds.
    pub size: u32,
    pub bql: BqlSpec,
}

/// Byte Queue Limits on the ring.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BqlSpec {
    /// Linux's dynamic queue limits (`lib/dynamic_queue_limits.c`).
    Auto,
    /// No byte limit: the ring fills to its descriptor count.
    Off,
    /// A fixed byte limit.
    Fixed(u64),
}

/// A random variable; times in ns, sizes in bytes.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Const {
        value: f64,
    },
    Exp {
        mean: f64,
    },
    Uniform {
        lo: f64,
        hi: f64,
    },
    /// Values `k * unit` for `k` in `1..=max`, P(k) proportional to k^-s.
    Zipf {
        s: f64,
        max: u64,
        unit: f64,
    },
    /// Pareto with shape `shape` (> 1) and the given mean.
    Pareto {
        shape: f64,
        mean: f64,
    },
    /// Lognormal with the given mean and standard deviation (of the variable, not of its log).
    Lognormal {
        mean: f64,
        sd: f64,
    },
}

/// How a UDP source spaces its packets.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    #[default]
    Cbr,
    Poisson,
}

/// Bursts: every `every_ns`, `packets` packets paced at the source's rate (seed 000 §II-E).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BurstSpec {
    pub packets: u64,
    pub every_ns: u64,
}

fn default_ttl() -> u8 {
    64
}

fn zero_start() -> Dist {
    Dist::Const { value: 0.0 }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// One flow per `(src, dst)` pair.
    pub pairs: Vec<(String, String)>,
    pub rate_pps: f64,
    pub size_bytes: u32,
    #[serde(default)]
    pub arrivals: Arrivals,
    #[serde(default)]
    pub burst: Option<BurstSpec>,
    #[serde(default = "default_ttl")]
    pub ttl: u8,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub stop_ns: Option<u64>,
}

fn ballast_size() -> u32 {
    // Braud et al. (2013) §II: 1 B of payload, 29 B on the IP layer.
    29
}

fn ballast_ttl() -> u8 {
    // Enough to cross a home router and the access link, then die at the first router beyond
    // (Braud et al. (2013) §VI suggest a small TTL so the ballast loads nothing else).
    2
}

fn ballast_max_share() -> f64 {
    0.2
}

/// Braud et al. (2013)'s ballast: tiny UDP packets at a fixed rate (continuous or in bursts) or
/// at the rate the automatic controller chooses (`auto`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BallastSpec {
    pub pairs: Vec<(String, String)>,
    #[serde(default)]
    pub rate_pps: Option<f64>,
    #[serde(default = "ballast_size")]
    pub size_bytes: u32,
    #[serde(default)]
    pub burst: Option<BurstSpec>,
    #[serde(default = "ballast_ttl")]
    pub ttl: u8,
    #[serde(default)]
    pub auto: bool,
    /// The controller's target queueing delay (`None`: its default).
    #[serde(default)]
    pub target_ns: Option<u64>,
    #[serde(default = "ballast_max_share")]
    pub max_share: f64,
    #[serde(default)]
    pub period_ns: Option<u64>,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub stop_ns: Option<u64>,
}

fn default_ping_size() -> u32 {
    // Linux ping: 56 B of data + 8 B ICMP + 20 B IP.
    84
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PingSpec {
    pub pairs: Vec<(String, String)>,
    pub interval_ns: u64,
    #[serde(default = "default_ping_size")]
    pub size_bytes: u32,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub stop_ns: Option<u64>,
}

/// TCP options shared by every TCP workload. Absent keys take the transport's defaults.
pub type TcpOptions = serde_json::Map<String, serde_json::Value>;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    pub pairs: Vec<(String, String)>,
    #[serde(default = "one_u32")]
    pub count: u32,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    /// Bytes to transfer; `None` is a bulk transfer that never ends.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub tcp: TcpOptions,
}

fn one_u32() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// `(server, client)` pairs: data flows from the first to the second.
    pub pairs: Vec<(String, String)>,
    /// New connections per second (Poisson).
    pub arrival_rate: f64,
    pub size_bytes: Dist,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub tcp: TcpOptions,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    pub pairs: Vec<(String, String)>,
    pub size_bytes: Dist,
    pub idle_ns: Dist,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub tcp: TcpOptions,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TrafficSpec {
    Udp(UdpSpec),
    Ping(PingSpec),
    Tcp(TcpSpec),
    Web(WebSpec),
    TcpOnoff(OnOffSpec),
    Ballast(BallastSpec),
}

impl TrafficSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            TrafficSpec::Udp(_) => "udp",
            TrafficSpec::Ping(_) => "ping",
            TrafficSpec::Tcp(_) => "tcp",
            TrafficSpec::Web(_) => "web",
            TrafficSpec::TcpOnoff(_) => "tcp_onoff",
            TrafficSpec::Ballast(_) => "ballast",
        }
    }
}

impl Scenario {
    pub fn from_json(s: &str) -> Result<Scenario, String> {
        serde_json::from_str(s).map_err(|e| format!("scenario: {e}"))
    }
}
