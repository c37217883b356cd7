//! Capture points: where in the network a pcap file sees packets, named as the results name
//! the link directions and queues (`"r1->r2"`), and the file each one writes.
//!
//! | point | sees |
//! |---|---|
//! | `"a->b"` | the link direction a -> b: each packet as its transmission starts at a (after the queue and the ring; those the wire then loses too) |
//! | `"a->b:arrivals"` | the queue at the head of a -> b: each packet that reaches it, before the discipline decides |
//! | `"a->b:departures"` | each packet as it leaves that discipline (for the ring if there is one, else the wire) |
//! | `"a->b:drops"` | each packet dropped at that port, whatever the reason (the discipline, a full buffer, a spent TTL, the wire's loss) |
//! | `"h"` | node h's links both ways, as `tcpdump` on the node shows them: what it sends as it starts onto a link, what it receives as it arrives |
//! | `"h:egress"`, `"h:ingress"` | only what h sends, or only what it receives |

use super::Tap;
use crate::file::close::did_you_mean;
use crate::packet::NodeId;

const QUEUE_TAPS: [(&str, Tap); 3] = [
    ("arrivals", Tap::Arrivals),
    ("departures", Tap::Departures),
    ("drops", Tap::Drops),
];
const NODE_PARTS: [&str; 2] = ["egress", "ingress"];

/// Where one capture point sees packets: (port, tap) pairs.
pub type Routes = Vec<(u32, Tap)>;

/// The network a point is read against: node names and each port's (from, to), in port order.
pub struct Net<'a> {
    pub names: &'a [String],
    pub ports: &'a [(NodeId, NodeId)],
}

impl Net<'_> {
    fn node(&self, name: &str) -> Option<NodeId> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| i as NodeId)
    }

    fn ports_between(&self, a: NodeId, b: NodeId) -> Vec<u32> {
        (0..self.ports.len() as u32)
            .filter(|&i| self.ports[i as usize] == (a, b))
            .collect()
    }

    fn some_directions(&self) -> String {
        let mut v: Vec<String> = self
            .ports
            .iter()
            .take(6)
            .map(|&(a, b)| format!("{}->{}", self.names[a as usize], self.names[b as usize]))
            .collect();
        if self.ports.len() > 6 {
            v.push("...".into());
        }
        v.join(", ")
    }
}

/// The routes of the capture point `point`, or what is wrong with its name.
pub fn routes(point: &str, net: &Net) -> Result<Routes, String> {
    if let Some((a, rest)) = point.split_once("->") {
        let (b, part) = match rest.rsplit_once(':') {
            Some((b, part)) if net.node(rest).is_none() => (b, Some(part)),
            _ => (rest, None),
        };
        let (Some(na), Some(nb)) = (net.node(a), net.node(b)) else {
            let missing = if net.node(a).is_none() { a } else { b };
            return Err(format!(
                "no node {missing:?} (link directions: {})",
                net.some_directions()
            ));
        };
        let ports = net.ports_between(na, nb);
        if ports.is_empty() {
            return Err(format!(
                "no link from {a} to {b} (link directions: {})",
                net.some_directions()
            ));
        }
        let tap = match part {
            None => Tap::Wire,
            Some(part) => match QUEUE_TAPS.iter().find(|(n, _)| *n == part) {
                Some(&(_, t)) => t,
                None => {
                    let names: Vec<&str> = QUEUE_TAPS.iter().map(|q| q.0).collect();
                    return Err(format!(
                        "unknown part :{part}{} (a link direction takes :{})",
                        did_you_mean(part, &names),
                        names.join(", :")
                    ));
                }
            },
        };
        return Ok(ports.into_iter().map(|p| (p, tap)).collect());
    }
    let (name, part) = match point.rsplit_once(':') {
        Some((n, part)) if net.node(point).is_none() => (n, Some(part)),
        _ => (point, None),
    };
    let Some(node) = net.node(name) else {
        return Err(format!(
            "no node or link direction {point:?} (a node's name, or a link direction such as {})",
            net.some_directions()
        ));
    };
    let (egress, ingress) = match part {
        None => (true, true),
        Some("egress") => (true, false),
        Some("ingress") => (false, true),
        Some(other) => {
            return Err(format!(
                "unknown part :{other}{} (a node takes :egress or :ingress)",
                did_you_mean(other, &NODE_PARTS)
            ))
        }
    };
    let mut out = Routes::new();
    for (i, &(from, to)) in net.ports.iter().enumerate() {
        if egress && from == node {
            out.push((i as u32, Tap::Wire));
        }
        if ingress && to == node {
            out.push((i as u32, Tap::Received));
        }
    }
    if out.is_empty() {
        return Err(format!("node {name:?} has no link"));
    }
    Ok(out)
}

/// The pcap file a point writes: `r1->r2` -> `r1_to_r2.pcap`, `r1->r2:drops` ->
/// `r1_to_r2.drops.pcap`, `h1:egress` -> `h1.egress.pcap`; any character but letters, digits,
/// `.`, `_` and `-` becomes `_`.
pub fn file_name(point: &str) -> String {
    let mut out = String::with_capacity(point.len() + 8);
    let (body, part) = match point.rsplit_once(':') {
        Some((b, p)) if QUEUE_TAPS.iter().any(|q| q.0 == p) || NODE_PARTS.contains(&p) => {
            (b, Some(p))
        }
        _ => (point, None),
    };
    for (i, piece) in body.split("->").enumerate() {
        if i > 0 {
            out.push_str("_to_");
        }
        out.extend(piece.chars().map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        }));
    }
    if let Some(p) = part {
        out.push('.');
        out.push_str(p);
    }
    out.push_str(".pcap");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> (Vec<String>, Vec<(NodeId, NodeId)>) {
        let names = ["h1", "r1", "r2", "h2"].map(String::from).to_vec();
        let ports = vec![(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)];
        (names, ports)
    }

    #[test]
    fn points_and_their_routes() {
        let (names, ports) = net();
        let n = Net {
            names: &names,
            ports: &ports,
        };
        assert_eq!(routes("r1->r2", &n), Ok(vec![(2, Tap::Wire)]));
        assert_eq!(routes("r1->r2:drops", &n), Ok(vec![(2, Tap::Drops)]));
        assert_eq!(routes("r2->r1:arrivals", &n), Ok(vec![(3, Tap::Arrivals)]));
        assert_eq!(
            routes("r1", &n),
            Ok(vec![
                (0, Tap::Received),
                (1, Tap::Wire),
                (2, Tap::Wire),
                (3, Tap::Received)
            ])
        );
        assert_eq!(routes("h1:egress", &n), Ok(vec![(0, Tap::Wire)]));
        assert_eq!(routes("h1:ingress", &n), Ok(vec![(1, Tap::Received)]));
    }

    #[test]
    fn bad_points_say_what_exists() {
        let (names, ports) = net();
        let n = Net {
            names: &names,
            ports: &ports,
        };
        let e = routes("r1->h2", &n).unwrap_err();
        assert!(
            e.starts_with("no link from r1 to h2 (link directions: h1->r1, r1->h1"),
            "{e}"
        );
        let e = routes("r1->r2:drop", &n).unwrap_err();
        assert!(e.contains("did you mean \"drops\""), "{e}");
        assert!(routes("r3", &n)
            .unwrap_err()
            .starts_with("no node or link direction \"r3\""));
        assert!(routes("h1:egres", &n).unwrap_err().contains("egress"));
    }

    #[test]
    fn file_names() {
        assert_eq!(file_name("r1->r2"), "r1_to_r2.pcap");
        assert_eq!(file_name("r1->r2:departures"), "r1_to_r2.departures.pcap");
        assert_eq!(file_name("h1"), "h1.pcap");
        assert_eq!(file_name("h1:ingress"), "h1.ingress.pcap");
        assert_eq!(file_name("a/b:c->d"), "a_b_c_to_d.pcap");
    }
}
