//! The sending side of one connection: windows, loss detection and recovery, the retransmission
//! timer. A pure state machine: time comes in through [`Io::now`], packets and timers go out
//! through [`Io`].
//!
//! Recovery follows RFC 6675 with SACK (scoreboard, pipe, NextSeg), paced by RFC 6937's PRR
//! unless the block turns it off, and RFC 6582 NewReno without it (window inflation, partial
//! ACKs). The congestion control algorithm only sizes the window
//! (see [`super::cc`]). After a timeout, F-RTO (RFC 5682, [`super::frto`]) may find it
//! spurious and undo it, if the block turns it on.
//!
//! Pacing (Linux's internal pacing) is in [`pace`]; the delivery-rate path of an algorithm that
//! controls the rate (BBR) in [`control`].

mod control;
mod ecn;
mod pace;
mod probe;
mod undo;

use super::cc::{AckInfo, Cc, CongestionControl, CwndState};
use super::cwnd_use::CwndUse;
use super::dsack::DsackUndo;
use super::frto::{AckSeen, Frto, Phase, Verdict};
use super::gso;
use super::pacing::{self, PacingInput};
use super::params::{CwndUnit, SsthreshFrom, TcpParams, DUP_THRESH};
use super::prr::Prr;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::send_vars::{SendConfig, SendStats, SendVars};
use super::tlp::{self, Tlp};
use super::tsq;
use crate::hooks::Io;
use crate::packet::{tcp_flags, AgentId, Ecn, FlowId, NodeId, Packet, Proto, TcpHeader};
use crate::time::{Duration, Instant};

/// Where a connection's packets go.
#[derive(Clone, Copy, Debug)]
pub struct Peer {
    pub flow: FlowId,
    /// This endpoint's agent (the receiver answers it).
    pub me: AgentId,
    pub node: NodeId,
    pub agent: AgentId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// Data may flow.
    Open,
    /// All data acknowledged, FIN sent, waiting for the peer's FIN-ACK.
    FinSent,
    Closed,
}

/// What an incoming packet or a timer did that the workload cares about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    None,
    /// Every byte written so far is acknowledged.
    AllAcked,
}

/// The scoreboard as an ACK found it: what the ACK delivered, and what it marked lost, are the
/// changes from it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Before {
    pub(super) head: u64,
    pub(super) sacked: u32,
    pub(super) marked_lost: u64,
}

impl Before {
    fn of(sb: &Scoreboard) -> Before {
        Before {
            head: sb.head(),
            sacked: sb.sacked(),
            marked_lost: sb.marked_lost(),
        }
    }

    /// Segments delivered since, cumulatively or by SACK (RFC 6937's DeliveredData, Linux's
    /// `acked_sacked`): the head's advance plus the change in SACKed segments.
    pub(super) fn delivered(&self, sb: &Scoreboard) -> u64 {
        let advanced = sb.head().saturating_sub(self.head) as i64;
        (advanced + self.sacked_change(sb)).max(0) as u64
    }

    /// The change in SACKed segments since: those newly SACKed above SND.UNA less those SACKed
    /// before that a cumulative ACK has since covered.
    fn sacked_change(&self, sb: &Scoreboard) -> i64 {
        sb.sacked() as i64 - self.sacked as i64
    }
}

/// One connection's sending side: the settings it was opened with, the state machines it
/// drives (window, congestion control, RTT estimator, scoreboard, PRR, F-RTO), its variables
/// and its counters.
pub struct SendConn {
    pub conn: u32,
    pub state: State,
    /// Settings fixed when the connection opened.
    cfg: SendConfig,
    /// Sequence space, timers, loss recovery, the peer's window.
    v: SendVars,
    stats: SendStats,
    // The state machines it drives.
    w: CwndState,
    cc: Cc,
    rtt: RttEstimator,
    sb: Scoreboard,
    /// The current SACK recovery's PRR state (when `cfg.use_prr`).
    prr: Option<Prr>,
    frto: Frto,
    /// Tail loss probes: the probe timer and the episode (RFC 8985 §7).
    tlp: Tlp,
    /// Whether the window limits the flow, latched per window of data (Linux).
    cwnd_use: CwndUse,
    /// What to restore if F-RTO finds the timeout spurious: the window and the algorithm's
    /// state before the timeout.
    undo: Option<(CwndState, Cc)>,
    /// What D-SACKs may show needless: the last recovery's retransmissions (RFC 2883).
    dsack: DsackUndo,
}

impl SendConn {
    /// The engine's look-ahead: what an ACK reads first.
    #[inline]
    pub(crate) fn prefetch(&self) {
        crate::prefetch::line(&self.state);
        crate::prefetch::line(&self.v);
        crate::prefetch::line(&self.w);
        self.sb.prefetch();
    }

    pub fn new(conn: u32, p: &TcpParams, cc: Cc) -> Self {
        let cfg = SendConfig::new(p, cc.controls_rate());
        SendConn {
            conn,
            state: State::Closed,
            w: CwndState {
                cwnd_bytes: cfg.iw_bytes,
                // RFC 5681 §3.1: ssthresh starts arbitrarily high.
                ssthresh_bytes: u64::MAX / 4,
                mss_bytes: cfg.mss,
                whole_segments: p.cwnd_unit == CwndUnit::Segment,
                abc_limit_bytes: p.abc_limit as u64 * cfg.mss,
            },
            cc,
            rtt: RttEstimator::with(p.min_rto_ns, p.max_rto_ns, p.rto_floor, p.initial_rto_ns),
            sb: {
                let mut sb = Scoreboard::default();
                if p.sack && p.rack {
                    sb.enable_rack();
                }
                if cfg.rate_control {
                    sb.enable_rate();
                }
                sb
            },
            prr: None,
            frto: Frto::new(p.sack),
            tlp: Tlp::default(),
            cwnd_use: CwndUse::default(),
            undo: None,
            dsack: DsackUndo::default(),
            v: SendVars::new(p),
            stats: SendStats::default(),
            cfg,
        }
    }

    pub fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd_bytes
    }

    pub fn ssthresh_bytes(&self) -> u64 {
        self.w.ssthresh_bytes
    }

    /// The retransmission timeout in force (back-off included).
    pub fn rto(&self) -> Duration {
        self.rtt.rto()
    }

    /// RTT samples the retransmission timer has taken.
    pub fn rtt_samples(&self) -> u64 {
        self.rtt.samples()
    }

    pub fn srtt_ns(&self) -> Option<Duration> {
        self.rtt.srtt()
    }

    pub fn acked_bytes(&self) -> u64 {
        self.v.una
    }

    /// Timeouts F-RTO found spurious and undid.
    pub fn spurious_timeouts(&self) -> u64 {
        self.stats.spurious_timeouts
    }

    /// Tail loss probes sent, and those whose ACK showed they repaired a loss.
    pub fn loss_probes(&self) -> (u64, u64) {
        (self.stats.loss_probes, self.stats.loss_probe_recoveries)
    }

    /// Window reductions made for an ECN-Echo (RFC 3168 §6.1.2).
    pub fn ecn_reductions(&self) -> u64 {
        self.stats.ecn_reductions
    }

    /// Linux's pacing rate for this connection in bytes per second (`sk_pacing_rate`), `None`
    /// before the first RTT sample.
    pub fn pacing_rate(&self) -> Option<u64> {
        self.v.pacing_rate
    }

    /// Whether ECN was agreed.
    pub fn ecn_ok(&self) -> bool {
        self.v.ecn_ok
    }

    /// The congestion control's state.
    pub fn cc(&self) -> &Cc {
        &self.cc
    }

    /// Open the connection (with a SYN if the handshake is on) and send what is written.
    pub fn open(&mut self, io: &mut Io, peer: &Peer) {
        // What its host's egress does with its packets (fixed when the network was built): TCP
        // small queues count them; an `fq` paces them (`SK_PACING_FQ`).
        if let Some(h) = io.host_tx.get(peer.flow as usize) {
            self.v.host_tracked = h.tracked;
            self.v.fq_paced = h.paced_by_fq;
        }
        if self.cfg.handshake {
            self.state = State::SynSent;
            // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR (and AE to ask for AccECN,
            // RFC 9768 §3.1.1). A retransmitted SYN goes without them (Linux's fallback), so a
            // path that drops ECN-setup SYNs still opens.
            let ecn = if self.cfg.ecn {
                tcp_flags::ECE | tcp_flags::CWR
            } else {
                0
            };
            self.send_ctl_ae(
                io,
                peer,
                tcp_flags::SYN | ecn,
                self.cfg.ecn && self.cfg.accecn,
            );
            self.restart_timer(io, peer);
        } else {
            self.state = State::Open;
            self.established(io.now);
            self.pump(io, peer);
        }
    }

    /// The application writes `bytes` more (`u64::MAX`: an endless stream).
    pub fn write(&mut self, io: &mut Io, peer: &Peer, bytes: u64) {
        // RFC 5681 §4.1: after an idle period longer than an RTO, restart from the initial
        // window rather than send a window-sized burst (Linux leaves a rate-controlling
        // algorithm's window alone: `tcp_slow_start_after_idle_check`).
        if self.cfg.rate_control {
            self.check_app_limited();
        } else if self.state == State::Open
            && self.v.una == self.v.max
            && self.v.max > 0
            && io.now.saturating_since(self.v.last_send) > self.rtt.rto()
        {
            self.w.cwnd_bytes = self.w.cwnd_bytes.min(self.cfg.iw_bytes);
            self.cc.on_idle_restart(io.now);
        }
        self.v.end = self.v.end.saturating_add(bytes);
        self.pump(io, peer);
    }

    /// Close after everything written is acknowledged (FIN exchange if the handshake is on).
    pub fn close(&mut self, io: &mut Io, peer: &Peer) {
        self.sb.release();
        if self.cfg.handshake && self.state == State::Open {
            self.state = State::FinSent;
            self.send_ctl(io, peer, tcp_flags::FIN | tcp_flags::ACK);
            self.restart_timer(io, peer);
        } else {
            self.state = State::Closed;
            self.v.rto_at = None;
        }
    }

    fn header(&self, io: &Io, seq: u64, len: u32, flags: u8) -> TcpHeader {
        TcpHeader {
            conn: self.conn,
            seq,
            len,
            flags,
            ts_val: io.now,
            ts_ecr: self.v.peer_ts,
            ..Default::default()
        }
    }

    /// The send buffer as the next segments see it: FreeBSD grows it (when auto-sized) each
    /// time it sends, if the buffer is what holds the connection back ([`super::bufauto`]).
    fn sndbuf_now(&mut self) -> u64 {
        if let Some(a) = self.cfg.sndbuf_auto {
            let v = &mut self.v;
            let held = v.end.saturating_sub(v.una).min(v.sndbuf);
            v.sndbuf = a.grow_send(
                v.sndbuf,
                held,
                v.nxt.saturating_sub(v.una),
                v.peer_rwnd,
                self.w.cwnd_bytes,
            );
        }
        self.v.sndbuf
    }

    fn packet(&self, io: &Io, peer: &Peer, tcp: TcpHeader) -> Packet {
        Packet {
            flow: peer.flow,
            dst: peer.node,
            src_agent: peer.me,
            dst_agent: peer.agent,
            size: tcp.len + self.cfg.header_bytes,
            proto: Proto::Tcp,
            ttl: 64,
            created: io.now,
            srtt_ns: self.rtt.srtt().unwrap_or(Duration::ZERO),
            tcp,
            ..Default::default()
        }
    }

    fn count_sent(&self, io: &mut Io, peer: &Peer, size: u32, retx: bool) {
        let st = &mut io.flows[peer.flow as usize];
        let w = st.window;
        st.pkts_sent.add(&w, io.now, 1);
        st.bytes_sent.add(&w, io.now, size as u64);
        if retx {
            st.retransmits.add(&w, io.now, 1);
        }
    }

    fn send_ctl(&mut self, io: &mut Io, peer: &Peer, flags: u8) {
        self.send_ctl_ae(io, peer, flags, false);
    }

    /// A segment without data, with the AE flag `ae`.
    fn send_ctl_ae(&mut self, io: &mut Io, peer: &Peer, flags: u8, ae: bool) {
        let mut h = self.header(io, self.v.end.min(self.v.max), 0, flags);
        h.ae = ae;
        let mut p = self.packet(io, peer, h);
        // An algorithm that needs ECN sends its first SYN, and everything once ECN is agreed,
        // ECN-capable (Linux's `tcp_ecn_send_syn`: `INET_ECN_xmit` for `TCP_CONG_NEEDS_ECN`),
        // so a marking queue marks its SYN rather than dropping it.
        let syn = flags & tcp_flags::SYN != 0;
        if self.cfg.ect_all && ((syn && !self.v.syn_retransmitted) || (!syn && self.v.ecn_ok)) {
            p.ecn = self.cfg.ect;
        }
        p.tstamp = self.v.wstamp.max(io.now);
        self.count_sent(io, peer, p.size, false);
        io.send(p);
        self.v.last_send = io.now;
    }

    /// Send the segment `[seq, seq + len)`.
    fn send_data(&mut self, io: &mut Io, peer: &Peer, seq: u64, len: u32) {
        let stamp = self.v.wstamp.max(io.now);
        self.send_data_at(io, peer, seq, len, stamp, false, 0);
    }

    /// Send the segment `[seq, seq + len)` with the departure time `stamp` (a GSO burst's
    /// segments share their buffer's), with PSH if `push`; `gso_left` segments of its GSO buffer
    /// follow it (what a NIC ring with GSO descriptors reads, `net/ring.rs`).
    #[allow(clippy::too_many_arguments)]
    fn send_data_at(
        &mut self,
        io: &mut Io,
        peer: &Peer,
        seq: u64,
        len: u32,
        stamp: Instant,
        push: bool,
        gso_left: u8,
    ) {
        // RFC 3168 §6.1.5: only new data is ECN-capable (a retransmission is not, as Linux's
        // `tcp_ecn_send`, unless the algorithm needs ECN), and the first new segment after a
        // reduction carries CWR.
        let new = seq >= self.v.max;
        let ect = self.v.ecn_ok && (new || self.cfg.ect_all);
        let mut flags = if push {
            tcp_flags::ACK | tcp_flags::PSH
        } else {
            tcp_flags::ACK
        };
        if ect && new && self.v.cwr_pending && !self.v.accecn_ok {
            flags |= tcp_flags::CWR;
            self.v.cwr_pending = false;
        }
        let h = self.header(io, seq, len, flags);
        let mut p = self.packet(io, peer, h);
        if ect {
            p.ecn = self.cfg.ect;
        }
        // Every packet leaves with its earliest departure time (Linux 4.20+: `skb->tstamp` =
        // max(`tcp_wstamp_ns`, now)), which its host's `fq` enforces; TCP small queues count
        // the packet until it leaves the host ([`super::tsq`]).
        if self.v.host_tracked {
            if let Some(h) = io.host_tx.get_mut(peer.flow as usize) {
                h.on_send(self.conn, p.size);
            }
        }
        p.tstamp = stamp;
        p.gso_left = gso_left;
        self.count_sent(io, peer, p.size, seq < self.v.max);
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(1);
        }
        if self.cfg.rate_control {
            self.rate_on_send(io.now, seq, len);
        }
        if self.cfg.pacing || self.v.fq_paced {
            self.paced_sent(io.now, len);
        }
        io.send(p);
        self.v.last_send = io.now;
        if seq + len as u64 > self.v.max {
            self.v.max = seq + len as u64;
            // RFC 6298 §3 (Karn), ns-2's `output`: time a new segment when none is timed.
            if self.cfg.one_per_rtt && self.v.timed.is_none() {
                self.v.timed = Some((self.v.max, io.now));
            }
        }
        // RFC 6298 (5.1): start the timer when data goes out and it is not running.
        if self.v.rto_at.is_none() {
            self.restart_timer(io, peer);
        }
    }

    /// RFC 6298 (5.3): (re)start the timer to expire one RTO from now.
    fn restart_timer(&mut self, io: &mut Io, _peer: &Peer) {
        let at = io.now + self.rtt.rto();
        self.arm_rto(io, at);
    }

    /// Set the retransmission timer's deadline to `at`.
    fn arm_rto(&mut self, io: &mut Io, at: Instant) {
        self.v.rto_at = Some(at);
        if self.v.rto_armed.is_none_or(|a| at < a) {
            self.v.rto_armed = Some(at);
            io.set_timer(at, self.conn);
        }
    }

    /// Send what the windows allow.
    fn pump(&mut self, io: &mut Io, peer: &Peer) {
        if self.state != State::Open {
            return;
        }
        // Flow control: never more outstanding than the peer's window or the send buffer.
        let limit = self.v.una + self.v.peer_rwnd.min(self.sndbuf_now());
        let max_before = self.v.max;
        let nxt_before = self.v.nxt;
        let stopped_on_cwnd = self.pump_until(io, peer, limit);
        if self.cfg.cwnd_latch {
            // `tcp_cwnd_validate`, after a round that sent something or found the window full.
            let mss = self.cfg.mss;
            let (in_flight, out) = if self.cfg.sack {
                (self.sb.pipe(), self.sb.outstanding())
            } else {
                (
                    (self.v.nxt - self.v.una).div_ceil(mss),
                    (self.v.max - self.v.una).div_ceil(mss),
                )
            };
            let limited = stopped_on_cwnd || in_flight >= self.w.cwnd_bytes / mss;
            if limited || self.v.max > max_before || self.v.nxt > nxt_before {
                self.cwnd_use.on_write(self.v.una, self.v.max, out, limited);
            }
        }
        // New data went: the probe timer restarts from its last transmission (RFC 8985 §7.2;
        // Linux's `tcp_write_xmit`).
        if self.cfg.tlp && self.v.max > max_before {
            self.schedule_probe(io, false);
        }
    }

    /// The windows' loop: lost segments first, then new data up to `limit` (the peer's window
    /// and the send buffer), while the congestion window, pacing and TCP small queues allow.
    /// Whether it stopped on the congestion window.
    fn pump_until(&mut self, io: &mut Io, peer: &Peer, limit: u64) -> bool {
        loop {
            if self.cfg.sack {
                if (self.sb.pipe() + 1) * self.cfg.mss > self.w.cwnd_bytes {
                    self.v.cwnd_limited = true;
                    return true;
                }
                // RFC 6675 §4 NextSeg: lost segments first, then new data.
                if let Some(k) = self.sb.next_retx() {
                    if self.pacing_wait(io) {
                        break;
                    }
                    if self.tsq_holds(io, peer, true, 1) {
                        break;
                    }
                    self.sb.on_retx(k, io.now);
                    let (seq, len) = self.sb.bounds(k);
                    self.send_data(io, peer, seq, len);
                    // Linux re-arms the retransmission timer whenever it resends the oldest
                    // segment, unless RACK's reordering timer holds the slot
                    // (`tcp_xmit_retransmit_queue`); RFC 6298 restarts it on new ACKs only.
                    if self.cfg.rto_rearm && k == self.sb.head() && self.v.reo_at.is_none() {
                        self.restart_timer(io, peer);
                    }
                    continue;
                }
                if self.v.max >= self.v.end {
                    self.v.cwnd_limited = false;
                    break;
                }
                let len = self.cfg.mss.min(self.v.end - self.v.max);
                if self.v.max + len > limit {
                    self.v.cwnd_limited = false;
                    break;
                }
                if self.pacing_wait(io) {
                    break;
                }
                // One GSO burst of new data (one segment without GSO), unless it waits.
                let burst = if self.cfg.gso {
                    match self.gso_burst(io, limit) {
                        Some(n) => n,
                        None => return self.v.cwnd_limited,
                    }
                } else {
                    1
                };
                if self.tsq_holds(io, peer, false, burst) {
                    break;
                }
                // A GSO buffer leaves as one: its segments share its departure time, and its
                // whole length paces the next.
                let stamp = self.v.wstamp.max(io.now);
                let segs = self.burst_segments(burst, limit);
                let bytes = (segs * self.cfg.mss).min(self.v.end - self.v.max);
                self.paced_buffer(io.now, bytes, segs);
                for i in 0..segs {
                    let len = self.cfg.mss.min(self.v.end - self.v.max);
                    let seq = self.v.max;
                    self.sb.push(seq, len as u32, io.now);
                    // PSH on the last segment of a GSO buffer of two or more, and on the data's
                    // last: Linux's buffers as they leave a bulk or web sender's socket (kernel
                    // captures: `.P` pairs, singles split off a buffer without; tcp.md, PSH).
                    let push = seq + len >= self.v.end || (burst >= 2 && i + 1 == burst);
                    let left = (segs - 1 - i).min(u8::MAX as u64) as u8;
                    self.send_data_at(io, peer, seq, len as u32, stamp, push, left);
                    self.v.nxt = self.v.max;
                }
            } else {
                let flight = self.v.nxt - self.v.una;
                if flight + self.cfg.mss > self.w.cwnd_bytes {
                    self.v.cwnd_limited = true;
                    return true;
                }
                if self.v.nxt >= self.v.end {
                    self.v.cwnd_limited = false;
                    break;
                }
                let len = self.cfg.mss.min(self.v.end - self.v.nxt);
                if self.v.nxt + len > limit {
                    self.v.cwnd_limited = false;
                    break;
                }
                if self.pacing_wait(io) {
                    break;
                }
                if self.tsq_holds(io, peer, self.v.nxt < self.v.max, 1) {
                    break;
                }
                let seq = self.v.nxt;
                self.send_data(io, peer, seq, len as u32);
                self.v.nxt = seq + len;
            }
        }
        false
    }

    /// The segments a burst of up to `burst` sends from `max`: it stops at the data's end, or
    /// before a segment that would pass `limit` (the buffer the device gets, which a ring with
    /// GSO descriptors holds on one).
    fn burst_segments(&self, burst: u64, limit: u64) -> u64 {
        let mss = self.cfg.mss.max(1);
        // Everything left when the data ends within `limit` (its last segment may be short);
        // else the whole segments below `limit` (a short last one would pass it).
        let fit = if self.v.end <= limit {
            (self.v.end - self.v.max).div_ceil(mss)
        } else {
            limit.saturating_sub(self.v.max) / mss
        };
        burst.min(fit)
    }

    /// The GSO burst of new data the windows allow now, in segments (Linux's `tcp_write_xmit`:
    /// `tcp_cwnd_test`, `tcp_tso_should_defer`, `tcp_mss_split_point`), or `None` if it waits
    /// for the next ACK ([`gso`]). `limit`: one past the last byte the peer's window and the send
    /// buffer allow.
    fn gso_burst(&mut self, io: &Io, limit: u64) -> Option<u64> {
        let mss = self.cfg.mss;
        let cwnd = self.w.cwnd_bytes / mss;
        let in_flight = self.sb.pipe();
        // At least two bursts in flight: at most half the window in one (`tcp_cwnd_test`).
        let quota = cwnd.saturating_sub(in_flight).min((cwnd / 2).max(1));
        let min_segs = self.cc.min_tso_segs().unwrap_or(self.cfg.min_tso_segs);
        let max_segs = gso::autosize(self.v.pacing_rate, self.v.min_rtt, mss, min_segs);
        // The send queue holds the application's data in buffers of the size goal; the one at
        // the head may have been cut by earlier bursts.
        let goal = gso::size_goal(self.v.peer_rwnd, mss);
        let skb_end = (self.v.max / goal + 1).saturating_mul(goal).min(self.v.end);
        let skb_len = skb_end - self.v.max;
        let tail = skb_end == self.v.end;
        let send_win = limit - self.v.max;
        if skb_len > mss {
            let d = gso::DeferInput {
                now: io.now,
                last_write: self.v.wstamp.max(self.v.last_send),
                recovering: self.v.in_recovery || self.in_loss(),
                cong_win: cwnd.saturating_sub(in_flight) * mss,
                send_win,
                cwnd: cwnd * mss,
                snd_wnd: self.v.peer_rwnd.min(self.v.sndbuf),
                mss,
                max_segs,
                skb_len,
                tail,
                head_sent: self.sb.head_sent(),
                srtt: self.rtt.srtt(),
            };
            match gso::should_defer(&d) {
                gso::Verdict::Send => {}
                gso::Verdict::CwndLimited => {
                    self.v.cwnd_limited = true;
                    return None;
                }
                gso::Verdict::RwndLimited => {
                    self.v.cwnd_limited = false;
                    return None;
                }
            }
        }
        // `tcp_mss_split_point`: a full burst from the middle of the queue, else what the
        // buffer and the peer's window hold.
        let max_len = mss * quota.min(max_segs).max(1);
        let bytes = if max_len <= send_win && !tail {
            max_len
        } else {
            max_len.min(skb_len.min(send_win))
        };
        Some(bytes.div_ceil(mss).max(1))
    }

    /// TCP small queues ([`tsq`]): whether the next segment waits for one of the connection's
    /// packets to leave its host. The window then is not what limits the flow: it does not grow
    /// (RFC 7661 §4.1; Linux's `is_cwnd_limited` is false when packets in flight are below cwnd).
    #[inline]
    fn tsq_holds(&mut self, io: &mut Io, peer: &Peer, retransmit: bool, segs: u64) -> bool {
        self.v.host_tracked && self.tsq_check(io, peer, retransmit, segs)
    }

    #[inline(never)]
    fn tsq_check(&mut self, io: &mut Io, peer: &Peer, retransmit: bool, segs: u64) -> bool {
        let Some(host) = io.host_tx.get_mut(peer.flow as usize) else {
            return false;
        };
        let check = tsq::Check {
            pacing_rate: self.v.pacing_rate,
            pkt_bytes: (segs * (self.cfg.mss + self.cfg.header_bytes as u64)) as u32,
            limit_output: self.cfg.limit_output,
            retransmit,
            alone: self.v.max - self.v.una <= self.cfg.mss,
        };
        let held = tsq::throttles(host, self.conn, &check);
        if held {
            self.v.cwnd_limited = false;
        }
        held
    }

    /// A packet of this connection left its host while it waited (TCP small queues): send what
    /// the windows allow (Linux's TSQ handler runs `tcp_write_xmit`). Not while F-RTO waits for
    /// the ACK that decides (RFC 5682 step 3).
    pub fn on_tx_wake(&mut self, io: &mut Io, peer: &Peer) {
        if self.state == State::Open && self.frto.phase() != Phase::Second {
            self.pump(io, peer);
            self.update_gauges(io, peer);
        }
    }

    /// Linux's `tcp_update_pacing_rate`, called at the end of `tcp_cong_control` on every ACK.
    fn update_pacing_rate(&mut self) {
        let w = PacingInput {
            cwnd_bytes: self.w.cwnd_bytes,
            ssthresh_bytes: self.w.ssthresh_bytes,
            outstanding_bytes: self.v.max - self.v.una,
            srtt: self.rtt.srtt(),
        };
        self.v.pacing_rate =
            pacing::linux_rate(&w, self.cfg.pacing_ss_ratio, self.cfg.pacing_ca_ratio);
    }

    fn update_gauges(&self, io: &mut Io, peer: &Peer) {
        let st = &mut io.flows[peer.flow as usize];
        st.cwnd_bytes = self.w.cwnd_bytes;
        st.srtt_ns = self.rtt.srtt().unwrap_or(Duration::ZERO);
    }

    fn take_rtt_sample(&mut self, io: &mut Io, peer: &Peer, ack: u64, ts_ecr: Instant) {
        let r = io.now.saturating_since(ts_ecr);
        // The minimum RTT from the newest segment the ACK covers, when the scoreboard knows it
        // (Linux's `tcp_update_rtt_min` with `ca_rtt_us`): the echoed timestamp is the older
        // segment of a delayed ACK's pair, one serialization earlier, and a minimum taken from it
        // would make RACK take a probe's or a retransmission's own round trip, at the path's
        // minimum, for an earlier copy's.
        let ca = self
            .sb
            .newest_acked_sent(ack)
            .map_or(r, |t| io.now.saturating_since(t));
        if !self.cfg.one_per_rtt {
            self.rtt.sample(r);
        } else if let Some((_, at)) = self.v.timed.filter(|&(end, _)| ack >= end) {
            // ns-2's `newack`: the timed segment is acknowledged.
            self.v.timed = None;
            self.rtt.sample(io.now.saturating_since(at));
        }
        self.rtt_seen(io, peer, r, ca);
    }

    /// Linux's sample from an ACK that SACKs new data and acknowledges none (`tcp_ack_update_rtt`
    /// falls back on `sack_rtt_us` when there is no cumulative sample): the oldest newly SACKed
    /// segment never resent times the smoothed RTT and the timer, the newest the minimum
    /// (`ca_rtt_us`). Without it they keep their values from before a loss for the whole
    /// recovery, while the queue that caused the loss is still there.
    fn take_sack_rtt_sample(&mut self, io: &mut Io, peer: &Peer) {
        let Some((first, last)) = self.sb.newly_sacked_sent() else {
            return;
        };
        let r = io.now.saturating_since(first);
        if !self.cfg.one_per_rtt {
            self.rtt.sample(r);
        }
        self.rtt_seen(io, peer, r, io.now.saturating_since(last));
    }

    /// An RTT sample `r` (from the oldest segment the ACK delivers) and `ca` (from the newest)
    /// for the minimum RTT, the congestion control and the flow's statistics.
    fn rtt_seen(&mut self, io: &mut Io, peer: &Peer, r: Duration, ca: Duration) {
        self.v.min_rtt = Some(self.v.min_rtt.map_or(ca, |m| m.min(ca)));
        self.cc.on_rtt_sample(io.now, r);
        io.flows[peer.flow as usize].on_rtt_sample(io.now, r);
    }

    /// What a congestion event reduces from, in bytes: the window (Linux) or FlightSize,
    /// SND.NXT − SND.UNA (RFC 5681 eq. 4). See `TcpOptions::ssthresh_from`.
    fn reduction_base(&self) -> u64 {
        match self.cfg.ssthresh_from {
            SsthreshFrom::Cwnd => self.w.cwnd_bytes,
            SsthreshFrom::Flight => self.v.max - self.v.una,
        }
    }

    /// Enter fast recovery (RFC 6582 §3.2 step 2, RFC 6675 §5 step 4).
    fn enter_recovery(&mut self, io: &mut Io, peer: &Peer) {
        // RecoverFS (RFC 6937 §3) is the same base: Linux's PRR divides by `prior_cwnd`.
        let base = self.reduction_base();
        // A loss inside an ECN reduction's window is the same congestion: it is not reduced
        // for again (RFC 3168 §6.1.2; Linux's `tcp_enter_recovery` keeps a CWR state's ssthresh).
        let in_cwr = self.v.cwr_end.take().is_some();
        self.begin_undo(!in_cwr);
        if !in_cwr {
            self.cc.on_congestion(io.now, &mut self.w, base);
            self.note_reduction();
        }
        self.v.in_recovery = true;
        self.v.recover = Some(self.v.max);
        self.tlp.end_episode();
        // Karn (RFC 6298 §3): a retransmission ends the timing (ns-2's `reset_rtx_timer`).
        self.v.timed = None;
        if self.cfg.sack {
            // cwnd = ssthresh; the first unacknowledged segment is presumed lost and resent at
            // once (RFC 6675 §5 step 4.3), even when the pipe still exceeds the reduced window:
            // after a slow-start overshoot it does for half an RTT, and holding the fast
            // retransmit back that long leaves the hole open past the timer. Linux's PRR forces
            // this first retransmission the same way (`tcp_cwnd_reduction`).
            if self.cfg.use_prr && !(in_cwr && self.prr.is_some()) {
                // RFC 6937 §3: RecoverFS, in segments.
                self.prr = Some(Prr::start(base.div_ceil(self.cfg.mss)));
            }
            let head = self.sb.head();
            self.sb.mark_lost(head);
            // Paced, it waits for its departure time like any retransmission (the pump sends
            // it then; PRR lets it out, `prr_window`).
            if self.sb.next_retx() == Some(head) && !self.pacing_wait(io) {
                self.sb.on_retx(head, io.now);
                let (seq, len) = self.sb.bounds(head);
                self.send_data(io, peer, seq, len);
            }
        } else {
            // Retransmit the first unacknowledged segment; inflate by the three segments that
            // have left the network (RFC 6582 §3.2 step 2-3).
            self.w.cwnd_bytes = self.w.ssthresh_bytes + 3 * self.cfg.mss;
            self.v.first_partial = true;
            self.note_head_lost();
            self.resend_head(io, peer);
        }
    }

    /// NewReno: resend one segment from the first unacknowledged byte. With `rto_rearm` the
    /// resend restarts the retransmission timer, as the SACK recovery's resend of the oldest
    /// segment does (Linux's `tcp_xmit_retransmit_queue`).
    fn resend_head(&mut self, io: &mut Io, peer: &Peer) {
        let seq = self.v.una;
        let len = self.cfg.mss.min(self.v.end - seq);
        self.send_data(io, peer, seq, len as u32);
        self.v.nxt = self.v.nxt.max(seq + len);
        if self.cfg.rto_rearm {
            self.restart_timer(io, peer);
        }
    }

    /// During a PRR recovery, the window this ACK allows: the pipe plus PRR's `sndcnt` (RFC 6937
    /// §3). What the ACK delivered is the head's advance plus the change in SACKed segments
    /// (DeliveredData); below ssthresh it may add a segment only if it advanced SND.UNA and
    /// marked nothing newly lost (Linux's `tcp_cwnd_reduction`: `FLAG_SND_UNA_ADVANCED &&
    /// !newly_lost`, RFC 6937bis's SafeACK).
    fn prr_window(&mut self, before: Before) {
        let Some(prr) = self.prr.as_mut() else { return };
        let delivered = before.delivered(&self.sb);
        let safe = self.sb.head() > before.head && self.sb.marked_lost() == before.marked_lost;
        let pipe = self.sb.pipe();
        let ssthresh = self.w.ssthresh_bytes / self.cfg.mss;
        let mut sndcnt = prr.on_ack(delivered, pipe, ssthresh, safe);
        if self.cfg.pacing && prr.sent() == 0 {
            // The fast retransmission the pacing held back still goes first (Linux forces one
            // segment while `prr_out` is 0, `tcp_cwnd_reduction`).
            sndcnt = sndcnt.max(1);
        }
        self.w.cwnd_bytes = (pipe + sndcnt) * self.cfg.mss;
    }

    /// May a new recovery start? Not before everything outstanding at the last one (or at the
    /// last timeout) is acknowledged: RFC 6582 §3.2 step 1, RFC 6675 §5.
    fn may_recover(&self, ack: u64) -> bool {
        self.v.recover.is_none_or(|r| ack >= r)
    }

    /// A packet from the receiver.
    pub fn on_packet(&mut self, io: &mut Io, peer: &Peer, h: &TcpHeader) -> Event {
        if self.state != State::Open {
            self.on_handshake(io, peer, h);
            return Event::None;
        }
        if h.flags & tcp_flags::SYN != 0 {
            return Event::None; // a duplicate SYN-ACK
        }
        self.v.peer_rwnd = h.rwnd as u64;
        self.v.peer_ts = h.ts_val;
        let ack = h.ack.min(self.v.max);
        let una_before = self.v.una;
        let cwnd_before = self.rate_begin();
        let before = Before::of(&self.sb);
        let was_in_recovery = self.v.in_recovery;
        self.sb
            .rack_begin(io.now, h.ts_ecr, self.v.min_rtt.unwrap_or(Duration::ZERO));
        let new_sack = self.read_sack(h, ack);
        let was_all_acked = self.v.una >= self.v.end;
        let advanced = ack > self.v.una;
        let duplicate = ack == self.v.una && h.len == 0 && self.v.max > self.v.una;
        // The ECN-Echo first: the ACK that carries it grows nothing (Linux's `tcp_ack` enters
        // CWR before `tcp_cong_control`).
        let marks = self.read_ecn_feedback(h, ack, before.sacked, duplicate);
        if marks.signal {
            // An ACK above the reduction's window ends it before its ECN-Echo is read, so the
            // echo of a new mark starts the next reduction at once (Linux's
            // `tcp_fastretrans_alert`: the CWR state's exit, step D, comes before
            // `tcp_try_to_open`'s `tcp_enter_cwr`, step E).
            if self.v.cwr_end.is_some_and(|end| ack > end) {
                self.end_cwr();
            }
            self.on_ecn_echo(io, peer);
        }
        if !advanced && self.cfg.sack_rtt {
            self.take_sack_rtt_sample(io, peer);
        }
        if advanced {
            if let Some(until) = self.v.badrxt_until.take() {
                // FreeBSD's `CC_RTO_ERR` (`tcp_input`): the first ACK of new data after a first
                // timeout, sooner than `t_badrxtwin`, answers the original segment.
                if io.now < until {
                    self.undo_timeout();
                } else {
                    self.undo = None;
                }
            }
            self.on_new_ack(io, peer, ack, h.ts_ecr, before);
        } else if duplicate && (!self.cfg.sack || new_sack) {
            self.on_dup_ack(io, peer, ack);
        }
        if self.frto.phase() != Phase::Off {
            let seen = AckSeen {
                ack,
                advanced,
                duplicate,
                new_sack,
                sack_above_recover: self.sack_above(h, self.frto.recover()),
            };
            self.frto_verdict(io, peer, &seen);
        }
        if self.cfg.tlp {
            // Before loss detection, as Linux's `tcp_ack` reads the episode before
            // `tcp_fastretrans_alert`.
            let f = tlp::AckFlags {
                ack,
                advanced,
                not_dup: advanced || h.len > 0,
                sacked: new_sack,
                dsack_probe: self.dsack_of_probe(h, ack),
            };
            self.probe_ack(io, &f);
        }
        if self.cfg.sack {
            self.after_dsacks(was_in_recovery);
            self.sb.detect_losses();
            self.find_losses(io, peer, before);
        }
        if self.cfg.tlp && advanced {
            // An ACK of new data restarts the probe timer, or the retransmission timer alone
            // where no probe may go (`tcp_set_xmit_timer`).
            self.schedule_probe(io, true);
        }
        self.ack_event(io.now, before, una_before, duplicate, marks);
        if self.cfg.rate_control {
            let ts_rtt = advanced.then(|| io.now.saturating_since(h.ts_ecr));
            self.rate_end(io.now, cwnd_before, ts_rtt);
        } else {
            self.update_pacing_rate();
        }
        // F-RTO step 3: nothing more leaves until the next ACK decides.
        if self.frto.phase() != Phase::Second {
            self.pump(io, peer);
        }
        self.update_gauges(io, peer);
        if !was_all_acked && self.v.una >= self.v.end {
            Event::AllAcked
        } else {
            Event::None
        }
    }

    /// After the scoreboard has taken an ACK (or RACK's timer fired): RACK's losses, recovery if
    /// the head is lost, and PRR's window. `before`: the scoreboard's head and SACKed count
    /// before the ACK.
    fn find_losses(&mut self, io: &mut Io, peer: &Peer, before: Before) {
        if self.sb.rack().is_some() {
            let min_rtt = self.v.min_rtt.unwrap_or(Duration::ZERO);
            let srtt = self.rtt.srtt().unwrap_or(Duration::ZERO);
            let reo_wnd = self.sb.rack_reo_wnd(self.v.in_recovery, min_rtt, srtt);
            self.v.reo_at = self.sb.rack_detect(io.now, reo_wnd);
            if let Some(at) = self.v.reo_at {
                if self.v.reo_armed.is_none_or(|a| at < a) {
                    self.v.reo_armed = Some(at);
                    io.set_timer(at, self.conn);
                }
            }
        }
        if !self.v.in_recovery
            && self.v.una < self.v.max
            && (self.v.dupacks >= DUP_THRESH || self.sb.is_lost(self.sb.head()))
            && self.may_recover(self.v.una)
        {
            self.enter_recovery(io, peer);
        }
        self.prr_window(before);
    }

    /// A packet before the connection is open or after it is closing: the SYN-ACK, the FIN.
    fn on_handshake(&mut self, io: &mut Io, peer: &Peer, h: &TcpHeader) {
        match self.state {
            State::SynSent => {
                if h.flags & tcp_flags::SYN != 0 {
                    if self.v.syn_retransmitted {
                        self.rtt.syn_lost();
                        // RFC 5681 §3.1 (and RFC 6298 §5.7): after a lost SYN or SYN-ACK the
                        // initial window is one segment; Linux does the same in
                        // tcp_init_transfer.
                        self.w.cwnd_bytes = self.cfg.mss;
                    }
                    // The SYN's round trip seeds the RTO (RFC 6298 §2.2) but not the congestion
                    // control: a 40 B SYN crosses each link faster than a full segment, and
                    // Vegas would take it for a base RTT no data segment can reach.
                    let r = io.now.saturating_since(h.ts_ecr);
                    self.rtt.sample(r);
                    // RFC 7323 §4.3: TS.Recent from the SYN-ACK, so the first segments echo it
                    // (the receiver's handshake RTT sample, `tcp_synack_rtt_meas`).
                    self.v.peer_ts = h.ts_val;
                    // It does count in the connection's minimum RTT, which RACK and the
                    // delivery-rate samples read (Linux's `tcp_clean_rtx_queue` times the SYN
                    // like any segment, unless it was resent).
                    if !self.v.syn_retransmitted {
                        self.v.min_rtt = Some(r);
                    }
                    self.negotiated_ecn(h);
                    self.state = State::Open;
                    self.v.rto_at = None;
                    // Linux runs `tcp_ack` on the SYN-ACK, so the rate starts from its RTT.
                    self.update_pacing_rate();
                    self.established(io.now);
                    self.pump(io, peer);
                    self.update_gauges(io, peer);
                }
            }
            State::FinSent => {
                if h.flags & tcp_flags::FIN != 0 {
                    self.state = State::Closed;
                    self.v.rto_at = None;
                }
            }
            State::Closed | State::Open => {}
        }
    }

    /// Mark what the ACK's SACK blocks cover; whether they SACK anything new. With SACK, an ACK
    /// is a duplicate only if it does (RFC 6675 §2, condition (e)): the ACK a receiver sends for
    /// a segment it already holds (resent after a timeout, or duplicated by the network)
    /// carries no news of a loss.
    fn read_sack(&mut self, h: &TcpHeader, ack: u64) -> bool {
        let sacked_before = self.sb.sacked();
        if self.cfg.sack {
            // A D-SACK block reports a duplicate, nothing new (RFC 2883 §4).
            let skip = self.read_dsack(h, ack);
            for &(s, e) in &h.sack[skip..(h.nsack as usize).min(h.sack.len())] {
                if e > ack {
                    self.sb.sack_bytes(s.max(ack), e.min(self.v.max));
                }
            }
        }
        self.sb.sacked() > sacked_before
    }

    /// Whether one of the ACK's SACK blocks reaches above byte `seq`.
    fn sack_above(&self, h: &TcpHeader, seq: u64) -> bool {
        self.cfg.sack
            && h.sack[..(h.nsack as usize).min(h.sack.len())]
                .iter()
                .any(|&(_, e)| e > seq)
    }

    /// Act on F-RTO's reading of an ACK (RFC 5682 §2, §3).
    fn frto_verdict(&mut self, io: &mut Io, peer: &Peer, seen: &AckSeen) {
        match self.frto.on_ack(seen) {
            Verdict::Wait => {}
            Verdict::SendNew => {
                // Step 2b: up to two segments never sent, in place of retransmissions.
                if self.send_new(io, peer, 2) == 0 {
                    self.frto.abandon();
                    self.undo = None;
                }
            }
            Verdict::Conventional { cwnd_cap } => {
                if let Some(c) = cwnd_cap {
                    self.w.cwnd_bytes = self.w.cwnd_bytes.min(c * self.cfg.mss);
                }
                self.undo = None;
            }
            Verdict::Spurious => self.undo_timeout(),
        }
    }

    /// Send up to `n` segments of data never sent, whatever the congestion window (the peer's
    /// window and the send buffer still bound them); how many went.
    fn send_new(&mut self, io: &mut Io, peer: &Peer, n: u32) -> u32 {
        let limit = self.v.una + self.v.peer_rwnd.min(self.sndbuf_now());
        let mut sent = 0;
        while sent < n && self.v.max < self.v.end {
            let len = self.cfg.mss.min(self.v.end - self.v.max);
            if self.v.max + len > limit {
                break;
            }
            let seq = self.v.max;
            if self.cfg.sack {
                self.sb.push(seq, len as u32, io.now);
            }
            self.send_data(io, peer, seq, len as u32);
            if self.cfg.sack {
                self.v.nxt = self.v.max;
            }
            sent += 1;
        }
        sent
    }

    /// The response to a spurious timeout: Linux's (`tcp_try_undo_loss` with
    /// `tcp_undo_cwnd_reduction`), not RFC 4015's Eifel response. The window returns to
    /// max(cwnd, cwnd before the timeout) and ssthresh to max(ssthresh, its value before), and
    /// the congestion control's own state is restored (RFC 9438 §4.9 lets Cubic do so). The
    /// segments the timeout marked lost (RFC 6675 §5.1) are no longer presumed lost, and the
    /// go-back-N pointer returns to the highest byte sent (no SACK), so nothing more is resent.
    /// Eifel would instead keep the reduced ssthresh and adapt the RTO; Linux's is what the
    /// kernel backend runs, and it lets the delayed window's ACKs clock the flow on as before
    /// the delay.
    fn undo_timeout(&mut self) {
        if let Some((w, cc)) = self.undo.take() {
            self.restore_window(w, cc);
        }
        if self.cfg.sack {
            self.sb.unmark_lost();
        } else {
            self.v.nxt = self.v.max;
        }
        // RFC 5682 §2 step 3b: "recover" = SND.UNA, so that a fast retransmit may follow; the
        // next timeout is a first one again.
        self.v.recover = None;
        self.v.rto_point = None;
        self.v.dupacks = 0;
        self.stats.spurious_timeouts += 1;
    }

    /// An ACK with ECN-Echo (RFC 3168 §6.1.2): reduce as for a loss, at most once per window
    /// and not during a loss recovery, and retransmit nothing. With SACK and PRR the window comes
    /// down over the next round as in a recovery (Linux `tcp_enter_cwr`); without, at once.
    fn on_ecn_echo(&mut self, io: &mut Io, peer: &Peer) {
        if self.v.in_recovery || self.v.cwr_end.is_some() || self.v.una >= self.v.max {
            return;
        }
        let base = self.reduction_base();
        self.cc.on_ecn(io.now, &mut self.w, base);
        self.v.cwr_end = Some(self.v.max);
        self.tlp.end_episode();
        if self.cfg.sack && self.cfg.use_prr {
            self.prr = Some(Prr::start(base.div_ceil(self.cfg.mss)));
        }
        self.note_reduction();
        self.stats.ecn_reductions += 1;
        let st = &mut io.flows[peer.flow as usize];
        let w = st.window;
        st.ecn_reductions.add(&w, io.now, 1);
    }

    /// The ECN reduction's window is acknowledged: cwnd = ssthresh (Linux
    /// `tcp_end_cwnd_reduction`), and growth resumes from there.
    fn end_cwr(&mut self) {
        self.v.cwr_end = None;
        self.w.cwnd_bytes = self.w.ssthresh_bytes;
        self.prr = None;
    }

    /// A reduction was made: with ECN, the next new segment says so (CWR, RFC 3168 §6.1.2;
    /// not with AccECN, whose CWR flag is part of the ACE field, RFC 9768 §3.2.2).
    fn note_reduction(&mut self) {
        if self.v.ecn_ok && !self.v.accecn_ok {
            self.v.cwr_pending = true;
        }
    }

    /// An ACK of new data: RTT sample, window growth or recovery progress, the timer.
    /// `before`: the scoreboard as the ACK found it.
    fn on_new_ack(&mut self, io: &mut Io, peer: &Peer, ack: u64, ts_ecr: Instant, before: Before) {
        let acked = ack - self.v.una;
        self.take_rtt_sample(io, peer, ack, ts_ecr);
        self.v.una = ack;
        self.v.nxt = self.v.nxt.max(ack);
        if self.cfg.sack {
            self.sb.ack_bytes(ack);
        } else if self.cfg.rate_control {
            self.rate_cumulative_ack(ack, acked);
        }
        self.v.dupacks = 0;
        let mut restart = true;
        if self.v.in_recovery {
            if ack >= self.v.recover.unwrap_or(0) {
                // Full acknowledgement: leave recovery with cwnd = ssthresh, or, without
                // SACK, min(ssthresh, FlightSize + SMSS) (RFC 6582 §3.2 step 3, option 1).
                self.v.in_recovery = false;
                if !self.cfg.sack {
                    let flight = self.v.nxt - self.v.una;
                    self.w.cwnd_bytes = self
                        .w
                        .ssthresh_bytes
                        .min(flight.max(self.cfg.mss) + self.cfg.mss);
                } else {
                    self.w.cwnd_bytes = self.w.ssthresh_bytes;
                    self.prr = None;
                }
                self.cc.on_recovery_exit(io.now, &mut self.w);
            } else if !self.cfg.sack {
                // Partial acknowledgement (RFC 6582 §3.2 step 5): resend the next hole,
                // deflate by what was acknowledged, add back one segment if that was at
                // least one, and restart the timer on the first partial ACK only (RFC 6582's
                // Impatient variant, ns-2's default). With `rto_rearm` the resend itself
                // restarts it, so every partial ACK does, as Linux's (the Slow-but-Steady
                // variant, RFC 6582 §4).
                self.note_head_lost();
                self.resend_head(io, peer);
                self.w.cwnd_bytes = self.w.cwnd_bytes.saturating_sub(acked)
                    + if acked >= self.cfg.mss {
                        self.cfg.mss
                    } else {
                        0
                    };
                self.w.cwnd_bytes = self.w.cwnd_bytes.max(self.cfg.mss);
                restart = self.v.first_partial;
                self.v.first_partial = false;
            }
        } else if self.v.cwr_end.is_some_and(|end| ack <= end) {
            // Inside an ECN reduction's window: PRR sets the window (with SACK), nothing grows
            // it (Linux's CWR state: `tcp_cwnd_reduction`, not `tcp_cong_avoid`). The state
            // holds until something above its window is acknowledged, so that the segment
            // carrying CWR has reached the receiver (`tcp_fastretrans_alert`).
        } else {
            if self.v.cwr_end.is_some() {
                self.end_cwr();
            }
            let info = AckInfo {
                now: io.now,
                acked_bytes: self.grown_by(acked, before),
                srtt_ns: self.rtt.srtt().unwrap_or(Duration::ZERO),
                snd_nxt: self.v.max,
                snd_una: self.v.una,
            };
            if self.may_grow() {
                self.cc.on_ack(&mut self.w, &info);
            }
        }
        // RFC 6298 (5.2), (5.3).
        if self.v.una >= self.v.max {
            self.v.rto_at = None;
        } else if restart {
            self.restart_timer(io, peer);
        }
    }

    /// What an ACK that advanced SND.UNA by `acked` bytes grows the window by: the advance, or,
    /// as Linux's `acked_sacked` (`tcp_newly_delivered`), what it newly delivered, in bytes: the
    /// advance plus the change in SACKed segments (the advance's bytes keep a short last
    /// segment's length).
    fn grown_by(&self, acked: u64, before: Before) -> u64 {
        if !self.cfg.grow_by_delivered {
            return acked;
        }
        (acked as i64 + before.sacked_change(&self.sb) * self.cfg.mss as i64).max(0) as u64
    }

    /// Whether a timeout's recovery is under way: what was outstanding at the last timeout is
    /// not all acknowledged yet (Linux's Loss state).
    fn in_loss(&self) -> bool {
        self.v.rto_point.is_some_and(|p| self.v.una < p)
    }

    /// Whether an ACK may grow the window: the flow fills it ([`CwndUse`], Linux's
    /// `tcp_is_cwnd_limited`), or, without the latch, the last send attempt was stopped by it;
    /// with FreeBSD's test, whenever it is at most the peer's window (`CCF_CWND_LIMITED`).
    fn may_grow(&self) -> bool {
        if self.cfg.grow_below_rwnd {
            self.w.cwnd_bytes <= self.v.peer_rwnd
        } else if self.cfg.cwnd_latch {
            let slow_start = self.w.cwnd_bytes < self.w.ssthresh_bytes;
            self.cwnd_use
                .cwnd_limited(self.w.cwnd_bytes / self.cfg.mss, slow_start)
        } else {
            self.v.cwnd_limited
        }
    }

    /// A duplicate ACK (RFC 5681 §2).
    fn on_dup_ack(&mut self, io: &mut Io, peer: &Peer, ack: u64) {
        self.v.dupacks += 1;
        if !self.cfg.sack {
            if self.cfg.rate_control {
                self.rate_dup_ack();
            }
            if self.v.in_recovery {
                // RFC 6582 §3.2 step 4: each further duplicate means a segment left.
                self.w.cwnd_bytes += self.cfg.mss;
            } else if self.v.dupacks == DUP_THRESH && self.may_recover(ack) {
                self.enter_recovery(io, peer);
            }
        }
    }

    /// The engine timer armed for this connection fired.
    pub fn on_timer(&mut self, io: &mut Io, peer: &Peer) {
        let now = io.now;
        if self.cfg.pacing {
            self.on_pace_timer(io, peer);
        }
        if self.v.reo_armed.is_some_and(|a| a <= now) {
            self.v.reo_armed = None;
        }
        if let Some(at) = self.v.reo_at.filter(|&t| t > now) {
            // The deadline moved later since the timer was armed: sleep until it.
            if self.v.reo_armed.is_none() {
                self.v.reo_armed = Some(at);
                io.set_timer(at, self.conn);
            }
        }
        if self.v.reo_at.is_some_and(|t| t <= now) {
            // RACK's reordering window ran out for a segment still undelivered.
            self.v.reo_at = None;
            // (Not while F-RTO waits for the ACK that decides, RFC 5682 step 3.)
            if self.state == State::Open
                && self.v.una < self.v.max
                && self.frto.phase() != Phase::Second
            {
                self.find_losses(io, peer, Before::of(&self.sb));
                self.pump(io, peer);
                self.update_gauges(io, peer);
            }
        }
        // The probe before the retransmission timer: its deadline is never later, and a probe
        // restarts the timer.
        if self.cfg.tlp {
            self.on_probe_timer(io, peer);
        }
        if self.v.rto_armed.is_some_and(|a| a <= now) {
            self.v.rto_armed = None;
        }
        let Some(at) = self.v.rto_at else { return };
        if at > now {
            // The deadline moved later since this timer was armed: sleep until it.
            if self.v.rto_armed.is_none() {
                self.v.rto_armed = Some(at);
                io.set_timer(at, self.conn);
            }
            return;
        }
        self.v.rto_at = None;
        self.on_timeout(io, peer);
    }

    /// RFC 6298 §5.4–5.6 with RFC 5681 §3.1 (cwnd = loss window) and RFC 6582/6675 §5.1.
    fn on_timeout(&mut self, io: &mut Io, peer: &Peer) {
        let count_timeout = |io: &mut Io| {
            let st = &mut io.flows[peer.flow as usize];
            let w = st.window;
            st.timeouts.add(&w, io.now, 1);
        };
        match self.state {
            State::SynSent => {
                self.v.syn_retransmitted = true;
                self.rtt.on_timeout();
                count_timeout(io);
                self.send_ctl(io, peer, tcp_flags::SYN);
                self.restart_timer(io, peer);
                return;
            }
            State::FinSent => {
                self.rtt.on_timeout();
                count_timeout(io);
                self.send_ctl(io, peer, tcp_flags::FIN | tcp_flags::ACK);
                self.restart_timer(io, peer);
                return;
            }
            State::Closed => return,
            State::Open => {}
        }
        if self.v.una >= self.v.max {
            return;
        }
        count_timeout(io);
        self.v.timed = None;
        self.rtt.on_timeout();
        let base = match self.cfg.ssthresh_from {
            SsthreshFrom::Cwnd => self.w.cwnd_bytes,
            SsthreshFrom::Flight if self.cfg.sack => self.sb.pipe() * self.cfg.mss,
            SsthreshFrom::Flight => self.v.nxt - self.v.una,
        };
        // RFC 5681 §3.1: when the segment that timed out was already resent by the timer, the
        // window is not halved again (the first timeout already answered this congestion;
        // halving at each backed-off timeout leaves a long-RTT flow with a tiny ssthresh).
        // Linux (`tcp_enter_loss`) also keeps the ssthresh a fast recovery under way has set:
        // its window is already being reduced, and halving the reduced window halves twice.
        let repeat =
            self.in_loss() || (self.cfg.ssthresh_from == SsthreshFrom::Cwnd && self.v.in_recovery);
        let held = self.w.ssthresh_bytes;
        // F-RTO (RFC 5682 §2-3 step 1) only when no recovery is under way, or when its own
        // detection timed out again; the state to undo is the one before the first timeout.
        let frto = self.cfg.use_frto
            && (self.frto.phase() != Phase::Off || (!self.v.in_recovery && !repeat));
        if frto && self.frto.phase() == Phase::Off {
            self.undo = Some((self.w, self.cc.clone()));
        } else if !frto {
            self.undo = None;
        }
        // FreeBSD's bad-retransmission window (`tcp_timer_rexmt` at `t_rxtshift == 1`): a first
        // timeout keeps the window it reduces, to restore if the next ACK of new data comes
        // within half an SRTT, too soon to answer the retransmission. Not in a fast recovery,
        // whose own retransmissions' ACKs would pass for the originals' (as F-RTO, RFC 5682
        // §3.2); a backed-off timeout closes the window (FreeBSD clears `TF_PREVVALID`).
        self.v.badrxt_until = None;
        if self.cfg.badrxt_undo && !repeat && !self.v.in_recovery {
            if let Some(srtt) = self.rtt.srtt() {
                self.undo = Some((self.w, self.cc.clone()));
                self.v.badrxt_until = Some(io.now + srtt / 2);
            }
        }
        // A timeout is F-RTO's to judge, not D-SACKs'.
        self.dsack.forget();
        self.cc.on_rto(io.now, &mut self.w, base.max(self.cfg.mss));
        if repeat {
            self.w.ssthresh_bytes = held;
        }
        self.v.in_recovery = false;
        self.v.cwr_end = None;
        self.prr = None;
        self.v.reo_at = None;
        self.tlp.at = None;
        self.tlp.end_episode();
        self.v.recover = Some(self.v.max);
        self.v.rto_point = Some(self.v.max);
        self.v.dupacks = 0;
        if self.cfg.sack {
            self.sb.mark_all_lost();
        } else {
            // Go back N: resend from the first unacknowledged byte.
            self.v.nxt = self.v.una;
        }
        if self.cfg.rate_control {
            self.rate_enter_loss(io.now);
        }
        // The timer restarts with the backed-off RTO when the retransmission leaves.
        self.frto.abandon();
        self.pump(io, peer);
        if frto {
            self.frto.start(
                self.v.una + self.cfg.mss.min(self.v.max - self.v.una),
                self.v.max,
            );
        }
        if self.v.rto_at.is_none() {
            self.restart_timer(io, peer);
        }
        self.update_gauges(io, peer);
    }

    /// Free what a finished connection no longer needs.
    pub fn release(&mut self) {
        self.sb.release();
    }
}
