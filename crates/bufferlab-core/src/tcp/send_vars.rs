//! The sender's settings, variables and counters apart (as [`crate::qdisc::codel`] keeps
//! `CodelConfig`, `CodelVars` and its stats, after Linux's `codel_params` / `codel_vars` /
//! `codel_stats`): what the traffic block fixed, what moves with every ACK, what only goes up.

use super::accecn::AceCounter;
use super::bufauto::AutoSize;
use super::params::{RttSamples, SsthreshFrom, TcpParams};
use crate::packet::Ecn;
use crate::time::{Duration, Instant};

/// What the traffic block's `tcp` options fixed when the connection opened.
#[derive(Clone, Copy, Debug)]
pub(super) struct SendConfig {
    pub(super) sack: bool,
    pub(super) handshake: bool,
    /// Payload of a full segment, and the header bytes (options included) on every packet.
    pub(super) mss: u64,
    pub(super) header_bytes: u32,
    /// The initial window (RFC 5681 §3.1 IW), also the restart window after an idle period.
    pub(super) iw_bytes: u64,
    /// What a reduction is taken from (`TcpOptions::ssthresh_from`).
    pub(super) ssthresh_from: SsthreshFrom,
    /// Whether SACK recovery is paced by PRR (RFC 6937).
    pub(super) use_prr: bool,
    /// Whether F-RTO (RFC 5682) runs after a timeout.
    pub(super) use_frto: bool,
    /// Whether FreeBSD's bad-retransmission undo judges a first timeout (`TcpOptions::badrxt_undo`).
    pub(super) badrxt_undo: bool,
    /// FreeBSD's send-buffer auto-sizing, when on (the buffer itself is `SendVars::sndbuf`).
    pub(super) sndbuf_auto: Option<AutoSize>,
    /// The RTO's samples come from one timed segment at a time (`RttSamples::OnePerRtt`).
    pub(super) one_per_rtt: bool,
    /// ACKs that SACK new data and acknowledge none give RTT samples (`TcpOptions::sack_rtt`).
    pub(super) sack_rtt: bool,
    /// Whether it asks for ECN (RFC 3168 §6.1.1), and for AccECN feedback (RFC 9768 §3.1.1).
    pub(super) ecn: bool,
    pub(super) accecn: bool,
    /// The codepoint of its new data once ECN is agreed: ECT(0), or ECT(1) for L4S.
    pub(super) ect: Ecn,
    /// Every segment is ECN-capable, not only new data (`TcpParams::needs_ecn`).
    pub(super) ect_all: bool,
    /// Whether it paces (the `pacing` key, or a rate-controlling algorithm), and Linux's pacing
    /// ratios in percent.
    pub(super) pacing: bool,
    pub(super) pacing_ss_ratio: u64,
    pub(super) pacing_ca_ratio: u64,
    /// The congestion control sets the window and pacing rate from delivery-rate samples
    /// (`CongestionControl::controls_rate`): the sender estimates the rate and leaves the window
    /// to it in recoveries.
    pub(super) rate_control: bool,
    /// TCP small queues' cap (`tcp_limit_output_bytes`).
    pub(super) limit_output: u64,
    /// New data leaves in GSO bursts, which may wait for the next ACK ([`super::gso`]), and the
    /// fewest segments per burst.
    pub(super) gso: bool,
    pub(super) min_tso_segs: u32,
    /// A retransmission of the oldest segment restarts the retransmission timer (Linux).
    pub(super) rto_rearm: bool,
    /// Tail loss probes (RFC 8985 §7; SACK connections only).
    pub(super) tlp: bool,
    /// Linux's latched window-use test decides growth (`TcpOptions::cwnd_latch`).
    pub(super) cwnd_latch: bool,
    /// The window grows by what an ACK newly delivered (`TcpOptions::grow_by_delivered`).
    pub(super) grow_by_delivered: bool,
    /// FreeBSD's growth test: cwnd at most the peer's window (`TcpOptions::grow_below_rwnd`).
    pub(super) grow_below_rwnd: bool,
}

impl SendConfig {
    /// The block's settings; `rate_control` if the algorithm controls the rate (it then paces,
    /// and Linux's PRR, which only applies to algorithms that do not, is off).
    pub(super) fn new(p: &TcpParams, rate_control: bool) -> Self {
        let mss = p.segment_bytes() as u64;
        SendConfig {
            sack: p.sack,
            handshake: p.handshake,
            mss,
            header_bytes: p.header_bytes(),
            iw_bytes: p.initial_window as u64 * mss,
            ssthresh_from: p.ssthresh_from,
            use_prr: p.prr && !rate_control,
            use_frto: p.frto,
            badrxt_undo: p.badrxt_undo,
            sndbuf_auto: p.sndbuf_auto,
            one_per_rtt: p.rtt_samples == RttSamples::OnePerRtt,
            sack_rtt: p.sack_rtt,
            ecn: p.ecn,
            accecn: p.accecn,
            ect: p.ect,
            ect_all: p.needs_ecn,
            pacing: p.pacing || rate_control,
            pacing_ss_ratio: p.pacing_ss_ratio,
            pacing_ca_ratio: p.pacing_ca_ratio,
            rate_control,
            limit_output: p.limit_output_bytes,
            gso: p.gso && p.sack,
            min_tso_segs: p.min_tso_segs,
            rto_rearm: p.rto_rearm,
            tlp: p.tlp && p.sack,
            cwnd_latch: p.cwnd_latch,
            grow_by_delivered: p.grow_by_delivered && p.sack,
            grow_below_rwnd: p.grow_below_rwnd,
        }
    }
}

/// The connection's variables: sequence space, timers, loss recovery and the peer's window.
#[derive(Clone, Copy, Debug)]
pub(super) struct SendVars {
    /// Oldest unacknowledged byte, next byte to send, one past the highest byte sent.
    pub(super) una: u64,
    pub(super) nxt: u64,
    pub(super) max: u64,
    /// Bytes the application has written (`u64::MAX`: unbounded).
    pub(super) end: u64,
    /// Retransmission timer: when it expires, and the earliest engine timer already pending.
    pub(super) rto_at: Option<Instant>,
    pub(super) rto_armed: Option<Instant>,
    pub(super) dupacks: u32,
    pub(super) in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: one past the highest byte sent when the
    /// last recovery or timeout began.
    pub(super) recover: Option<u64>,
    /// One past the highest byte sent when the last timeout fired: until the cumulative ACK
    /// passes it, the head segment has been resent by the timer, and a further timeout holds
    /// ssthresh (RFC 5681 §3.1).
    pub(super) rto_point: Option<u64>,
    /// FreeBSD's `t_badrxtwin`: until when an ACK of new data after a first timeout proves the
    /// timeout bad (half an SRTT after its retransmission; `TcpOptions::badrxt_undo`).
    pub(super) badrxt_until: Option<Instant>,
    /// NewReno: the first partial ACK of this recovery is still to come (RFC 6582 §3.2 step 5,
    /// "Impatient" timer).
    pub(super) first_partial: bool,
    /// RACK's reordering timer (RFC 8985 §6.2 step 5), when a segment waits inside its window.
    pub(super) reo_at: Option<Instant>,
    /// The earliest engine timer armed for it (one per deadline, not one per ACK).
    pub(super) reo_armed: Option<Instant>,
    /// The smallest RTT measured (RACK's min_RTT).
    pub(super) min_rtt: Option<Duration>,
    /// With one RTT sample per round trip: the timed segment's end and when it left.
    pub(super) timed: Option<(u64, Instant)>,
    pub(super) peer_rwnd: u64,
    /// The send buffer: at most this much outstanding (grows with `SendConfig::sndbuf_auto`).
    pub(super) sndbuf: u64,
    /// The timestamp of the peer's latest packet, echoed on data segments (RFC 7323 §3.2's
    /// TSecr; the receiver's buffer auto-sizing reads it).
    pub(super) peer_ts: Instant,
    pub(super) syn_retransmitted: bool,
    pub(super) last_send: Instant,
    /// Whether the last send attempt stopped because the congestion window was full (rather
    /// than the peer's window, the send buffer or the application): the window grows only then
    /// (RFC 7661 §4.1; Linux `tcp_is_cwnd_limited`), or a window- or application-limited flow
    /// would inflate cwnd without bound and burst when the limit lifts.
    pub(super) cwnd_limited: bool,
    /// ECN was agreed in the handshake (or asked for, without one): new data goes out ECT(0).
    pub(super) ecn_ok: bool,
    /// AccECN was agreed: marks are counted from the ACE field (`ace`), not read from ECE.
    pub(super) accecn_ok: bool,
    pub(super) ace: AceCounter,
    /// The next new segment carries CWR (RFC 3168 §6.1.2): a reduction was made.
    pub(super) cwr_pending: bool,
    /// The window reduction an ECN-Echo began (Linux's CWR state) lasts until the cumulative ACK
    /// passes this byte (one past the highest sent then); no further ECE reduces before.
    pub(super) cwr_end: Option<u64>,
    /// Linux's `sk_pacing_rate` in bytes per second ([`super::pacing`]), updated after every
    /// ACK; `None` (unlimited) before the first RTT sample.
    pub(super) pacing_rate: Option<u64>,
    /// When paced: the earliest departure of the next data segment (Linux's `tcp_wstamp_ns`),
    /// the pacing timer armed for it, and the data segments sent so far (`data_segs_out`: the
    /// first ten go unpaced).
    pub(super) wstamp: Instant,
    pub(super) pace_armed: Option<Instant>,
    pub(super) data_segs_out: u64,
    /// Segments of the GSO buffer being sent whose departure time its first already moved on
    /// ([`super::sender`]'s `paced_buffer`): Linux paces a buffer as one skb.
    pub(super) pace_prepaid: u8,
    /// The host's `fq` paces the connection (Linux's `SK_PACING_FQ`, read from its host's
    /// egress when it opens): every data segment moves `wstamp` on, `fq` holds it to its stamp,
    /// and the internal pacing timer stays off.
    pub(super) fq_paced: bool,
    /// Its host's egress counts its bytes (TCP small queues apply).
    pub(super) host_tracked: bool,
}

impl SendVars {
    /// Nothing sent yet; the peer's window as the block sets it until its first ACK.
    pub(super) fn new(p: &TcpParams) -> Self {
        SendVars {
            una: 0,
            nxt: 0,
            max: 0,
            end: 0,
            rto_at: None,
            rto_armed: None,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            rto_point: None,
            badrxt_until: None,
            first_partial: false,
            reo_at: None,
            reo_armed: None,
            min_rtt: None,
            timed: None,
            peer_rwnd: p.rwnd_bytes,
            sndbuf: p.sndbuf_bytes,
            peer_ts: Instant::ZERO,
            syn_retransmitted: false,
            last_send: Instant::ZERO,
            cwnd_limited: true,
            ecn_ok: p.ecn && !p.handshake,
            accecn_ok: p.accecn && !p.handshake,
            ace: AceCounter::default(),
            cwr_pending: false,
            cwr_end: None,
            pacing_rate: None,
            wstamp: Instant::ZERO,
            pace_armed: None,
            data_segs_out: 0,
            pace_prepaid: 0,
            fq_paced: false,
            host_tracked: false,
        }
    }
}

/// What only goes up.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SendStats {
    /// Timeouts F-RTO found spurious and undid.
    pub(super) spurious_timeouts: u64,
    /// Window reductions made for an ECN-Echo.
    pub(super) ecn_reductions: u64,
    /// Tail loss probes sent (Linux's `TCPLossProbes`).
    pub(super) loss_probes: u64,
    /// Probes whose ACK showed they repaired a loss (`TCPLossProbeRecovery`).
    pub(super) loss_probe_recoveries: u64,
}
