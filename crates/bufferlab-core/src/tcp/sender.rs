//! The sending side of one connection: windows, loss detection and recovery, the retransmission
//! timer. A pure state machine: time comes in through [`Io::now`], packets and timers go out
//! through [`Io`].
//!
//! Recovery follows RFC 6675 with SACK (scoreboard, pipe, NextSeg), paced by RFC 6937's PRR
//! unless the block turns it off, and RFC 6582 NewReno without it (window inflation, partial
//! ACKs). The congestion control algorithm only sizes the window
//! (see [`super::cc`]). After a timeout, F-RTO (RFC 5682, [`super::frto`]) may find it
//! spurious and undo it, if the block turns it on.

use super::cc::{AckInfo, Cc, CongestionControl, CwndState};
use super::frto::{AckSeen, Frto, Phase, Verdict};
use super::params::{SsthreshFrom, TcpParams, DUP_THRESH};
use super::prr::Prr;
use super::rack::Rack;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use crate::hooks::Io;
use crate::packet::{tcp_flags, AgentId, FlowId, NodeId, Packet, Proto, TcpHeader};
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

pub struct SendConn {
    pub conn: u32,
    pub state: State,
    sack: bool,
    handshake: bool,
    /// Payload of a full segment, and the header bytes (options included) on every packet.
    mss: u64,
    header_bytes: u32,
    iw_bytes: u64,
    /// Oldest unacknowledged byte, next byte to send, one past the highest byte sent.
    una: u64,
    nxt: u64,
    max: u64,
    /// Bytes the application has written (`u64::MAX`: unbounded).
    end: u64,
    w: CwndState,
    cc: Cc,
    rtt: RttEstimator,
    /// Retransmission timer: when it expires, and the earliest engine timer already pending.
    rto_at: Option<Instant>,
    rto_armed: Option<Instant>,
    dupacks: u32,
    /// What a reduction is taken from (`TcpOptions::ssthresh_from`).
    ssthresh_from: SsthreshFrom,
    in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: one past the highest byte sent when the
    /// last recovery or timeout began.
    recover: Option<u64>,
    /// One past the highest byte sent when the last timeout fired: until the cumulative ACK
    /// passes it, the head segment has been resent by the timer, and a further timeout holds
    /// ssthresh (RFC 5681 §3.1).
    rto_point: Option<u64>,
    /// NewReno: the first partial ACK of this recovery is still to come (RFC 6582 §3.2 step 5,
    /// "Impatient" timer).
    first_partial: bool,
    sb: Scoreboard,
    /// Whether SACK recovery is paced by PRR, and the current recovery's PRR state.
    use_prr: bool,
    prr: Option<Prr>,
    /// Whether F-RTO runs after a timeout, its detection, and what to restore if it finds the
    /// timeout spurious: the window and the algorithm's state before the timeout.
    use_frto: bool,
    frto: Frto,
    undo: Option<(CwndState, Cc)>,
    spurious_timeouts: u64,
    /// RACK's reordering timer (RFC 8985 §6.2 step 5), when a segment waits inside its window.
    reo_at: Option<Instant>,
    /// The earliest engine timer armed for it (one per deadline, not one per ACK).
    reo_armed: Option<Instant>,
    /// The smallest RTT measured (RACK's min_RTT).
    min_rtt: Option<Duration>,
    peer_rwnd: u64,
    sndbuf: u64,
    syn_retransmitted: bool,
    last_send: Instant,
    /// Whether the last send attempt stopped because the congestion window was full (rather
    /// than the peer's window, the send buffer or the application): the window grows only then
    /// (RFC 7661 §4.1; Linux `tcp_is_cwnd_limited`), or a window- or application-limited flow
    /// would inflate cwnd without bound and burst when the limit lifts.
    cwnd_limited: bool,
}

impl SendConn {
    pub fn new(conn: u32, p: &TcpParams, cc: Cc) -> Self {
        let mss = p.segment_bytes() as u64;
        SendConn {
            conn,
            state: State::Closed,
            sack: p.sack,
            handshake: p.handshake,
            mss,
            header_bytes: p.header_bytes(),
            iw_bytes: p.initial_window as u64 * mss,
            una: 0,
            nxt: 0,
            max: 0,
            end: 0,
            w: CwndState {
                cwnd_bytes: p.initial_window as u64 * mss,
                // RFC 5681 §3.1: ssthresh starts arbitrarily high.
                ssthresh_bytes: u64::MAX / 4,
                mss_bytes: mss,
            },
            cc,
            rtt: RttEstimator::new(p.min_rto_ns, p.max_rto_ns),
            rto_at: None,
            rto_armed: None,
            dupacks: 0,
            ssthresh_from: p.ssthresh_from,
            in_recovery: false,
            recover: None,
            rto_point: None,
            first_partial: false,
            sb: {
                let mut sb = Scoreboard::default();
                if p.sack && p.rack {
                    sb.enable_rack();
                }
                sb
            },
            use_prr: p.prr,
            prr: None,
            use_frto: p.frto,
            frto: Frto::new(p.sack),
            undo: None,
            spurious_timeouts: 0,
            reo_at: None,
            reo_armed: None,
            min_rtt: None,
            peer_rwnd: p.rwnd_bytes,
            cwnd_limited: true,
            sndbuf: p.sndbuf_bytes,
            syn_retransmitted: false,
            last_send: Instant::ZERO,
        }
    }

    pub fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd_bytes
    }

    pub fn ssthresh_bytes(&self) -> u64 {
        self.w.ssthresh_bytes
    }

    pub fn srtt_ns(&self) -> Option<Duration> {
        self.rtt.srtt()
    }

    pub fn acked_bytes(&self) -> u64 {
        self.una
    }

    /// Timeouts F-RTO found spurious and undid.
    pub fn spurious_timeouts(&self) -> u64 {
        self.spurious_timeouts
    }

    /// Open the connection (with a SYN if the handshake is on) and send what is written.
    pub fn open(&mut self, io: &mut Io, peer: &Peer) {
        if self.handshake {
            self.state = State::SynSent;
            self.send_ctl(io, peer, tcp_flags::SYN);
            self.restart_timer(io, peer);
        } else {
            self.state = State::Open;
            self.pump(io, peer);
        }
    }

    /// The application writes `bytes` more (`u64::MAX`: an endless stream).
    pub fn write(&mut self, io: &mut Io, peer: &Peer, bytes: u64) {
        // RFC 5681 §4.1: after an idle period longer than an RTO, restart from the initial
        // window rather than send a window-sized burst.
        if self.state == State::Open
            && self.una == self.max
            && self.max > 0
            && io.now.saturating_since(self.last_send) > self.rtt.rto()
        {
            self.w.cwnd_bytes = self.w.cwnd_bytes.min(self.iw_bytes);
            self.cc.on_idle_restart(io.now);
        }
        self.end = self.end.saturating_add(bytes);
        self.pump(io, peer);
    }

    /// Close after everything written is acknowledged (FIN exchange if the handshake is on).
    pub fn close(&mut self, io: &mut Io, peer: &Peer) {
        self.sb.release();
        if self.handshake && self.state == State::Open {
            self.state = State::FinSent;
            self.send_ctl(io, peer, tcp_flags::FIN | tcp_flags::ACK);
            self.restart_timer(io, peer);
        } else {
            self.state = State::Closed;
            self.rto_at = None;
        }
    }

    fn header(&self, io: &Io, seq: u64, len: u32, flags: u8) -> TcpHeader {
        TcpHeader {
            conn: self.conn,
            seq,
            len,
            flags,
            ts_val: io.now,
            ..Default::default()
        }
    }

    fn packet(&self, io: &Io, peer: &Peer, tcp: TcpHeader) -> Packet {
        Packet {
            flow: peer.flow,
            dst: peer.node,
            src_agent: peer.me,
            dst_agent: peer.agent,
            size: tcp.len + self.header_bytes,
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
        let h = self.header(io, self.end.min(self.max), 0, flags);
        let p = self.packet(io, peer, h);
        self.count_sent(io, peer, p.size, false);
        io.send(p);
        self.last_send = io.now;
    }

    /// Send the segment `[seq, seq + len)`.
    fn send_data(&mut self, io: &mut Io, peer: &Peer, seq: u64, len: u32) {
        let h = self.header(io, seq, len, tcp_flags::ACK);
        let p = self.packet(io, peer, h);
        self.count_sent(io, peer, p.size, seq < self.max);
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(1);
        }
        io.send(p);
        self.last_send = io.now;
        if seq + len as u64 > self.max {
            self.max = seq + len as u64;
        }
        // RFC 6298 (5.1): start the timer when data goes out and it is not running.
        if self.rto_at.is_none() {
            self.restart_timer(io, peer);
        }
    }

    /// RFC 6298 (5.3): (re)start the timer to expire one RTO from now.
    fn restart_timer(&mut self, io: &mut Io, _peer: &Peer) {
        let at = io.now + self.rtt.rto();
        self.rto_at = Some(at);
        if self.rto_armed.is_none_or(|a| at < a) {
            self.rto_armed = Some(at);
            io.set_timer(at, self.conn);
        }
    }

    /// Send what the windows allow.
    fn pump(&mut self, io: &mut Io, peer: &Peer) {
        if self.state != State::Open {
            return;
        }
        // Flow control: never more outstanding than the peer's window or the send buffer.
        let limit = self.una + self.peer_rwnd.min(self.sndbuf);
        loop {
            if self.sack {
                if (self.sb.pipe() + 1) * self.mss > self.w.cwnd_bytes {
                    self.cwnd_limited = true;
                    break;
                }
                // RFC 6675 §4 NextSeg: lost segments first, then new data.
                if let Some(k) = self.sb.next_retx() {
                    self.sb.on_retx(k, io.now);
                    let (seq, len) = self.sb.bounds(k);
                    self.send_data(io, peer, seq, len);
                    continue;
                }
                if self.max >= self.end {
                    self.cwnd_limited = false;
                    break;
                }
                let len = self.mss.min(self.end - self.max);
                if self.max + len > limit {
                    self.cwnd_limited = false;
                    break;
                }
                let seq = self.max;
                self.sb.push(seq, len as u32, io.now);
                self.send_data(io, peer, seq, len as u32);
                self.nxt = self.max;
            } else {
                let flight = self.nxt - self.una;
                if flight + self.mss > self.w.cwnd_bytes {
                    self.cwnd_limited = true;
                    break;
                }
                if self.nxt >= self.end {
                    self.cwnd_limited = false;
                    break;
                }
                let len = self.mss.min(self.end - self.nxt);
                if self.nxt + len > limit {
                    self.cwnd_limited = false;
                    break;
                }
                let seq = self.nxt;
                self.send_data(io, peer, seq, len as u32);
                self.nxt = seq + len;
            }
        }
    }

    fn update_gauges(&self, io: &mut Io, peer: &Peer) {
        let st = &mut io.flows[peer.flow as usize];
        st.cwnd_bytes = self.w.cwnd_bytes;
        st.srtt_ns = self.rtt.srtt().unwrap_or(Duration::ZERO);
    }

    fn take_rtt_sample(&mut self, io: &mut Io, peer: &Peer, ts_ecr: Instant) {
        let r = io.now.saturating_since(ts_ecr);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.rtt.sample(r);
        self.cc.on_rtt_sample(io.now, r);
        io.flows[peer.flow as usize].on_rtt_sample(io.now, r);
    }

    /// What a congestion event reduces from, in bytes: the window (Linux) or FlightSize,
    /// SND.NXT − SND.UNA (RFC 5681 eq. 4). See `TcpOptions::ssthresh_from`.
    fn reduction_base(&self) -> u64 {
        match self.ssthresh_from {
            SsthreshFrom::Cwnd => self.w.cwnd_bytes,
            SsthreshFrom::Flight => self.max - self.una,
        }
    }

    /// Enter fast recovery (RFC 6582 §3.2 step 2, RFC 6675 §5 step 4).
    fn enter_recovery(&mut self, io: &mut Io, peer: &Peer) {
        // RecoverFS (RFC 6937 §3) is the same base: Linux's PRR divides by `prior_cwnd`.
        let base = self.reduction_base();
        self.cc.on_congestion(io.now, &mut self.w, base);
        self.in_recovery = true;
        self.recover = Some(self.max);
        if self.sack {
            // cwnd = ssthresh; the first unacknowledged segment is presumed lost and resent at
            // once (RFC 6675 §5 step 4.3), even when the pipe still exceeds the reduced window:
            // after a slow-start overshoot it does for half an RTT, and holding the fast
            // retransmit back that long leaves the hole open past the timer. Linux's PRR forces
            // this first retransmission the same way (`tcp_cwnd_reduction`).
            if self.use_prr {
                // RFC 6937 §3: RecoverFS, in segments.
                self.prr = Some(Prr::start(base.div_ceil(self.mss)));
            }
            let head = self.sb.head();
            self.sb.mark_lost(head);
            if self.sb.next_retx() == Some(head) {
                self.sb.on_retx(head, io.now);
                let (seq, len) = self.sb.bounds(head);
                self.send_data(io, peer, seq, len);
            }
        } else {
            // Retransmit the first unacknowledged segment; inflate by the three segments that
            // have left the network (RFC 6582 §3.2 step 2-3).
            self.w.cwnd_bytes = self.w.ssthresh_bytes + 3 * self.mss;
            self.first_partial = true;
            self.resend_head(io, peer);
        }
    }

    /// NewReno: resend one segment from the first unacknowledged byte.
    fn resend_head(&mut self, io: &mut Io, peer: &Peer) {
        let seq = self.una;
        let len = self.mss.min(self.end - seq);
        self.send_data(io, peer, seq, len as u32);
        self.nxt = self.nxt.max(seq + len);
    }

    /// During a PRR recovery, the window this ACK allows: the pipe plus PRR's `sndcnt` (RFC 6937
    /// §3). `before` is the scoreboard's head and SACKed count before the ACK: what it delivered
    /// is the head's advance plus the change in SACKed segments (DeliveredData).
    fn prr_window(&mut self, before: (u64, u32)) {
        let Some(prr) = self.prr.as_mut() else { return };
        let advanced = self.sb.head().saturating_sub(before.0);
        let delivered = (advanced + self.sb.sacked() as u64).saturating_sub(before.1 as u64);
        let pipe = self.sb.pipe();
        let ssthresh = self.w.ssthresh_bytes / self.mss;
        let sndcnt = prr.on_ack(delivered, pipe, ssthresh);
        self.w.cwnd_bytes = (pipe + sndcnt) * self.mss;
    }

    /// May a new recovery start? Not before everything outstanding at the last one (or at the
    /// last timeout) is acknowledged: RFC 6582 §3.2 step 1, RFC 6675 §5.
    fn may_recover(&self, ack: u64) -> bool {
        self.recover.is_none_or(|r| ack >= r)
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
        self.peer_rwnd = h.rwnd as u64;
        let ack = h.ack.min(self.max);
        let before = (self.sb.head(), self.sb.sacked());
        self.sb
            .rack_begin(io.now, h.ts_ecr, self.min_rtt.unwrap_or(Duration::ZERO));
        let new_sack = self.read_sack(h, ack);
        let was_all_acked = self.una >= self.end;
        let advanced = ack > self.una;
        let duplicate = ack == self.una && h.len == 0 && self.max > self.una;
        if advanced {
            self.on_new_ack(io, peer, ack, h.ts_ecr);
        } else if duplicate && (!self.sack || new_sack) {
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
        if self.sack {
            self.sb.detect_losses();
            self.find_losses(io, peer, before);
        }
        // F-RTO step 3: nothing more leaves until the next ACK decides.
        if self.frto.phase() != Phase::Second {
            self.pump(io, peer);
        }
        self.update_gauges(io, peer);
        if !was_all_acked && self.una >= self.end {
            Event::AllAcked
        } else {
            Event::None
        }
    }

    /// After the scoreboard has taken an ACK (or RACK's timer fired): RACK's losses, recovery if
    /// the head is lost, and PRR's window. `before`: the scoreboard's head and SACKed count
    /// before the ACK.
    fn find_losses(&mut self, io: &mut Io, peer: &Peer, before: (u64, u32)) {
        if self.sb.rack().is_some() {
            let min_rtt = self.min_rtt.unwrap_or(Duration::ZERO);
            let srtt = self.rtt.srtt().unwrap_or(Duration::ZERO);
            let reo_wnd = Rack::reo_wnd(self.in_recovery, self.sb.sacked(), min_rtt, srtt);
            self.reo_at = self.sb.rack_detect(io.now, reo_wnd);
            if let Some(at) = self.reo_at {
                if self.reo_armed.is_none_or(|a| at < a) {
                    self.reo_armed = Some(at);
                    io.set_timer(at, self.conn);
                }
            }
        }
        if !self.in_recovery
            && self.una < self.max
            && (self.dupacks >= DUP_THRESH || self.sb.is_lost(self.sb.head()))
            && self.may_recover(self.una)
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
                    if self.syn_retransmitted {
                        self.rtt.syn_lost();
                        // RFC 5681 §3.1 (and RFC 6298 §5.7): after a lost SYN or SYN-ACK the
                        // initial window is one segment; Linux does the same in
                        // tcp_init_transfer.
                        self.w.cwnd_bytes = self.mss;
                    }
                    // The SYN's round trip seeds the RTO (RFC 6298 §2.2) but not the congestion
                    // control: a 40 B SYN crosses each link faster than a full segment, and
                    // Vegas would take it for a base RTT no data segment can reach.
                    self.rtt.sample(io.now.saturating_since(h.ts_ecr));
                    self.state = State::Open;
                    self.rto_at = None;
                    self.pump(io, peer);
                    self.update_gauges(io, peer);
                }
            }
            State::FinSent => {
                if h.flags & tcp_flags::FIN != 0 {
                    self.state = State::Closed;
                    self.rto_at = None;
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
        if self.sack {
            for &(s, e) in &h.sack[..(h.nsack as usize).min(h.sack.len())] {
                if e > ack {
                    self.sb.sack_bytes(s.max(ack), e.min(self.max));
                }
            }
        }
        self.sb.sacked() > sacked_before
    }

    /// Whether one of the ACK's SACK blocks reaches above byte `seq`.
    fn sack_above(&self, h: &TcpHeader, seq: u64) -> bool {
        self.sack
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
                    self.w.cwnd_bytes = self.w.cwnd_bytes.min(c * self.mss);
                }
                self.undo = None;
            }
            Verdict::Spurious => self.undo_timeout(),
        }
    }

    /// Send up to `n` segments of data never sent, whatever the congestion window (the peer's
    /// window and the send buffer still bound them); how many went.
    fn send_new(&mut self, io: &mut Io, peer: &Peer, n: u32) -> u32 {
        let limit = self.una + self.peer_rwnd.min(self.sndbuf);
        let mut sent = 0;
        while sent < n && self.max < self.end {
            let len = self.mss.min(self.end - self.max);
            if self.max + len > limit {
                break;
            }
            let seq = self.max;
            if self.sack {
                self.sb.push(seq, len as u32, io.now);
            }
            self.send_data(io, peer, seq, len as u32);
            if self.sack {
                self.nxt = self.max;
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
            self.cc = cc;
            self.w.cwnd_bytes = self.w.cwnd_bytes.max(w.cwnd_bytes);
            self.w.ssthresh_bytes = self.w.ssthresh_bytes.max(w.ssthresh_bytes);
        }
        if self.sack {
            self.sb.unmark_lost();
        } else {
            self.nxt = self.max;
        }
        // RFC 5682 §2 step 3b: "recover" = SND.UNA, so that a fast retransmit may follow; the
        // next timeout is a first one again.
        self.recover = None;
        self.rto_point = None;
        self.dupacks = 0;
        self.spurious_timeouts += 1;
    }

    /// An ACK of new data: RTT sample, window growth or recovery progress, the timer.
    fn on_new_ack(&mut self, io: &mut Io, peer: &Peer, ack: u64, ts_ecr: Instant) {
        let acked = ack - self.una;
        self.take_rtt_sample(io, peer, ts_ecr);
        self.una = ack;
        self.nxt = self.nxt.max(ack);
        if self.sack {
            self.sb.ack_bytes(ack);
        }
        self.dupacks = 0;
        let mut restart = true;
        if self.in_recovery {
            if ack >= self.recover.unwrap_or(0) {
                // Full acknowledgement: leave recovery with cwnd = ssthresh, or, without
                // SACK, min(ssthresh, FlightSize + SMSS) (RFC 6582 §3.2 step 3, option 1).
                self.in_recovery = false;
                if !self.sack {
                    let flight = self.nxt - self.una;
                    self.w.cwnd_bytes = self.w.ssthresh_bytes.min(flight.max(self.mss) + self.mss);
                } else {
                    self.w.cwnd_bytes = self.w.ssthresh_bytes;
                    self.prr = None;
                }
                self.cc.on_recovery_exit(io.now, &mut self.w);
            } else if !self.sack {
                // Partial acknowledgement (RFC 6582 §3.2 step 5): resend the next hole,
                // deflate by what was acknowledged, add back one segment if that was at
                // least one, and restart the timer on the first partial ACK only.
                self.resend_head(io, peer);
                self.w.cwnd_bytes = self.w.cwnd_bytes.saturating_sub(acked)
                    + if acked >= self.mss { self.mss } else { 0 };
                self.w.cwnd_bytes = self.w.cwnd_bytes.max(self.mss);
                restart = self.first_partial;
                self.first_partial = false;
            }
        } else {
            let info = AckInfo {
                now: io.now,
                acked_bytes: acked,
                srtt_ns: self.rtt.srtt().unwrap_or(Duration::ZERO),
                snd_nxt: self.max,
                snd_una: self.una,
            };
            if self.cwnd_limited {
                self.cc.on_ack(&mut self.w, &info);
            }
        }
        // RFC 6298 (5.2), (5.3).
        if self.una >= self.max {
            self.rto_at = None;
        } else if restart {
            self.restart_timer(io, peer);
        }
    }

    /// A duplicate ACK (RFC 5681 §2).
    fn on_dup_ack(&mut self, io: &mut Io, peer: &Peer, ack: u64) {
        self.dupacks += 1;
        if !self.sack {
            if self.in_recovery {
                // RFC 6582 §3.2 step 4: each further duplicate means a segment left.
                self.w.cwnd_bytes += self.mss;
            } else if self.dupacks == DUP_THRESH && self.may_recover(ack) {
                self.enter_recovery(io, peer);
            }
        }
    }

    /// The engine timer armed for this connection fired.
    pub fn on_timer(&mut self, io: &mut Io, peer: &Peer) {
        let now = io.now;
        if self.reo_armed.is_some_and(|a| a <= now) {
            self.reo_armed = None;
        }
        if let Some(at) = self.reo_at.filter(|&t| t > now) {
            // The deadline moved later since the timer was armed: sleep until it.
            if self.reo_armed.is_none() {
                self.reo_armed = Some(at);
                io.set_timer(at, self.conn);
            }
        }
        if self.reo_at.is_some_and(|t| t <= now) {
            // RACK's reordering window ran out for a segment still undelivered.
            self.reo_at = None;
            // (Not while F-RTO waits for the ACK that decides, RFC 5682 step 3.)
            if self.state == State::Open
                && self.una < self.max
                && self.frto.phase() != Phase::Second
            {
                self.find_losses(io, peer, (self.sb.head(), self.sb.sacked()));
                self.pump(io, peer);
                self.update_gauges(io, peer);
            }
        }
        if self.rto_armed.is_some_and(|a| a <= now) {
            self.rto_armed = None;
        }
        let Some(at) = self.rto_at else { return };
        if at > now {
            // The deadline moved later since this timer was armed: sleep until it.
            if self.rto_armed.is_none() {
                self.rto_armed = Some(at);
                io.set_timer(at, self.conn);
            }
            return;
        }
        self.rto_at = None;
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
                self.syn_retransmitted = true;
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
        if self.una >= self.max {
            return;
        }
        count_timeout(io);
        self.rtt.on_timeout();
        let base = match self.ssthresh_from {
            SsthreshFrom::Cwnd => self.w.cwnd_bytes,
            SsthreshFrom::Flight if self.sack => self.sb.pipe() * self.mss,
            SsthreshFrom::Flight => self.nxt - self.una,
        };
        // RFC 5681 §3.1: when the segment that timed out was already resent by the timer, the
        // window is not halved again (the first timeout already answered this congestion;
        // halving at each backed-off timeout leaves a long-RTT flow with a tiny ssthresh).
        // Linux (`tcp_enter_loss`) also keeps the ssthresh a fast recovery under way has set:
        // its window is already being reduced, and halving the reduced window halves twice.
        let repeat = self.rto_point.is_some_and(|p| self.una < p)
            || (self.ssthresh_from == SsthreshFrom::Cwnd && self.in_recovery);
        let held = self.w.ssthresh_bytes;
        // F-RTO (RFC 5682 §2-3 step 1) only when no recovery is under way, or when its own
        // detection timed out again; the state to undo is the one before the first timeout.
        let frto =
            self.use_frto && (self.frto.phase() != Phase::Off || (!self.in_recovery && !repeat));
        if frto && self.frto.phase() == Phase::Off {
            self.undo = Some((self.w, self.cc.clone()));
        } else if !frto {
            self.undo = None;
        }
        self.cc.on_rto(io.now, &mut self.w, base.max(self.mss));
        if repeat {
            self.w.ssthresh_bytes = held;
        }
        self.in_recovery = false;
        self.prr = None;
        self.reo_at = None;
        self.recover = Some(self.max);
        self.rto_point = Some(self.max);
        self.dupacks = 0;
        if self.sack {
            self.sb.mark_all_lost();
        } else {
            // Go back N: resend from the first unacknowledged byte.
            self.nxt = self.una;
        }
        // The timer restarts with the backed-off RTO when the retransmission leaves.
        self.frto.abandon();
        self.pump(io, peer);
        if frto {
            self.frto
                .start(self.una + self.mss.min(self.max - self.una), self.max);
        }
        if self.rto_at.is_none() {
            self.restart_timer(io, peer);
        }
        self.update_gauges(io, peer);
    }

    /// Free what a finished connection no longer needs.
    pub fn release(&mut self) {
        self.sb.release();
    }
}
