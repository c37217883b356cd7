//! FIFO with tail drop, limited in packets (Linux `pfifo`) or bytes (`bfifo`) or both.

use super::band::{one_band_backlog, reserve_for, Band};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::time::Instant;

/// One [`Band`] with tail drop.
pub struct Fifo {
    band: Band,
}

impl Fifo {
    pub fn new(limit: Limit) -> Self {
        Fifo {
            band: Band::new(limit, reserve_for(limit)),
        }
    }

    /// The slot the next packet let in is written to (the engine's look-ahead).
    #[inline]
    pub fn next_slot(&self) -> &QItem {
        self.band.next_slot()
    }

    /// The packet to leave next.
    #[inline]
    pub fn next_id(&self) -> Option<crate::packet::PktId> {
        self.band.front().map(|i| i.id)
    }
}

impl QueueDisc for Fifo {
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        let ok = self.band.push(item);
        if !ok {
            drops.push(item, DropReason::Overflow);
        }
        ok
    }

    #[inline]
    fn dequeue(&mut self, _now: Instant, _drops: &mut Drops) -> Option<QItem> {
        self.band.pop()
    }

    one_band_backlog!(band);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: u32, bytes: u32) -> QItem {
        QItem {
            id,
            bytes,
            ..Default::default()
        }
    }

    #[test]
    fn packet_limit_tail_drops() {
        let mut f = Fifo::new(Limit {
            pkts: Some(2),
            bytes: None,
        });
        let mut d = Drops::default();
        assert!(f.enqueue(Instant::ZERO, item(1, 100), &mut d));
        assert!(f.enqueue(Instant::ZERO, item(2, 100), &mut d));
        assert!(!f.enqueue(Instant::ZERO, item(3, 100), &mut d));
        assert_eq!(d.items, vec![(item(3, 100), DropReason::Overflow)]);
        assert_eq!(f.dequeue(Instant::ZERO, &mut d).unwrap().id, 1);
        assert_eq!(f.len_pkts(), 1);
        assert_eq!(f.len_bytes(), 100);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut f = Fifo::new(Limit {
            pkts: None,
            bytes: Some(1000),
        });
        let mut d = Drops::default();
        assert!(f.enqueue(Instant::ZERO, item(1, 600), &mut d));
        assert!(!f.enqueue(Instant::ZERO, item(2, 600), &mut d));
        assert!(f.enqueue(Instant::ZERO, item(3, 400), &mut d));
        assert_eq!(f.len_bytes(), 1000);
    }
}
