//! The receiving side: cumulative ACKs, SACK blocks (RFC 2018) and D-SACK blocks (RFC 2883),
//! delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2), timestamp echo (RFC 7323 §4.3). One agent
//! serves every connection of a flow (a web flow multiplexes many).

use super::accecn;
use super::bufauto::{AutoSize, RecvAuto};
use super::comp_sack::{self, Ofo, SackCompress};
use super::params::TcpParams;
use super::rcv_rtt::RcvRtt;
use super::rcv_window::RcvWindow;
use crate::hooks::{AgentHooks, Io};
use crate::packet::{
    tcp_flags, AgentId, Ecn, FlowId, NodeId, Packet, Proto, TcpHeader, MAX_SACK_BLOCKS,
};
use crate::time::{Duration, Instant};

/// No entry in [`RecvConn::recent`].
const NONE: u64 = u64::MAX;
/// The most ACKs quick-ACK mode sends at once (Linux's `TCP_MAX_QUICKACKS`).
const MAX_QUICKACKS: u8 = 16;

#[derive(Clone, Debug)]
pub struct RecvConn {
    /// Next byte expected.
    rcv_nxt: u64,
    /// Data received above `rcv_nxt`: sorted, disjoint `[start, end)` ranges.
    ooo: Vec<(u64, u64)>,
    /// Starts of the most recently received out-of-order segments, newest first: RFC 2018 §4
    /// wants the block holding the newest first, then the most recently reported others.
    recent: [u64; MAX_SACK_BLOCKS],
    /// RFC 2883: bytes received twice, for the first SACK block of the next ACK only (Linux's
    /// `duplicate_sack`, cleared once written: `tcp_options_write`).
    dsack: Option<(u64, u64)>,
    /// RFC 7323 §4.3: TS.Recent and Last.ACK.sent.
    ts_recent: Instant,
    last_ack_sent: u64,
    /// In-order segments not yet acknowledged.
    pending: u32,
    delack_at: Option<Instant>,
    /// The earliest timer set and not yet run (the delayed ACK's or SACK compression's).
    timer_armed: Option<Instant>,
    /// Linux's SACK compression: its counts and hold.
    comp: SackCompress,
    /// The receiver's own RTT estimate (`rcv_rtt_est`), which both below read.
    rcv_rtt: RcvRtt,
    /// Linux's receive window as it opens (`window_quickack`).
    win: RcvWindow,
    /// The sender's RTT estimate from its latest segment, stamped on ACKs (seed 004 §III-A).
    srtt_ns: Duration,
    fin: bool,
    /// ECN (RFC 3168 §6.1.3): a CE was seen and no CWR since: every ACK carries ECE.
    demand_cwr: bool,
    /// ACKs still to send at once after a CE (Linux's quick-ACK mode: `tcp_enter_quickack_mode`
    /// with 2), so the sender hears of the congestion without the delayed-ACK wait; at the
    /// connection's start and after a gap ([`RecvConn::quick_start`]).
    quickacks: u8,
    /// When in-order data last arrived (Linux's `lrcvtime`); `None` before the first.
    last_data: Option<Instant>,
    /// A SYN-ACK went out: the next segment gives the handshake's RTT sample.
    synack_sent: bool,
    /// The receiver's own retransmission timeout (Linux's `icsk_rto`), set once from the
    /// handshake's RTT sample ([`RecvConn::handshake_rtt`]); `None` without a handshake.
    rto: Option<Duration>,
    /// The window advertised: the block's `rwnd`, grown by FreeBSD's auto-sizing when on.
    rwnd: u32,
    auto: RecvAuto,
    /// How marks are fed back, as agreed in the handshake.
    echo: Echo,
    /// The last ECN-capable data packet was CE (DCTCP's `ce_state`; AccECN's change trigger).
    ce_state: bool,
    /// AccECN: CE-marked packets received (`r.cep`), and those since the last ACK.
    cep: u32,
    ce_unacked: u32,
}

/// How a receiver feeds marks back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Echo {
    /// ECE from a CE until the sender's CWR (RFC 3168 §6.1.3).
    #[default]
    Classic,
    /// ECE on exactly the ACKs of CE-marked data, an ACK at once on every change (RFC 8257
    /// §3.2; Linux's `dctcp_ece_ack_update`).
    Dctcp,
    /// The count of CE-marked packets in the ACE field (RFC 9768).
    AccEcn,
}

impl Default for RecvConn {
    fn default() -> Self {
        RecvConn {
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: [NONE; MAX_SACK_BLOCKS],
            dsack: None,
            ts_recent: Instant::ZERO,
            last_ack_sent: 0,
            pending: 0,
            delack_at: None,
            timer_armed: None,
            comp: SackCompress::default(),
            rcv_rtt: RcvRtt::default(),
            win: RcvWindow::default(),
            srtt_ns: Duration::ZERO,
            fin: false,
            demand_cwr: false,
            quickacks: 0,
            last_data: None,
            synack_sent: false,
            rto: None,
            rwnd: 0,
            auto: RecvAuto::default(),
            echo: Echo::Classic,
            ce_state: false,
            cep: accecn::CEP_INIT,
            ce_unacked: 0,
        }
    }
}

/// The retransmission timeout a first RTT sample `m` gives: m + max(2m, `min_rto`) (RFC 6298
/// §2.2, with Linux's floor on the variance term: `tcp_rtt_estimator`'s "make sure rto =
/// 3*rtt").
fn first_sample_rto(m: Duration, min_rto: Duration) -> Duration {
    m + Duration::from_ns((2 * m.as_ns()).max(min_rto.as_ns()))
}

impl RecvConn {
    /// Bytes delivered in order so far.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// How this connection feeds marks back.
    pub fn echo(&self) -> Echo {
        self.echo
    }

    /// Linux's `tcp_incr_quickack`: the next ACKs go at once, as many as half the window holds
    /// segments of `len` bytes, at least 2 and at most 16 (`TCP_MAX_QUICKACKS`).
    fn quick_acks(&mut self, len: u32) {
        let n = (self.rwnd as u64 / (2 * len.max(1) as u64)).clamp(2, MAX_QUICKACKS as u64);
        self.quickacks = self.quickacks.max(n as u8);
    }

    /// The first segment after the SYN-ACK (Linux's `tcp_synack_rtt_meas`): its echo of the
    /// SYN-ACK's timestamp gives the receiver's one RTT sample, and its timeout is that of a
    /// first sample ([`first_sample_rto`]). A receiver that sends no data gets no other
    /// sample, so the timeout stays there for the connection's life, however long the queues
    /// make the sender's RTT later.
    #[inline]
    fn handshake_rtt(&mut self, now: Instant, ts_ecr: Instant, min_rto: Duration) {
        if self.synack_sent && self.rto.is_none() && ts_ecr <= now {
            self.rto = Some(first_sample_rto(now - ts_ecr, min_rto));
        }
    }

    /// In-order data arrived at `now` (Linux's `tcp_event_data_recv`): the first data of the
    /// connection starts quick-ACK mode, so slow start's first rounds are ACKed segment by
    /// segment and a short transfer's last segment is not held; so does data after a gap
    /// longer than the receiver's retransmission timeout ("apparently the sender failed to
    /// restart its window"). That timeout is the receiver's own, from the handshake
    /// ([`RecvConn::handshake_rtt`]); without a handshake, the one a first sample of the
    /// sender's SRTT (which the segments carry) would give.
    fn quick_start(&mut self, now: Instant, len: u32, min_rto: Duration) {
        let rto = self
            .rto
            .unwrap_or_else(|| first_sample_rto(self.srtt_ns, min_rto));
        if self.last_data.is_none_or(|t| now - t > rto) {
            self.quick_acks(len);
        }
        self.last_data = Some(now);
    }

    /// Record `[s, e)` above `rcv_nxt`, merging with its neighbours.
    fn insert(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|r| r.1 < s);
        // Ranges i.. end at or after s; merge every one that starts at or before e.
        let mut j = i;
        let (mut lo, mut hi) = (s, e);
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            lo = lo.min(self.ooo[j].0);
            hi = hi.max(self.ooo[j].1);
            j += 1;
        }
        if j > i {
            self.ooo[i] = (lo, hi);
            self.ooo.drain(i + 1..j);
        } else {
            self.ooo.insert(i, (lo, hi));
        }
        if self.recent[0] != s {
            self.recent.rotate_right(1);
            self.recent[0] = s;
        }
    }

    /// Advance `rcv_nxt` over ranges it now reaches; returns the bytes newly in order.
    fn advance(&mut self, to: u64) -> u64 {
        let before = self.rcv_nxt;
        self.rcv_nxt = self.rcv_nxt.max(to);
        let mut k = 0;
        while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].1);
            k += 1;
        }
        self.ooo.drain(..k);
        self.rcv_nxt - before
    }

    /// The bytes of segment `[s, e)` this end already holds, as a D-SACK block reports them
    /// (RFC 2883 §4): the part below `rcv_nxt`, or else the part inside the first out-of-order
    /// range it overlaps (Linux's `tcp_dsack_set` in `tcp_data_queue` and
    /// `tcp_data_queue_ofo`). `None` when every byte is new.
    fn duplicate(&self, s: u64, e: u64) -> Option<(u64, u64)> {
        if s < self.rcv_nxt {
            return Some((s, e.min(self.rcv_nxt)));
        }
        let i = self.ooo.partition_point(|r| r.1 <= s);
        self.ooo
            .get(i)
            .filter(|r| r.0 < e)
            .map(|r| (s.max(r.0), e.min(r.1)))
    }

    /// Where a segment `[s, e)` lands among the SACK blocks reported (0 first): the block it
    /// extends or overlaps (Linux's `tcp_sack_extend`), or after them all when it starts a new
    /// one.
    fn sack_rank(&self, s: u64, e: u64) -> usize {
        let mut b = [(0, 0); MAX_SACK_BLOCKS];
        let n = self.sack_blocks(&mut b) as usize;
        b[..n]
            .iter()
            .position(|&(lo, hi)| lo <= e && s <= hi)
            .unwrap_or(n)
    }

    /// The SACK blocks to report (RFC 2018 §4), as many as `out` holds.
    fn sack_blocks(&self, out: &mut [(u64, u64)]) -> u8 {
        let mut n = 0;
        for &s in &self.recent {
            if n == out.len() {
                break;
            }
            if s == NONE || s < self.rcv_nxt {
                continue;
            }
            let i = self.ooo.partition_point(|r| r.1 <= s);
            if let Some(&b) = self.ooo.get(i) {
                if b.0 <= s && !out[..n].contains(&b) {
                    out[n] = b;
                    n += 1;
                }
            }
        }
        // Fill any free slot with other blocks, highest first.
        for &b in self.ooo.iter().rev() {
            if n == out.len() {
                break;
            }
            if !out[..n].contains(&b) {
                out[n] = b;
                n += 1;
            }
        }
        n as u8
    }
}

/// The receiving endpoint of one flow.
pub struct TcpReceiver {
    flow: FlowId,
    me: AgentId,
    sack: bool,
    /// Report duplicates in D-SACK blocks (RFC 2883; needs `sack`).
    dsack: bool,
    delayed_ack: bool,
    delack_ns: Duration,
    /// Linux's quick-ACK mode at the start, after a gap and on duplicates (`quickack`), and
    /// the RTO floor its gap is measured with.
    quickack: bool,
    min_rto: Duration,
    /// SACK compression's cap on a hold (`comp_sack`), `None` when off.
    comp_sack: Option<Duration>,
    /// A pushed segment is acknowledged at once (`push_ack`).
    push_ack: bool,
    /// A segment that grows the receive window is acknowledged at once (`window_quickack`),
    /// and the segment size the window grows by (Linux's `advmss`).
    window_quickack: bool,
    advmss: u32,
    rwnd: u32,
    /// FreeBSD's receive-buffer auto-sizing, when on.
    rwnd_auto: Option<AutoSize>,
    /// An ACK's bytes on the wire (headers and the timestamp option).
    ack_bytes: u32,
    /// The sender (learnt from its packets).
    peer_node: NodeId,
    peer_agent: AgentId,
    conns: Vec<RecvConn>,
    /// Agrees to AccECN when asked; echoes as DCTCP does when RFC 3168 ECN is agreed.
    accecn: bool,
    dctcp_echo: bool,
    /// Without a handshake: the feedback the sender's settings imply.
    echo_no_syn: Echo,
}

impl TcpReceiver {
    pub fn new(flow: FlowId, me: AgentId, p: &TcpParams) -> Self {
        TcpReceiver {
            flow,
            me,
            sack: p.sack,
            dsack: p.sack && p.dsack,
            delayed_ack: p.delayed_ack,
            delack_ns: p.delack_ns,
            quickack: p.quickack,
            min_rto: p.min_rto_ns,
            comp_sack: p.comp_sack,
            push_ack: p.push_ack,
            window_quickack: p.window_quickack,
            advmss: p.segment_bytes(),
            rwnd: p.rwnd_bytes.min(u32::MAX as u64) as u32,
            rwnd_auto: p.rwnd_auto,
            ack_bytes: p.header_bytes(),
            peer_node: 0,
            peer_agent: 0,
            conns: Vec::new(),
            accecn: p.accecn,
            dctcp_echo: p.dctcp_echo,
            echo_no_syn: if p.accecn {
                Echo::AccEcn
            } else if p.dctcp_echo {
                Echo::Dctcp
            } else {
                Echo::Classic
            },
        }
    }

    pub fn conn(&self, c: u32) -> Option<&RecvConn> {
        self.conns.get(c as usize)
    }

    fn reply(&mut self, io: &mut Io, conn: u32, flags: u8) {
        self.reply_syn(io, conn, flags, false);
    }

    /// An ACK (a SYN-ACK with the AE flag `ae`).
    fn reply_syn(&mut self, io: &mut Io, conn: u32, flags: u8, ae: bool) {
        let c = &mut self.conns[conn as usize];
        let flags = if c.demand_cwr && c.echo != Echo::AccEcn {
            flags | tcp_flags::ECE
        } else {
            flags
        };
        let mut tcp = TcpHeader {
            conn,
            ack: c.rcv_nxt,
            flags,
            rwnd: c.rwnd,
            ts_val: io.now,
            ts_ecr: c.ts_recent,
            ae,
            ..Default::default()
        };
        if self.sack && (!c.ooo.is_empty() || c.dsack.is_some()) {
            // RFC 2883 §4: the D-SACK block first, then the SACK blocks in RFC 2018's order, all
            // within the option's room (three blocks beside the timestamp option: Linux counts
            // the D-SACK block in it, `tcp_established_options`).
            let n = match c.dsack.take() {
                Some(d) => {
                    tcp.sack[0] = d;
                    1
                }
                None => 0,
            };
            tcp.nsack = n as u8 + c.sack_blocks(&mut tcp.sack[n..]);
        }
        if self.rwnd_auto.is_some() {
            c.auto.on_ack_sent(io.now);
        }
        if c.echo == Echo::AccEcn && flags & tcp_flags::SYN == 0 {
            tcp.set_ace((c.cep % 8) as u8);
            c.ce_unacked = 0;
        }
        c.last_ack_sent = c.rcv_nxt;
        c.pending = 0;
        c.delack_at = None;
        c.comp.sent();
        io.send(Packet {
            flow: self.flow,
            dst: self.peer_node,
            src_agent: self.me,
            dst_agent: self.peer_agent,
            size: self.ack_bytes,
            proto: Proto::Tcp,
            ttl: 64,
            created: io.now,
            srtt_ns: c.srtt_ns,
            tcp,
            ..Default::default()
        });
    }

    fn on_data(&mut self, io: &mut Io, pkt: &Packet) {
        let h = &pkt.tcp;
        let st = &mut io.flows[self.flow as usize];
        let w = st.window;
        st.bytes_received.add(&w, io.now, pkt.size as u64);
        if w.contains(io.now) {
            st.owd.record((io.now - pkt.created).as_ns());
        }
        // A data segment with CWR is acknowledged at once: its sender has just reduced, its
        // window may be a segment or two (Linux's `tcp_ecn_accept_cwr`, `ICSK_ACK_NOW`; not with
        // AccECN, whose CWR bit is part of the ACE counter). The echo's own state is
        // `echo_marks`'.
        let cwr = self.conns[h.conn as usize].echo != Echo::AccEcn && h.flags & tcp_flags::CWR != 0;
        if pkt.ecn == Ecn::Ce {
            let st = &mut io.flows[self.flow as usize];
            let w = st.window;
            st.ce_received.add(&w, io.now, 1);
        }
        let ack_now = self.echo_marks(io, h.conn, h.flags, pkt.ecn);
        let c = &mut self.conns[h.conn as usize];
        c.srtt_ns = pkt.srtt_ns;
        if self.comp_sack.is_some() || self.window_quickack {
            c.rcv_rtt.measure(io.now, h.ts_ecr, h.len);
        }
        // Linux's `tcp_grow_window` (in-order data, and out-of-order data with SACK): a segment
        // that opens the window further is ACKed at once (`icsk_ack.quick |= 1`).
        if self.window_quickack
            && (h.seq <= c.rcv_nxt || self.sack)
            && h.seq + h.len as u64 > c.rcv_nxt
            && c.win.on_segment(io.now, h.len, self.advmss)
        {
            c.quickacks |= 1;
        }
        // RFC 7323 §4.3: echo the timestamp of the segment that advanced the left edge, so the
        // sender's RTT samples include delayed-ACK waits and not out-of-order spacing.
        if h.seq <= c.last_ack_sent && h.ts_val >= c.ts_recent {
            c.ts_recent = h.ts_val;
        }
        let end = h.seq + h.len as u64;
        if self.dsack {
            if let Some(d) = c.duplicate(h.seq, end) {
                c.dsack = Some(d);
            }
        }
        let in_order_or_dup = if end <= c.rcv_nxt {
            // A duplicate: ACK at once so the sender learns what is missing (RFC 5681 §4.2).
            // Linux ACKs the next ones at once too (`tcp_data_queue`: "a retransmit ... force
            // an immediate ack", `tcp_enter_quickack_mode`).
            if self.quickack {
                c.quick_acks(h.len);
            }
            true
        } else if h.seq <= c.rcv_nxt {
            if self.quickack {
                c.quick_start(io.now, h.len, self.min_rto);
            }
            let filled_gap = !c.ooo.is_empty();
            // FreeBSD sizes the buffer on its fast path: in-order data, nothing queued above.
            if let (Some(a), false) = (self.rwnd_auto, filled_gap) {
                let grown = c.auto.on_segment(&a, c.rwnd as u64, h.ts_ecr, h.len as u64);
                c.rwnd = grown.min(u32::MAX as u64) as u32;
            }
            let n = c.advance(end);
            io.flows[self.flow as usize].on_delivered(io.now, n);
            if self.window_quickack {
                // The application reads at once (`tcp_rcv_space_adjust` from `tcp_recvmsg`),
                // the receiver's RTT from the timestamps; without them, the sender's estimate
                // the segments carry stands for Linux's per-window one (`tcp_rcv_rtt_measure`).
                let rtt = c
                    .rcv_rtt
                    .rtt()
                    .or((c.srtt_ns > Duration::ZERO).then_some(c.srtt_ns));
                c.win.on_read(io.now, c.rcv_nxt, rtt);
            }
            c.pending += 1;
            // RFC 5681 §4.2: ACK at once when a segment fills a gap; otherwise at least every
            // second full-sized segment. Linux also ACKs a pushed segment alone once the
            // application has read it (`ICSK_ACK_PUSHED` in `tcp_measure_rcv_mss`, sent by
            // `tcp_cleanup_rbuf`; the applications here read at once).
            let pushed = self.push_ack && h.flags & tcp_flags::PSH != 0;
            filled_gap || !self.delayed_ack || c.pending >= 2 || c.quickacks > 0 || cwr || pushed
        } else {
            // Out of order: a duplicate ACK (RFC 5681 §4.2), at once or, past the first three
            // for this hole, held by SACK compression.
            return self.on_out_of_order(io, h.conn, h.seq, end, ack_now);
        };
        // (Evaluated after the segment is taken in.)
        let immediate = in_order_or_dup || ack_now;
        if immediate {
            self.ack_at_once(io, h.conn);
        } else if c.delack_at.is_none() {
            let at = io.now + self.delack_ns;
            c.delack_at = Some(at);
            Self::arm(c, io, h.conn, at);
        }
    }

    /// An ACK sent at once, which uses up one of quick-ACK mode's (Linux's
    /// `tcp_dec_quickack_mode` on every ACK sent).
    fn ack_at_once(&mut self, io: &mut Io, conn: u32) {
        let c = &mut self.conns[conn as usize];
        c.quickacks = c.quickacks.saturating_sub(1);
        self.reply(io, conn, tcp_flags::ACK);
    }

    /// Set a timer for `at` unless one runs at or before it.
    fn arm(c: &mut RecvConn, io: &mut Io, conn: u32, at: Instant) {
        if c.timer_armed.is_none_or(|a| at < a) {
            c.timer_armed = Some(at);
            io.set_timer(at, conn);
        }
    }

    /// Segment `[s, e)` above a hole. Linux's `__tcp_ack_snd_check` ACKs at once when more than
    /// a segment of in-order data waits, in quick-ACK mode, when the ECN echo asks, and without
    /// SACK compression; else [`comp_sack`] decides. A segment that changes the third SACK block
    /// or a later one first sends what is held, so that block is reported
    /// (`tcp_sack_new_ofo_skb`).
    fn on_out_of_order(&mut self, io: &mut Io, conn: u32, s: u64, e: u64, ack_now: bool) {
        let c = &mut self.conns[conn as usize];
        let cap = match self.comp_sack {
            Some(cap) if c.pending < 2 && c.quickacks == 0 && !ack_now => cap,
            _ => {
                c.insert(s, e);
                return self.ack_at_once(io, conn);
            }
        };
        if c.comp.holding() && c.sack_rank(s, e) >= comp_sack::BLOCKS_EXPECTED {
            self.reply(io, conn, tcp_flags::ACK);
        }
        let c = &mut self.conns[conn as usize];
        c.insert(s, e);
        match c.comp.on_ofo(io.now, c.rcv_nxt, cap, c.rcv_rtt.rtt8()) {
            Ofo::Now => self.reply(io, conn, tcp_flags::ACK),
            Ofo::Hold(Some(at)) => Self::arm(c, io, conn, at),
            Ofo::Hold(None) => {}
        }
    }
}

impl TcpReceiver {
    pub fn flow(&self) -> FlowId {
        self.flow
    }

    /// The engine's look-ahead: the line of the record holding the connections' vector.
    #[inline]
    pub(crate) fn prefetch(&self) {
        crate::prefetch::line(&self.conns);
    }

    /// The engine's look-ahead: connection `conn`'s state.
    #[inline]
    pub(crate) fn prefetch_conn(&self, conn: u32) {
        if let Some(c) = self.conns.get(conn as usize) {
            crate::prefetch::line(&c.rcv_nxt);
            crate::prefetch::line(&c.echo);
            crate::prefetch::line(&c.ooo);
        }
    }
}

impl TcpReceiver {
    /// Take a data segment's ECN field into the connection's feedback; whether it wants an
    /// ACK at once.
    fn echo_marks(&mut self, io: &mut Io, conn: u32, flags: u8, ecn: Ecn) -> bool {
        let c = &mut self.conns[conn as usize];
        let ce = ecn == Ecn::Ce;
        match c.echo {
            Echo::Classic => {
                // RFC 3168 §6.1.3: CWR ends the echo; CE (of this same segment too) starts it
                // again, and the first ACKs after it go at once.
                if flags & tcp_flags::CWR != 0 {
                    c.demand_cwr = false;
                }
                if ce {
                    if !c.demand_cwr {
                        c.quickacks = 2;
                    }
                    c.demand_cwr = true;
                }
                false
            }
            Echo::Dctcp => {
                // RFC 8257 §3.2: ECE on the ACKs of CE data only. When the state changes, a
                // delayed ACK still owed for the earlier segments goes first with the old state,
                // then this segment is acknowledged at once with the new one. Not-ECT segments
                // (retransmissions) leave the state alone (Linux raises no CA event for them).
                if ecn == Ecn::NotEct {
                    return false;
                }
                let changed = ce != c.ce_state;
                if changed && c.delack_at.is_some() {
                    self.reply(io, conn, tcp_flags::ACK);
                }
                let c = &mut self.conns[conn as usize];
                c.ce_state = ce;
                c.demand_cwr = ce;
                changed
            }
            Echo::AccEcn => {
                // RFC 9768 §3.2.2.5: count the mark; ACK at once on a CE after a non-CE packet
                // (change-triggered) or once marks since the last ACK reach the trigger.
                let before = c.ce_state;
                c.ce_state = ce;
                if !ce {
                    return false;
                }
                c.cep = c.cep.wrapping_add(1);
                c.ce_unacked += 1;
                !before || c.ce_unacked >= accecn::INCREMENT_TRIGGER
            }
        }
    }
}

impl AgentHooks for TcpReceiver {
    fn on_start(&mut self, _io: &mut Io) {}

    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        if pkt.proto != Proto::Tcp {
            return;
        }
        let conn = pkt.tcp.conn as usize;
        if conn >= self.conns.len() {
            // Connections are numbered densely from 0 by the sender.
            if conn > self.conns.len() + (1 << 20) {
                return;
            }
            let rwnd = self.rwnd;
            let echo = self.echo_no_syn;
            self.conns.resize_with(conn + 1, || RecvConn {
                rwnd,
                echo,
                ..RecvConn::default()
            });
        }
        self.peer_node = pkt.src;
        self.peer_agent = pkt.src_agent;
        let flags = pkt.tcp.flags;
        if flags & tcp_flags::SYN != 0 {
            let c = &mut self.conns[conn];
            c.ts_recent = pkt.tcp.ts_val;
            c.srtt_ns = pkt.srtt_ns;
            // RFC 3168 §6.1.1: agree to ECN when the SYN asks (ECE and CWR), as Linux's default
            // `tcp_ecn = 2` does; to AccECN when it also sets AE and this end has it (RFC 9768
            // §3.1.1; the SYN left Not-ECT).
            let ecn_setup = tcp_flags::ECE | tcp_flags::CWR;
            let asks = flags & ecn_setup == ecn_setup;
            let (echo, ae, agree) = if asks && pkt.tcp.ae && self.accecn {
                (
                    Echo::AccEcn,
                    accecn::SYN_ACK_NOT_ECT.0,
                    accecn::SYN_ACK_NOT_ECT.1,
                )
            } else if asks && self.dctcp_echo {
                (Echo::Dctcp, false, tcp_flags::ECE)
            } else if asks {
                (Echo::Classic, false, tcp_flags::ECE)
            } else {
                (Echo::Classic, false, 0)
            };
            c.echo = echo;
            c.synack_sent = true;
            self.reply_syn(io, conn as u32, tcp_flags::SYN | tcp_flags::ACK | agree, ae);
            return;
        }
        self.conns[conn].handshake_rtt(io.now, pkt.tcp.ts_ecr, self.min_rto);
        if pkt.tcp.len > 0 {
            self.on_data(io, pkt);
        } else if flags & tcp_flags::FIN != 0 {
            let c = &mut self.conns[conn];
            c.fin = true;
            c.ts_recent = pkt.tcp.ts_val;
            // Everything is in: the per-connection buffers are not needed any more.
            c.ooo = Vec::new();
            self.reply(io, conn as u32, tcp_flags::FIN | tcp_flags::ACK);
        }
    }

    fn on_timer(&mut self, io: &mut Io, token: u32) {
        let now = io.now;
        let Some(c) = self.conns.get_mut(token as usize) else {
            return;
        };
        if c.timer_armed.is_some_and(|a| a <= now) {
            c.timer_armed = None;
        }
        // The delayed ACK's time or the held SACKs' (`tcp_compressed_ack_kick`), whichever is
        // first; an ACK sent since has cleared both.
        let due = match (c.delack_at, c.comp.due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match due {
            Some(at) if at <= now => self.reply(io, token, tcp_flags::ACK),
            Some(at) => Self::arm(c, io, token, at),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_advance() {
        let mut c = RecvConn::default();
        c.insert(3000, 4000);
        c.insert(5000, 6000);
        c.insert(4000, 5000);
        assert_eq!(c.ooo, vec![(3000, 6000)]);
        c.insert(8000, 9000);
        assert_eq!(c.advance(1000), 1000);
        assert_eq!(c.advance(3000), 5000, "the hole fills: in order up to 6000");
        assert_eq!(c.rcv_nxt(), 6000);
        assert_eq!(c.ooo, vec![(8000, 9000)]);
    }

    #[test]
    fn newest_block_first() {
        let mut c = RecvConn::default();
        c.insert(2000, 3000);
        c.insert(5000, 6000);
        c.insert(8000, 9000);
        c.insert(11000, 12000);
        c.insert(6000, 7000); // extends the second block, received last
        let mut b = [(0, 0); MAX_SACK_BLOCKS];
        let n = c.sack_blocks(&mut b);
        assert_eq!(n, 3);
        assert_eq!(
            b[0],
            (5000, 7000),
            "RFC 2018 §4: the block with the newest segment first"
        );
        assert_eq!(b[1], (11000, 12000));
        assert_eq!(b[2], (8000, 9000));
    }

    /// A receiver (no delayed ACKs) fed data segments; what each one made it send.
    struct Rx {
        rx: TcpReceiver,
        flows: Vec<crate::metrics::flow::FlowStats>,
    }

    impl Rx {
        fn new(dsack: bool) -> Rx {
            Rx::with(TcpParams {
                dsack,
                delayed_ack: false,
                comp_sack: None,
                ..TcpParams::default()
            })
        }

        fn with(p: TcpParams) -> Rx {
            let window = crate::metrics::flow::Window {
                start: Instant::ZERO,
                end: Instant::NEVER,
            };
            Rx {
                rx: TcpReceiver::new(0, 0, &p),
                flows: vec![crate::metrics::flow::FlowStats::new(window)],
            }
        }

        /// Bytes `[s, e)` arrive; the SACK blocks of the ACK it sends at once.
        fn data(&mut self, s: u64, e: u64) -> Vec<(u64, u64)> {
            let (acks, _) = self.at(Instant::ZERO, Some((s, e)));
            assert_eq!(acks.len(), 1, "one ACK at once");
            acks[0].clone()
        }

        /// At `now`, bytes `[s, e)` arrive (echoing the time 0), or the timer runs (`None`):
        /// the SACK blocks of each ACK sent, and the timers set.
        fn at(
            &mut self,
            now: Instant,
            seg: Option<(u64, u64)>,
        ) -> (Vec<Vec<(u64, u64)>>, Vec<Instant>) {
            self.at_flags(now, seg, tcp_flags::ACK)
        }

        fn at_flags(
            &mut self,
            now: Instant,
            seg: Option<(u64, u64)>,
            flags: u8,
        ) -> (Vec<Vec<(u64, u64)>>, Vec<Instant>) {
            let (mut arena, mut out, mut timers) =
                (crate::packet::Arena::default(), vec![], vec![]);
            let mut transfers = Vec::new();
            let mut host_tx = [crate::net::host_tx::HostTx::default()];
            let mut io = Io {
                now,
                node: 1,
                arena: &mut arena,
                out: &mut out,
                timers: &mut timers,
                flows: &mut self.flows,
                transfers: &mut transfers,
                host_tx: &mut host_tx,
            };
            match seg {
                Some((s, e)) => {
                    let pkt = Packet {
                        proto: Proto::Tcp,
                        size: 1000,
                        tcp: TcpHeader {
                            seq: s,
                            len: (e - s) as u32,
                            flags,
                            ..Default::default()
                        },
                        ..Default::default()
                    };
                    self.rx.on_packet(&mut io, &pkt);
                }
                None => self.rx.on_timer(&mut io, 0),
            }
            let acks = out
                .iter()
                .map(|&id| {
                    let h = arena.get(id).tcp;
                    h.sack[..h.nsack as usize].to_vec()
                })
                .collect();
            (acks, timers.iter().map(|t| t.0).collect())
        }
    }

    /// Linux's `ICSK_ACK_PUSHED`: a segment carrying PSH is acknowledged at once, even alone;
    /// without PSH a lone segment waits for the delayed-ACK timer (or a second segment); a
    /// receiver that ignores PSH (`push_ack = false`) waits either way.
    #[test]
    fn a_pushed_segment_is_acknowledged_alone() {
        let ms = |t: u64| Instant::ZERO + Duration::from_ms(t);
        let psh = tcp_flags::ACK | tcp_flags::PSH;
        for push_ack in [true, false] {
            let mut r = Rx::with(TcpParams {
                quickack: false,
                window_quickack: false,
                push_ack,
                ..TcpParams::default()
            });
            let (acks, timers) = r.at(ms(10), Some((0, 1000)));
            assert!(
                acks.is_empty() && timers == vec![ms(50)],
                "a lone segment waits"
            );
            assert_eq!(
                r.at(ms(11), Some((1000, 2000))).0.len(),
                1,
                "the second goes"
            );
            let (acks, _) = r.at_flags(ms(12), Some((2000, 3000)), psh);
            assert_eq!(acks.len(), push_ack as usize, "push_ack = {push_ack}");
        }
    }

    /// Linux's SACK compression through the receiver: three duplicate ACKs at once, the next
    /// SACKs held (a 40 ms receiver RTT from the echo: 1 ms) and sent as one ACK when the timer
    /// runs, whose blocks cover them all; the segment that fills the hole is ACKed at once.
    /// Off (`tcp_comp_sack_nr = 0`), every out-of-order segment is ACKed at once.
    #[test]
    fn sack_compression_holds_what_follows_the_third_duplicate() {
        let ms = |t: u64| Instant::ZERO + Duration::from_ms(t);
        // (Without the quick ACKs of a connection's start, which go at once before any rule.)
        let mut r = Rx::with(TcpParams {
            delayed_ack: false,
            quickack: false,
            window_quickack: false,
            ..TcpParams::default()
        });
        assert_eq!(r.at(ms(40), Some((0, 1000))).0.len(), 1);
        for k in 2..5 {
            let (acks, _) = r.at(ms(40), Some((k * 1000, k * 1000 + 1000)));
            assert_eq!(
                acks,
                vec![vec![(2000, k * 1000 + 1000)]],
                "duplicate {k} at once"
            );
        }
        let (acks, timers) = r.at(ms(40), Some((5000, 6000)));
        assert!(acks.is_empty(), "the fourth is held");
        assert_eq!(timers, vec![ms(41)], "for min(1 ms, RTT / 20)");
        let (acks, timers) = r.at(ms(40), Some((6000, 7000)));
        assert!(
            acks.is_empty() && timers.is_empty(),
            "one timer for all held"
        );
        assert_eq!(r.at(ms(41), None).0, vec![vec![(2000, 7000)]]);
        assert!(r.at(ms(41), None).0.is_empty(), "sent once");
        // The hole filled: at once, and the next hole starts a new count.
        assert_eq!(r.at(ms(42), Some((1000, 2000))).0, vec![vec![]]);
        assert_eq!(r.at(ms(42), Some((8000, 9000))).0.len(), 1);

        let mut off = Rx::new(false);
        off.data(0, 1000);
        for k in 2..8 {
            assert_eq!(
                off.data(k * 1000, k * 1000 + 1000),
                vec![(2000, k * 1000 + 1000)]
            );
        }
    }

    /// Linux's `tcp_event_data_recv`: quick ACKs at the first data, none within the RTO of
    /// the last, again after a longer gap; `tcp_incr_quickack`: half the window's segments, at
    /// least 2, at most 16.
    /// `t` ms into the run.
    fn at(t: u64) -> Instant {
        Instant::ZERO + Duration::from_ms(t)
    }

    /// A connection whose window holds more than 16 quick ACKs' worth of segments.
    fn wide_window() -> RecvConn {
        RecvConn {
            rwnd: 1 << 20,
            ..RecvConn::default()
        }
    }

    #[test]
    fn quick_acks_at_the_start_and_after_a_gap_longer_than_the_rto() {
        let ms = Duration::from_ms;
        let mut c = RecvConn {
            srtt_ns: ms(40),
            ..wide_window()
        };
        c.quick_start(at(1000), 1448, ms(200));
        assert_eq!(c.quickacks, 16);
        c.quickacks = 0;
        // RTO of a first sample: 40 + max(80, 200) ms.
        c.quick_start(at(1239), 1448, ms(200));
        assert_eq!(c.quickacks, 0);
        c.quick_start(at(1480), 1448, ms(200));
        assert_eq!(c.quickacks, 16);
        let mut small = RecvConn {
            rwnd: 5 * 1448,
            ..RecvConn::default()
        };
        small.quick_start(at(0), 1448, ms(200));
        assert_eq!(small.quickacks, 2);
    }

    /// Linux's receiver measures the gap against its own timeout, from the handshake's RTT
    /// (`tcp_synack_rtt_meas`), not against the sender's RTT: a receiver whose handshake took
    /// 40 ms quick-ACKs after 300 ms without in-order data even when queues have made the
    /// sender's SRTT 300 ms (its timeout from that SRTT would be 900 ms).
    #[test]
    fn the_gap_is_measured_against_the_handshake_timeout() {
        let ms = Duration::from_ms;
        let mut c = RecvConn {
            synack_sent: true,
            ..wide_window()
        };
        // The SYN-ACK left at 1000 ms; the segment echoing it came at 1040 ms.
        c.handshake_rtt(at(1040), at(1000), ms(200));
        assert_eq!(c.rto, Some(ms(240)), "40 + max(80, 200) ms");
        // Later samples do not move it.
        c.handshake_rtt(at(5000), at(4000), ms(200));
        assert_eq!(c.rto, Some(ms(240)));
        c.srtt_ns = ms(300);
        c.quick_start(at(6000), 1448, ms(200));
        c.quickacks = 0;
        c.quick_start(at(6239), 1448, ms(200));
        assert_eq!(c.quickacks, 0, "within the receiver's 240 ms");
        c.quick_start(at(6539), 1448, ms(200));
        assert_eq!(c.quickacks, 16, "300 ms without in-order data");
        // Without a handshake there is no sample.
        let mut plain = RecvConn::default();
        plain.handshake_rtt(at(1040), at(1000), ms(200));
        assert_eq!(plain.rto, None);
    }

    /// RFC 2883 §4.1.1 (example 1 of §4): a segment entirely below the cumulative ACK is
    /// reported in a D-SACK block below that ACK, on the one ACK that answers it.
    #[test]
    fn a_duplicate_below_the_cumulative_ack_is_dsacked_once() {
        let mut r = Rx::new(true);
        assert!(r.data(0, 1000).is_empty());
        assert!(r.data(1000, 2000).is_empty());
        assert_eq!(r.data(0, 1000), vec![(0, 1000)]);
        assert!(
            r.data(2000, 3000).is_empty(),
            "only the ACK of the duplicate"
        );
        // A segment partly below rcv_nxt: its old part (Linux's `tcp_data_queue`).
        assert_eq!(r.data(2500, 3500), vec![(2500, 3000)]);
        // With SACK blocks to report, the D-SACK block comes first.
        assert_eq!(r.data(5000, 6000), vec![(5000, 6000)]);
        assert_eq!(r.data(1000, 2000), vec![(1000, 2000), (5000, 6000)]);
        // Off: a duplicate is acknowledged without one.
        let mut r = Rx::new(false);
        r.data(0, 1000);
        assert!(r.data(0, 1000).is_empty());
    }

    /// RFC 2883 §4.1.2-3: a duplicate of data held out of order: the D-SACK block, then the
    /// block holding it, then the others; the option holds three blocks in all.
    #[test]
    fn a_duplicate_above_the_cumulative_ack_is_dsacked_before_its_block() {
        let mut r = Rx::new(true);
        r.data(0, 1000);
        r.data(2000, 3000);
        r.data(3000, 4000);
        r.data(5000, 6000);
        r.data(7000, 8000);
        let b = r.data(3000, 4000);
        assert_eq!(b, vec![(3000, 4000), (2000, 4000), (7000, 8000)]);
        assert!(b[0].0 >= 1000, "above the cumulative ACK...");
        assert!(
            b[1].0 <= b[0].0 && b[0].1 <= b[1].1,
            "...and inside the second block"
        );
        let b = r.data(9000, 10000);
        assert_eq!(b, vec![(9000, 10000), (2000, 4000), (7000, 8000)]);
        // A segment overlapping the start of a held range: the overlap.
        assert_eq!(r.data(6500, 7500)[0], (7000, 7500));
    }
}
