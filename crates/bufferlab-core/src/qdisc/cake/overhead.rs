//! The bytes CAKE's shaper charges a packet for (Linux `cake_calc_overhead`; `tc-cake(8)`,
//! "Overhead compensation"): so that shaping just under a link's rate keeps the queue here even
//! when the link adds per-packet framing (ATM cells on ADSL, PTM's 64/65 coding on VDSL2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Cell framing the shaper accounts for (`tc-cake(8)`: `noatm`, `atm`, `ptm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AtmMode {
    /// No cell framing.
    #[default]
    Noatm,
    /// ATM: 48 B of payload per 53 B cell, the last cell padded (ADSL).
    Atm,
    /// PTM (VDSL2): 64/65 encoding, one byte per 64 or part of it (Linux's conservative
    /// rounding).
    Ptm,
}

/// The Ethernet header Linux's packet length includes when no `overhead` is given (`raw`: the
/// skb's length on an Ethernet device; the engine's packets are IP packets).
pub(crate) const RAW_MAC_HEADER_BYTES: u32 = 14;

/// The shaper's view of a packet's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Overhead {
    /// Bytes added to the IP packet; `None`: raw (the IP packet and its Ethernet header).
    pub(crate) overhead: Option<i32>,
    pub(crate) mpu: u32,
    pub(crate) atm: AtmMode,
}

impl Overhead {
    /// The bytes charged for an IP packet of `ip_bytes` (Linux: overhead, then the minimum
    /// packet unit, then the cell framing).
    #[inline]
    pub(crate) fn adjusted_len(&self, ip_bytes: u32) -> u32 {
        let mut len = match self.overhead {
            None => ip_bytes + RAW_MAC_HEADER_BYTES,
            Some(o) => (ip_bytes as i64 + o as i64).max(0) as u32,
        };
        len = len.max(self.mpu);
        match self.atm {
            AtmMode::Noatm => len,
            AtmMode::Atm => len.div_ceil(48) * 53,
            AtmMode::Ptm => len + len.div_ceil(64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atm_ptm_mpu_and_raw() {
        // pppoa-llc on ADSL (tc-cake(8)'s `conservative` is 48 + atm): a 1500 B packet with 32 B
        // of overhead is 1532 B, 32 cells (31.9 rounded up), 1696 B on the wire.
        let atm = Overhead {
            overhead: Some(32),
            mpu: 0,
            atm: AtmMode::Atm,
        };
        assert_eq!(atm.adjusted_len(1500), 32 * 53);
        // 16 B + 32 B = exactly one cell; one more byte takes a second.
        assert_eq!(atm.adjusted_len(16), 53);
        assert_eq!(atm.adjusted_len(17), 106);
        let ptm = Overhead {
            overhead: Some(30),
            mpu: 0,
            atm: AtmMode::Ptm,
        };
        assert_eq!(ptm.adjusted_len(1500), 1530 + 24);
        let mpu = Overhead {
            overhead: Some(18),
            mpu: 64,
            atm: AtmMode::Noatm,
        };
        assert_eq!(mpu.adjusted_len(40), 64);
        assert_eq!(Overhead::default().adjusted_len(1500), 1514);
        let neg = Overhead {
            overhead: Some(-64),
            mpu: 0,
            atm: AtmMode::Noatm,
        };
        assert_eq!(neg.adjusted_len(40), 0);
    }
}
