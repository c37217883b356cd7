//! FIFO with tail drop, limited in packets (Linux `pfifo`) or bytes (`bfifo`) or both.

use std::collections::VecDeque;

use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::time::Time;

pub struct Fifo {
    limit: Limit,
    q: VecDeque<QItem>,
    bytes: u64,
}

impl Fifo {
    pub fn new(limit: Limit) -> Self {
        let cap = limit.pkts.unwrap_or(64).min(1 << 16) as usize;
        Fifo {
            limit,
            q: VecDeque::with_capacity(cap),
            bytes: 0,
        }
    }
}

impl QueueDisc for Fifo {
    #[inline]
    fn enqueue(&mut self, _now: Time, item: QItem, drops: &mut Drops) -> bool {
        if self
            .limit
            .exceeded_by(self.q.len() as u64, self.bytes, item.bytes as u64)
        {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        self.bytes += item.bytes as u64;
        self.q.push_back(item);
        true
    }

    #[inline]
    fn dequeue(&mut self, _now: Time, _drops: &mut Drops) -> Option<QItem> {
        let it = self.q.pop_front()?;
        self.bytes -= it.bytes as u64;
        Some(it)
    }

    fn len_pkts(&self) -> u64 {
        self.q.len() as u64
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn limit(&self) -> Limit {
        self.limit
    }

    fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
    }
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
        assert!(f.enqueue(0, item(1, 100), &mut d));
        assert!(f.enqueue(0, item(2, 100), &mut d));
        assert!(!f.enqueue(0, item(3, 100), &mut d));
        assert_eq!(d.items, vec![(item(3, 100), DropReason::Overflow)]);
        assert_eq!(f.dequeue(0, &mut d).unwrap().id, 1);
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
        assert!(f.enqueue(0, item(1, 600), &mut d));
        assert!(!f.enqueue(0, item(2, 600), &mut d));
        assert!(f.enqueue(0, item(3, 400), &mut d));
        assert_eq!(f.len_bytes(), 1000);
    }
}
