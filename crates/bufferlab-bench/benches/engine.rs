//! Criterion benchmarks of the engine on the built-in benchmark scenarios (see `src/bench.rs`).
//! Throughput is reported in packets (created by the sources) per second of wall time.

use bufferlab_core::{bench, run};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);
    for name in bench::NAMES {
        let sc = bench::scenario(name, 1.0).expect("built-in benchmark");
        let packets = run(&sc).expect("runs").summary.engine.packets;
        g.throughput(Throughput::Elements(packets));
        g.bench_function(name, |b| b.iter(|| run(&sc).expect("runs")));
    }
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
