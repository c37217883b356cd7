//! A FIFO band with its own limit: the one FIFO every discipline queues in (the FIFO itself,
//! CoDel, PIE and RED over one band; SplitBuff's sub-buffers, the strict-priority bands).

use super::{Limit, QItem};
use crate::slot_ring::SlotRing;

pub(crate) struct Band {
    q: SlotRing<QItem>,
    bytes: u64,
    pub(crate) limit: Limit,
}

impl Band {
    /// Storage for `cap` packets is reserved up front so steady state does not allocate.
    pub(crate) fn new(limit: Limit, cap: usize) -> Self {
        Band {
            q: SlotRing::with_capacity(cap),
            bytes: 0,
            limit,
        }
    }

    /// Whether the band's limit refuses `item`.
    #[inline]
    pub(crate) fn refuses(&self, item: &QItem) -> bool {
        self.limit
            .exceeded_by(self.q.len() as u64, self.bytes, item.bytes as u64)
    }

    /// Append `item` unless the band's limit refuses it.
    #[inline]
    pub(crate) fn push(&mut self, item: QItem) -> bool {
        if self.refuses(&item) {
            return false;
        }
        self.push_admitted(item);
        true
    }

    /// Append `item` that [`Band::refuses`] already let in.
    #[inline]
    pub(crate) fn push_admitted(&mut self, item: QItem) {
        self.bytes += item.bytes as u64;
        self.q.push_back(item);
        // The slot the next packet let in is written to: in a standing queue a line ahead of
        // the one just written, which that store would otherwise wait on.
        crate::prefetch::line(self.q.next_slot());
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<QItem> {
        // Emptied, the ring starts over at its first slot: a queue that keeps emptying keeps
        // using the same cache line.
        let it = self.q.pop_front()?;
        self.bytes -= it.bytes as u64;
        Some(it)
    }

    /// The slot the next packet let in is written to (the engine's look-ahead).
    #[inline]
    pub(crate) fn next_slot(&self) -> &QItem {
        self.q.next_slot()
    }

    /// The packet [`Band::pop`] would return.
    #[inline]
    pub(crate) fn front(&self) -> Option<&QItem> {
        self.q.front()
    }

    #[inline]
    pub(crate) fn len(&self) -> u64 {
        self.q.len() as u64
    }

    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// The backlog accessors of [`super::QueueDisc`] for a discipline that queues in one [`Band`],
/// the field named: its length, bytes and limit are the discipline's (FIFO, CoDel, PIE, RED).
/// A macro rather than a trait default, so each stays a direct field read with no new trait
/// to import.
macro_rules! one_band_backlog {
    ($band:ident) => {
        fn len_pkts(&self) -> u64 {
            self.$band.len()
        }

        fn len_bytes(&self) -> u64 {
            self.$band.bytes()
        }

        fn limit(&self) -> Limit {
            self.$band.limit
        }

        fn set_limit(&mut self, limit: Limit) {
            self.$band.limit = limit;
        }
    };
}
pub(crate) use one_band_backlog;

/// Reserve for at most 16 packets per band up front (written, so each counts in the process's
/// memory: 640 B); a band that holds more grows to its high-water mark once (doubling) and keeps
/// that storage, so steady state does not allocate. (Reserving the whole limit cost 32 KB per
/// host port of `txqueuelen = 1000` that never holds more than a few packets: 64 MB in a
/// 500-flow dumbbell.)
pub(crate) fn reserve_for(limit: Limit) -> usize {
    limit.pkts.unwrap_or(16).min(16) as usize
}
