//! What an IP packet costs on the wire under each link-layer framing.

use crate::scenario::Framing;

/// Ethernet II header (14 B) + FCS (4 B).
const ETH_HEADER_FCS: u64 = 18;
/// Preamble + start-of-frame delimiter (8 B) and the minimum inter-frame gap (12 B): they occupy
/// the wire though they are not part of the frame (IEEE 802.3 §4.4).
const ETH_PREAMBLE_IFG: u64 = 20;
/// Minimum frame, header and FCS included (IEEE 802.3).
const ETH_MIN_FRAME: u64 = 64;
/// RFC 2684 LLC/SNAP encapsulation (8 B) + AAL5 CPCS trailer (8 B, ITU-T I.363.5).
const AAL5_OVERHEAD: u64 = 16;
const ATM_CELL_PAYLOAD: u64 = 48;
const ATM_CELL: u64 = 53;

/// Bytes on the wire for an IP packet of `ip_bytes`.
#[inline]
pub fn wire_bytes(framing: Framing, ip_bytes: u64) -> u64 {
    match framing {
        Framing::None => ip_bytes,
        Framing::Ethernet => (ip_bytes + ETH_HEADER_FCS).max(ETH_MIN_FRAME) + ETH_PREAMBLE_IFG,
        Framing::Atm => (ip_bytes + AAL5_OVERHEAD).div_ceil(ATM_CELL_PAYLOAD) * ATM_CELL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atm_cells() {
        // 1500 B: 1516 B of AAL5 PDU -> 32 cells -> 1696 B (the format's own example).
        assert_eq!(wire_bytes(Framing::Atm, 1500), 1696);
        // 29 B: 45 B -> 1 cell.
        assert_eq!(wire_bytes(Framing::Atm, 29), 53);
        // 32 B: exactly one cell payload; 33 B needs two.
        assert_eq!(wire_bytes(Framing::Atm, 32), 53);
        assert_eq!(wire_bytes(Framing::Atm, 33), 106);
    }

    #[test]
    fn ethernet_overhead_and_minimum() {
        assert_eq!(wire_bytes(Framing::Ethernet, 1500), 1538);
        assert_eq!(wire_bytes(Framing::Ethernet, 40), 84);
        assert_eq!(wire_bytes(Framing::Ethernet, 46), 84);
        assert_eq!(wire_bytes(Framing::Ethernet, 47), 85);
        assert_eq!(wire_bytes(Framing::None, 40), 40);
    }
}
