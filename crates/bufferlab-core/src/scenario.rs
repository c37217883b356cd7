//! The resolved scenario (the plan): what crosses from the Python front into the engine, as JSON.
//!
//! These types are the one source of truth for every engine parameter: its type, its unit (the
//! key's suffix: `_ns`, `_bps`, `_bytes`, `_pkts`, `_pps`), its bounds (`#[schemars(range)]`),
//! its default (`Default`, citing its source) and its doc line. [`plan_schema`] turns them into a
//! JSON Schema; the engine checks every plan's bounds against it ([`crate::bounds`]) and the
//! Python front reads it to know the keys, units, defaults and docs of the scenario format.
//!
//! The user-facing TOML (units as strings, templates, groups) is read by [`crate::file`]; what
//! reaches the engine is this plain form: explicit nodes and links, quantities as integers in base
//! units, traffic groups expanded into `(src, dst)` pairs. The engine never panics on it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::dist::Dist;
pub use crate::net::trace::TraceSpec;
pub use crate::qdisc::bql::BqlSpec;
pub use crate::qdisc::codel::CodelConfig;
pub use crate::qdisc::fq::FqConfig;
pub use crate::qdisc::fq_codel::FqCodelConfig;
pub use crate::qdisc::pie::PieConfig;
pub use crate::qdisc::prio_small::PrioSmallConfig;
pub use crate::qdisc::red::RedSpec;
pub use crate::qdisc::splitbuff::{BlindSplitBuffConfig, SplitBuffConfig};
pub use crate::qdisc::QdiscSpec;
pub use crate::tcp::params::TcpOptions;

pub use crate::time::MAX_DURATION_NS;
use crate::time::{Duration, Instant};

/// A whole run.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub run: RunSpec,
    /// Node names; a node's index in this list is its id.
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time the run lasts.
    #[schemars(range(min = 1, max = MAX_DURATION_NS))]
    pub duration_ns: Duration,
    #[serde(default)]
    pub seed: u64,
    /// Window `[start, end)` for the summary statistics; the whole run if absent.
    #[serde(default)]
    pub measure_ns: Option<[Instant; 2]>,
    /// Record time series at this step.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub sample_ns: Option<Duration>,
    /// Packet captures, one pcap file per point: `"a->b"` (a link direction, on the wire),
    /// `"a->b:arrivals"`, `"a->b:departures"`, `"a->b:drops"` (its queue), `"h"`,
    /// `"h:egress"`, `"h:ingress"` (a node's own packets). See docs/capture.md.
    #[serde(default)]
    pub capture: Vec<String>,
    /// Bytes kept of each captured packet (zeros past its headers); its headers only if absent.
    #[serde(default)]
    #[schemars(range(min = 20, max = 262_144))]
    pub capture_snaplen_bytes: Option<u32>,
    /// Most bytes the run's capture files may hold together (100 MB if absent): capturing
    /// stops there, with a note in the summary.
    #[serde(default)]
    #[schemars(range(min = 1024, max = 1_099_511_627_776u64))]
    pub capture_limit_bytes: Option<u64>,
}

/// A bidirectional link between nodes `a` and `b`; `forward` is the direction a -> b.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub forward: DirSpec,
    pub reverse: DirSpec,
}

/// One direction of a link and the egress port at its head.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirSpec {
    /// Transmission rate (bits on the wire, after framing); a trace's mean rate with `trace`.
    #[schemars(range(min = 1, max = 10_000_000_000_000u64))]
    pub rate_bps: u64,
    /// One-way propagation delay.
    #[schemars(range(max = MAX_DURATION_NS))]
    pub delay_ns: Duration,
    /// A random extra delay per packet, uniform in [0, jitter], on top of `delay` (netem's
    /// `delay D J` with a uniform law; ns-2's TCP `overhead_` at the link): never reordering, a
    /// packet leaving no earlier than the one before it. Default 0. What it is for: breaking the
    /// phase effects of deterministic timing (Floyd & Jacobson 1992), where one flow's packets
    /// always arrive just after a drop-tail queue fills.
    #[serde(default)]
    #[schemars(range(max = MAX_DURATION_NS))]
    pub jitter_ns: Duration,
    #[serde(default)]
    pub framing: Framing,
    pub queue: QueueSpec,
    #[serde(default)]
    pub ring: Option<RingSpec>,
    /// Random loss probability per packet on the wire (for model checks); 1 loses every packet.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub loss: f64,
    /// Send only at a trace's delivery opportunities (Mahimahi's format; `rate = "trace(FILE)"`
    /// in the file); `rate_bps` is then the trace's mean rate.
    #[serde(default)]
    pub trace: Option<TraceSpec>,
}

/// Link-layer framing: what a packet costs on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
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
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub qdisc: QdiscSpec,
    /// Buffer limit in packets.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100_000_000))]
    pub limit_pkts: Option<u64>,
    /// Buffer limit in bytes; under 64 B no packet fits.
    #[serde(default)]
    #[schemars(range(min = 64, max = 1_099_511_627_776u64))]
    pub limit_bytes: Option<u64>,
    #[serde(default)]
    pub sizing: Option<SizingSpec>,
}

/// A buffer-sizing rule in place of an explicit limit (Gorinsky et al. §2, Jabeen et al. §II).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizingSpec {
    /// `"bdp"`, `"bdp/sqrt(n)"`, `"connection-proportional"`, `"max(bdp, connection-proportional)"`,
    /// `"2L"`, `"rtt-adaptive"`.
    pub rule: String,
    /// Multiplies the rule's size.
    #[serde(default = "one")]
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e6))]
    pub scale: f64,
}

fn one() -> f64 {
    1.0
}

/// A NIC transmit ring between the qdisc and the wire (Cardozo et al. §2).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RingSpec {
    /// Descriptors the ring holds: one packet each, or with `gso` one GSO buffer each.
    #[schemars(range(min = 1, max = 1_048_576))]
    pub size: u32,
    pub bql: BqlSpec,
    /// GSO descriptors: the segments of one sender's GSO buffer that reach the ring in a row
    /// share a descriptor, up to 64 KiB (Linux's `gso_max_size`), as a Linux host's driver gets
    /// the buffer whole (GSO/TSO on, Linux's default). Default false: one packet per descriptor
    /// (docs/bql.md, GSO descriptors).
    #[serde(default)]
    pub gso: bool,
}

/// How a UDP source spaces its packets.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    #[default]
    Cbr,
    Poisson,
}

/// Bursts: every `every_ns`, `packets` packets paced at the source's rate (Braud et al. §II-E).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BurstSpec {
    /// Packets per burst.
    #[schemars(range(min = 1))]
    pub packets: u64,
    /// Time from one burst's start to the next's.
    #[schemars(range(min = 1))]
    pub every_ns: Duration,
}

fn default_ttl() -> u8 {
    64
}

fn zero_start() -> Dist {
    Dist::Const { value: 0.0 }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// One flow per `(src, dst)` pair.
    pub pairs: Vec<(String, String)>,
    /// Packets per second.
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e9))]
    pub rate_pps: f64,
    /// IP packet size: at least the IP and UDP headers.
    #[schemars(range(min = 28, max = 65535))]
    pub size_bytes: u32,
    #[serde(default)]
    pub arrivals: Arrivals,
    #[serde(default)]
    pub burst: Option<BurstSpec>,
    /// IP time to live (hops).
    #[serde(default = "default_ttl")]
    #[schemars(range(min = 1))]
    pub ttl: u8,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub stop_ns: Option<Instant>,
    /// A label for this block's flows: the flows table's `group` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The DSCP (0-63) the block's packets carry, from their source (a reply or an ACK carries
    /// 0); only CAKE's tins read it. Default 0, best effort.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: u8,
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
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BallastSpec {
    pub pairs: Vec<(String, String)>,
    /// A fixed rate, packets per second (or `auto`).
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e9))]
    pub rate_pps: Option<f64>,
    /// IP packet size (Braud et al. (2013) §II: 29 B, 1 B of payload).
    #[serde(default = "ballast_size")]
    #[schemars(range(min = 28, max = 65535))]
    pub size_bytes: u32,
    #[serde(default)]
    pub burst: Option<BurstSpec>,
    /// IP time to live: enough to cross the access link (2).
    #[serde(default = "ballast_ttl")]
    #[schemars(range(min = 1))]
    pub ttl: u8,
    #[serde(default)]
    pub auto: bool,
    /// The controller's target queueing delay (`None`: its default).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub target_ns: Option<Duration>,
    /// Largest share of the uplink the ballast may take (eq. 7; 0.2).
    #[serde(default = "ballast_max_share")]
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub max_share: f64,
    /// The controller's decision period (`None`: its default).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub period_ns: Option<Duration>,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub stop_ns: Option<Instant>,
    /// A label for this block's flows: the flows table's `group` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

fn one_second() -> Duration {
    Duration::from_secs(1)
}

fn default_ping_size() -> u32 {
    PingSpec::DEFAULT_SIZE_BYTES
}

/// What a latency probe sends.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PingProto {
    /// ICMP echo request and reply, as `ping`.
    #[default]
    Icmp,
    /// A UDP datagram the far host sends back, as `irtt` (Flent's UDP latency probe).
    Udp,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingSpec {
    pub pairs: Vec<(String, String)>,
    /// Time between echo requests (ping's default: 1 s).
    #[serde(default = "one_second")]
    #[schemars(range(min = 1))]
    pub interval_ns: Duration,
    /// IP packet size (Linux ping: 84 B).
    #[serde(default = "default_ping_size")]
    #[schemars(range(min = 28, max = 65535))]
    pub size_bytes: u32,
    /// `icmp` (echo request and reply) or `udp` (a datagram echoed back).
    #[serde(default)]
    pub proto: PingProto,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub stop_ns: Option<Instant>,
    /// A label for this block's flows: the flows table's `group` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The DSCP (0-63) the block's packets carry, from their source (a reply or an ACK carries
    /// 0); only CAKE's tins read it. Default 0, best effort.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: u8,
}

impl PingSpec {
    /// Linux ping: 56 B of data + 8 B ICMP + 20 B IP.
    pub const DEFAULT_SIZE_BYTES: u32 = 84;
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    pub pairs: Vec<(String, String)>,
    /// Connections per pair.
    #[serde(default = "one_u32")]
    #[schemars(range(min = 1, max = 100_000))]
    pub count: u32,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    /// Bytes to transfer; `None` is a bulk transfer that never ends.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub tcp: TcpOptions,
    /// A label for this block's flows: the flows table's `group` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The DSCP (0-63) the block's packets carry, from their source (a reply or an ACK carries
    /// 0); only CAKE's tins read it. Default 0, best effort.
    #[serde(default)]
    #[schemars(range(max = 63))]
    pub dscp: u8,
}

fn one_u32() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// `(server, client)` pairs: data flows from the first to the second.
    pub pairs: Vec<(String, String)>,
    /// New connections per second (Poisson).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e6))]
    pub arrival_rate: f64,
    pub size_bytes: Dist,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub tcp: TcpOptions,
    /// A label for this block's flows: the flows table's `group` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    pub pairs: Vec<(String, String)>,
    pub size_bytes: Dist,
    pub idle_ns: Dist,
    #[serde(default = "zero_start")]
    pub start_ns: Dist,
    #[serde(default)]
    pub tcp: TcpOptions,
    /// A label for this block's flows: the flows table's `group` column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

fn flent_streams() -> u32 {
    // Flent's rrul test: four TCP streams each way (tests/rrul.conf).
    4
}

fn flent_udp_probes() -> u32 {
    // Flent's rrul test: three UDP latency probes, marked EF, BK and BE (tests/rrul.conf).
    3
}

fn flent_step() -> Duration {
    // Flent's --step-size (0.2 s): its ping interval and irtt's (settings.py, runners.py).
    Duration::from_ms(200)
}

fn flent_delay() -> Dist {
    // Flent's --delay (5 s): the TCP streams start this long after the probes.
    Dist::Const { value: 5e9 }
}

/// Flent's Realtime Response Under Load test (tests/rrul.conf) between a client and a server:
/// TCP uploads and downloads with ICMP and UDP latency probes running through them. The scenario
/// reader expands it into `tcp` and `ping` blocks labelled with its group (docs/traffic-rrul.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RrulSpec {
    /// `(client, server)` pairs: one test per pair (Flent's host and the netserver it tests to).
    pub pairs: Vec<(String, String)>,
    /// TCP uploads, client to server (Flent's rrul: 4; Cardozo et al.: 1).
    #[serde(default = "flent_streams")]
    #[schemars(range(max = 100_000))]
    pub uploads: u32,
    /// TCP downloads, server to client (Flent's rrul: 4; Cardozo et al.: 50).
    #[serde(default = "flent_streams")]
    #[schemars(range(max = 100_000))]
    pub downloads: u32,
    /// UDP latency probes (Flent's rrul: 3).
    #[serde(default = "flent_udp_probes")]
    #[schemars(range(max = 1_000))]
    pub udp_probes: u32,
    /// Time between ICMP echo requests (Flent's step size: 0.2 s).
    #[serde(default = "flent_step")]
    #[schemars(range(min = 1))]
    pub ping_interval_ns: Duration,
    /// Time between UDP probes (Flent runs irtt at its step size: 0.2 s).
    #[serde(default = "flent_step")]
    #[schemars(range(min = 1))]
    pub udp_interval_ns: Duration,
    /// When the TCP streams start, after the probes (which start with the run; Flent's --delay: 5 s).
    /// A distribution draws each stream's own start (`"uniform(5s,5.2s)"`): Flent's netperf
    /// processes start a few milliseconds apart, and a constant makes every seed the same run.
    #[serde(default = "flent_delay")]
    pub delay_ns: Dist,
    /// The label of each test's flows (`rrul-1`, `rrul-2`, ... in file order by default; a block
    /// with several pairs adds `-1`, `-2`, ... to its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default)]
    pub tcp: TcpOptions,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TrafficSpec {
    Udp(UdpSpec),
    Ping(PingSpec),
    Tcp(TcpSpec),
    Web(WebSpec),
    TcpOnoff(OnOffSpec),
    Ballast(BallastSpec),
    Rrul(RrulSpec),
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
            TrafficSpec::Rrul(_) => "rrul",
        }
    }

    /// The DSCP its source's packets carry (0 for the kinds without the key).
    pub fn dscp(&self) -> u8 {
        match self {
            TrafficSpec::Udp(s) => s.dscp,
            TrafficSpec::Ping(s) => s.dscp,
            TrafficSpec::Tcp(s) => s.dscp,
            _ => 0,
        }
    }

    /// The block's group label, if it has one.
    pub fn group(&self) -> Option<&str> {
        match self {
            TrafficSpec::Udp(s) => s.group.as_deref(),
            TrafficSpec::Ping(s) => s.group.as_deref(),
            TrafficSpec::Tcp(s) => s.group.as_deref(),
            TrafficSpec::Web(s) => s.group.as_deref(),
            TrafficSpec::TcpOnoff(s) => s.group.as_deref(),
            TrafficSpec::Ballast(s) => s.group.as_deref(),
            TrafficSpec::Rrul(s) => s.group.as_deref(),
        }
    }
}

impl Scenario {
    /// Parse a plan; a malformed one gives one problem at the key where parsing stopped.
    pub fn from_json(s: &str) -> Result<Scenario, crate::problem::Problem> {
        let de = &mut serde_json::Deserializer::from_str(s);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let mut loc = crate::problem::Loc::root();
            for seg in e.path().iter() {
                loc = match seg {
                    serde_path_to_error::Segment::Seq { index } => loc.at(*index),
                    serde_path_to_error::Segment::Map { key } => loc.key(key),
                    serde_path_to_error::Segment::Enum { variant } => loc.key(variant),
                    serde_path_to_error::Segment::Unknown => loc,
                };
            }
            // A tagged table (`qdisc`, a traffic block, a distribution) is read whole, so its
            // problem is placed at the table; serde's position in the text means nothing to a
            // user of the scenario file.
            let msg = e.into_inner().to_string();
            let msg = match msg.rfind(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            loc.problem(msg)
        })
    }
}

/// The plan's JSON Schema: every key with its type, bounds, default and doc line.
pub fn plan_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Scenario)).unwrap_or_default()
}
