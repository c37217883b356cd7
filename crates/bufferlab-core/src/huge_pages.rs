//! Asking the kernel to back the process's heap with transparent huge pages.
//!
//! A many-flow run touches tens of megabytes at random (the packet arena, 8,000 ports, 2,000
//! connections' state, scoreboards and histograms): with 4 KiB pages its lines are also TLB
//! misses, and the processor's page walks hold up the look-ahead's prefetches (a prefetch whose
//! page is not in the TLB waits for the walk). 2 MiB pages cover that working set with a few
//! dozen TLB entries. Where transparent huge pages are in `madvise` mode (the common default),
//! memory gets them only when asked: `madvise(MADV_HUGEPAGE)` marks the heap's mappings, and
//! `madvise(MADV_COLLAPSE)` (Linux 6.1+) rebuilds the pages already there as huge ones at once
//! instead of waiting for `khugepaged` (Documentation/admin-guide/mm/transhuge.rst).
//!
//! Neither call changes a byte of memory, so no result changes; both only advise, and a kernel
//! that refuses (older, THP off, no memory to spare) leaves the run as it was. The heap grows
//! during a run (the arena, the rings) into new mappings, so the engine asks again now and then
//! ([`crate::engine::Engine`]); a mapping already backed costs the kernel a walk of its page
//! tables, a few milliseconds for the whole heap.
//!
//! A collapse copies what it rebuilds, at some 0.35–0.45 GB/s on the 2-vCPU machine of
//! `docs/BENCHMARKS.md` (0.55 s for the 240 MB heap of `stanford-10G-10000`'s build): more than
//! the ~10% of CPU time the huge pages then save in a run of a few seconds. So a heap that grew
//! by more than [`COLLAPSE_MAX`] since the last collapse is only marked: what is faulted in
//! after that gets huge pages, what is already there keeps its small ones.
//!
//! The system calls are the only `unsafe` code of this crate (`Cargo.toml` denies it elsewhere).
#![allow(unsafe_code)]

/// Transparent huge pages' size on x86-64 and most other 64-bit Linux targets.
const HUGE: usize = 2 << 20;

/// Anonymous private writable mappings of at least `HUGE` bytes (the heap, `malloc`'s large
/// chunks) in `/proc/self/maps` text, as (start, end) addresses.
fn heap_ranges(maps: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    maps.lines().filter_map(|line| {
        let mut it = line.split_whitespace();
        let (range, perms) = (it.next()?, it.next()?);
        // offset, device, inode, then the path (none for an anonymous mapping).
        let path = it.nth(3).unwrap_or("");
        if perms != "rw-p" || !(path.is_empty() || path == "[heap]") {
            return None;
        }
        let (a, b) = range.split_once('-')?;
        let a = usize::from_str_radix(a, 16).ok()?;
        let b = usize::from_str_radix(b, 16).ok()?;
        (b >= a + HUGE).then_some((a, b))
    })
}

/// The most the heap may have grown since the last collapse for the next one to be made.
const COLLAPSE_MAX: usize = 128 << 20;

/// What the engine has asked for so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePages {
    /// The heap's size at the last collapse.
    collapsed: usize,
}

impl HugePages {
    /// Ask for huge pages under the process's heap (see the module's text): marked always,
    /// rebuilt at once if it grew by at most [`COLLAPSE_MAX`] since the last time. Returns the
    /// heap's size (0 where the platform has no transparent huge pages).
    pub fn back_heap(&mut self) -> usize {
        #[cfg(target_os = "linux")]
        {
            let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
                return 0;
            };
            let bytes: usize = heap_ranges(&maps).map(|(a, b)| b - a).sum();
            let collapse = bytes.saturating_sub(self.collapsed) <= COLLAPSE_MAX;
            for (a, b) in heap_ranges(&maps) {
                advise(a, b - a, collapse);
            }
            if collapse {
                self.collapsed = bytes;
            }
            bytes
        }
        #[cfg(not(target_os = "linux"))]
        0
    }
}

#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize, collapse: bool) {
    /// `MADV_COLLAPSE` (Linux 6.1), not in every `libc` release for every target.
    const MADV_COLLAPSE: libc::c_int = 25;
    let addr = start as *mut libc::c_void;
    // SAFETY: `[start, start + len)` is a whole mapping of this process, page-aligned as the
    // kernel listed it. Both advices keep every byte's value (a collapse copies the pages into
    // a huge one and maps it in their place atomically) and never unmap or protect anything, so
    // no Rust reference into the range is invalidated; a range that is gone by now (another
    // thread freed it) makes the call fail with ENOMEM, which is ignored, as is every other
    // refusal (the advice is a hint).
    unsafe {
        libc::madvise(addr, len, libc::MADV_HUGEPAGE);
        if collapse {
            libc::madvise(addr, len, MADV_COLLAPSE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_ranges_are_the_large_anonymous_writable_mappings() {
        let maps = "\
55a3c5974000-55a3c9850000 rw-p 00000000 00:00 0                          [heap]
7f07ba964000-7f07bb365000 rw-p 00000000 00:00 0 
7f07bb365000-7f07bb366000 rw-p 00000000 00:00 0 
7f07bbae7000-7f07bbd68000 r--p 00000000 00:00 0 
7f07bc000000-7f07bc400000 rw-p 00001000 08:01 1234                       /usr/lib/libc.so.6
7ffc0554d000-7ffc0596e000 rw-p 00000000 00:00 0                          [stack]
";
        let got: Vec<_> = heap_ranges(maps).collect();
        assert_eq!(
            got,
            vec![
                (0x55a3c5974000, 0x55a3c9850000),
                (0x7f07ba964000, 0x7f07bb365000)
            ]
        );
    }

    /// The advice changes no byte of what the heap holds.
    #[test]
    fn backing_the_heap_keeps_its_contents() {
        let v: Vec<u64> = (0..(1u64 << 20))
            .map(|i| i.wrapping_mul(0x9e37_79b9))
            .collect();
        let w: Vec<u32> = (0..1000).collect();
        HugePages::default().back_heap();
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &x)| x == (i as u64).wrapping_mul(0x9e37_79b9)));
        assert!(w.iter().enumerate().all(|(i, &x)| x == i as u32));
    }
}
