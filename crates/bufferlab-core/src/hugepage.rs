//! Large arrays the engine walks at random, on huge pages where the kernel offers them.
//!
//! A many-flow run keeps tens of thousands of packets alive (the arena: 6 MB for 2,000 flows,
//! 24 MB for 10,000) beside thousands of ports; each hop reads a packet's slot and a port at an
//! address unrelated to the last, so with 4 KiB pages most of those reads also miss the TLB.
//! Backed by 2 MiB pages (Linux's transparent huge pages, asked for with `MADV_HUGEPAGE` where
//! the system leaves them to each program, `/sys/kernel/mm/transparent_hugepage/enabled` =
//! `madvise`), the arena spans a handful of TLB entries instead of 1,500 (`docs/BENCHMARKS.md`).
//! The hint changes no result: only where the bytes live. Nothing on other systems.

/// Below this many bytes an array cannot hold a whole huge page: no hint.
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Ask for huge pages under the spare capacity of `v` before it is written (the kernel backs a
/// page with a huge one at its first touch, not afterwards).
#[inline]
pub fn advise_spare<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    let bytes = std::mem::size_of_val(spare);
    if bytes < HUGE_PAGE_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    kevy_madvise::advise_hugepage(spare.as_ptr().cast::<u8>(), bytes);
}

/// `v` moved into fresh memory asked to be backed by huge pages (for arrays built once, then
/// read at random for the whole run: the ports, the flows' books).
pub fn rehome<T>(v: Vec<T>) -> Vec<T> {
    if std::mem::size_of::<T>() * v.len() < HUGE_PAGE_BYTES {
        return v;
    }
    let mut out = Vec::with_capacity(v.len());
    advise_spare(&mut out);
    out.extend(v);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hint_keeps_the_contents() {
        let v: Vec<u64> = (0..1_000_000).collect();
        let w = super::rehome(v.clone());
        assert_eq!(v, w);
        let mut small = vec![1u8, 2, 3];
        super::advise_spare(&mut small);
        assert_eq!(small, [1, 2, 3]);
    }
}
