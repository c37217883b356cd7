//! `cargo run --release --example bench -- [SECONDS]`: the built-in benchmarks' figures as JSON.

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    for name in bufferlab_core::bench::NAMES {
        match bufferlab_core::bench::run(name, secs) {
            Ok(r) => println!("{}", serde_json::to_string(&r).expect("serializes")),
            Err(e) => eprintln!("{name}: {e}"),
        }
    }
}
