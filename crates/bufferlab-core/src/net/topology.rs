//! Nodes, link directions and static shortest-path routing.

use std::collections::{HashMap, VecDeque};

use crate::packet::NodeId;

/// "No route" in the next-hop table.
pub const NO_ROUTE: u32 = u32::MAX;

/// "Not a stub": in [`Dest::via`].
const NONE: NodeId = NodeId::MAX;

/// How routes towards one destination are found.
#[derive(Clone, Copy, Debug)]
struct Dest {
    /// The column of the next-hop table: the destination's own, or for a stub its neighbour's.
    col: u32,
    /// For a stub (a node all of whose incoming links come from one neighbour, which is not a
    /// stub itself: a host on its access link), that neighbour; else [`NONE`].
    via: NodeId,
    /// For a stub, the port from `via` to it (the lowest-numbered if several).
    port: u32,
}

/// The graph: which port leaves which node for which neighbour, and the next-hop table.
pub struct Topology {
    pub names: Vec<String>,
    pub ids: HashMap<String, NodeId>,
    /// `(from, to)` of every port, by port id.
    pub ports: Vec<(NodeId, NodeId)>,
    /// Per destination node: its column, or the neighbour it hangs off.
    dest: Vec<Dest>,
    /// Columns of the next-hop table (destinations that are not stubs).
    cols: usize,
    /// `next[src * cols + col]`: the port a packet at `src` leaves by towards the destination
    /// of column `col`.
    next: Vec<u32>,
    /// Ports arriving at each node.
    in_deg: Vec<u32>,
    /// For each port, the one port leaving its far end if that node has one (a host: what it
    /// sends in reply to what it receives leaves by it), else `NO_ROUTE`.
    egress_after: Vec<u32>,
}

impl Topology {
    /// Build the routing table: breadth-first from every destination over the reversed graph, so
    /// routes have the fewest hops; ties go to the lower port id, which makes routes deterministic.
    ///
    /// Stubs get no search of their own. A search from a stub `d` whose incoming ports all come
    /// from `u` first finds `u` (by the lowest of those ports), and from there visits the rest of
    /// the graph exactly as a search from `u` does (`d`, already seen, leads nowhere: nothing but
    /// `u` sends to it). So a route to `d` is the route to `u`, except at `u`, which sends by that
    /// port, and at `d` itself. A dumbbell's hosts are all stubs: its table has one column per
    /// router instead of one per node, and setup is linear in the hosts.
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
        // The one neighbour sending to each node, if there is exactly one.
        let single_from: Vec<Option<NodeId>> = incoming
            .iter()
            .map(|inc| {
                let first = ports[*inc.first()? as usize].0;
                inc.iter()
                    .all(|&p| ports[p as usize].0 == first)
                    .then_some(first)
            })
            .collect();
        let mut dest = vec![
            Dest {
                col: 0,
                via: NONE,
                port: NO_ROUTE,
            };
            n
        ];
        let mut roots = Vec::new();
        for d in 0..n {
            match single_from[d] {
                Some(u) if single_from[u as usize].is_none() => {
                    dest[d].via = u;
                    dest[d].port = incoming[d][0];
                }
                _ => {
                    dest[d].col = roots.len() as u32;
                    roots.push(d);
                }
            }
        }
        for d in 0..n {
            if dest[d].via != NONE {
                dest[d].col = dest[dest[d].via as usize].col;
            }
        }
        let cols = roots.len();
        let mut next = vec![NO_ROUTE; n * cols];
        let mut seen = vec![false; n];
        let mut q = VecDeque::new();
        for (c, &d) in roots.iter().enumerate() {
            seen.iter_mut().for_each(|s| *s = false);
            seen[d] = true;
            q.clear();
            q.push_back(d);
            while let Some(u) = q.pop_front() {
                for &p in &incoming[u] {
                    let v = ports[p as usize].0 as usize;
                    if !seen[v] {
                        seen[v] = true;
                        next[v * cols + c] = p;
                        q.push_back(v);
                    }
                }
            }
        }
        let in_deg = incoming.iter().map(|i| i.len() as u32).collect();
        let mut sole_out = vec![NO_ROUTE; n];
        let mut out_deg = vec![0u32; n];
        for (p, &(from, _)) in ports.iter().enumerate() {
            out_deg[from as usize] += 1;
            sole_out[from as usize] = p as u32;
        }
        let egress_after = ports
            .iter()
            .map(|&(_, to)| match out_deg[to as usize] {
                1 => sole_out[to as usize],
                _ => NO_ROUTE,
            })
            .collect();
        Topology {
            names,
            ids,
            ports,
            dest,
            cols,
            next,
            in_deg,
            egress_after,
        }
    }

    /// The one port leaving port `port`'s far end, if that node has one (`NO_ROUTE` if not).
    #[inline]
    pub fn egress_after(&self, port: u32) -> u32 {
        self.egress_after
            .get(port as usize)
            .copied()
            .unwrap_or(NO_ROUTE)
    }

    pub fn n(&self) -> usize {
        self.names.len()
    }

    /// For each node, the port every route from it leaves by, where there is one: a node with a
    /// single port out (a host on its access link) from which every other node is reachable.
    /// [`Topology::next_port`] then gives that port for every destination but the node itself
    /// (`NO_ROUTE`), so what the node sends needs no lookup in the tables (a miss each in a
    /// network of thousands of hosts). `NO_ROUTE` for every other node.
    pub fn sole_routes(&self) -> Vec<u32> {
        let mut out = vec![NO_ROUTE; self.n()];
        let mut out_deg = vec![0u32; self.n()];
        for (p, &(from, _)) in self.ports.iter().enumerate() {
            out_deg[from as usize] += 1;
            out[from as usize] = p as u32;
        }
        for (v, o) in out.iter_mut().enumerate() {
            // A root's own column is the route to itself, taken only for the node itself; a stub
            // hanging off `v` is reached by `v`'s one port, which the check below asks of every
            // other destination's column (a stub's column is its neighbour's).
            let own = (self.dest[v].via == NONE).then_some(self.dest[v].col as usize);
            let row = &self.next[v * self.cols..(v + 1) * self.cols];
            let every = row
                .iter()
                .enumerate()
                .all(|(c, &p)| p == *o || Some(c) == own);
            if out_deg[v] != 1 || !every {
                *o = NO_ROUTE;
            }
        }
        out
    }

    /// The port to leave `src` by towards `dst`, or [`NO_ROUTE`].
    #[inline]
    pub fn next_port(&self, src: NodeId, dst: NodeId) -> u32 {
        let d = self.dest[dst as usize];
        if d.via != NONE {
            if src == d.via {
                return d.port;
            }
            if src == dst {
                return NO_ROUTE;
            }
        }
        self.next[src as usize * self.cols + d.col as usize]
    }

    /// [`Topology::next_port`], or `NO_ROUTE` for a node outside the table (for a hint, where
    /// a panic would be out of place).
    #[inline]
    pub fn try_next_port(&self, src: NodeId, dst: NodeId) -> u32 {
        if (src as usize) < self.n() && (dst as usize) < self.n() {
            self.next_port(src, dst)
        } else {
            NO_ROUTE
        }
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
        self.in_deg[node as usize]
    }

    /// Columns of the next-hop table (for tests: how much the stubs saved).
    pub fn table_columns(&self) -> usize {
        self.cols
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

    /// The table as it was built before stubs: a search from every node.
    fn full_table(n: usize, ports: &[(NodeId, NodeId)]) -> Vec<u32> {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (p, &(_, to)) in ports.iter().enumerate() {
            incoming[to as usize].push(p as u32);
        }
        let mut next = vec![NO_ROUTE; n * n];
        for d in 0..n {
            let mut seen = vec![false; n];
            seen[d] = true;
            let mut q = VecDeque::from([d]);
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
        next
    }

    /// Every route of random graphs (trees of stubs and chains, extra and parallel links,
    /// one-way links, isolated nodes) is the one a search from every destination gives.
    #[test]
    fn stubs_route_as_a_full_table() {
        let mut rng = crate::rng::stream(7, crate::rng::Stream::Link, 0);
        use rand::Rng as _;
        let mut sole = 0;
        for case in 0..400 {
            let n = rng.gen_range(1..12usize);
            let mut ports = Vec::new();
            for i in 1..n {
                if rng.gen_bool(0.9) {
                    let p = rng.gen_range(0..i) as NodeId;
                    ports.push((p, i as NodeId));
                    if rng.gen_bool(0.9) {
                        ports.push((i as NodeId, p));
                    }
                }
            }
            for _ in 0..rng.gen_range(0..4) {
                let (a, b) = (rng.gen_range(0..n) as NodeId, rng.gen_range(0..n) as NodeId);
                if a != b {
                    ports.push((a, b));
                }
            }
            let names = (0..n).map(|i| format!("n{i}")).collect();
            let t = Topology::new(names, ports.clone());
            let full = full_table(n, &ports);
            for s in 0..n {
                for d in 0..n {
                    assert_eq!(
                        t.next_port(s as NodeId, d as NodeId),
                        full[s * n + d],
                        "case {case}: {s} -> {d} in {ports:?}"
                    );
                }
            }
            // A node's sole route is its route to every other node.
            for (s, &o) in t.sole_routes().iter().enumerate() {
                if o != NO_ROUTE {
                    sole += 1;
                    for d in (0..n).filter(|&d| d != s) {
                        assert_eq!(full[s * n + d], o, "case {case}: {s} -> {d} in {ports:?}");
                    }
                }
            }
        }
        assert!(sole > 300, "{sole} nodes with a sole route");
    }

    /// A dumbbell's hosts are stubs: two columns, whatever the number of pairs.
    #[test]
    fn dumbbell_table_has_a_column_per_router() {
        let pairs = 1000;
        let mut names = vec!["r1".to_string(), "r2".to_string()];
        let mut ports = vec![(0, 1), (1, 0)];
        for i in 0..pairs {
            let (s, d) = (names.len() as NodeId, names.len() as NodeId + 1);
            names.push(format!("s{i}"));
            names.push(format!("d{i}"));
            ports.extend([(s, 0), (0, s), (d, 1), (1, d)]);
        }
        let t = Topology::new(names, ports);
        assert_eq!(t.table_columns(), 2);
        let sole = t.sole_routes();
        assert_eq!(
            sole[..2],
            [NO_ROUTE; 2],
            "the routers have more than one port out"
        );
        assert!(sole[2..]
            .iter()
            .all(|&p| p != NO_ROUTE && t.ports[p as usize].1 < 2));
        assert_eq!(t.path(2, 3).map(|p| p.len()), Some(3));
        assert_eq!(t.in_degree(0), pairs + 1);
    }
}
