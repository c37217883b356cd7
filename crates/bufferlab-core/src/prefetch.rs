//! A hint to the processor: bring a cache line in now, because it will be read soon.
//!
//! The engine knows one event ahead which packet arrives next; with tens of thousands of packets
//! in flight, that packet's slot is no longer in the cache, and reading it cold cost most of an
//! arrival's time (`docs/BENCHMARKS.md`). A prefetch starts the miss and lets the processor go on
//! with the current event: unlike a plain load, nothing waits for it. It never faults and changes
//! no result; on other architectures it is nothing.

/// Start loading the cache line that holds `x` into every level of the cache.
#[inline(always)]
pub fn line<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(x);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hint_changes_nothing() {
        let v = vec![7u64; 64];
        super::line(&v[10]);
        assert_eq!(v[10], 7);
    }
}
