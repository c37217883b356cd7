//! Nodes, link directions and static shortest-path routing.

use std::collections::{HashMap, VecDeque};

use crate::packet::NodeId;

/// "No route" in the next-hop table.
pub const NO_ROUTE: u32 = u32::MAX;

/// The graph: which port leaves which node for which neighbour, and the next-hop table.
pub struct Topology {
    pub names: Vec<String>,
    pub ids: HashMap<String, NodeId>,
    /// `(from, to)` of every port, by port id.
    pub ports: Vec<(NodeId, NodeId)>,
    /// `next[src * n + dst]`: the port a packet at `src` for `dst` leaves by.
    next: Vec<u32>,
}

impl Topology {
    /// Build the routing table: breadth-first from every destination over the reversed graph, so
    /// routes have the fewest hops; ties go to the lower port id, which makes routes deterministic.
    pub fn new(names: Vec<String>, ports: Vec<(NodeId, NodeId)>) -> Self {
        let n = names.len();
        let ids = names
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as NodeId))
            .collect();
        // Ports arriving at each node, in port-id order.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (p, &(_, to)) in ports.iter().enumerate() {
            incoming[to as usize].push(p as u32);
        }
        let mut next = vec![NO_ROUTE; n * n];
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        for d in 0..n {
            seen.iter_mut().for_each(|s| *s = false);
            seen[d] = true;
            q.clear();
            q.push_back(d);
            while let Some(u) = q.pop_front() {
                for &p in &incoming[u] {
                    let v = ports[p as usize].0 as usize;
                    if !seen[v] {
                        seen[v] = true;
                        next[v * n + d] = p;
                        q.push_back(v);
                    }
                }
            }
        }
        Topology {
            names,
            ids,
            ports,
            next,
        }
    }

    pub fn n(&self) -> usize {
        self.names.len()
    }

    /// The port to leave `src` by towards `dst`, or [`NO_ROUTE`].
    #[inline]
    pub fn next_port(&self, src: NodeId, dst: NodeId) -> u32 {
        self.next[src as usize * self.names.len() + dst as usize]
    }

    /// The ports a packet crosses from `src` to `dst`, or `None` if unreachable.
    pub fn path(&self, src: NodeId, dst: NodeId) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        let mut at = src;
        while at != dst {
            let p = self.next_port(at, dst);
            if p == NO_ROUTE || out.len() > self.n() {
                return None;
            }
            out.push(p);
            at = self.ports[p as usize].1;
        }
        Some(out)
    }

    /// Links (both directions counted once each) arriving at a node: its input links.
    pub fn in_degree(&self, node: NodeId) -> u32 {
        self.ports.iter().filter(|&&(_, to)| to == node).count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> Topology {
        // a - b - c, and d isolated; ports 2i = forward, 2i+1 = reverse.
        let names = ["a", "b", "c", "d"].map(String::from).to_vec();
        Topology::new(names, vec![(0, 1), (1, 0), (1, 2), (2, 1)])
    }

    #[test]
    fn shortest_paths() {
        let t = line();
        assert_eq!(t.path(0, 2), Some(vec![0, 2]));
        assert_eq!(t.path(2, 0), Some(vec![3, 1]));
        assert_eq!(t.path(0, 3), None);
        assert_eq!(t.next_port(1, 0), 1);
        assert_eq!(t.in_degree(1), 2);
    }

    #[test]
    fn fewest_hops_wins() {
        // a-b-c and a direct a-c link: a->c goes direct.
        let names = ["a", "b", "c"].map(String::from).to_vec();
        let t = Topology::new(names, vec![(0, 1), (1, 0), (1, 2), (2, 1), (0, 2), (2, 0)]);
        assert_eq!(t.path(0, 2), Some(vec![4]));
    }
}
