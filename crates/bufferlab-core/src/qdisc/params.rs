//! What the disciplines share about their parameters: the default limit and the flow hash.
//! Each discipline's own parameters are a typed struct beside it (`CodelConfig`, ...).

use super::Limit;

/// The limit a discipline applies when the queue block gave none: Linux's default for it.
pub(crate) fn or_default_pkts(limit: Limit, pkts: u64) -> Limit {
    if limit.pkts.is_none() && limit.bytes.is_none() {
        Limit {
            pkts: Some(pkts),
            bytes: None,
        }
    } else {
        limit
    }
}

/// Linux's `txqueuelen` default (1000 packets), the limit of `codel`, `pie`, `red` and the other
/// single-queue disciplines when the scenario gives none (Cardozo et al. §IV-B; `tc-codel(8)`,
/// `tc-pie(8)`).
pub(crate) const TXQUEUELEN_PKTS: u64 = 1000;

/// A cheap integer hash (SplitMix64's finaliser) for mapping flows to queues: no per-packet
/// hashing of headers, just one multiply-xorshift round trip on the flow id and a seed.
#[inline]
pub(crate) fn flow_hash(flow: u32, seed: u64) -> u64 {
    let mut z = (flow as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
