//! The engine's criterion benchmarks live in `benches/engine.rs` (`cargo bench -p
//! bufferlab-bench`); they run the built-in benchmark scenarios of `bufferlab_core::bench`. This
//! library is empty: a package needs a library or a binary beside its benchmarks.
