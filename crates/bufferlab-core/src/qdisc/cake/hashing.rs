//! CAKE's flow isolation: which flow queue a packet goes to, set-associatively (8 ways of the
//! 1024 queues, so that two active flows rarely share one), and which source and destination
//! host entries count its bulk flows for per-host fairness (Høiland-Jørgensen et al. 2018
//! §III-A, §III-B; Linux `cake_hash`).
//!
//! The engine's packets carry a flow id and their end nodes instead of a 5-tuple: the flow key
//! is hashed once per packet ([`flow_hash`]); the host "hashes" are the node ids themselves, which
//! are small and distinct, so the host table needs no hashing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Flow, Set, Tin, QUEUES, WAYS};
use crate::qdisc::params::flow_hash;

/// What a flow is, for fairness (`tc-cake(8)`'s keywords).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// One queue for everything.
    Flowblind,
    /// Fair between source hosts.
    Srchost,
    /// Fair between destination hosts.
    Dsthost,
    /// Fair between host pairs.
    Hosts,
    /// Fair between flows.
    Flows,
    /// Fair between source hosts, then between each host's flows.
    DualSrchost,
    /// Fair between destination hosts, then between each host's flows.
    DualDsthost,
    /// Fair between source hosts and between destination hosts at once, then between flows
    /// (Linux's default).
    #[default]
    TripleIsolate,
}

impl Isolation {
    /// Linux's `CAKE_FLOW_*` bits: 1 source host, 2 destination host, 4 flows.
    fn bits(self) -> u8 {
        match self {
            Isolation::Flowblind => 0,
            Isolation::Srchost => 1,
            Isolation::Dsthost => 2,
            Isolation::Hosts => 3,
            Isolation::Flows => 4,
            Isolation::DualSrchost => 5,
            Isolation::DualDsthost => 6,
            Isolation::TripleIsolate => 7,
        }
    }

    /// Whether source hosts' bulk flows are counted (Linux `cake_dsrc`).
    #[inline]
    pub(crate) fn dual_src(self) -> bool {
        self.bits() & 5 == 5
    }

    /// Whether destination hosts' bulk flows are counted (Linux `cake_ddst`).
    #[inline]
    pub(crate) fn dual_dst(self) -> bool {
        self.bits() & 6 == 6
    }
}

/// Salts that keep the keys of the modes apart.
const SALT_SRC: u64 = 0x5352_4300;
const SALT_DST: u64 = 0x4453_5400;
const SALT_HOSTS: u64 = 0x484f_5354;

/// Which key the queue is chosen by, hashed once.
#[inline]
pub(crate) fn key_hash(mode: Isolation, flow: u32, src: u32, dst: u32, seed: u64) -> u32 {
    (match mode {
        Isolation::Srchost => flow_hash(src, seed ^ SALT_SRC),
        Isolation::Dsthost => flow_hash(dst, seed ^ SALT_DST),
        Isolation::Hosts => flow_hash(src ^ dst.rotate_left(16), seed ^ SALT_HOSTS),
        _ => flow_hash(flow, seed),
    }) as u32
}

/// Counters of the set-associative lookup (Linux's `way_*` tin statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WayStats {
    /// The queue the hash points at was this flow's.
    pub directs: u64,
    /// Found in another way of the set.
    pub hits: u64,
    /// A free way of the set was taken.
    pub misses: u64,
    /// All eight ways busy with other flows: the packet shares a queue.
    pub collisions: u64,
}

impl Tin {
    /// The flow queue for a packet of flow key `hash` from host `src` to host `dst`, with its host
    /// entries allocated as `mode` needs.
    pub(crate) fn lookup(&mut self, mode: Isolation, hash: u32, src: u32, dst: u32) -> usize {
        let reduced = hash as usize % QUEUES;
        if self.tags[reduced] == hash && self.flows[reduced].set != Set::None {
            self.ways.directs += 1;
            return reduced;
        }
        let inner = reduced % WAYS;
        let outer = reduced - inner;
        let (dsrc, ddst) = (mode.dual_src(), mode.dual_dst());
        let mut allocate = false;
        let mut found = None;
        // A queue of the set already reserved for this flow?
        for i in 0..WAYS {
            let k = outer + (inner + i) % WAYS;
            if self.tags[k] == hash {
                if i > 0 {
                    self.ways.hits += 1;
                }
                allocate = self.flows[k].set == Set::None;
                found = Some(k);
                break;
            }
        }
        // Else a free one.
        if found.is_none() {
            for i in 0..WAYS {
                let k = outer + (inner + i) % WAYS;
                if self.flows[k].set == Set::None {
                    self.ways.misses += 1;
                    allocate = true;
                    found = Some(k);
                    break;
                }
            }
        }
        let idx = match found {
            Some(k) => k,
            None => {
                // Every way busy: share the first one, which changes hands (and hosts).
                self.ways.collisions += 1;
                if self.flows[reduced].set == Set::Bulk {
                    self.bulk_leaves_hosts(mode, reduced);
                }
                allocate = true;
                reduced
            }
        };
        self.tags[idx] = hash;
        if allocate && dsrc {
            let h = self.host_slot(src, |h| h.src_tag, |h| h.src_bulk);
            self.hosts[h].src_tag = src;
            if self.flows[idx].set == Set::Bulk {
                self.hosts[h].src_bulk += 1;
            }
            self.flows[idx].srchost = h as u16;
        }
        if allocate && ddst {
            let h = self.host_slot(dst, |h| h.dst_tag, |h| h.dst_bulk);
            self.hosts[h].dst_tag = dst;
            if self.flows[idx].set == Set::Bulk {
                self.hosts[h].dst_bulk += 1;
            }
            self.flows[idx].dsthost = h as u16;
        }
        idx
    }

    /// The host entry of host `id`: the way of its set tagged with it, else one with no bulk
    /// flows, else (all busy) the way it hashes to, shared, as in Linux.
    fn host_slot(
        &self,
        id: u32,
        tag: impl Fn(&super::Host) -> u32,
        bulk: impl Fn(&super::Host) -> u32,
    ) -> usize {
        let reduced = id as usize % QUEUES;
        let inner = reduced % WAYS;
        let outer = reduced - inner;
        let ways = (0..WAYS).map(|i| outer + (inner + i) % WAYS);
        if let Some(k) = ways.clone().find(|&k| tag(&self.hosts[k]) == id) {
            return k;
        }
        ways.clone()
            .find(|&k| bulk(&self.hosts[k]) == 0)
            .unwrap_or(reduced)
    }

    /// A bulk flow stops counting for its hosts (with the bound Linux 6.14 added:
    /// `cake_dec_srchost_bulk_flow_count`).
    #[inline]
    pub(crate) fn bulk_leaves_hosts(&mut self, mode: Isolation, f: usize) {
        let Flow {
            srchost, dsthost, ..
        } = self.flows[f];
        if mode.dual_src() {
            let h = &mut self.hosts[srchost as usize];
            h.src_bulk = h.src_bulk.saturating_sub(1);
        }
        if mode.dual_dst() {
            let h = &mut self.hosts[dsthost as usize];
            h.dst_bulk = h.dst_bulk.saturating_sub(1);
        }
    }

    /// A flow becomes bulk: it counts for its hosts.
    #[inline]
    pub(crate) fn bulk_joins_hosts(&mut self, mode: Isolation, f: usize) {
        let Flow {
            srchost, dsthost, ..
        } = self.flows[f];
        if mode.dual_src() {
            self.hosts[srchost as usize].src_bulk += 1;
        }
        if mode.dual_dst() {
            self.hosts[dsthost as usize].dst_bulk += 1;
        }
    }

    /// The number of bulk flows the flow's busiest host has (at least 1): its quantum is divided
    /// by it (Linux's `host_load`).
    #[inline]
    pub(crate) fn host_load(&self, mode: Isolation, f: usize) -> u32 {
        let fl = &self.flows[f];
        let mut load = 1;
        if mode.dual_src() {
            load = load.max(self.hosts[fl.srchost as usize].src_bulk);
        }
        if mode.dual_dst() {
            load = load.max(self.hosts[fl.dsthost as usize].dst_bulk);
        }
        load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        use Isolation::*;
        let dual: Vec<(bool, bool)> = [Flows, DualSrchost, DualDsthost, TripleIsolate, Hosts]
            .iter()
            .map(|m| (m.dual_src(), m.dual_dst()))
            .collect();
        assert_eq!(
            dual,
            [
                (false, false),
                (true, false),
                (false, true),
                (true, true),
                (false, false)
            ]
        );
    }
}
