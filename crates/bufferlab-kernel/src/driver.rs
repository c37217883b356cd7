//! The wall-clock driver: the engine's network run against CLOCK_MONOTONIC between TUN devices.
//!
//! One thread waits in `ppoll` on every host's TUN with a timeout to the engine's next event;
//! when it wakes it advances the engine to the time now (processing every event due, at its
//! own due time, so a late wake-up delays a delivery but never changes a link's rate), writes
//! what reached a host to that host's TUN, and injects what the hosts sent, each packet at the
//! time it was read.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bufferlab_core::metrics::hist::Hist;
use bufferlab_core::packet::{Ecn, FlowId, NodeId, Proto};
use bufferlab_core::realtime::{Outbound, RealtimeNet, Seen, TtlExpired};
use bufferlab_core::time::{Duration, Instant};

use crate::icmp::{self, RateLimit};
use crate::ipv4::{self, Header};
use crate::keep_awake::KeepAwake;
use crate::netns::{addr_node, node_addr};
use crate::slab::{Slab, SLOT_BYTES};
use crate::sys;

/// A scenario flow's programs use port (or ICMP echo identifier) `FLOW_PORT_BASE + flow`, so
/// its packets count in its row of the flows table (the ports a simulation's capture gives it).
pub use bufferlab_core::wire::FLOW_PORT_BASE;

/// Longest sleep without looking at the stop flag and updating the elapsed time.
const MAX_SLEEP_NS: Duration = Duration::from_ms(20);
/// Packets read from one TUN before the others get a turn.
const READ_BATCH: usize = 64;

/// Shared between the driver thread and whoever watches it.
#[derive(Default)]
pub struct Control {
    pub stop: AtomicBool,
    /// Run time reached, in ns (for a progress bar).
    pub elapsed_ns: AtomicU64,
}

/// What the driver saw; `lateness` is how long after the engine delivered a packet it was
/// written to its TUN (the wall clock's error on every delivery).
#[derive(Default)]
pub struct DriverStats {
    pub pkts_in: u64,
    pub pkts_out: u64,
    /// Read packets that are not IPv4 or are larger than a slot.
    pub not_ipv4: u64,
    /// Read packets for an address no host has.
    pub no_host: u64,
    pub write_errors: u64,
    /// ICMP Time Exceeded messages the routers sent, and those their rate limit held back.
    pub icmp_time_exceeded: u64,
    pub icmp_rate_limited: u64,
    pub wakeups: u64,
    /// Whether the driver thread ran under SCHED_FIFO.
    pub realtime_priority: bool,
    /// The spin margin the driver ran with (`Precision::spin_ns`).
    pub spin: Duration,
    /// Cores kept awake by idle-priority spinners during the run (`keep_awake`; 0: none).
    pub awake_cores: u32,
    pub lateness: Hist,
}

/// How much of the wall clock the driver may keep its core: once it has been awake (working or
/// spinning) for more than `BUSY_SHARE_PERCENT` of the current `BUSY_WINDOW`, it sleeps between
/// events until the window ends. The kernel stops a SCHED_FIFO thread that runs through 95% of a
/// second (`sched_rt_runtime_us`) for the rest of it, which would delay every delivery by tens
/// of milliseconds; the hosts' programs need the core as well.
#[derive(Default)]
struct SpinBudget {
    window_start: Instant,
    slept: Duration,
}

const BUSY_WINDOW: Duration = Duration::from_ms(100);
const BUSY_SHARE_PERCENT: u64 = 80;
/// Below this much of a window the share is not judged (too few events to tell).
const BUSY_MIN_ELAPSED: Duration = Duration::from_ms(10);

impl SpinBudget {
    /// How much of `want` the driver may spin now: all of it, or nothing while it has been awake
    /// for more than its share of the window so far.
    fn spin(&mut self, now: Instant, want: Duration) -> Duration {
        let elapsed = now.saturating_since(self.window_start);
        if elapsed >= BUSY_WINDOW {
            self.window_start = now;
            self.slept = Duration::ZERO;
            return want;
        }
        let awake = elapsed.saturating_sub(self.slept);
        if elapsed >= BUSY_MIN_ELAPSED && awake.as_ns() * 100 > elapsed.as_ns() * BUSY_SHARE_PERCENT
        {
            return Duration::ZERO;
        }
        want
    }

    /// Time the driver spent asleep waiting for an event.
    fn slept(&mut self, d: Duration) {
        self.slept += d;
    }
}

/// The flow a packet belongs to: a scenario flow when a port (or echo identifier) says so, else
/// a number past the scenario's flows derived from the 5-tuple, so flow-aware disciplines tell
/// unrelated conversations apart as RFC 8290 §4.1.1 does.
pub fn classify(h: &Header, n_flows: u32) -> FlowId {
    let in_range = |p: u16| {
        p.checked_sub(FLOW_PORT_BASE)
            .map(u32::from)
            .filter(|&k| k < n_flows)
    };
    let ported = matches!(
        h.proto,
        ipv4::PROTO_TCP | ipv4::PROTO_UDP | ipv4::PROTO_ICMP
    );
    if ported {
        if let Some(k) = in_range(h.dport).or_else(|| in_range(h.sport)) {
            return k;
        }
    }
    // A multiply-xorshift mix of the 5-tuple, folded into 31 bits past the scenario's flows.
    let mut x = (u32::from(h.src) as u64) << 32 | u32::from(h.dst) as u64;
    x ^= ((h.sport as u64) << 24 | (h.dport as u64) << 8 | h.proto as u64).rotate_left(17);
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    n_flows + (x as u32 & 0x7fff_ffff)
}

fn proto_of(h: &Header) -> Proto {
    match (h.proto, h.icmp_type) {
        (ipv4::PROTO_TCP, _) => Proto::Tcp,
        (ipv4::PROTO_ICMP, 8) => Proto::EchoRequest,
        (ipv4::PROTO_ICMP, 0) => Proto::EchoReply,
        _ => Proto::Udp,
    }
}

/// How precisely the driver keeps time, at the cost of CPU: it spins instead of sleeping for the
/// last `spin_ns` before each event (within [`SpinBudget`]), and keeps every core out of its idle
/// state if `keep_awake` ([`KeepAwake`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Precision {
    pub spin_ns: Duration,
    pub keep_awake: bool,
}

/// Run `net` from CLOCK_MONOTONIC time `t0_ns` for `duration_ns` (or until stopped) between the
/// TUNs of `hosts` (node, descriptor), as precisely as `precision` asks. Returns the run time
/// reached.
pub fn run(
    net: &mut RealtimeNet,
    hosts: &[(NodeId, i32)],
    t0_ns: u64,
    duration_ns: Duration,
    precision: Precision,
    ctl: &Control,
    st: &mut DriverStats,
) -> io::Result<Instant> {
    sys::precise_timers();
    st.realtime_priority = sys::realtime_priority();
    let Precision {
        spin_ns,
        keep_awake,
    } = precision;
    st.spin = spin_ns;
    let awake = keep_awake.then(KeepAwake::start);
    let mut budget = SpinBudget::default();
    let n_flows = net.flows().len() as u32;
    let n_nodes = net.node_names().len();
    let mut fd_of = vec![-1i32; n_nodes];
    for &(n, fd) in hosts {
        fd_of[n as usize] = fd;
    }
    let fds: Vec<i32> = hosts.iter().map(|h| h.1).collect();
    let mut ready = Vec::with_capacity(fds.len());
    let mut slab = Slab::default();
    let mut buf = vec![0u8; 65_536];
    let clock = || Instant::from_ns(sys::monotonic_ns().saturating_sub(t0_ns));
    let end = Instant::ZERO + duration_ns;
    // Wait for the start: programs are launched ahead of it.
    while sys::monotonic_ns() < t0_ns && !ctl.stop.load(Ordering::Relaxed) {
        let wait = (t0_ns - sys::monotonic_ns()).min(MAX_SLEEP_NS.as_ns());
        std::thread::sleep(std::time::Duration::from_nanos(wait));
    }
    // Anything a host sent before the start is waiting in its TUN and enters at time 0.
    let mut now;
    let mut routers = Routers::default();
    let mut seen = Captured::default();
    let deliver = |net: &mut RealtimeNet,
                   slab: &mut Slab,
                   st: &mut DriverStats,
                   routers: &mut Routers,
                   seen: &mut Captured,
                   t: Instant| {
        // Before anything is injected: an injection may reuse the slot of a packet seen.
        seen.write(net, slab);
        net.take_deliveries(|node, d| {
            let pkt = slab.get_mut(d.handle);
            if pkt.is_empty() {
                return;
            }
            ipv4::set_ttl(pkt, d.ttl);
            ipv4::set_ecn(pkt, d.ecn as u8);
            match sys::write_packet(fd_of[node as usize], pkt) {
                Ok(()) => st.pkts_out += 1,
                Err(_) => st.write_errors += 1,
            }
            st.lateness.record(clock().saturating_since(d.at).as_ns());
        });
        routers.answer(net, slab, st, n_flows, t);
    };
    loop {
        now = clock().min(end);
        ctl.elapsed_ns.store(now.as_ns(), Ordering::Relaxed);
        if now >= end || ctl.stop.load(Ordering::Relaxed) {
            break;
        }
        net.advance(now);
        deliver(net, &mut slab, st, &mut routers, &mut seen, now);
        let next = net
            .next_event_at()
            .unwrap_or(Instant::NEVER)
            .min(end)
            .min(now + MAX_SLEEP_NS);
        // With a spin margin, the last stretch before an event is spent polling without
        // sleeping: a wake-up from sleep costs tens of microseconds on a busy or virtual machine.
        // Within a budget: a SCHED_FIFO thread that spins through most of a second is stopped
        // by the kernel's RT throttling for the rest of it (`sched_rt_runtime_us`, 95%), which
        // delays every delivery by tens of milliseconds.
        let until = next.saturating_since(clock());
        let spin = budget.spin(now, spin_ns.min(until));
        let wait = until.saturating_sub(spin);
        let t_wait = clock();
        sys::poll_readable(&fds, &mut ready, wait.as_ns())?;
        if wait > Duration::ZERO {
            budget.slept(clock().saturating_since(t_wait));
        }
        st.wakeups += 1;
        for (i, &fd) in fds.iter().enumerate() {
            if !ready[i] {
                continue;
            }
            let node = hosts[i].0;
            for _ in 0..READ_BATCH {
                let Some(n) = sys::read_packet(fd, &mut buf)? else {
                    break;
                };
                st.pkts_in += 1;
                let pkt = &buf[..n];
                let h = match ipv4::parse(pkt) {
                    Some(h) if n <= SLOT_BYTES => h,
                    _ => {
                        st.not_ipv4 += 1;
                        continue;
                    }
                };
                let Some(dst) = addr_node(h.dst).filter(|&d| (d as usize) < n_nodes) else {
                    st.no_host += 1;
                    continue;
                };
                // A packet read at or after the end arrived after the run: the books and the
                // capture both stop short of the end, as a simulation's events do.
                let t = clock();
                if t >= end {
                    break;
                }
                net.advance(t);
                deliver(net, &mut slab, st, &mut routers, &mut seen, t);
                let o = Outbound {
                    dst,
                    size: h.len as u32,
                    flow: classify(&h, n_flows),
                    ttl: h.ttl,
                    proto: proto_of(&h),
                    ecn: Ecn::from_bits(h.ecn),
                };
                match net.inject(t, node, o) {
                    Some(id) => slab.put(id, &pkt[..h.len as usize]),
                    None => st.no_host += 1,
                }
            }
        }
    }
    st.awake_cores = awake.map_or(0, |a| a.stop() as u32);
    // What the capture saw up to the end (the books close there next).
    net.advance(now.saturating_sub(Duration::from_ns(1)));
    seen.write(net, &mut slab);
    Ok(now)
}

/// The packets the run's capture saw, written with their real bytes as the engine had them
/// where it saw them (its TTL and ECN field then, the header checksum updated).
#[derive(Default)]
struct Captured {
    seen: Vec<Seen>,
    buf: Vec<u8>,
}

impl Captured {
    fn write(&mut self, net: &mut RealtimeNet, slab: &mut Slab) {
        net.take_seen(&mut self.seen);
        for s in self.seen.drain(..) {
            self.buf.clear();
            self.buf.extend_from_slice(slab.get_mut(s.pkt.seq as u32));
            if self.buf.is_empty() {
                continue;
            }
            ipv4::set_ttl(&mut self.buf, s.pkt.ttl);
            ipv4::set_ecn(&mut self.buf, s.pkt.ecn as u8);
            net.write_seen(&s, &self.buf);
        }
    }
}

/// The engine's routers as ICMP senders: what they answer a spent TTL with (RFC 792), under
/// Linux's rate limit ([`icmp::RateLimit`]).
#[derive(Default)]
struct Routers {
    limit: RateLimit,
    expired: Vec<TtlExpired>,
    replies: Vec<(NodeId, Vec<u8>)>,
}

impl Routers {
    /// Answer every packet whose TTL ran out since the last call, at run time `now` (the engine
    /// has advanced to it). Every message is built before any is injected: an injection may
    /// reuse the slot, and so the slab bytes, of a packet still to be quoted.
    fn answer(
        &mut self,
        net: &mut RealtimeNet,
        slab: &mut Slab,
        st: &mut DriverStats,
        n_flows: u32,
        now: Instant,
    ) {
        net.take_ttl_expired(&mut self.expired);
        if self.expired.is_empty() {
            return;
        }
        for e in self.expired.drain(..) {
            let dropped = slab.get_mut(e.seq as u32);
            let Some(h) = ipv4::parse(dropped) else {
                continue;
            };
            if !self.limit.allow(e.at, e.router, h.src) {
                st.icmp_rate_limited += 1;
                continue;
            }
            if let Some(m) = icmp::time_exceeded(node_addr(e.router), dropped, e.ttl) {
                self.replies.push((e.router, m));
            }
        }
        for (router, m) in self.replies.drain(..) {
            let Some(h) = ipv4::parse(&m) else { continue };
            let Some(dst) = addr_node(h.dst) else {
                continue;
            };
            let o = Outbound {
                dst,
                size: m.len() as u32,
                flow: classify(&h, n_flows),
                ttl: h.ttl,
                proto: Proto::Udp,
                ecn: Ecn::from_bits(h.ecn),
            };
            if let Some(id) = net.inject_from_router(now, router, o) {
                slab.put(id, &m);
                st.icmp_time_exceeded += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn spinning_stops_while_the_driver_has_been_awake_too_long() {
        let mut b = SpinBudget::default();
        let ms = Duration::from_ms;
        // Asleep for most of the first 20 ms: it may spin.
        b.slept(ms(15));
        assert_eq!(b.spin(Instant::ZERO + ms(20), ms(1)), ms(1));
        // 50 ms in, asleep 15 of them: awake 70%, under the share: it spins.
        assert_eq!(b.spin(Instant::ZERO + ms(50), ms(1)), ms(1));
        // 90 ms in, asleep 15 of them: awake 83%: it sleeps between events.
        assert_eq!(b.spin(Instant::ZERO + ms(90), ms(1)), Duration::ZERO);
        // The next window starts afresh.
        assert_eq!(b.spin(Instant::ZERO + ms(100), ms(1)), ms(1));
        assert_eq!(b.spin(Instant::ZERO + ms(105), ms(1)), ms(1));
    }

    fn h(proto: u8, sport: u16, dport: u16) -> Header {
        Header {
            src: Ipv4Addr::new(10, 77, 0, 1),
            dst: Ipv4Addr::new(10, 77, 0, 2),
            proto,
            ttl: 64,
            ecn: 0,
            len: 1500,
            sport,
            dport,
            icmp_type: 0,
        }
    }

    #[test]
    fn scenario_flows_by_port_others_by_tuple() {
        // Data to the flow's port and ACKs from it are the flow's.
        assert_eq!(classify(&h(ipv4::PROTO_TCP, 40_000, 20_003), 5), 3);
        assert_eq!(classify(&h(ipv4::PROTO_TCP, 20_003, 40_000), 5), 3);
        assert_eq!(classify(&h(ipv4::PROTO_ICMP, 20_001, 20_001), 5), 1);
        // A port past the scenario's flows is someone else's conversation.
        let a = classify(&h(ipv4::PROTO_TCP, 40_000, 20_005), 5);
        let b = classify(&h(ipv4::PROTO_TCP, 40_001, 20_005), 5);
        assert!(a >= 5 && b >= 5 && a != b);
        assert_eq!(
            a,
            classify(&h(ipv4::PROTO_TCP, 40_000, 20_005), 5),
            "a function of the tuple"
        );
    }
}
