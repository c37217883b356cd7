//! Strict priority for small packets (Braud et al. §I, level L1: "giving priority to short packets"
//! at the head of the uplink): packets of at most `threshold_bytes` (TCP ACKs, pings, the ballast)
//! go first; the two bands share the port's limit and tail-drop when it is full.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::band::{reserve_for, Band};
use super::params::{or_default_pkts, TXQUEUELEN_PKTS};
use super::{DropReason, Drops, Limit, QItem, QueueDisc};
use crate::time::Instant;

/// Plan key `threshold_bytes`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct PrioSmallConfig {
    /// Packets of at most this many IP bytes get priority (128 B: ACKs, pings, the ballast).
    #[schemars(range(min = 1, max = 65535))]
    pub threshold_bytes: u32,
}

impl Default for PrioSmallConfig {
    /// Braud et al. names no size. 128 B covers what it calls small: pure TCP ACKs (40 B, up to
    /// ~80 B with SACK and timestamps), its 29 B ballast packets, and 84 B pings.
    fn default() -> Self {
        PrioSmallConfig {
            threshold_bytes: 128,
        }
    }
}

pub struct PrioSmall {
    cfg: PrioSmallConfig,
    limit: Limit,
    small: Band,
    large: Band,
}

const UNLIMITED: Limit = Limit {
    pkts: None,
    bytes: None,
};

impl PrioSmall {
    pub fn new(cfg: PrioSmallConfig, limit: Limit) -> Self {
        let limit = or_default_pkts(limit, TXQUEUELEN_PKTS);
        let cap = reserve_for(limit);
        PrioSmall {
            cfg,
            limit,
            small: Band::new(UNLIMITED, cap),
            large: Band::new(UNLIMITED, cap),
        }
    }
}

impl QueueDisc for PrioSmall {
    #[inline]
    fn enqueue(&mut self, _now: Instant, item: QItem, drops: &mut Drops) -> bool {
        if self
            .limit
            .exceeded_by(self.len_pkts(), self.len_bytes(), item.bytes as u64)
        {
            drops.push(item, DropReason::Overflow);
            return false;
        }
        if item.bytes <= self.cfg.threshold_bytes {
            self.small.push(item)
        } else {
            self.large.push(item)
        }
    }

    #[inline]
    fn dequeue(&mut self, _now: Instant, _drops: &mut Drops) -> Option<QItem> {
        self.small.pop().or_else(|| self.large.pop())
    }

    fn len_pkts(&self) -> u64 {
        self.small.len() + self.large.len()
    }

    fn len_bytes(&self) -> u64 {
        self.small.bytes() + self.large.bytes()
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
    use crate::qdisc::testkit::{cbr, merge, run};
    use crate::time::Duration;

    fn ms(x: u64) -> Duration {
        Duration::from_ms(x)
    }

    /// Small packets overtake a standing queue of large ones; the large keep FIFO order; the
    /// shared limit tail-drops whatever arrives when full.
    #[test]
    fn small_packets_go_first() {
        let mut q = PrioSmall::new(PrioSmallConfig::default(), Limit::default());
        // Bulk at 120% of 1 Mb/s (1500 B every 10 ms vs 12 ms to send) plus 40 B ACK-like packets.
        let arr = merge(vec![
            cbr(1, 1500, Duration::ZERO, ms(10), ms(5000)),
            cbr(2, 40, Duration::from_ns(1), ms(50), ms(5000)),
        ]);
        let tr = run(&mut q, 1_000_000, &arr, ms(5000), |_, _| {});
        let wait = |f: u32| {
            tr.sent
                .iter()
                .filter(|s| s.1.flow == f)
                .map(|(t, i)| *t - i.enq)
                .max()
                .unwrap()
        };
        assert!(wait(1) > ms(500));
        assert!(wait(2) <= ms(12), "small waited {:?}", wait(2));
        let big: Vec<u32> = tr
            .sent
            .iter()
            .filter(|s| s.1.flow == 1)
            .map(|s| s.1.id)
            .collect();
        assert!(big.windows(2).all(|w| w[0] < w[1]));

        let mut q = PrioSmall::new(
            PrioSmallConfig::default(),
            Limit {
                pkts: Some(2),
                bytes: None,
            },
        );
        let mut d = Drops::default();
        let item = |id, bytes| QItem {
            id,
            bytes,
            ..Default::default()
        };
        assert!(q.enqueue(Instant::ZERO, item(1, 1500), &mut d));
        assert!(q.enqueue(Instant::ZERO, item(2, 1500), &mut d));
        assert!(!q.enqueue(Instant::ZERO, item(3, 40), &mut d));
        assert_eq!(d.items[0].1, DropReason::Overflow);
        assert_eq!(q.dequeue(Instant::ZERO, &mut d).unwrap().id, 1);
        assert!(q.enqueue(Instant::ZERO, item(4, 40), &mut d));
        assert_eq!(q.dequeue(Instant::ZERO, &mut d).unwrap().id, 4);
    }
}
