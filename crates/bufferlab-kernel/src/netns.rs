//! The hosts: one network namespace per host node, each with a TUN device named `eth0` whose
//! descriptor the driver holds, an address, routes through the TUN and a hosts file naming
//! every host of the scenario.
//!
//! Safety: everything created carries the prefix `bl<pid>-` (namespaces, `/etc/netns/<ns>`),
//! TUN devices are created inside their namespace (they never appear in the host's) and vanish
//! with their descriptor, and every setting is made inside a namespace of ours. Namespaces
//! outlive a process killed with SIGKILL; [`cleanup_stale`] removes those whose process is gone.

use std::fs;
use std::net::Ipv4Addr;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::Command;

use bufferlab_core::packet::NodeId;

use crate::sys;

/// Where `ip netns` keeps its namespaces, and the per-namespace files `ip netns exec` mounts
/// over `/etc`.
const NETNS_RUN: &str = "/run/netns";
const NETNS_ETC: &str = "/etc/netns";
/// Every name this backend creates starts with this and the creating process's id.
pub const PREFIX: &str = "bl";

/// One host to create.
#[derive(Clone, Debug)]
pub struct HostSpec {
    pub node: NodeId,
    /// The scenario's node name (what the hosts file resolves).
    pub name: String,
    pub addr: Ipv4Addr,
    /// `net.*` sysctls to set inside the namespace, as (`ipv4/tcp_sack`, `0`).
    pub sysctls: Vec<(String, String)>,
    /// Extra `ip route` arguments per destination, as (destination address, "initcwnd 4 ...").
    pub routes: Vec<(Ipv4Addr, String)>,
    /// `ip link set eth0` settings, as (`gso_max_segs`, `1`).
    pub link: Vec<(String, String)>,
}

pub struct Host {
    pub spec: HostSpec,
    /// Namespace name, `bl<pid>-<node>`.
    pub ns: String,
    pub tun: OwnedFd,
}

/// The namespaces of one run; removed when dropped.
pub struct Lab {
    pub hosts: Vec<Host>,
    pid: u32,
}

/// The address of node `id`: 10.77.0.0/16, numbered from 10.77.0.1 (the addresses a
/// simulation's packet capture gives the nodes too).
pub fn node_addr(id: NodeId) -> Ipv4Addr {
    Ipv4Addr::from(bufferlab_core::wire::node_ipv4(id))
}

/// The node an address belongs to, if it is one of [`node_addr`]'s.
pub fn addr_node(a: Ipv4Addr) -> Option<NodeId> {
    let o = a.octets();
    if o[0] != 10 || o[1] != 77 {
        return None;
    }
    ((o[2] as u32) << 8 | o[3] as u32).checked_sub(1)
}

/// The namespace name of a node: the prefix, the process id and the node's name reduced to
/// characters safe in a file name.
pub fn ns_name(pid: u32, node: &str) -> String {
    let clean: String = node
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    format!("{PREFIX}{pid}-{clean}")
}

/// The process id in one of our namespace names.
fn owner_pid(ns: &str) -> Option<u32> {
    let rest = ns.strip_prefix(PREFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok()
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// Inside namespace `ns` (on a thread of its own, which enters it): open the TUN and set the
/// sysctls (`/proc/sys/net` shows the namespace of the thread that opens it).
fn inside(ns: &str, sysctls: &[(String, String)]) -> Result<OwnedFd, String> {
    let path = format!("{NETNS_RUN}/{ns}");
    let sysctls = sysctls.to_vec();
    std::thread::spawn(move || -> Result<OwnedFd, String> {
        let f = fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
        sys::enter_netns(&f).map_err(|e| format!("entering {path}: {e}"))?;
        let tun = sys::open_tun("eth0").map_err(|e| format!("opening a TUN device: {e}"))?;
        for (k, v) in &sysctls {
            let p = format!("/proc/sys/net/{k}");
            fs::write(&p, v).map_err(|e| format!("sysctl {p} = {v}: {e}"))?;
        }
        Ok(tun)
    })
    .join()
    .map_err(|_| "namespace thread panicked".to_string())?
}

/// Run `f` on a thread inside namespace `ns` (one of ours, by name) and return what it returns.
pub fn in_namespace<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let path = format!("{NETNS_RUN}/{ns}");
    std::thread::spawn(move || -> Result<T, String> {
        let file = fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
        sys::enter_netns(&file).map_err(|e| format!("entering {path}: {e}"))?;
        Ok(f())
    })
    .join()
    .map_err(|_| format!("a thread in {ns} panicked"))?
}

impl Lab {
    /// Create every host, or nothing: on an error what was made is removed.
    pub fn create(specs: &[HostSpec]) -> Result<Lab, String> {
        let mut lab = Lab {
            hosts: Vec::new(),
            pid: std::process::id(),
        };
        let hosts_file = hosts_file(specs);
        for s in specs {
            let ns = ns_name(lab.pid, &s.name);
            if lab.hosts.iter().any(|h| h.ns == ns) {
                return Err(format!("two host names map to the namespace {ns}"));
            }
            lab.add(s, ns, &hosts_file)?;
        }
        Ok(lab)
    }

    fn add(&mut self, s: &HostSpec, ns: String, hosts_file: &str) -> Result<(), String> {
        ip(&["netns", "add", &ns])?;
        // From here on the namespace is ours to remove, even if a later step fails.
        let mut sysctls = vec![
            // No IPv6: the engine carries IPv4 only, and router solicitations would be noise.
            ("ipv6/conf/all/disable_ipv6".to_string(), "1".to_string()),
            (
                "ipv6/conf/default/disable_ipv6".to_string(),
                "1".to_string(),
            ),
        ];
        sysctls.extend(s.sysctls.iter().cloned());
        let tun = match inside(&ns, &sysctls) {
            Ok(t) => t,
            Err(e) => {
                remove_ns(&ns);
                return Err(e);
            }
        };
        self.hosts.push(Host {
            spec: s.clone(),
            ns: ns.clone(),
            tun,
        });
        let etc = format!("{NETNS_ETC}/{ns}");
        fs::create_dir_all(&etc)
            .and_then(|_| fs::write(format!("{etc}/hosts"), hosts_file))
            .map_err(|e| format!("{etc}/hosts: {e}"))?;
        let addr = format!("{}/16", s.addr);
        ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        ip(&["-n", &ns, "addr", "add", &addr, "dev", "eth0"])?;
        ip(&["-n", &ns, "link", "set", "eth0", "mtu", "1500", "up"])?;
        for (k, v) in &s.link {
            ip(&["-n", &ns, "link", "set", "eth0", k, v])?;
        }
        for (dst, extra) in &s.routes {
            let d = format!("{dst}/32");
            let mut args = vec!["-n", &ns, "route", "replace", &d, "dev", "eth0"];
            args.extend(extra.split_whitespace());
            ip(&args)?;
        }
        Ok(())
    }

    /// Remove every namespace of this run now.
    pub fn destroy(&mut self) {
        for h in self.hosts.drain(..) {
            remove_ns(&h.ns);
        }
        // Anything of this process's a failed start left behind.
        remove_matching(|pid| pid == self.pid);
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        self.destroy();
    }
}

fn hosts_file(specs: &[HostSpec]) -> String {
    let mut s = String::from("127.0.0.1\tlocalhost\n");
    for h in specs {
        s.push_str(&format!("{}\t{}\n", h.addr, h.name));
    }
    s
}

/// Stop what runs in namespace `ns` and remove it with its `/etc/netns` files.
fn remove_ns(ns: &str) {
    if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            if let Ok(p) = pid.parse::<u32>() {
                sys::kill(p);
            }
        }
    }
    let _ = ip(&["netns", "del", ns]);
    let etc = format!("{NETNS_ETC}/{ns}");
    if Path::new(&etc).exists() {
        let _ = fs::remove_dir_all(&etc);
    }
}

/// Remove our namespaces (and `/etc/netns` directories) whose owner matches; returns their names.
fn remove_matching(owner: impl Fn(u32) -> bool) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for dir in [NETNS_RUN, NETNS_ETC] {
        if let Ok(rd) = fs::read_dir(dir) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if owner_pid(&n).is_some_and(&owner) && !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    names.sort();
    for n in &names {
        remove_ns(n);
    }
    names
}

/// Remove namespaces left by runs whose process no longer exists (a run killed with SIGKILL).
pub fn cleanup_stale() -> Vec<String> {
    let me = std::process::id();
    remove_matching(|pid| pid != me && !sys::process_alive(pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        for id in [0, 1, 254, 255, 256, 65_000] {
            assert_eq!(addr_node(node_addr(id)), Some(id));
        }
        assert_eq!(node_addr(0), Ipv4Addr::new(10, 77, 0, 1));
        assert_eq!(addr_node(Ipv4Addr::new(10, 78, 0, 1)), None);
        assert_eq!(addr_node(Ipv4Addr::new(10, 77, 0, 0)), None);
    }

    #[test]
    fn names_carry_prefix_and_pid() {
        let n = ns_name(4242, "web server/1");
        assert_eq!(n, "bl4242-web_server_1");
        assert_eq!(owner_pid(&n), Some(4242));
        assert_eq!(owner_pid("blue-1"), None);
        assert_eq!(owner_pid("other"), None);
    }
}
