//! The real bytes of the packets inside the engine, one slot per arena slot (the engine's
//! packets are headers without payload). A slot is the packet's own from injection until it is
//! delivered or dropped, and the engine reuses arena slots, so the slab grows to the engine's
//! peak packet count and then allocates nothing.

/// Largest IP packet kept: the TUN's 1500 B MTU with room to spare.
pub const SLOT_BYTES: usize = 2048;

#[derive(Default)]
pub struct Slab {
    bytes: Vec<u8>,
    len: Vec<u16>,
}

impl Slab {
    /// Keep `pkt` (at most [`SLOT_BYTES`]) as slot `id`'s bytes.
    pub fn put(&mut self, id: u32, pkt: &[u8]) {
        let i = id as usize;
        if i >= self.len.len() {
            let n = (i + 1).next_power_of_two().max(1024);
            self.len.resize(n, 0);
            self.bytes.resize(n * SLOT_BYTES, 0);
        }
        self.len[i] = pkt.len() as u16;
        self.bytes[i * SLOT_BYTES..i * SLOT_BYTES + pkt.len()].copy_from_slice(pkt);
    }

    /// Slot `id`'s bytes.
    pub fn get_mut(&mut self, id: u32) -> &mut [u8] {
        let i = id as usize;
        let n = self.len.get(i).copied().unwrap_or(0) as usize;
        if n == 0 {
            return &mut [];
        }
        &mut self.bytes[i * SLOT_BYTES..i * SLOT_BYTES + n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_their_bytes_and_are_reused() {
        let mut s = Slab::default();
        s.put(3, &[1, 2, 3]);
        s.put(5000, &[9; 1500]);
        assert_eq!(s.get_mut(3), &[1, 2, 3]);
        assert_eq!(s.get_mut(5000).len(), 1500);
        s.put(3, &[7]);
        assert_eq!(s.get_mut(3), &[7]);
        assert!(s.get_mut(4).is_empty());
        assert!(s.get_mut(1 << 30).is_empty());
    }
}
