//! GSO descriptors: a NIC ring whose descriptors hold GSO buffers, not packets.
//!
//! A Linux host's TCP hands its device one GSO buffer (a super-packet of up to `gso_max_size`,
//! 64 KiB) per transmission; with GSO/TSO on (Linux's default, `netif_skb_features`) it passes the
//! qdisc and reaches the driver whole, and takes one descriptor: the ring's `size` counts buffers,
//! and a 512-descriptor ring holds up to 512 × 64 KiB. BQL counts the buffer's bytes
//! (`netdev_tx_sent_queue(skb->len)`) and the queue stops only between buffers; the NIC reports
//! the buffer's completion once its last segment is out.
//!
//! The simulator's sender sends a buffer as its segments, each marked with how many of its buffer
//! follow (`Packet::gso_left`). The segments that reach the ring in a row — same flow and
//! connection, each the one after the last — share the newest descriptor, up to 64 KiB. A
//! segment that continues the newest buffer needs no free descriptor and no BQL budget; since the
//! driver cannot see what the qdisc gives next, it takes a packet while the newest buffer expects
//! more, and a packet that turns out not to continue it waits beside the ring for a descriptor
//! (as Linux's qdisc layer puts back a packet the driver cannot take, `dev_requeue_skb`).

use std::collections::VecDeque;

use crate::packet::{FlowId, PktId};
use crate::time::Instant;

/// The largest buffer on one descriptor: Linux's `gso_max_size` (`GSO_LEGACY_MAX_SIZE`, 65536),
/// in IP bytes here (the segments' headers included).
pub const GSO_MAX_SIZE: u32 = 65_536;

/// Which GSO buffer a packet belongs to, as the ring sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub flow: FlowId,
    /// The TCP connection within the flow (web flows multiplex several).
    pub conn: u32,
    /// Segments of its buffer after it (`Packet::gso_left`).
    pub left: u8,
}

/// The newest descriptor's buffer.
struct Tail {
    /// Its last segment so far.
    seg: Seg,
    /// Its bytes so far.
    bytes: u32,
    /// Whether it still has a segment on the ring (false once the NIC has taken them all).
    on_ring: bool,
}

pub struct Gso {
    /// Packets of each descriptor still on the ring, oldest first: one entry per descriptor.
    runs: VecDeque<u32>,
    tail: Option<Tail>,
    /// A packet taken from the qdisc that needs a descriptor of its own and found none free.
    held: Option<(PktId, u32, Instant, Seg)>,
    /// Bytes the NIC has started of the descriptor it is sending: reported to BQL at once when
    /// the descriptor's last segment completes.
    sending: u32,
    /// Whether the packet just popped ended its descriptor.
    ended: bool,
}

impl Gso {
    pub fn new(size: u32) -> Self {
        Gso {
            runs: VecDeque::with_capacity((size as usize).min(1 << 16)),
            tail: None,
            held: None,
            sending: 0,
            ended: false,
        }
    }

    #[inline]
    pub fn descriptors(&self) -> usize {
        self.runs.len()
    }

    #[inline]
    pub fn holds(&self) -> bool {
        self.held.is_some()
    }

    /// Whether the newest buffer's next segment may still come (and fit its descriptor).
    #[inline]
    pub fn expects_more(&self) -> bool {
        self.tail
            .as_ref()
            .is_some_and(|t| t.seg.left > 0 && t.bytes < GSO_MAX_SIZE)
    }

    /// `seg` of `bytes` joins the newest descriptor if it is its buffer's next segment and fits.
    pub fn join(&mut self, seg: Seg, bytes: u32) -> bool {
        let Some(t) = &mut self.tail else {
            return false;
        };
        let next = t.seg.left > 0
            && seg.left + 1 == t.seg.left
            && seg.flow == t.seg.flow
            && seg.conn == t.seg.conn
            && t.bytes.saturating_add(bytes) <= GSO_MAX_SIZE;
        if !next {
            return false;
        }
        if t.on_ring {
            if let Some(n) = self.runs.back_mut() {
                *n += 1;
            }
        } else {
            // The NIC took the buffer's earlier segments: the rest still hold its descriptor.
            self.runs.push_back(1);
            t.on_ring = true;
        }
        t.seg = seg;
        t.bytes += bytes;
        true
    }

    /// `seg` of `bytes` starts a new descriptor (the caller has checked there is one free).
    pub fn open(&mut self, seg: Seg, bytes: u32) -> bool {
        self.runs.push_back(1);
        self.tail = Some(Tail {
            seg,
            bytes,
            on_ring: true,
        });
        true
    }

    /// `pkt` waits for a free descriptor; the newest buffer is closed (a packet of another
    /// buffer came between).
    pub fn hold(&mut self, pkt: PktId, bytes: u32, now: Instant, seg: Seg) {
        self.held = Some((pkt, bytes, now, seg));
        if let Some(t) = &mut self.tail {
            t.seg.left = 0;
        }
    }

    pub fn unhold(&mut self) -> Option<(PktId, u32, Instant, Seg)> {
        self.held.take()
    }

    /// The oldest descriptor's next packet, of `bytes`, left the ring for the wire.
    #[inline]
    pub fn popped(&mut self, bytes: u32) {
        self.sending = self.sending.saturating_add(bytes);
        self.ended = true;
        if let Some(n) = self.runs.front_mut() {
            *n -= 1;
            if *n > 0 {
                self.ended = false;
                return;
            }
        }
        self.runs.pop_front();
        if self.runs.is_empty() {
            if let Some(t) = &mut self.tail {
                t.on_ring = false;
            }
        }
    }

    /// What BQL learns at the end of the packet just popped: the descriptor's bytes if it ended
    /// it, else nothing yet.
    #[inline]
    pub fn completes(&mut self) -> u32 {
        if self.ended {
            std::mem::take(&mut self.sending)
        } else {
            0
        }
    }
}
