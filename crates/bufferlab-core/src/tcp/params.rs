//! TCP options of a traffic block (`tcp` map of the plan) and their defaults.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::bufauto::AutoSize;
use super::cc::cubic::CubicConfig;
use super::cc::dctcp::DctcpConfig;
use super::cc::newreno::NewRenoConfig;
use super::cc::prague::PragueConfig;
use super::cc::vegas::VegasConfig;
use super::pacing;
use crate::packet::Ecn;
use crate::problem::{at_key, Problem};
use crate::time::{fmt_ns, Duration, NS_PER_SEC};

/// IPv4 (20 B) + TCP (20 B) headers. SACK blocks are carried as header fields of the simulated
/// packet but not charged on the wire; the timestamp option is, when the block has it
/// ([`TS_OPTION_BYTES`]).
pub const HEADER_BYTES: u32 = 40;

/// The timestamp option on the wire (RFC 7323 §3: kind, length and two 4 B values, 10 B, padded
/// with two NOPs to 12 B, as Linux and every stack send it).
pub const TS_OPTION_BYTES: u32 = 12;

/// RFC 6675 §2: DupThresh, the SACKed segments above a hole (or duplicate ACKs) that call it
/// lost; a constant of the protocol, not an option.
pub const DUP_THRESH: u32 = 3;

/// Which congestion control a connection runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// RFC 5681 slow start and congestion avoidance, RFC 6582 NewReno recovery.
    #[default]
    Newreno,
    /// RFC 9438.
    Cubic,
    /// Brakmo & Peterson 1995.
    Vegas,
    /// BBR v1 (Cardwell et al. 2016) as Linux's `tcp_bbr`: rate-based, always paced.
    Bbr,
    /// DCTCP (RFC 8257) as Linux's `tcp_dctcp`: ECN always on, the receiver echoes every mark,
    /// the window falls by α/2 per window of marks.
    Dctcp,
    /// TCP Prague (RFC 9331 §4.3), the L4S team's `tcp_prague`: ECT(1), AccECN feedback,
    /// DCTCP-like response, paced, RTT-independent.
    Prague,
}

/// What a congestion event's reduction is taken from (the window `ssthresh` is a fraction of).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// The congestion window when the loss is found, as Linux (`tcp_init_cwnd_reduction` calls
    /// the algorithm's `ssthresh()`, which reads `snd_cwnd`), ns-2, FreeBSD and ns-3's
    /// `TcpCubic` do; PRR's RecoverFS is then that window (Linux's `prior_cwnd`).
    #[default]
    Cwnd,
    /// FlightSize, SND.NXT − SND.UNA (RFC 5681 eq. 4, RFC 6675 §5; PRR's RecoverFS, RFC 6937
    /// §3), as ns-3's `TcpNewReno`. With SACK it counts the SACKed segments above a hole too.
    Flight,
}

/// Which segments give the retransmission timer its RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    /// Every ACK of new data, from its echoed timestamp (RFC 7323 §4; Linux, which also times
    /// every ACK without the option, from its retransmission queue).
    #[default]
    EveryAck,
    /// One segment at a time (RFC 6298 §3, Karn): the next new segment is timed when none is,
    /// the sample taken when the cumulative ACK covers it, and the timing dropped at a timeout
    /// or a fast retransmission. ns-2's agents without `timestamps_` (`rtt_active_`, `rtt_seq_`
    /// in `tcp.cc`: `output` starts it, `newack` samples, `reset_rtx_timer` drops it).
    OnePerRtt,
}

/// Where the RTO's lower bound `min_rto` applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoFloor {
    /// To the variance term: RTO = SRTT + max(min_rto, 4·RTTVAR), as Linux (`tcp_set_rto`:
    /// `rttvar` is never below `tcp_rto_min`).
    #[default]
    Rttvar,
    /// To the whole: RTO = max(min_rto, SRTT + 4·RTTVAR), RFC 6298 §2.4 and ns-2
    /// (`TcpAgent::rtt_timeout` clamps `t_rtxcur_` to `minrto_`).
    Total,
}

/// How the congestion window is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndUnit {
    /// Whole segments, as Linux (`snd_cwnd` and `snd_ssthresh` count packets): a reduction
    /// rounds down (`tcp_reno_ssthresh`: cwnd / 2; `cubictcp_recalc_ssthresh`: cwnd · 717 /
    /// 1024) and the window grows a segment at a time (`tcp_cong_avoid_ai`, Cubic's `cnt`).
    #[default]
    Segment,
    /// Bytes (RFC 5681 §2 counts cwnd in bytes; ns-3's `TcpNewReno`): a reduction keeps its
    /// fraction of a segment and Cubic grows the window by the byte.
    Byte,
}

/// Largest retransmission timeout accepted: one hour.
const MAX_RTO_NS: u64 = 3600 * NS_PER_SEC;

/// The plan's `tcp` table: every TCP option of a traffic block, its bounds and its default.
/// Plan keys carry their unit (`min_rto_ns`, `mss_bytes`). The algorithm-specific keys
/// (`beta`, `vegas_*`, `cubic_*`) are read by the algorithm `cc` names only.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpOptions {
    /// Congestion control. Default NewReno, the standard algorithm of RFC 5681/6582 and the one
    /// Gorinsky et al. sizes buffers for.
    pub cc: CcKind,
    /// Pace the sender (Linux's internal TCP pacing without `fq`, `tcp_output.c`): each data
    /// segment's departure time follows the previous one's by its payload over the pacing
    /// rate, Linux's `sk_pacing_rate` (`pacing_ss_ratio` or `pacing_ca_ratio` times cwnd / SRTT;
    /// the first ten segments go unpaced, as Linux's). Default off, as a Linux socket without
    /// `fq` or `SO_MAX_PACING_RATE`; BBR always paces, at its own rate, whatever this says.
    pub pacing: bool,
    /// The pacing rate in slow start (cwnd < ssthresh / 2), percent of cwnd / SRTT. Default 200,
    /// Linux's `net.ipv4.tcp_pacing_ss_ratio` (since 4.3), so the window can still double each
    /// round trip.
    #[schemars(range(min = 1, max = 1000))]
    pub pacing_ss_ratio: u32,
    /// The pacing rate after slow start, percent of cwnd / SRTT. Default 120, Linux's
    /// `net.ipv4.tcp_pacing_ca_ratio`.
    #[schemars(range(min = 1, max = 1000))]
    pub pacing_ca_ratio: u32,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery. Default on, as Linux
    /// (`net.ipv4.tcp_sack = 1`); off gives NewReno recovery on cumulative ACKs only.
    pub sack: bool,
    /// Proportional Rate Reduction (RFC 6937) paces SACK loss recovery. Default on, as Linux
    /// (since 3.2, always) and ns-3 (`TcpPrrRecovery`); off sends whatever RFC 6675's pipe
    /// allows. Without SACK recovery is NewReno's either way.
    pub prr: bool,
    /// F-RTO (RFC 5682, Standards Track): after a timeout, the first ACKs tell whether the
    /// timeout was spurious (the segments were delayed, not lost); if so the window reduction
    /// is undone and the window is not retransmitted. SACK connections use §3's SACK-enhanced
    /// algorithm, others §2's basic one. Default on, as Linux (`net.ipv4.tcp_frto = 2` since
    /// 2.6.24); ns-3 3.44 has no F-RTO (the crosscheck turns it off on both sides).
    pub frto: bool,
    /// FreeBSD's undo of a "bad" retransmission timeout (`t_badrxtwin`, after Allman & Paxson
    /// 1999): the first timeout outside a fast recovery keeps cwnd and ssthresh, and if the
    /// first ACK of new data after it comes within half an SRTT of the retransmission it
    /// answers the original segment, not the retransmission, so both are restored and nothing
    /// more is resent (`cc_cong_signal(CC_RTO_ERR)`: `snd_nxt = snd_max`). Default off: Linux
    /// and ns-3 have none (Linux runs F-RTO instead, `frto`, which this excludes); on in the
    /// FreeBSD 9.1 profile of the reproductions.
    pub badrxt_undo: bool,
    /// RACK (RFC 8985 §6, without tail loss probes): a segment is lost once a segment sent
    /// after it has been delivered and one RTT plus a reordering window has passed, which also
    /// finds lost retransmissions and losses in small windows before the timer does. Needs
    /// `sack`; without it the key has no effect. Default on, as Linux (`net.ipv4.tcp_recovery
    /// = 1`, since RACK came in 4.4); ns-3 3.44 has no RACK (the crosscheck turns it off on
    /// both sides).
    pub rack: bool,
    /// D-SACK (RFC 2883): the receiver reports a segment it receives twice in the first SACK
    /// block of its next ACK; the sender then undoes a recovery all of whose retransmissions
    /// prove needless (Linux's `tcp_try_undo_dsack`) and, once reordering has been seen, widens
    /// RACK's reordering window (RFC 8985 §6.2 step 4). Needs `sack`; without it the key has no
    /// effect. Default on, as Linux (`net.ipv4.tcp_dsack = 1`); ns-3 3.44 has no D-SACK (the
    /// crosscheck turns it off on both sides).
    pub dsack: bool,
    /// What a congestion event's reduction is taken from: `cwnd`, the congestion window, as
    /// Linux (`tcp_init_cwnd_reduction`: `ssthresh = β·cwnd`; PRR's RecoverFS is that window,
    /// `prior_cwnd`; a timeout during a fast recovery keeps the recovery's ssthresh), ns-2 and
    /// FreeBSD do; or `flight`, SND.NXT − SND.UNA (RFC 5681 eq. 4, RFC 6675 §5, RFC 6937's
    /// RecoverFS), as ns-3's `TcpNewReno` does. The two agree on a first loss in a
    /// window-limited flow; they part when a recovery starts while SACKed segments lie above
    /// the hole (a loss among the segments a recovery sent, found as it ends): FlightSize counts
    /// them, so the new ssthresh can exceed the window the recovery just set, and with Cubic's
    /// β = 0.7 each chained recovery raises the window instead of lowering it. Default `cwnd`,
    /// as Linux.
    pub ssthresh_from: SsthreshFrom,
    /// How the congestion window is counted: `segment`, whole segments as Linux does (a
    /// reduction to β·cwnd rounds down: 11 segments halve to 5, 9 fall to 6 with Cubic's 0.7;
    /// Cubic's growth adds a segment at a time), or `byte` (RFC 5681 §2, ns-3's `TcpNewReno`),
    /// where 11 segments halve to 5.5 and the half segment is kept. The half segment is kept at
    /// every reduction, so in bytes the window sits higher after each one, by a quarter to half a
    /// segment on average: little for one flow with a large window, a tenth of the window for
    /// flows that share a link at 4 to 10 segments each, where it shows as more drops or marks
    /// and longer queues (docs/validation-linux-differences.md, cwnd-unit). Default `segment`, as
    /// Linux.
    pub cwnd_unit: CwndUnit,
    /// Slow start grows the window by at most this many segments per ACK (RFC 3465 §2.2's L), or,
    /// 0, by every segment the ACK delivered, as Linux's `tcp_slow_start` since `tcp_abc` was
    /// removed (3.8). The two part on stretch ACKs: a download whose ACKs queue behind an upload
    /// on a slow uplink and are dropped there gets ACKs that cover many segments, and with L = 2
    /// its window regrows more slowly than Linux's. Default 0, Linux's rule (with
    /// `grow_by_delivered`): over the Linux matrix it held 487 of 503 rows against 486 with
    /// L = 2 (docs/validation-linux-differences.md). 2 is RFC 3465's limit (FreeBSD's
    /// `net.inet.tcp.abc_l_var`).
    #[schemars(range(max = 1000))]
    pub abc_limit: u32,
    /// What an ACK of new data grows the window by: the segments it newly delivered, cumulatively
    /// acknowledged or SACKed, as Linux's `tcp_cong_avoid` is handed `acked_sacked`
    /// (`tcp_newly_delivered`), so a cumulative ACK that fills a hole below SACKed data counts
    /// one segment, not the range, and an ACK that also SACKs more counts those; `false`:
    /// SND.UNA's advance, RFC 5681's and RFC 3465's bytes acknowledged. Without SACK both are
    /// the advance (Linux's count of duplicate ACKs as delivered, `tcp_add_reno_sack`, is not
    /// followed). Default on, as Linux.
    pub grow_by_delivered: bool,
    /// Whether the window may grow on an ACK, decided as Linux does (`tcp_is_cwnd_limited`,
    /// `tcp_cwnd_validate`): once the window filled anywhere in a window of data, every ACK of
    /// that data may grow it, and in slow start it grows while it is below twice the most
    /// segments that were out in that window. `false`: only if the last send attempt was stopped
    /// by the window (RFC 7661 §4.1's question asked of the moment). Default on, as Linux
    /// (docs/tcp.md, window growth).
    pub cwnd_latch: bool,
    /// FreeBSD's test in place of the one above (`cc_ack_received` sets `CCF_CWND_LIMITED` while
    /// `snd_cwnd` ≤ `snd_wnd`; NewReno's and Cubic's `ack_received` grow only then): the window
    /// may grow whenever it is at most the peer's advertised window, used or not, so a flow held
    /// back by its send buffer keeps growing it. Default off (Linux's test); on in the FreeBSD
    /// 9.1 profile.
    pub grow_below_rwnd: bool,
    /// The TCP timestamp option (RFC 7323) on the wire: 12 B on every segment and ACK, so a data
    /// segment carries `mss` − 12 B of payload in `mss` + 40 B (Linux's `tcp_current_mss`: 1448
    /// B in a 1500 B packet) and a pure ACK is 52 B. Default on, as Linux
    /// (`net.ipv4.tcp_timestamps = 1`), FreeBSD and Windows. RTTs are measured from echoed
    /// timestamps either way; `false` leaves the option's bytes out (ns-2's agents; the
    /// crosscheck runs ns-3 and bufferlab without them).
    pub timestamps: bool,
    /// Explicit Congestion Notification (RFC 3168): ask for it in the SYN (with ECE and CWR),
    /// send new data ECT(0) once the peer agrees, and take an ECN-Echo as a congestion event
    /// (once per window, nothing retransmitted). Default off: Linux's `net.ipv4.tcp_ecn = 2`
    /// accepts ECN from a peer that asks but does not ask; `true` is `tcp_ecn = 1`. A receiver
    /// always accepts, as Linux's default does.
    pub ecn: bool,
    /// Accurate ECN feedback (RFC 9768): asked for in the SYN (AE, CWR and ECE), the receiver
    /// counts CE-marked packets and every ACK carries the count's low 3 bits (the ACE field), so
    /// the sender learns how many packets were marked, not only that some were. Implies asking
    /// for ECN. Absent: on for `prague` (the module needs it, `TCP_CONG_NEEDS_ACCECN`), off
    /// otherwise (Linux's `net.ipv4.tcp_ecn` below 3). `prague` with `accecn = false` runs as the
    /// module then does, as Reno without ECN (`prague-reno`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accecn: Option<bool>,
    /// Prague's RTT-independence target (`prague_rtt_target`): once RTT-independent, a flow
    /// with a shorter RTT grows and reduces as one of this RTT would. Default 25 ms, the
    /// module's; 0 turns RTT independence off.
    #[schemars(range(max = 1_000_000_000))]
    pub prague_rtt_target_ns: Duration,
    /// Rounds of congestion avoidance before a Prague flow becomes RTT-independent
    /// (`prague_rtt_transition`). Default 500, the module's.
    #[schemars(range(max = 1_000_000))]
    pub prague_rtt_transition: u32,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2): an ACK for every second full segment or
    /// after `delack`. Default on (RFC 1122: a TCP SHOULD implement them; Linux does).
    pub delayed_ack: bool,
    /// Delayed-ACK timer. Default 40 ms, Linux's `TCP_DELACK_MIN`; RFC 1122 requires < 500 ms.
    #[schemars(range(min = 1), extend("exclusiveMaximum" = 500_000_000))]
    pub delack_ns: Duration,
    /// Linux's quick-ACK mode at a connection's start (`tcp_event_data_recv`,
    /// `tcp_incr_quickack`): the receiver ACKs each of the first segments at once, up to 16
    /// (`TCP_MAX_QUICKACKS`, fewer when the window holds fewer than twice as many), and again
    /// after data resumes from a gap longer than its retransmission timeout; delayed ACKs
    /// (`delayed_ack`) only after. A short transfer's last odd segment is then not held for the
    /// delayed-ACK timer, and slow start's first rounds get an ACK per segment. Default on, as
    /// Linux (docs/tcp.md, delayed ACKs); `false` is RFC 1122's receiver (ns-2's, ns-3's, FreeBSD's).
    pub quickack: bool,
    /// Linux's SACK compression (`net.ipv4.tcp_comp_sack_nr` = 44, since 4.19): the first three
    /// duplicate ACKs for a hole go at once (RFC 5681 §4.2), the SACKs of later out-of-order
    /// segments wait up to min(`comp_sack_delay`, RTT / 20) and go together, at most 44 in one.
    /// Needs `sack`. Default on, as Linux (docs/tcp.md, SACK compression); `false` is
    /// `tcp_comp_sack_nr = 0`, an ACK for every out-of-order segment (RFC 5681 §4.2: ns-2's,
    /// ns-3's, FreeBSD's receiver).
    pub comp_sack: bool,
    /// The longest a SACK is held (`net.ipv4.tcp_comp_sack_delay_ns`). Default 1 ms, Linux's.
    #[schemars(extend("exclusiveMaximum" = 500_000_000))]
    pub comp_sack_delay_ns: Duration,
    /// Linux's ACK of a pushed segment (`ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf`): a full segment
    /// carrying PSH is acknowledged as soon as the application has read it, even alone, where
    /// delayed ACKs would wait for a second. Linux's senders set PSH on the last segment of each
    /// GSO buffer, so the ACKs stay aligned with what the sender sent. Default on, as Linux
    /// (docs/tcp.md, PSH); `false` is a receiver that ignores PSH (RFC 1122's, ns-2's, ns-3's,
    /// FreeBSD's).
    pub push_ack: bool,
    /// Linux's ACK of a segment that grows the receive window (`tcp_grow_window` sets
    /// `icsk_ack.quick`): while the window the receiver may advertise is still opening (its
    /// buffer grown once per RTT by dynamic right-sizing, `tcp_rcvbuf_grow`), each segment is
    /// acknowledged at once, so slow start is ACKed segment by segment for much of each round
    /// trip, and HyStart's ACK train can end it. Default on, as Linux (docs/tcp.md, receive
    /// window); `false` is a receiver whose ACKs do not depend on its window (RFC 1122's, ns-2's,
    /// ns-3's, FreeBSD 9.1's).
    pub window_quickack: bool,
    /// Multiplicative decrease factor, in place of the algorithm's own (NewReno 0.5, RFC 5681
    /// eq. 4; Cubic 0.7, RFC 9438 §4.6; Vegas 0.75). Gorinsky et al. §5 uses 0.875 for NewReno.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub beta: Option<f64>,
    /// Initial window in segments. Default 10 (RFC 6928).
    #[schemars(range(min = 1, max = 1000))]
    pub initial_window: u32,
    /// Lower bound of the retransmission timeout. Default 200 ms as Linux (`TCP_RTO_MIN`);
    /// RFC 6298 §2.4 says 1 s.
    #[schemars(range(min = 1, max = MAX_RTO_NS))]
    pub min_rto_ns: Duration,
    /// The retransmission timeout before any RTT sample (the SYN's, or the first window's
    /// without a handshake). Default 1 s (RFC 6298 §2.1); ns-2's `rtxcur_init_` is 3 s (RFC 2988's
    /// value).
    #[schemars(range(min = 1, max = MAX_RTO_NS))]
    pub initial_rto_ns: Duration,
    /// Where `min_rto` bounds the RTO: `rttvar`, the variance term (SRTT + max(min_rto,
    /// 4·RTTVAR)), as Linux; or `total`, the whole (max(min_rto, SRTT + 4·RTTVAR)), as RFC 6298
    /// §2.4 and ns-2. Default `rttvar`, as Linux.
    pub rto_floor: RtoFloor,
    /// The retransmission timer's RTT samples: `every_ack` (echoed timestamps, as Linux) or
    /// `one_per_rtt` (one segment timed at a time, Karn's rule, as ns-2's agents without
    /// timestamps). The congestion control and the flow's RTT statistics see every ACK's RTT
    /// either way. Default `every_ack`.
    pub rtt_samples: RttSamples,
    /// Linux's RTT sample from an ACK that SACKs new data but acknowledges none
    /// (`tcp_clean_rtx_queue`: `sack_rtt_us`, from the oldest newly SACKed segment never resent,
    /// used when the ACK gives no cumulative sample): the smoothed RTT, the timer and the minimum
    /// RTT follow the path through a recovery, where they would otherwise hold their value from
    /// before the loss. Needs `sack`. Default on, as Linux; `false` samples only ACKs of new data
    /// (RFC 6298 §3 with RFC 7323 §4.3's rule: FreeBSD's, ns-2's and ns-3's senders).
    pub sack_rtt: bool,
    /// Upper bound of the retransmission timeout. Default 60 s (RFC 6298 §2.5).
    #[schemars(range(min = 1, max = MAX_RTO_NS))]
    pub max_rto_ns: Duration,
    /// Maximum segment size, the MSS option's value (payload without TCP options). Default 1460
    /// B: a 1500 B Ethernet MTU less 40 B of IPv4 and TCP headers (RFC 879, RFC 6691). A full
    /// segment carries it less the options every segment carries: 1448 B with `timestamps`.
    #[schemars(range(min = 64, max = 65_495))]
    pub mss_bytes: u32,
    /// Receiver window. Default 1 GiB, the largest window TCP can advertise (window scale 14,
    /// RFC 7323 §2.3): the window never limits a flow unless a scenario says so. Buffer-sizing
    /// experiments (Gorinsky et al. and Jabeen et al.) assume flows limited by the network only; a stock Linux
    /// host is `rwnd = "6MiB"` (`tcp_rmem` maximum), Braud et al.'s FreeBSD hosts are far smaller.
    #[schemars(range(min = 64, max = 1_073_741_824))]
    pub rwnd_bytes: u64,
    /// Send buffer: bytes sent and not yet acknowledged. Default 1 GiB for the same reason
    /// (Linux's `tcp_wmem` maximum is 4 MiB).
    #[schemars(range(min = 64, max = 4_294_967_296u64))]
    pub sndbuf_bytes: u64,
    /// Send-buffer auto-sizing as FreeBSD's (`net.inet.tcp.sendbuf_auto`, see [`super::bufauto`]):
    /// `sndbuf` is the starting size and grows by `sndbuf_inc` up to `sndbuf_max` while it is
    /// what limits the connection. Default off: the buffer keeps its size (Linux's own
    /// auto-tuning, `tcp_sndbuf_expand`, is not modelled).
    pub sndbuf_auto: bool,
    /// The step of `sndbuf_auto` (FreeBSD's `net.inet.tcp.sendbuf_inc`, 8 KiB).
    #[schemars(range(min = 1, max = 4_294_967_296u64))]
    pub sndbuf_inc_bytes: u64,
    /// The ceiling of `sndbuf_auto` (FreeBSD's `net.inet.tcp.sendbuf_max`, 2 MiB).
    #[schemars(range(min = 64, max = 4_294_967_296u64))]
    pub sndbuf_max_bytes: u64,
    /// Receive-buffer auto-sizing as FreeBSD's (`net.inet.tcp.recvbuf_auto`, see
    /// [`super::bufauto`]): `rwnd` is the starting window and grows by `rwnd_inc` up to
    /// `rwnd_max` when a round trip (under a second, measured with the timestamp option) brings
    /// more than 7/8 of it. Default off: the window keeps its size.
    pub rwnd_auto: bool,
    /// The step of `rwnd_auto` (FreeBSD's `net.inet.tcp.recvbuf_inc`, 16 KiB).
    #[schemars(range(min = 1, max = 1_073_741_824))]
    pub rwnd_inc_bytes: u64,
    /// The ceiling of `rwnd_auto` (FreeBSD's `net.inet.tcp.recvbuf_max`, 2 MiB).
    #[schemars(range(min = 64, max = 1_073_741_824))]
    pub rwnd_max_bytes: u64,
    /// Three-way handshake before the data and a FIN exchange after it (RFC 793). Default on,
    /// as every real stack and ns-3 do: the SYN/SYN-ACK exchange gives the sender its first RTT
    /// sample, so a path whose RTT exceeds the 1 s initial RTO (RFC 6298 §2.1) does not time
    /// out spuriously on its first window; short connections also hold the reverse buffer for
    /// the extra round trips Braud et al. §III counts. Off gives ns-2's set-up-free agents.
    pub handshake: bool,
    /// Vegas' α, packets queued per flow below which the window grows (Brakmo & Peterson
    /// 1995: 1; also ns-2's default, which Gorinsky et al. used).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e6))]
    pub vegas_alpha: f64,
    /// Vegas' β, packets queued per flow above which the window shrinks (3).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e6))]
    pub vegas_beta: f64,
    /// Vegas' γ, packets queued per flow above which slow start ends (1).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 1e6))]
    pub vegas_gamma: f64,
    /// Cubic's scaling constant C in segments/s³ (RFC 9438 §5: 0.4).
    #[schemars(extend("exclusiveMinimum" = 0.0), range(max = 100.0))]
    pub cubic_c: f64,
    /// Cubic's multiplicative decrease β_cubic (RFC 9438 §4.6: 0.7; Linux's `tcp_cubic` 717/1024).
    /// FreeBSD's `cc_cubic` keeps 0.8 (`CUBIC_BETA` 204/256 in `cc_cubic.h`). Read by Cubic only;
    /// `beta`, when given, takes its place.
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub cubic_beta: f64,
    /// Cubic fast convergence (RFC 9438 §4.7). Default on.
    pub cubic_fast_convergence: bool,
    /// RFC 9438 §4.3: Cubic's Reno-friendly estimate W_est grows with α = 1 instead of
    /// 3(1 − β)/(1 + β) once it passes the window before the last reduction. Default off, as
    /// Linux's `tcp_cubic` (its `tcp_friendliness` estimate keeps the one rate).
    pub cubic_alpha_switch: bool,
    /// HyStart (Ha & Rhee 2008): Cubic's slow start ends before the first loss when the RTT
    /// grows by clamp(min RTT / 8, 4 ms, 16 ms) or an ACK train outlasts half the minimum RTT,
    /// from a window of 16 segments. Default on, as Linux (`tcp_cubic` `hystart = 1`,
    /// `hystart_detect = 3`) and ns-3's `TcpCubic`.
    pub cubic_hystart: bool,
    /// GSO buffers, as Linux sends (`tcp_write_xmit`; GSO is on for every Linux device): new
    /// data leaves in bursts of up to ~1 ms of the pacing rate (`tcp_tso_autosize`: at least
    /// `min_tso_segs`, at most 64 KiB), and when the window has room for less than a full burst
    /// and less than a third of itself, the sender waits for the ACK due within min(SRTT / 2,
    /// 1 ms) rather than send the remainder alone (`tcp_tso_should_defer`). Not in loss recovery
    /// or after a timeout. Default on, as Linux; off sends each segment as soon as the window
    /// allows (ns-2, ns-3). Applies to connections with `sack` (without it each segment goes
    /// alone). See docs/tcp.md, GSO.
    pub gso: bool,
    /// The fewest segments in a GSO burst (`net.ipv4.tcp_min_tso_segs`, 2; BBR asks for 1 below
    /// a pacing rate of 1.2 Mb/s).
    #[schemars(range(min = 1, max = 255))]
    pub min_tso_segs: u32,
    /// Restart the retransmission timer (one RTO from now) whenever the oldest unacknowledged
    /// segment is retransmitted, as Linux does in loss recovery (`tcp_xmit_retransmit_queue`
    /// re-arms `ICSK_TIME_RETRANS` when it resends the head, unless RACK's reordering timer
    /// holds it). RFC 6298 §5.3 restarts it only when new data is acknowledged, so a recovery
    /// in a deep queue, whose retransmission waits behind the queue, can outlast the timer set
    /// before it and end in a timeout that Linux does not take (docs/tcp.md). Without SACK the
    /// fast retransmission and every partial ACK resend the oldest segment, so the timer restarts
    /// on each (RFC 6582 §4's Slow-but-Steady variant); off, on the first partial ACK only (its
    /// Impatient variant, ns-2's default). Default on, as Linux; ns-3 does not (the crosscheck turns it off).
    pub rto_rearm: bool,
    /// Tail loss probes (RFC 8985 §7): when nothing is acknowledged for two smoothed RTTs (plus
    /// 2 ms, or plus the minimum RTO with one segment out), send one segment — new data if the
    /// peer's window allows, else the highest segment again — so that a lost tail is found by
    /// its ACK's SACK and repaired by fast recovery, not by the retransmission timer and a
    /// window of one segment. Applies to connections with `sack`, outside loss recovery. An
    /// ACK above the probe that shows it repaired a loss reduces the window as a recovery would.
    /// Default on, as Linux (`net.ipv4.tcp_early_retrans = 3`, since 3.10); ns-3 3.44 and
    /// FreeBSD 9.1 have none (the crosscheck turns it off). See docs/tcp.md, tail loss probes.
    pub tlp: bool,
    /// TCP small queues (Linux `tcp_small_queue_check`, since 3.6): the connection keeps at
    /// most about 1 ms of its pacing rate (at least two packets, at most `limit_output`) in its
    /// host's egress — qdisc, NIC ring, wire — and the rest waits in the socket until one of its
    /// packets leaves. Absent: on where the sending host's egress models a Linux stack (a
    /// `ring`, or the `fq` qdisc), as Linux's TCP always has it, and off on an egress that is an
    /// abstract queue straight onto the wire; `true` or `false` anywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tsq: Option<bool>,
    /// The most TCP small queues let one connection keep in its host's egress (Linux's
    /// `net.ipv4.tcp_limit_output_bytes`). Default 4 MiB, Linux's since 6.16 (commit
    /// 9ea3bfa61b09; 1 MiB from 4.20, 256 KiB before), which caps every flow, paced or not
    /// (commit c4221a8cc3a7, also 6.16).
    #[schemars(range(min = 1, max = 2_147_483_647))]
    pub limit_output_bytes: u64,
}

impl Default for TcpOptions {
    fn default() -> Self {
        let v = VegasConfig::default();
        let c = CubicConfig::default();
        TcpOptions {
            cc: CcKind::Newreno,
            pacing: false,
            pacing_ss_ratio: pacing::SS_RATIO_PERCENT as u32,
            pacing_ca_ratio: pacing::CA_RATIO_PERCENT as u32,
            sack: true,
            prr: true,
            frto: true,
            badrxt_undo: false,
            rack: true,
            dsack: true,
            ssthresh_from: SsthreshFrom::Cwnd,
            cwnd_unit: CwndUnit::Segment,
            abc_limit: 0,
            grow_by_delivered: true,
            cwnd_latch: true,
            grow_below_rwnd: false,
            timestamps: true,
            ecn: false,
            accecn: None,
            prague_rtt_target_ns: PragueConfig::default().rtt_target,
            prague_rtt_transition: PragueConfig::default().rtt_transition,
            delayed_ack: true,
            delack_ns: Duration::from_ms(40),
            quickack: true,
            comp_sack: true,
            comp_sack_delay_ns: super::comp_sack::DEFAULT_DELAY,
            push_ack: true,
            window_quickack: true,
            beta: None,
            initial_window: 10,
            min_rto_ns: Duration::from_ms(200),
            initial_rto_ns: super::rtt::INITIAL_RTO_NS,
            rto_floor: RtoFloor::Rttvar,
            rtt_samples: RttSamples::EveryAck,
            sack_rtt: true,
            max_rto_ns: Duration::from_secs(60),
            mss_bytes: 1460,
            rwnd_bytes: 1 << 30,
            sndbuf_bytes: 1 << 30,
            sndbuf_auto: false,
            sndbuf_inc_bytes: 8 << 10,
            sndbuf_max_bytes: 2 << 20,
            rwnd_auto: false,
            rwnd_inc_bytes: 16 << 10,
            rwnd_max_bytes: 2 << 20,
            handshake: true,
            vegas_alpha: v.alpha,
            vegas_beta: v.beta,
            vegas_gamma: v.gamma,
            cubic_c: c.c,
            cubic_beta: c.beta,
            cubic_fast_convergence: c.fast_convergence,
            cubic_alpha_switch: c.alpha_switch,
            cubic_hystart: c.hystart,
            gso: true,
            min_tso_segs: super::gso::MIN_TSO_SEGS,
            rto_rearm: true,
            tlp: true,
            tsq: None,
            limit_output_bytes: super::tsq::LIMIT_OUTPUT_BYTES,
        }
    }
}

/// A congestion control algorithm with its own parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcConfig {
    NewReno(NewRenoConfig),
    Cubic(CubicConfig),
    Vegas(VegasConfig),
    /// BBR has no parameters: Linux's are constants of `tcp_bbr.c` (see `cc::bbr`).
    Bbr,
    Dctcp(DctcpConfig),
    Prague(PragueConfig),
}

/// What a connection runs with: the options resolved, the algorithm's parameters apart.
#[derive(Clone, Debug)]
pub struct TcpParams {
    pub cc: CcConfig,
    /// Paced (the `pacing` key, or BBR, which always paces).
    pub pacing: bool,
    /// Linux's pacing ratios, percent (`pacing_ss_ratio`, `pacing_ca_ratio`).
    pub pacing_ss_ratio: u64,
    pub pacing_ca_ratio: u64,
    pub sack: bool,
    pub prr: bool,
    pub frto: bool,
    /// FreeBSD's undo of a bad retransmission timeout (`TcpOptions::badrxt_undo`).
    pub badrxt_undo: bool,
    pub rack: bool,
    pub dsack: bool,
    pub ssthresh_from: SsthreshFrom,
    pub cwnd_unit: CwndUnit,
    pub abc_limit: u32,
    /// Growth by what an ACK newly delivered (`TcpOptions::grow_by_delivered`).
    pub grow_by_delivered: bool,
    /// Linux's latched window-use test (`TcpOptions::cwnd_latch`).
    pub cwnd_latch: bool,
    /// FreeBSD's growth test, cwnd ≤ the peer's window (`TcpOptions::grow_below_rwnd`).
    pub grow_below_rwnd: bool,
    pub timestamps: bool,
    /// Asks for ECN in the SYN (the `ecn` key, or an algorithm that needs it).
    pub ecn: bool,
    /// The codepoint new data goes out with once ECN is agreed: ECT(1) for Prague (L4S, RFC
    /// 9331 §4.1), ECT(0) otherwise.
    pub ect: Ecn,
    /// Asks for AccECN feedback (RFC 9768); the receiver agrees when it is on.
    pub accecn: bool,
    /// The receiver echoes every CE state change (RFC 8257 §3.2), DCTCP's receiver.
    pub dctcp_echo: bool,
    /// The algorithm needs ECN (Linux's `TCP_CONG_NEEDS_ECN`: DCTCP, Prague): its SYN,
    /// retransmissions and other segments without new data are ECN-capable too
    /// (`tcp_ecn_send_syn`, and `tcp_ecn_send` skipping `INET_ECN_dontxmit`).
    pub needs_ecn: bool,
    pub delayed_ack: bool,
    pub delack_ns: Duration,
    /// Quick ACKs at a connection's start and after a gap (`TcpOptions::quickack`).
    pub quickack: bool,
    /// SACK compression's cap on the hold (`TcpOptions::comp_sack`), `None` when off or
    /// without SACK.
    pub comp_sack: Option<Duration>,
    /// A pushed segment is acknowledged at once (`TcpOptions::push_ack`).
    pub push_ack: bool,
    /// A segment that grows the receive window is acknowledged at once
    /// (`TcpOptions::window_quickack`).
    pub window_quickack: bool,
    pub initial_window: u32,
    pub min_rto_ns: Duration,
    pub initial_rto_ns: Duration,
    pub rto_floor: RtoFloor,
    pub rtt_samples: RttSamples,
    /// RTT samples from ACKs that only SACK (`TcpOptions::sack_rtt`; off without SACK).
    pub sack_rtt: bool,
    pub max_rto_ns: Duration,
    pub mss_bytes: u32,
    pub rwnd_bytes: u64,
    pub sndbuf_bytes: u64,
    /// FreeBSD's auto-sizing of each buffer, when on.
    pub sndbuf_auto: Option<AutoSize>,
    pub rwnd_auto: Option<AutoSize>,
    pub handshake: bool,
    /// GSO bursts and their deferral (`TcpOptions::gso`), and the fewest segments per burst.
    pub gso: bool,
    pub min_tso_segs: u32,
    /// A retransmission of the oldest segment restarts the retransmission timer (Linux).
    pub rto_rearm: bool,
    /// Tail loss probes (RFC 8985 §7).
    pub tlp: bool,
    /// TCP small queues: `None` where the host's egress models Linux (see `TcpOptions::tsq`).
    pub tsq: Option<bool>,
    pub limit_output_bytes: u64,
}

impl TcpParams {
    /// IP and TCP header bytes on every packet, options included.
    pub fn header_bytes(&self) -> u32 {
        HEADER_BYTES + if self.timestamps { TS_OPTION_BYTES } else { 0 }
    }

    /// Payload of a full segment: the MSS less the options every segment carries (RFC 6691 §3;
    /// Linux's `tcp_current_mss`).
    pub fn segment_bytes(&self) -> u32 {
        self.mss_bytes + HEADER_BYTES - self.header_bytes()
    }
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpOptions::default().resolve()
    }
}

impl TcpOptions {
    /// What the bounds of each key cannot say: the RTO bounds in order, windows of at least a
    /// segment, Vegas' α ≤ β. Problems name the key (relative to the block).
    pub fn check(&self) -> Result<(), Problem> {
        if self.min_rto_ns > self.max_rto_ns {
            return Err(at_key(
                "min_rto_ns",
                format!(
                    "{} is above max_rto ({})",
                    fmt_ns(self.min_rto_ns),
                    fmt_ns(self.max_rto_ns)
                ),
            ));
        }
        let mss = self.mss_bytes as u64;
        for (key, v) in [
            ("rwnd_bytes", self.rwnd_bytes),
            ("sndbuf_bytes", self.sndbuf_bytes),
        ] {
            if v < mss {
                return Err(at_key(
                    key,
                    format!("{v} B is less than one segment ({mss} B)"),
                ));
            }
        }
        for (on, key, max, start) in [
            (
                self.sndbuf_auto,
                "sndbuf_max_bytes",
                self.sndbuf_max_bytes,
                self.sndbuf_bytes,
            ),
            (
                self.rwnd_auto,
                "rwnd_max_bytes",
                self.rwnd_max_bytes,
                self.rwnd_bytes,
            ),
        ] {
            if on && max < start {
                return Err(at_key(
                    key,
                    format!(
                        "{max} B is below the starting size ({start} B): auto-sizing only grows"
                    ),
                ));
            }
        }
        if self.badrxt_undo && self.frto {
            return Err(at_key(
                "badrxt_undo",
                "FreeBSD's undo and F-RTO both judge a timeout: set frto = false with it"
                    .to_string(),
            ));
        }
        if self.cc == CcKind::Vegas && self.vegas_alpha > self.vegas_beta {
            return Err(at_key(
                "vegas_alpha",
                format!(
                    "Vegas needs alpha <= beta, got {} > {}",
                    self.vegas_alpha, self.vegas_beta
                ),
            ));
        }
        Ok(())
    }

    /// The connection's parameters (call [`TcpOptions::check`] first).
    pub fn resolve(&self) -> TcpParams {
        let cc = match self.cc {
            CcKind::Newreno => {
                let d = NewRenoConfig::default();
                CcConfig::NewReno(NewRenoConfig {
                    beta: self.beta.unwrap_or(d.beta),
                })
            }
            CcKind::Cubic => CcConfig::Cubic(CubicConfig {
                c: self.cubic_c,
                beta: self.beta.unwrap_or(self.cubic_beta),
                fast_convergence: self.cubic_fast_convergence,
                alpha_switch: self.cubic_alpha_switch,
                hystart: self.cubic_hystart,
            }),
            CcKind::Vegas => {
                let d = VegasConfig::default();
                CcConfig::Vegas(VegasConfig {
                    alpha: self.vegas_alpha,
                    beta: self.vegas_beta,
                    gamma: self.vegas_gamma,
                    loss_beta: self.beta.unwrap_or(d.loss_beta),
                })
            }
            CcKind::Bbr => CcConfig::Bbr,
            CcKind::Dctcp => CcConfig::Dctcp(DctcpConfig::default()),
            // Without AccECN the module falls back to Reno and sends Not-ECT (`prague-reno`).
            CcKind::Prague if self.accecn == Some(false) => {
                CcConfig::NewReno(NewRenoConfig::default())
            }
            CcKind::Prague => CcConfig::Prague(PragueConfig {
                rtt_target: self.prague_rtt_target_ns,
                rtt_transition: self.prague_rtt_transition,
            }),
        };
        let prague = matches!(cc, CcConfig::Prague(_));
        // DCTCP and Prague ask for ECN whatever `ecn` says (Linux's `TCP_CONG_NEEDS_ECN`).
        let accecn = self.accecn.unwrap_or(prague);
        let ecn = self.ecn || accecn || matches!(cc, CcConfig::Dctcp(_)) || prague;
        TcpParams {
            cc,
            pacing: self.pacing || self.cc == CcKind::Bbr,
            pacing_ss_ratio: self.pacing_ss_ratio as u64,
            pacing_ca_ratio: self.pacing_ca_ratio as u64,
            sack: self.sack,
            prr: self.prr,
            frto: self.frto,
            badrxt_undo: self.badrxt_undo,
            rack: self.rack,
            dsack: self.dsack,
            ssthresh_from: self.ssthresh_from,
            cwnd_unit: self.cwnd_unit,
            abc_limit: self.abc_limit,
            grow_by_delivered: self.grow_by_delivered,
            cwnd_latch: self.cwnd_latch,
            grow_below_rwnd: self.grow_below_rwnd,
            timestamps: self.timestamps,
            ecn,
            ect: if prague { Ecn::Ect1 } else { Ecn::Ect0 },
            accecn,
            dctcp_echo: self.cc == CcKind::Dctcp,
            needs_ecn: prague || self.cc == CcKind::Dctcp,
            delayed_ack: self.delayed_ack,
            delack_ns: self.delack_ns,
            quickack: self.quickack,
            comp_sack: (self.comp_sack && self.sack).then_some(self.comp_sack_delay_ns),
            push_ack: self.push_ack,
            window_quickack: self.window_quickack,
            initial_window: self.initial_window,
            min_rto_ns: self.min_rto_ns,
            initial_rto_ns: self.initial_rto_ns,
            rto_floor: self.rto_floor,
            rtt_samples: self.rtt_samples,
            sack_rtt: self.sack_rtt && self.sack,
            max_rto_ns: self.max_rto_ns,
            mss_bytes: self.mss_bytes,
            rwnd_bytes: self.rwnd_bytes,
            sndbuf_bytes: self.sndbuf_bytes,
            sndbuf_auto: self.sndbuf_auto.then_some(AutoSize {
                inc_bytes: self.sndbuf_inc_bytes,
                max_bytes: self.sndbuf_max_bytes,
            }),
            // FreeBSD measures the receive side's round trips with the timestamp option only.
            rwnd_auto: (self.rwnd_auto && self.timestamps).then_some(AutoSize {
                inc_bytes: self.rwnd_inc_bytes,
                max_bytes: self.rwnd_max_bytes,
            }),
            handshake: self.handshake,
            gso: self.gso,
            min_tso_segs: self.min_tso_segs,
            rto_rearm: self.rto_rearm,
            tlp: self.tlp,
            tsq: self.tsq,
            limit_output_bytes: self.limit_output_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(v: serde_json::Value) -> TcpOptions {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn defaults_cite_their_values() {
        let p = opts(json!({})).resolve();
        assert_eq!((p.sndbuf_auto, p.rwnd_auto), (None, None));
        let f = opts(json!({"sndbuf_auto": true, "rwnd_auto": true})).resolve();
        assert_eq!(
            f.sndbuf_auto,
            Some(AutoSize {
                inc_bytes: 8192,
                max_bytes: 2_097_152
            })
        );
        assert_eq!(
            f.rwnd_auto,
            Some(AutoSize {
                inc_bytes: 16384,
                max_bytes: 2_097_152
            })
        );
        let no_ts = opts(json!({"rwnd_auto": true, "timestamps": false})).resolve();
        assert_eq!(no_ts.rwnd_auto, None);
        let e =
            opts(json!({"sndbuf_auto": true, "sndbuf_bytes": 65536, "sndbuf_max_bytes": 32768}));
        assert!(e
            .check()
            .unwrap_err()
            .to_string()
            .starts_with("sndbuf_max_bytes: "));
        assert_eq!(p.mss_bytes, 1460);
        assert_eq!(p.initial_window, 10);
        assert_eq!(p.min_rto_ns, Duration::from_ms(200));
        // Linux's timer: the floor under the variance term, every ACK timed, 1 s before a sample.
        assert_eq!(
            (p.rto_floor, p.rtt_samples, p.initial_rto_ns),
            (
                RtoFloor::Rttvar,
                RttSamples::EveryAck,
                Duration::from_secs(1)
            )
        );
        assert_eq!(p.cc, CcConfig::NewReno(NewRenoConfig { beta: 0.5 }));
        assert_eq!((p.tsq, p.limit_output_bytes), (None, 4 << 20));
        // Linux's loss detection and undo: SACK, RACK, F-RTO, D-SACK all on.
        assert_eq!((p.sack, p.rack, p.frto, p.dsack), (true, true, true, true));
        // SACK compression: Linux's 1 ms cap; nothing to compress without SACK.
        assert_eq!(p.comp_sack, Some(Duration::from_ms(1)));
        assert_eq!(opts(json!({"sack": false})).resolve().comp_sack, None);
        assert_eq!(opts(json!({"comp_sack": false})).resolve().comp_sack, None);
        assert!(p.push_ack && !opts(json!({"push_ack": false})).resolve().push_ack);
        assert!(p.sack_rtt && !opts(json!({"sack_rtt": false})).resolve().sack_rtt);
        assert!(!opts(json!({"sack": false})).resolve().sack_rtt);
        assert!(
            p.window_quickack
                && !opts(json!({"window_quickack": false}))
                    .resolve()
                    .window_quickack
        );
        let c = opts(json!({"cc": "cubic"})).resolve();
        assert_eq!(c.cc, CcConfig::Cubic(CubicConfig::default()));
        // Cubic's own β (FreeBSD's 0.8) reaches Cubic only, and `beta` given outright wins.
        let beta = |o: serde_json::Value| match opts(o).resolve().cc {
            CcConfig::Cubic(c) => c.beta,
            CcConfig::NewReno(c) => c.beta,
            _ => panic!(),
        };
        assert_eq!(beta(json!({"cc": "cubic", "cubic_beta": 0.8})), 0.8);
        assert_eq!(
            beta(json!({"cc": "cubic", "cubic_beta": 0.8, "beta": 0.6})),
            0.6
        );
        assert_eq!(beta(json!({"cc": "newreno", "cubic_beta": 0.8})), 0.5);
        let v = opts(json!({"cc": "vegas", "beta": 0.5})).resolve();
        let CcConfig::Vegas(v) = v.cc else { panic!() };
        assert_eq!((v.alpha, v.beta, v.loss_beta), (1.0, 3.0, 0.5));
    }

    #[test]
    fn dctcp_and_prague_force_ecn_and_prague_needs_accecn() {
        let p = opts(json!({"cc": "dctcp"})).resolve();
        assert_eq!(
            p.cc,
            CcConfig::Dctcp(DctcpConfig {
                alpha_init: 1.0,
                g: 1.0 / 16.0
            })
        );
        assert_eq!(
            (p.ecn, p.ect, p.accecn, p.dctcp_echo),
            (true, Ecn::Ect0, false, true)
        );
        let p = opts(json!({"cc": "prague"})).resolve();
        assert_eq!(
            p.cc,
            CcConfig::Prague(PragueConfig {
                rtt_target: Duration::from_ms(25),
                rtt_transition: 500
            })
        );
        assert_eq!(
            (p.ecn, p.ect, p.accecn, p.dctcp_echo),
            (true, Ecn::Ect1, true, false)
        );
        let p = opts(json!({"cc": "prague", "accecn": false})).resolve();
        assert_eq!(
            (p.cc, p.ecn),
            (CcConfig::NewReno(NewRenoConfig::default()), false)
        );
        let p = opts(json!({"accecn": true})).resolve();
        assert_eq!((p.ecn, p.accecn, p.ect), (true, true, Ecn::Ect0));
        let p = opts(json!({})).resolve();
        assert_eq!((p.ecn, p.accecn, p.dctcp_echo), (false, false, false));
    }

    #[test]
    fn bbr_always_paces_and_pacing_defaults_to_linuxs_ratios() {
        let p = opts(json!({})).resolve();
        assert_eq!(
            (p.pacing, p.pacing_ss_ratio, p.pacing_ca_ratio),
            (false, 200, 120)
        );
        let p = opts(json!({"cc": "bbr"})).resolve();
        assert_eq!((p.cc, p.pacing), (CcConfig::Bbr, true));
        let p = opts(json!({"cc": "cubic", "pacing": true, "pacing_ca_ratio": 100})).resolve();
        assert_eq!((p.pacing, p.pacing_ca_ratio), (true, 100));
    }

    #[test]
    fn the_timestamp_option_takes_its_bytes_from_the_payload() {
        // Linux with a 1500 B MTU: MSS 1460, 1448 B per segment, 52 B headers (RFC 7323 §3).
        let p = opts(json!({})).resolve();
        assert_eq!((p.segment_bytes(), p.header_bytes()), (1448, 52));
        let p = opts(json!({"timestamps": false, "mss_bytes": 960})).resolve();
        assert_eq!((p.segment_bytes(), p.header_bytes()), (960, 40));
    }

    #[test]
    fn unknown_and_mistyped_keys_fail_to_parse() {
        assert!(serde_json::from_value::<TcpOptions>(json!({"sak": true})).is_err());
        assert!(serde_json::from_value::<TcpOptions>(json!({"cc": "bic"})).is_err());
        assert!(serde_json::from_value::<TcpOptions>(json!({"sack": "yes"})).is_err());
    }

    #[test]
    fn cross_key_rules_name_their_key() {
        let e = opts(json!({"min_rto_ns": 2_000_000_000u64, "max_rto_ns": 1_000_000_000u64}));
        assert_eq!(
            e.check().unwrap_err().to_string(),
            "min_rto_ns: 2 s is above max_rto (1 s)"
        );
        let e = opts(json!({"rwnd_bytes": 100}));
        assert!(e
            .check()
            .unwrap_err()
            .to_string()
            .starts_with("rwnd_bytes: "));
        let e = opts(json!({"cc": "vegas", "vegas_alpha": 4.0}));
        assert!(e
            .check()
            .unwrap_err()
            .to_string()
            .starts_with("vegas_alpha: "));
        // Vegas' keys are Vegas' only.
        assert!(opts(json!({"cc": "cubic", "vegas_alpha": 4.0}))
            .check()
            .is_ok());
    }
}
