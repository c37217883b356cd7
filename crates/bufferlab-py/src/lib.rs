//! `bufferlab._core`: the engine seen from Python. A scenario crosses once as JSON; results come
//! back as the summary JSON and columns. The GIL is released while the engine runs; a Rust panic
//! becomes a Python `RuntimeError`, never an abort.

mod ballast;
mod ballast_model;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use bufferlab_core::results::RunOutput;
use bufferlab_core::{bench as benches, Scenario};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[cfg(target_os = "linux")]
mod kernel;

fn parse(plan_json: &str) -> PyResult<Scenario> {
    Scenario::from_json(plan_json).map_err(PyValueError::new_err)
}

fn panic_text(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Columns of the time series and transfers tables, as a dict of lists.
fn tables<'py>(
    py: Python<'py>,
    out: &RunOutput,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let ts = PyDict::new(py);
    let t = &out.timeseries;
    ts.set_item("time_s", &t.time_s)?;
    ts.set_item("object", &t.object)?;
    ts.set_item("id", &t.id)?;
    ts.set_item("metric", &t.metric)?;
    ts.set_item("value", &t.value)?;
    let tr = PyDict::new(py);
    let x = &out.transfers;
    tr.set_item(
        "flow",
        x.iter().map(|r| r.flow.as_str()).collect::<Vec<_>>(),
    )?;
    tr.set_item("conn", x.iter().map(|r| r.conn).collect::<Vec<_>>())?;
    tr.set_item(
        "size_bytes",
        x.iter().map(|r| r.size_bytes).collect::<Vec<_>>(),
    )?;
    tr.set_item("start_s", x.iter().map(|r| r.start_s).collect::<Vec<_>>())?;
    tr.set_item(
        "end_s",
        x.iter()
            .map(|r| r.end_s.unwrap_or(f64::NAN))
            .collect::<Vec<_>>(),
    )?;
    tr.set_item(
        "completion_time_s",
        x.iter()
            .map(|r| r.completion_time_s.unwrap_or(f64::NAN))
            .collect::<Vec<_>>(),
    )?;
    Ok((ts, tr))
}

fn distributions<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let x = &out.distributions;
    d.set_item("object", &x.object)?;
    d.set_item("id", &x.id)?;
    d.set_item("metric", &x.metric)?;
    d.set_item("value", &x.value)?;
    d.set_item("cdf", &x.cdf)?;
    Ok(d)
}

/// How often a running engine takes the GIL back: to run Python's signal handlers (Ctrl-C) and
/// the progress callback. The engine offers every 2^16 events (a few ms); taking the GIL only
/// this often keeps the cost out of the event loop.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Run a plan (JSON). Returns {"summary": str, "timeseries": {...}, "transfers": {...},
/// "distributions": {...}}, the last three as dicts of columns.
/// `progress(sim_seconds, events)` is called about every 0.2 s of wall time if given; Ctrl-C
/// stops the run (`KeyboardInterrupt`).
#[pyfunction]
#[pyo3(signature = (plan_json, progress=None))]
fn run<'py>(
    py: Python<'py>,
    plan_json: &str,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = parse(plan_json)?;
    let problems =
        py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| bufferlab_core::check(&sc))));
    match problems {
        Ok(p) if !p.is_empty() => return Err(PyValueError::new_err(p.join("\n"))),
        Ok(_) => {}
        Err(e) => {
            return Err(PyRuntimeError::new_err(format!(
                "engine error: {}",
                panic_text(e)
            )))
        }
    }
    let mut interrupted = false;
    let mut offers: u64 = 0;
    let mut last = Instant::now();
    let res = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            bufferlab_core::run_timed(&sc, |now| {
                // The engine offers every 2^16 events, so this counts its events.
                offers += 1;
                if last.elapsed() < PROGRESS_EVERY {
                    return true;
                }
                last = Instant::now();
                // Take the GIL briefly: deliver progress and notice Ctrl-C.
                Python::with_gil(|py| {
                    if py.check_signals().is_err() {
                        interrupted = true;
                        return false;
                    }
                    if let Some(cb) = &progress {
                        if cb.call1(py, (now as f64 / 1e9, offers << 16)).is_err() {
                            interrupted = true;
                            return false;
                        }
                    }
                    true
                })
            })
        }))
    });
    let out = match res {
        Ok(Ok(out)) => out,
        Ok(Err(_)) if interrupted => return Err(PyKeyboardInterrupt::new_err("run interrupted")),
        Ok(Err(e)) => return Err(PyRuntimeError::new_err(e)),
        Err(e) => {
            return Err(PyRuntimeError::new_err(format!(
                "engine error: {}",
                panic_text(e)
            )))
        }
    };
    let d = PyDict::new(py);
    d.set_item("summary", out.summary_json())?;
    let (ts, tr) = tables(py, &out)?;
    d.set_item("timeseries", ts)?;
    d.set_item("transfers", tr)?;
    d.set_item("distributions", distributions(py, &out)?)?;
    Ok(d)
}

/// Check a plan (JSON) without running it: a list of "path: problem" strings, empty if none.
#[pyfunction]
fn check(py: Python<'_>, plan_json: &str) -> PyResult<Vec<String>> {
    let sc = match Scenario::from_json(plan_json) {
        Ok(sc) => sc,
        Err(e) => return Ok(vec![e]),
    };
    py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| bufferlab_core::check(&sc))))
        .map_err(|e| PyRuntimeError::new_err(format!("engine error: {}", panic_text(e))))
}

/// Check a plan (JSON) and estimate what running it costs: the estimate as JSON (flows,
/// packets, link_packets, busiest_link, busiest_link_packets, events, wall_s, events_per_s).
/// Raises `ValueError` with the plan's problems, one per line.
#[pyfunction]
fn estimate(py: Python<'_>, plan_json: &str) -> PyResult<String> {
    let sc = parse(plan_json)?;
    let r = py
        .allow_threads(|| {
            catch_unwind(AssertUnwindSafe(|| {
                bufferlab_core::estimate::check_and_estimate(&sc)
            }))
        })
        .map_err(|e| PyRuntimeError::new_err(format!("engine error: {}", panic_text(e))))?
        .map_err(|e| PyValueError::new_err(e.join("\n")))?;
    serde_json::to_string(&r).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// The engine's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Names of the built-in benchmarks.
#[pyfunction]
fn bench_names() -> Vec<&'static str> {
    benches::NAMES.to_vec()
}

/// Run a built-in benchmark for `seconds` of simulated time; returns its figures as JSON.
#[pyfunction]
#[pyo3(name = "bench")]
fn run_bench(py: Python<'_>, name: &str, seconds: f64) -> PyResult<String> {
    let r = py
        .allow_threads(|| catch_unwind(AssertUnwindSafe(|| benches::run(name, seconds))))
        .map_err(|e| PyRuntimeError::new_err(format!("engine error: {}", panic_text(e))))?
        .map_err(PyValueError::new_err)?;
    serde_json::to_string(&r).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(bench_names, m)?)?;
    m.add_class::<ballast::PyBallastController>()?;
    ballast_model::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    #[cfg(target_os = "linux")]
    kernel::register(m)?;
    Ok(())
}
