//! Packet captures of a run (`run.capture`): one pcap file per capture point ([`point`]), each
//! packet written with the real headers of [`crate::wire::encode`] (the simulator) or as the
//! bytes a real host sent (the kernel backend), under one size limit for all the files.
//!
//! Off, a capture costs the ports one test of a byte per hop ([`Tap::bit`] in `Port::taps`).
//! On, a packet is encoded once per tap and written through each file's buffer.

pub mod pcap;
pub mod point;

use std::path::Path;

use serde::Serialize;

use crate::agent::build::FlowInfo;
use crate::packet::{NodeId, Packet};
use crate::scenario::RunSpec;
use crate::time::Instant;
use crate::wire::encode::{encode, FlowWire, MAX_HEADERS};
use crate::wire::{PROTO_ICMP, PROTO_TCP, PROTO_UDP};
use pcap::{PcapFile, RECORD_HEADER};
use point::{file_name, routes, Net};

/// The snapshot length a headers-only file announces: IPv4 and TCP headers with the most
/// options each can carry (60 + 60 bytes).
pub const HEADERS_SNAPLEN: u32 = 120;
/// The default limit on a run's capture files together, bytes.
pub const DEFAULT_LIMIT_BYTES: u64 = 100_000_000;

/// Where a port hands a packet to the capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Tap {
    /// It reaches the port, before the discipline decides.
    Arrivals,
    /// It leaves the discipline.
    Departures,
    /// The port drops it (any reason).
    Drops,
    /// Its transmission starts on the link.
    Wire,
    /// It reaches the far end of the link.
    Received,
}

impl Tap {
    const COUNT: u32 = 5;

    /// Its bit in a port's `taps`.
    #[inline]
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A packet seen at a tap whose bytes the driver holds (the kernel backend): written later with
/// [`Capture::write_bytes`].
#[derive(Clone, Copy, Debug)]
pub struct Seen {
    pub port: u32,
    pub tap: Tap,
    pub at: Instant,
    /// The packet as the engine had it there (its TTL and ECN field then; its `seq` the
    /// driver's handle of the bytes).
    pub pkt: Packet,
}

/// One capture file in the run's summary.
#[derive(Clone, Debug, Serialize)]
pub struct CaptureRow {
    pub point: String,
    pub file: String,
    pub packets: u64,
    pub bytes: u64,
    /// When capturing stopped before the end of the run, and why.
    pub stopped_s: Option<f64>,
    pub note: Option<String>,
}

/// The capture points of a run being written.
pub struct Capture {
    points: Vec<String>,
    files: Vec<PcapFile>,
    /// (port * taps + tap, file), sorted: the files each tap of each port writes to.
    routes: Vec<(u32, u16)>,
    flows: Vec<FlowWire>,
    snaplen: Option<u32>,
    limit_bytes: u64,
    written: u64,
    stopped: Option<(Instant, String)>,
    /// Packets seen and not yet written, when their bytes are the driver's.
    deferred: Option<Vec<Seen>>,
    buf: [u8; MAX_HEADERS],
}

/// The taps each port has on, from the capture points of `run` (empty if none), or the first
/// point's problem: (index in `run.capture`, message).
pub fn port_taps(run: &RunSpec, net: &Net) -> Result<Vec<u8>, (usize, String)> {
    if run.capture.is_empty() {
        return Ok(Vec::new());
    }
    let mut taps = vec![0u8; net.ports.len()];
    let mut names: Vec<String> = Vec::new();
    for (i, p) in run.capture.iter().enumerate() {
        for (port, tap) in routes(p, net).map_err(|e| (i, e))? {
            taps[port as usize] |= tap.bit();
        }
        let f = file_name(p);
        if let Some(j) = names.iter().position(|n| *n == f) {
            let what = if run.capture[j] == *p {
                format!("{p:?} is given twice")
            } else {
                format!("{p:?} and {:?} would both write {f}", run.capture[j])
            };
            return Err((i, what));
        }
        names.push(f);
    }
    Ok(taps)
}

impl Capture {
    /// Open one file per capture point of `run` in `dir` (the points checked by
    /// [`port_taps`]); `defer`: the packets' bytes are the caller's ([`Self::take_seen`]).
    pub fn create(
        run: &RunSpec,
        net: &Net,
        flows: &[FlowInfo],
        dir: &Path,
        defer: bool,
    ) -> Result<Capture, String> {
        let snaplen = run.capture_snaplen_bytes;
        let mut files = Vec::new();
        let mut rts = Vec::new();
        for (i, p) in run.capture.iter().enumerate() {
            let path = dir.join(file_name(p));
            let f = PcapFile::create(&path, snaplen.unwrap_or(HEADERS_SNAPLEN))
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            files.push(f);
            for (port, tap) in routes(p, net).map_err(|e| format!("run.capture[{i}]: {e}"))? {
                rts.push((port * Tap::COUNT + tap as u32, i as u16));
            }
        }
        rts.sort_unstable();
        let written = files.iter().map(|f| f.bytes).sum();
        Ok(Capture {
            points: run.capture.clone(),
            files,
            routes: rts,
            flows: flows
                .iter()
                .enumerate()
                .map(|(i, f)| FlowWire {
                    flow: i as u32,
                    src: f.src,
                    tcp: f.tcp,
                })
                .collect(),
            snaplen,
            limit_bytes: run.capture_limit_bytes.unwrap_or(DEFAULT_LIMIT_BYTES),
            written,
            stopped: None,
            deferred: defer.then(Vec::new),
            buf: [0; MAX_HEADERS],
        })
    }

    /// The files `tap` of `port` writes to.
    fn files_of(&self, port: u32, tap: Tap) -> std::ops::Range<usize> {
        let key = port * Tap::COUNT + tap as u32;
        let lo = self.routes.partition_point(|r| r.0 < key);
        let hi = lo + self.routes[lo..].partition_point(|r| r.0 == key);
        lo..hi
    }

    /// Packet `p` at `tap` of `port` at `at`.
    pub fn record(&mut self, port: u32, tap: Tap, at: Instant, p: &Packet) {
        if self.stopped.is_some() {
            return;
        }
        if let Some(d) = &mut self.deferred {
            d.push(Seen {
                port,
                tap,
                at,
                pkt: *p,
            });
            return;
        }
        let f = self
            .flows
            .get(p.flow as usize)
            .copied()
            .unwrap_or(FlowWire {
                flow: p.flow,
                src: p.src,
                tcp: None,
            });
        let h = encode(p, &f, &mut self.buf);
        // Headers only, or as many bytes as the snapshot length keeps (zeros past the headers).
        let kept = self
            .snaplen
            .map_or(h.len, |s| (s as usize).min(h.total_len as usize));
        let (data, zeros) = if kept <= h.len {
            (kept, 0)
        } else {
            (h.len, kept - h.len)
        };
        let buf = self.buf;
        for r in self.files_of(port, tap) {
            let file = self.routes[r].1 as usize;
            self.write(file, at, &buf[..data], zeros, h.total_len);
        }
    }

    /// Packets seen since the last call, when the driver holds their bytes.
    pub fn take_seen(&mut self, out: &mut Vec<Seen>) {
        if let Some(d) = &mut self.deferred {
            out.append(d);
        }
    }

    /// A packet seen at `tap` of `port` at `at`, as the real IPv4 bytes `ip` (a driver's).
    pub fn write_bytes(&mut self, port: u32, tap: Tap, at: Instant, ip: &[u8]) {
        if self.stopped.is_some() {
            return;
        }
        let kept = self
            .snaplen
            .map_or_else(|| headers_len(ip), |s| s as usize)
            .min(ip.len());
        for r in self.files_of(port, tap) {
            let file = self.routes[r].1 as usize;
            self.write(file, at, &ip[..kept], 0, ip.len() as u32);
        }
    }

    fn write(&mut self, file: usize, at: Instant, data: &[u8], zeros: usize, orig: u32) {
        let rec = RECORD_HEADER + (data.len() + zeros) as u64;
        if self.written + rec > self.limit_bytes {
            self.stop(
                at,
                format!(
                    "capturing stopped: the files reached capture_limit ({} bytes)",
                    self.limit_bytes
                ),
            );
            return;
        }
        if let Err(e) = self.files[file].write(at, data, zeros, orig) {
            self.stop(at, format!("capturing stopped: writing failed ({e})"));
            return;
        }
        self.written += rec;
    }

    fn stop(&mut self, at: Instant, why: String) {
        if self.stopped.is_none() {
            self.stopped = Some((at, why));
        }
    }

    /// Write out every file's buffer; a failure stops the capture with a note.
    pub fn flush(&mut self, at: Instant) {
        for i in 0..self.files.len() {
            if let Err(e) = self.files[i].flush() {
                self.stop(at, format!("capturing stopped: writing failed ({e})"));
            }
        }
    }

    /// One summary row per file.
    pub fn rows(&self) -> Vec<CaptureRow> {
        self.points
            .iter()
            .zip(&self.files)
            .map(|(p, f)| CaptureRow {
                point: p.clone(),
                file: file_name(p),
                packets: f.packets,
                bytes: f.bytes,
                stopped_s: self.stopped.as_ref().map(|s| s.0.secs()),
                note: self.stopped.as_ref().map(|s| s.1.clone()),
            })
            .collect()
    }
}

/// The length of the headers at the start of the IPv4 packet `ip`: IP with its options, then
/// TCP with its options, or the 8 bytes of a UDP or ICMP header.
pub fn headers_len(ip: &[u8]) -> usize {
    if ip.len() < 20 {
        return ip.len();
    }
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let l4 = match ip[9] {
        PROTO_TCP if ip.len() >= ihl + 13 => (ip[ihl + 12] >> 4) as usize * 4,
        PROTO_TCP => 20,
        PROTO_UDP | PROTO_ICMP => 8,
        _ => 0,
    };
    (ihl + l4).min(ip.len())
}

/// The node ids and port ends of a network, for [`Net`].
pub fn port_ends(ports: &[crate::net::port::Port]) -> Vec<(NodeId, NodeId)> {
    ports.iter().map(|p| (p.params.from, p.params.to)).collect()
}
