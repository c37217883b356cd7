//! A two-endpoint virtual network for testing the TCP state machines in isolation: one FIFO
//! bottleneck in the data direction, a plain delay back, and a drop rule chosen by the test.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::endpoint::{TcpSender, Workload};
use super::params::TcpParams;
use super::receiver::TcpReceiver;
use super::sender::Peer;
use crate::dist::Sampler;
use crate::hooks::{AgentHooks, Io};
use crate::metrics::flow::{FlowStats, TransferRecord, Window};
use crate::packet::{Arena, Packet};
use crate::rng::{stream, Stream};
use crate::time::{tx_time, Duration, Instant};

const SENDER: u32 = 1;
const RECEIVER: u32 = 0;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Packet (index in `Net::pkts`) reaches agent.
    Deliver(u32, usize),
    Timer(u32, u32),
}

/// A data packet the sender emitted, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub at: Instant,
    pub seq: u64,
    pub len: u32,
    pub dropped: bool,
    /// The connection's pacing rate after the hook that sent it (bytes/s).
    pub pacing_rate: Option<u64>,
    /// Sent from a timer (the pacing timer), not on an ACK.
    pub on_timer: bool,
    /// Carries PSH.
    pub push: bool,
}

/// A drop rule: `(packet, now) -> drop?`
pub type DropRule = Box<dyn FnMut(&Packet, Instant) -> bool>;

pub struct Net {
    pub now: Instant,
    heap: BinaryHeap<Reverse<(Instant, u64, Ev)>>,
    n: u64,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub flows: Vec<FlowStats>,
    pub transfers: Vec<TransferRecord>,
    pkts: Vec<Packet>,
    rate_bps: u64,
    delay_ns: Duration,
    limit_pkts: usize,
    /// Departure times of the packets in the bottleneck queue.
    queue: VecDeque<Instant>,
    /// Drop rule for data-direction packets.
    pub drop: DropRule,
    /// Drop rule for ACKs.
    pub drop_ack: DropRule,
    /// Marking rule for ECN-capable data packets (CE in place of their ECT codepoint).
    pub mark: DropRule,
    /// Step marking: an ECN-capable packet that finds this many packets at the bottleneck (the
    /// one in service included) is marked CE.
    pub mark_at_pkts: Option<usize>,
    /// Delay added to an ACK sent at the given time (a delay spike on the return path).
    pub ack_extra: Box<dyn FnMut(Instant) -> Duration>,
    /// Duplication rule for data-direction packets: how many extra copies the network delivers.
    pub dup: Box<dyn FnMut(&Packet, Instant) -> u32>,
    /// Delay added to a data packet after the bottleneck (reordering: later packets overtake).
    pub reorder: Box<dyn FnMut(&Packet) -> Duration>,
    /// Rewrites an ACK on its way to the sender.
    pub ack_rewrite: Box<dyn FnMut(&mut Packet)>,
    pub sent: Vec<Sent>,
    pub acks: u64,
    /// Each ACK's arrival at the sender and its cumulative acknowledgement.
    pub acks_in: Vec<(Instant, u64)>,
    /// The largest number of packets the bottleneck held (the one in service included).
    pub qmax: usize,
    /// Every change of the bottleneck's queue length (in packets) seen by an arriving packet:
    /// (time, length after it joined), when `trace_queue` is set.
    pub trace_queue: bool,
    pub queue_trace: Vec<(Instant, usize)>,
}

impl Net {
    pub fn new(
        p: TcpParams,
        size: Option<u64>,
        rate_bps: u64,
        delay_ns: Duration,
        limit: usize,
    ) -> Net {
        let window = Window {
            start: Instant::ZERO,
            end: Instant::NEVER,
        };
        let peer = Peer {
            flow: 0,
            me: SENDER,
            node: 1,
            agent: RECEIVER,
        };
        let sender = TcpSender::new(
            peer,
            p.clone(),
            Workload::Transfer { size },
            Sampler::Const(0.0),
            stream(1, Stream::Agent, 1),
            Instant::NEVER,
        );
        let mut net = Net {
            now: Instant::ZERO,
            heap: BinaryHeap::new(),
            n: 0,
            sender,
            receiver: TcpReceiver::new(0, RECEIVER, &p),
            flows: vec![FlowStats::new(window)],
            transfers: Vec::new(),
            pkts: Vec::new(),
            rate_bps,
            delay_ns,
            limit_pkts: limit,
            queue: VecDeque::new(),
            drop: Box::new(|_, _| false),
            drop_ack: Box::new(|_, _| false),
            mark: Box::new(|_, _| false),
            mark_at_pkts: None,
            ack_extra: Box::new(|_| Duration::ZERO),
            dup: Box::new(|_, _| 0),
            reorder: Box::new(|_| Duration::ZERO),
            ack_rewrite: Box::new(|_| {}),
            sent: Vec::new(),
            acks: 0,
            acks_in: Vec::new(),
            qmax: 0,
            trace_queue: false,
            queue_trace: Vec::new(),
        };
        net.hook(SENDER, true, |a, io| a.on_start(io));
        net
    }

    fn push(&mut self, at: Instant, ev: Ev) {
        self.n += 1;
        self.heap.push(Reverse((at, self.n, ev)));
    }

    fn hook(&mut self, agent: u32, on_timer: bool, f: impl FnOnce(&mut dyn AgentHooks, &mut Io)) {
        let mut out = Vec::new();
        let mut timers = Vec::new();
        let mut arena = Arena::default();
        // No host egress here: nothing counts the sender's packets (no TCP small queues).
        let mut host_tx = [crate::net::host_tx::HostTx::default()];
        let mut io = Io {
            now: self.now,
            node: if agent == SENDER { 0 } else { 1 },
            arena: &mut arena,
            out: &mut out,
            timers: &mut timers,
            flows: &mut self.flows,
            transfers: &mut self.transfers,
            host_tx: &mut host_tx,
        };
        if agent == SENDER {
            f(&mut self.sender, &mut io);
        } else {
            f(&mut self.receiver, &mut io);
        }
        for (at, tok) in timers {
            self.push(at, Ev::Timer(agent, tok));
        }
        let rate = self.sender.conns().first().and_then(|c| c.pacing_rate());
        for p in out.into_iter().map(|id| *arena.get(id)) {
            if agent == SENDER {
                self.forward(p, rate, on_timer);
            } else {
                self.acks += 1;
                if !(self.drop_ack)(&p, self.now) {
                    let mut p = p;
                    (self.ack_rewrite)(&mut p);
                    self.pkts.push(p);
                    let at = self.now + self.delay_ns + (self.ack_extra)(self.now);
                    self.push(at, Ev::Deliver(SENDER, self.pkts.len() - 1));
                }
            }
        }
    }

    /// The data direction: drop rule, FIFO of `limit_pkts`, serialization, delay.
    fn forward(&mut self, mut p: Packet, pacing_rate: Option<u64>, on_timer: bool) {
        let now = self.now;
        while self.queue.front().is_some_and(|&d| d <= now) {
            self.queue.pop_front();
        }
        let dropped = (self.drop)(&p, now) || self.queue.len() > self.limit_pkts;
        if p.tcp.len > 0 {
            self.sent.push(Sent {
                at: now,
                seq: p.tcp.seq,
                len: p.tcp.len,
                dropped,
                pacing_rate,
                on_timer,
                push: p.tcp.flags & crate::packet::tcp_flags::PSH != 0,
            });
        }
        if dropped {
            return;
        }
        if p.ecn.markable()
            && ((self.mark)(&p, now) || self.mark_at_pkts.is_some_and(|k| self.queue.len() >= k))
        {
            p.ecn = crate::packet::Ecn::Ce;
        }
        for _ in 0..=(self.dup)(&p, now) {
            self.transmit(p);
        }
    }

    /// Queue one copy of a packet behind the ones already waiting.
    fn transmit(&mut self, p: Packet) {
        let now = self.now;
        let start = self.queue.back().copied().unwrap_or(now).max(now);
        let done = start + tx_time(p.size as u64, self.rate_bps);
        self.queue.push_back(done);
        self.qmax = self.qmax.max(self.queue.len());
        if self.trace_queue {
            self.queue_trace.push((now, self.queue.len()));
        }
        let late = (self.reorder)(&p);
        self.pkts.push(p);
        self.push(
            done + self.delay_ns + late,
            Ev::Deliver(RECEIVER, self.pkts.len() - 1),
        );
    }

    /// Run until `end`.
    pub fn run(&mut self, end: Instant) {
        while let Some(&Reverse((at, _, ev))) = self.heap.peek() {
            if at >= end {
                break;
            }
            self.heap.pop();
            self.now = at;
            match ev {
                Ev::Deliver(a, i) => {
                    let p = self.pkts[i];
                    if a == SENDER {
                        self.acks_in.push((at, p.tcp.ack));
                    }
                    self.hook(a, false, |ag, io| ag.on_packet(io, &p));
                }
                Ev::Timer(a, tok) => self.hook(a, true, |ag, io| ag.on_timer(io, tok)),
            }
        }
        self.now = end;
    }

    pub fn stats(&self) -> &FlowStats {
        &self.flows[0]
    }

    /// Packets waiting or in service at the bottleneck now.
    pub fn queue_len(&mut self) -> usize {
        let now = self.now;
        while self.queue.front().is_some_and(|&d| d <= now) {
            self.queue.pop_front();
        }
        self.queue.len()
    }

    /// Data segments sent with sequence number `seq`, in order.
    pub fn sends_of(&self, seq: u64) -> Vec<Sent> {
        self.sent.iter().filter(|s| s.seq == seq).copied().collect()
    }
}
