//! `cargo run --release --example run_plan -- PLAN.json`: run one plan (the JSON that
//! `bufferlab validate --plan` or `Scenario.plan` gives) in the engine alone and print its engine
//! figures, for profiling a scenario without the Python front (`perf record`).
//! `run_plan PLAN.json SUMMARY.json` also writes the run's summary (to compare two engines' runs
//! field by field: only `engine.wall_seconds` may differ).

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_plan PLAN.json [SUMMARY.json]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let sc: bufferlab_core::scenario::Scenario = serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let t0 = std::time::Instant::now();
    match bufferlab_core::simulate::run(&sc) {
        Ok(out) => {
            let wall = t0.elapsed().as_secs_f64();
            let e = &out.summary.engine;
            println!(
                "{} events, {} packets in {wall:.3} s: {:.2} M events/s, {:.2} M packets/s",
                e.events,
                e.packets,
                e.events as f64 / wall / 1e6,
                e.packets as f64 / wall / 1e6
            );
            if let Some(out_path) = std::env::args().nth(2) {
                let text = serde_json::to_string_pretty(&out.summary).expect("summary serializes");
                std::fs::write(&out_path, text).unwrap_or_else(|e| {
                    eprintln!("{out_path}: {e}");
                    std::process::exit(2)
                });
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
