//! One kernel-backend run: check the machine, create the hosts, run the driver on a thread of
//! its own, close the books.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use bufferlab_core::packet::NodeId;
use bufferlab_core::realtime::RealtimeNet;
use bufferlab_core::results::RunOutput;
use bufferlab_core::time::{Duration, Instant};
use bufferlab_core::Scenario;

use crate::driver::{self, Control, DriverStats};
use crate::netns::{self, HostSpec, Lab};
use crate::sys;

/// What the machine lacks for the backend, as one line; `Ok` when it has everything.
pub fn preflight() -> Result<(), String> {
    if !sys::is_root() {
        return Err(
            "the kernel backend needs root (namespaces and TUN devices): run as root or with sudo"
                .into(),
        );
    }
    if !Path::new("/proc/self/ns/net").exists() {
        return Err(
            "the kernel backend needs network namespaces, which this kernel lacks (CONFIG_NET_NS)"
                .into(),
        );
    }
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
    {
        return Err(format!(
            "the kernel backend needs /dev/net/tun (the tun module): {e}"
        ));
    }
    match std::process::Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(
            "the kernel backend needs the `ip` command (iproute2: apt-get install iproute2)".into(),
        ),
    }
}

/// Remove what runs killed with SIGKILL left (namespaces, their programs, /etc/netns files).
pub fn cleanup() -> Vec<String> {
    netns::cleanup_stale()
}

type Finished = std::io::Result<(RealtimeNet, Instant, DriverStats)>;

pub struct Session {
    lab: Lab,
    net: Option<RealtimeNet>,
    /// The network's shortest round trip ([`RealtimeNet::min_round_trip`]).
    min_round_trip: Option<Duration>,
    ctl: Arc<Control>,
    thread: Option<JoinHandle<Finished>>,
    stats: DriverStats,
}

impl Session {
    /// Build the network and create the hosts (leftovers of killed runs are removed first).
    pub fn create(sc: &Scenario, hosts: Vec<HostSpec>) -> Result<Session, String> {
        preflight()?;
        let nodes: Vec<NodeId> = hosts.iter().map(|h| h.node).collect();
        let net = RealtimeNet::build(sc, &nodes).map_err(|e| e.join("\n"))?;
        netns::cleanup_stale();
        let lab = Lab::create(&hosts)?;
        Ok(Session {
            lab,
            min_round_trip: net.min_round_trip(),
            net: Some(net),
            ctl: Arc::new(Control::default()),
            thread: None,
            stats: DriverStats::default(),
        })
    }

    /// The hosts: node, namespace name, address.
    pub fn hosts(&self) -> impl Iterator<Item = (&HostSpec, &str)> {
        self.lab.hosts.iter().map(|h| (&h.spec, h.ns.as_str()))
    }

    /// Start the network at CLOCK_MONOTONIC time `t0_ns` (the driver waits for it).
    /// `precision`: how long to spin before each event instead of sleeping, and whether to keep
    /// every core out of its idle state meanwhile ([`driver::Precision`]).
    /// `capture_dir`: where the scenario's packet captures go (none written without it).
    pub fn start(
        &mut self,
        t0_ns: u64,
        duration_ns: Duration,
        precision: driver::Precision,
        capture_dir: Option<&Path>,
    ) -> Result<(), String> {
        let mut net = self.net.take().ok_or("the network has already run")?;
        if let Some(dir) = capture_dir {
            net.attach_capture(dir)?;
        }
        let hosts: Vec<(NodeId, i32)> = self
            .lab
            .hosts
            .iter()
            .map(|h| (h.spec.node, h.tun.as_raw_fd()))
            .collect();
        let ctl = self.ctl.clone();
        self.thread = Some(
            std::thread::Builder::new()
                .name("bufferlab-driver".into())
                .spawn(move || {
                    let mut st = DriverStats::default();
                    let end = driver::run(
                        &mut net,
                        &hosts,
                        t0_ns,
                        duration_ns,
                        precision,
                        &ctl,
                        &mut st,
                    )?;
                    Ok((net, end, st))
                })
                .map_err(|e| format!("cannot start the driver thread: {e}"))?,
        );
        Ok(())
    }

    pub fn elapsed_ns(&self) -> Instant {
        Instant::from_ns(self.ctl.elapsed_ns.load(Ordering::Relaxed))
    }

    pub fn running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Ask the driver to stop at its next wake-up.
    pub fn stop(&self) {
        self.ctl.stop.store(true, Ordering::Relaxed);
    }

    /// Wait for the driver and close the books (the hosts stay until [`Self::close`]).
    pub fn finish(&mut self) -> Result<RunOutput, String> {
        let t = self.thread.take().ok_or("the network was not started")?;
        let (net, end, st) = t
            .join()
            .map_err(|_| "the driver thread panicked".to_string())?
            .map_err(|e| format!("driver: {e}"))?;
        self.stats = st;
        net.finish(end)
    }

    pub fn stats(&self) -> &DriverStats {
        &self.stats
    }

    /// The shortest round trip of the network's traffic, what its lateness is judged against.
    pub fn min_round_trip(&self) -> Option<Duration> {
        self.min_round_trip
    }

    /// Stop the driver if it runs and remove the hosts.
    pub fn close(&mut self) {
        self.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.lab.destroy();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}
