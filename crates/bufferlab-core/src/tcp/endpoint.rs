//! The sending endpoint of a flow and the workload that drives it: one transfer (bulk or
//! sized), web (Poisson arrivals of connections, each its own transfer), or on/off (seed 003
//! §4.1: a burst of `size`, an idle time, again, on one persistent connection).

use super::cc::{
    bbr::Bbr, cubic::Cubic, dctcp::Dctcp, newreno::NewReno, prague::Prague, vegas::Vegas, Cc,
};
use super::params::{CcConfig, TcpParams};
use super::sender::{Event, Peer, SendConn};
pub use super::workload::Workload;
use super::workload::{draw_idle, draw_next_arrival, draw_size, draw_start, replay, Draws};
use crate::dist::Sampler;
use crate::hooks::{AgentHooks, Io};
use crate::metrics::flow::TransferRecord;
use crate::packet::{FlowId, Packet, Proto};
use crate::rng::{mix_key, Rng};
use crate::time::Instant;

/// The timer token of the workload (connections use their number).
const APP: u32 = u32::MAX;

pub struct TcpSender {
    peer: Peer,
    params: TcpParams,
    work: Workload,
    start: Sampler,
    rng: Rng,
    stop: Instant,
    conns: Vec<SendConn>,
    /// Index in `io.transfers` of each connection's current transfer.
    transfer: Vec<Option<usize>>,
    /// Seeds the random choices of connection `k`'s congestion control (`mix_key(cc_seed, k)`),
    /// apart from the workload's draws, so that a BBR and a Cubic run of one scenario and seed
    /// see the same transfers.
    cc_seed: u64,
}

/// A connection's congestion control, as the parameters say; `seed` seeds its random choices
/// (BBR's gain-cycle phase).
pub fn make_cc(p: &TcpParams, seed: u64) -> Cc {
    match p.cc {
        CcConfig::NewReno(c) => Cc::NewReno(NewReno::new(c.beta)),
        CcConfig::Cubic(c) => Cc::Cubic(
            Cubic::new(c.c, c.beta, c.fast_convergence)
                .with_alpha_switch(c.alpha_switch)
                .with_hystart(c.hystart),
        ),
        CcConfig::Vegas(c) => Cc::Vegas(Vegas::new(c.alpha, c.beta, c.gamma, c.loss_beta)),
        CcConfig::Bbr => Cc::Bbr(Bbr::new(seed)),
        CcConfig::Dctcp(c) => Cc::Dctcp(Dctcp::new(c)),
        CcConfig::Prague(c) => Cc::Prague(Prague::new(c)),
    }
}

impl TcpSender {
    pub fn flow(&self) -> FlowId {
        self.peer.flow
    }

    /// The engine's look-ahead: the line of the record holding the connections' vector.
    #[inline]
    pub(crate) fn prefetch(&self) {
        crate::prefetch::line(&self.conns);
    }

    /// The engine's look-ahead: the first lines of connection `conn`'s state (an ACK reads more
    /// of its 2 kB, scattered where the compiler put the parts).
    #[inline]
    pub(crate) fn prefetch_conn(&self, conn: u32) {
        if let Some(c) = self.conns.get(conn as usize) {
            c.prefetch();
        }
    }

    pub fn new(
        peer: Peer,
        params: TcpParams,
        work: Workload,
        start: Sampler,
        rng: Rng,
        stop: Instant,
    ) -> Self {
        // A key drawn from a copy of the workload's stream, far ahead of anything it draws.
        let cc_seed = {
            let mut r = rng.clone();
            r.long_jump();
            rand::RngCore::next_u64(&mut r)
        };
        TcpSender {
            peer,
            params,
            work,
            start,
            rng,
            stop,
            conns: Vec::new(),
            transfer: Vec::new(),
            cc_seed,
        }
    }

    /// The workload's draws this sender will make in its run, at most `limit` transfers of them
    /// ([`replay`] on a copy of its stream): call it before the run starts.
    pub fn draws(&self, limit: usize) -> Draws {
        replay(&self.work, &self.start, self.rng.clone(), self.stop, limit)
    }

    /// The connections opened so far (for tests and inspection).
    pub fn conns(&self) -> &[SendConn] {
        &self.conns
    }

    fn new_conn(&mut self) -> usize {
        let n = self.conns.len();
        let cc = make_cc(&self.params, mix_key(self.cc_seed, n as u64));
        self.conns.push(SendConn::new(n as u32, &self.params, cc));
        self.transfer.push(None);
        n
    }

    fn start_transfer(&mut self, io: &mut Io, c: usize, size: u64) {
        io.transfers.push(TransferRecord {
            flow: self.peer.flow,
            size_bytes: size,
            start: io.now,
            completed: None,
        });
        self.transfer[c] = Some(io.transfers.len() - 1);
    }

    /// The workload's timer: a transfer begins.
    fn on_app_timer(&mut self, io: &mut Io) {
        let peer = self.peer;
        let st = &mut io.flows[peer.flow as usize];
        if st.started_at.is_none() {
            st.started_at = Some(io.now);
        }
        match &self.work {
            Workload::Transfer { size } => {
                let size = *size;
                let c = self.new_conn();
                if let Some(s) = size {
                    self.start_transfer(io, c, s);
                }
                self.conns[c].write(io, &peer, size.unwrap_or(u64::MAX));
                self.conns[c].open(io, &peer);
            }
            Workload::Web { mean_gap_ns, sizes } => {
                let size = draw_size(sizes, &mut self.rng);
                let next = draw_next_arrival(*mean_gap_ns, &mut self.rng, io.now);
                let c = self.new_conn();
                self.start_transfer(io, c, size);
                self.conns[c].write(io, &peer, size);
                self.conns[c].open(io, &peer);
                if next < self.stop {
                    io.set_timer(next, APP);
                }
            }
            Workload::OnOff { sizes, .. } => {
                let size = draw_size(sizes, &mut self.rng);
                let first = self.conns.is_empty();
                if first {
                    self.new_conn();
                }
                self.start_transfer(io, 0, size);
                self.conns[0].write(io, &peer, size);
                if first {
                    self.conns[0].open(io, &peer);
                }
            }
        }
    }

    /// Connection `c` has everything written acknowledged.
    fn on_all_acked(&mut self, io: &mut Io, c: usize) {
        if let Some(t) = self.transfer[c].take() {
            if let Some(r) = io.transfers.get_mut(t) {
                r.completed = Some(io.now);
            }
        }
        let peer = self.peer;
        match &self.work {
            Workload::Transfer { size: Some(_) } => {
                io.flows[peer.flow as usize].completed_at = Some(io.now);
                self.conns[c].close(io, &peer);
            }
            Workload::Transfer { size: None } => {}
            Workload::Web { .. } => self.conns[c].close(io, &peer),
            Workload::OnOff { idle, .. } => {
                let next = io.now.saturating_add(draw_idle(idle, &mut self.rng));
                if next < self.stop {
                    io.set_timer(next, APP);
                }
            }
        }
    }
}

impl AgentHooks for TcpSender {
    fn on_start(&mut self, io: &mut Io) {
        let t0 = draw_start(&self.start, &mut self.rng);
        if t0 < self.stop {
            io.set_timer(t0, APP);
        }
    }

    #[inline]
    fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        if pkt.proto != Proto::Tcp {
            return;
        }
        let c = pkt.tcp.conn as usize;
        let peer = self.peer;
        let Some(conn) = self.conns.get_mut(c) else {
            return;
        };
        if conn.on_packet(io, &peer, &pkt.tcp) == Event::AllAcked {
            self.on_all_acked(io, c);
        }
    }

    fn on_tx_wake(&mut self, io: &mut Io, conn: u32) {
        let peer = self.peer;
        if let Some(c) = self.conns.get_mut(conn as usize) {
            c.on_tx_wake(io, &peer);
        }
    }

    fn on_timer(&mut self, io: &mut Io, token: u32) {
        if token == APP {
            self.on_app_timer(io);
            return;
        }
        let peer = self.peer;
        if let Some(conn) = self.conns.get_mut(token as usize) {
            conn.on_timer(io, &peer);
        }
    }
}
