//! `bufferlab._core`: the engine seen from Python. A scenario crosses once as JSON; results come
//! back as the summary JSON and columns. The GIL is released while the engine runs; a Rust panic
//! becomes a Python `RuntimeError`, never an abort.

mod ballast;
mod ballast_model;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use bufferlab_core::engine::Engine;
use bufferlab_core::problem::{Problem, Seg};
use bufferlab_core::results::RunOutput;
use bufferlab_core::{bench as benches, Scenario};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    _core,
    PlanError,
    PyValueError,
    "A plan the engine refuses: `args[1]` lists its problems as (loc, message), loc a list of \
     keys and indices from the plan's root."
);

#[cfg(target_os = "linux")]
mod kernel;

/// Problems as Python data: a list of (loc, message), loc a list of str and int.
fn problems_py<'py>(py: Python<'py>, problems: &[Problem]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for p in problems {
        let loc = PyList::empty(py);
        for s in p.loc.segs() {
            match s {
                Seg::Key(k) => loc.append(k)?,
                Seg::Index(i) => loc.append(*i)?,
            }
        }
        out.append((loc, p.message.as_str()))?;
    }
    Ok(out)
}

fn plan_error(problems: &[Problem]) -> PyErr {
    let text = bufferlab_core::problem::join(problems);
    Python::with_gil(|py| match problems_py(py, problems) {
        Ok(list) => PlanError::new_err((text, list.unbind())),
        Err(e) => e,
    })
}

fn parse(plan_json: &str) -> PyResult<Scenario> {
    Scenario::from_json(plan_json).map_err(|p| plan_error(&[p]))
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

/// Parse and build a plan (the build checks it first).
fn build(py: Python<'_>, plan_json: &str) -> PyResult<(Scenario, Engine)> {
    let sc = parse(plan_json)?;
    let eng = build_scenario(py, &sc, None)?;
    Ok((sc, eng))
}

/// Build a typed plan (the build checks it first); `read` is the JSON the scenario reader made
/// it from, when it did (its bounds are walked there: `build::build_read`).
fn build_scenario(
    py: Python<'_>,
    sc: &Scenario,
    read: Option<&serde_json::Value>,
) -> PyResult<Engine> {
    let built = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| match read {
            Some(plan) => bufferlab_core::build::build_read(sc, plan),
            None => bufferlab_core::build::build(sc),
        }))
    });
    match built {
        Ok(Ok(eng)) => Ok(eng),
        Ok(Err(p)) => Err(plan_error(&p)),
        Err(e) => Err(PyRuntimeError::new_err(format!(
            "engine error: {}",
            panic_text(e)
        ))),
    }
}

/// A plan checked and built once, ready to run: `bufferlab._core.prepare(plan_json)`.
/// `estimate()` gives the run's cost before it runs; `run(progress)` runs it (once).
#[pyclass(module = "bufferlab._core")]
struct Prepared {
    sc: Scenario,
    eng: Option<Engine>,
    /// How long the build took: the run's wall time counts it, and not what the caller does
    /// between `prepare` and `run` (an estimate's calibration, a confirmation).
    built_in: Duration,
}

/// Check and build a plan (JSON); raises `PlanError` with its problems.
#[pyfunction]
fn prepare(py: Python<'_>, plan_json: &str) -> PyResult<Prepared> {
    let t0 = Instant::now();
    let (sc, eng) = build(py, plan_json)?;
    Ok(Prepared {
        sc,
        eng: Some(eng),
        built_in: t0.elapsed(),
    })
}

#[pymethods]
impl Prepared {
    /// What running it costs, as JSON (see `estimate`).
    fn estimate(&self) -> PyResult<String> {
        let eng = self
            .eng
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("this plan has already run"))?;
        let e = bufferlab_core::estimate::estimate_here(eng, &self.sc);
        serde_json::to_string(&e).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Run it; as the module's `run`. The plan's packet captures (`run.capture`) are written
    /// into `capture_dir` if it is given (an existing folder), else not at all.
    #[pyo3(signature = (progress=None, capture_dir=None))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        progress: Option<PyObject>,
        capture_dir: Option<std::path::PathBuf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut eng = self
            .eng
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this plan has already run"))?;
        let now = Instant::now();
        let t0 = now.checked_sub(self.built_in).unwrap_or(now);
        if let Some(dir) = capture_dir {
            eng.attach_capture(&dir, false)
                .map_err(pyo3::exceptions::PyOSError::new_err)?;
        }
        run_built(py, eng, t0, progress)
    }
}

/// Run a plan (JSON). Returns {"summary": str, "timeseries": {...}, "transfers": {...},
/// "distributions": {...}}, the last three as dicts of columns.
/// `progress(sim_seconds, events)` is called about every 0.2 s of wall time if given; Ctrl-C
/// stops the run (`KeyboardInterrupt`). A plan the engine refuses raises `PlanError`.
#[pyfunction]
#[pyo3(signature = (plan_json, progress=None))]
fn run<'py>(
    py: Python<'py>,
    plan_json: &str,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    let t0 = Instant::now();
    // One build, which checks the plan first: its problems are the run's.
    let (_, eng) = build(py, plan_json)?;
    run_built(py, eng, t0, progress)
}

fn run_built<'py>(
    py: Python<'py>,
    eng: Engine,
    t0: Instant,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut interrupted = false;
    let mut offers: u64 = 0;
    let mut last = Instant::now();
    let res = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            bufferlab_core::run_engine(eng, t0, |now| {
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
                        if cb.call1(py, (now.secs(), offers << 16)).is_err() {
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

/// Check a plan (JSON) without running it: its problems as (loc, message), empty if none.
#[pyfunction]
fn check<'py>(py: Python<'py>, plan_json: &str) -> PyResult<Bound<'py, PyList>> {
    let problems = match Scenario::from_json(plan_json) {
        Ok(sc) => py
            .allow_threads(|| catch_unwind(AssertUnwindSafe(|| bufferlab_core::check(&sc))))
            .map_err(|e| PyRuntimeError::new_err(format!("engine error: {}", panic_text(e))))?,
        Err(p) => vec![p],
    };
    problems_py(py, &problems)
}

/// The bounds of every number in a plan (JSON), which may be partial (what is missing is not
/// checked): its problems as (loc, message). The scenario reader reports them beside its own.
#[pyfunction]
fn check_bounds<'py>(py: Python<'py>, plan_json: &str) -> PyResult<Bound<'py, PyList>> {
    let plan: serde_json::Value =
        serde_json::from_str(plan_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    problems_py(py, &bufferlab_core::bounds::check_value(&plan))
}

/// A plan the reader made: kept on the engine's side, so that checking and running it need not
/// carry it through JSON; `json()` gives it to Python when asked.
#[pyclass(module = "bufferlab._core", frozen)]
struct Plan {
    value: serde_json::Value,
    sc: Scenario,
}

#[pymethods]
impl Plan {
    /// The plan as the engine's JSON.
    fn json(&self) -> PyResult<String> {
        serde_json::to_string(&self.value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// (duration in ns, seed).
    fn run_spec(&self) -> (u64, u64) {
        (self.sc.run.duration_ns.as_ns(), self.sc.run.seed)
    }

    /// (nodes, link directions, traffic blocks).
    fn counts(&self) -> (usize, usize, usize) {
        (
            self.sc.nodes.len(),
            2 * self.sc.links.len(),
            self.sc.traffic.len(),
        )
    }

    /// Check and build it, as `prepare(plan_json)`.
    fn prepare(&self, py: Python<'_>) -> PyResult<Prepared> {
        let t0 = Instant::now();
        let eng = build_scenario(py, &self.sc, Some(&self.value))?;
        Ok(Prepared {
            sc: self.sc.clone(),
            eng: Some(eng),
            built_in: t0.elapsed(),
        })
    }
}

/// A Python value of a scenario document (from TOML or a dict) as the reader's document.
fn to_doc(v: &Bound<'_, PyAny>) -> PyResult<bufferlab_core::file::Doc> {
    use bufferlab_core::file::Doc;
    use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};
    Ok(if v.is_none() {
        Doc::Null
    } else if v.is_instance_of::<PyBool>() {
        Doc::Bool(v.extract()?)
    } else if v.is_instance_of::<PyInt>() {
        match v.extract::<i128>() {
            Ok(i) => Doc::Int(i),
            Err(_) => Doc::Float(v.extract::<f64>().unwrap_or(f64::INFINITY)),
        }
    } else if v.is_instance_of::<PyFloat>() {
        Doc::Float(v.extract()?)
    } else if v.is_instance_of::<PyString>() {
        Doc::Str(v.extract()?)
    } else if let Ok(d) = v.downcast::<PyDict>() {
        let mut out = Vec::with_capacity(d.len());
        for (k, x) in d.iter() {
            out.push((k.str()?.to_string(), to_doc(&x)?));
        }
        Doc::Table(out)
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        Doc::List(
            v.try_iter()?
                .map(|x| to_doc(&x?))
                .collect::<PyResult<_>>()?,
        )
    } else {
        // A TOML date or time, or another object: read as its text (and refused as such).
        Doc::Str(v.str()?.to_string())
    })
}

/// `(key path, value)` overrides as the reader's.
fn to_overrides(
    o: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(String, bufferlab_core::file::Doc)>> {
    let Some(o) = o else { return Ok(vec![]) };
    o.try_iter()?
        .map(|kv| {
            let kv = kv?;
            Ok((
                kv.get_item(0)?.str()?.to_string(),
                to_doc(&kv.get_item(1)?)?,
            ))
        })
        .collect()
}

/// (file key path, message) pairs.
type ProblemList = Vec<(String, String)>;

type ReadOut = (
    Option<Plan>,
    ProblemList,
    Vec<(String, Vec<String>)>,
    Vec<(String, String)>,
);

/// Read a scenario document (the TOML's values, or a dict): apply the `(key path, value)`
/// overrides, replace `run.seed` by `seed` when given, check every key and expand it into the
/// plan; files it names (link traces) are found from `dir` (the scenario file's folder; the
/// working directory when `None`). Returns `(plan_json or None, problems, groups, origins)`: problems as (file key path,
/// message), groups as (name, nodes), origins as (plan path, file key path).
#[pyfunction]
#[pyo3(signature = (doc, overrides = None, seed = None, engine_check = true, dir = None))]
fn read_scenario(
    py: Python<'_>,
    doc: &Bound<'_, PyAny>,
    overrides: Option<&Bound<'_, PyAny>>,
    seed: Option<u64>,
    engine_check: bool,
    dir: Option<std::path::PathBuf>,
) -> PyResult<ReadOut> {
    use bufferlab_core::file;
    let mut doc = to_doc(doc)?;
    let bad = file::overrides::apply(&mut doc, &to_overrides(overrides)?);
    if !bad.is_empty() {
        return Ok((None, bad, vec![], vec![]));
    }
    let read = py
        .allow_threads(|| {
            catch_unwind(AssertUnwindSafe(|| {
                file::read(&doc, seed, engine_check, &dir.unwrap_or_default())
            }))
        })
        .map_err(|e| PyRuntimeError::new_err(format!("engine error: {}", panic_text(e))))?;
    match read {
        Ok(r) => Ok((
            Some(Plan {
                value: r.plan,
                sc: r.scenario,
            }),
            vec![],
            r.groups,
            r.origins,
        )),
        Err(problems) => Ok((None, problems, vec![], vec![])),
    }
}

/// The reader's document as Python values.
fn from_doc<'py>(py: Python<'py>, d: &bufferlab_core::file::Doc) -> PyResult<Bound<'py, PyAny>> {
    use bufferlab_core::file::Doc;
    Ok(match d {
        Doc::Null => py.None().into_bound(py),
        Doc::Bool(b) => pyo3::types::PyBool::new(py, *b).to_owned().into_any(),
        Doc::Int(i) => i.into_pyobject(py)?.into_any(),
        Doc::Float(f) => f.into_pyobject(py)?.into_any(),
        Doc::Str(s) => s.into_pyobject(py)?.into_any(),
        Doc::List(l) => {
            let out = PyList::empty(py);
            for x in l {
                out.append(from_doc(py, x)?)?;
            }
            out.into_any()
        }
        Doc::Table(t) => {
            let out = PyDict::new(py);
            for (k, x) in t {
                out.set_item(k, from_doc(py, x)?)?;
            }
            out.into_any()
        }
    })
}

/// `(key path, value)` overrides applied to a document: (the new document, the problems of the
/// paths that cannot be set).
#[pyfunction]
fn apply_overrides<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyAny>,
    overrides: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, ProblemList)> {
    let mut doc = to_doc(doc)?;
    let bad = bufferlab_core::file::overrides::apply(&mut doc, &to_overrides(Some(overrides))?);
    Ok((from_doc(py, &doc)?, bad))
}

/// Problems the engine found at plan key paths, placed at the file's keys through a scenario's
/// origins: [(loc, message)] -> [(file key path, message)].
#[pyfunction]
fn place_problems(
    problems: Vec<(Vec<Bound<'_, PyAny>>, String)>,
    origins: Vec<(String, String)>,
) -> PyResult<Vec<(String, String)>> {
    use bufferlab_core::problem::Loc;
    let mut out = Vec::with_capacity(problems.len());
    for (loc, msg) in problems {
        let mut l = Loc::root();
        for step in loc {
            l = match step.extract::<usize>() {
                Ok(i) if !step.is_instance_of::<pyo3::types::PyString>() => l.at(i),
                _ => l.key(&step.str()?.to_string()),
            };
        }
        out.push(l.problem(msg));
    }
    Ok(bufferlab_core::file::place(&out, &origins))
}

/// The keys of each traffic kind (its own; the TCP kinds also take the TCP options).
#[pyfunction]
fn traffic_keys() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    use bufferlab_core::file::traffic;
    traffic::kinds()
        .iter()
        .map(|k| {
            let n = k.keys().len()
                - if k.tcp {
                    bufferlab_core::file::schema::tcp_keys().len()
                } else {
                    0
                };
            (k.kind, k.keys()[..n].to_vec())
        })
        .collect()
}

/// One quantity read as the scenario reader reads it: `kind` is `time`, `rate`, `bit_rate`,
/// `size`, `bytes`, `per_second`, `time_dist` or `size_dist` (sizes in `pkt` of 1448 B). Returns
/// `(value as JSON, None)` or `(None, message)`.
#[pyfunction]
fn parse_quantity(
    kind: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<(Option<String>, Option<String>)> {
    use bufferlab_core::file::law::{self, Quantity};
    use bufferlab_core::file::units::{self, Rate, Size};
    let v = to_doc(value)?;
    let r: Result<serde_json::Value, String> = match kind {
        "time" => units::time_ns(&v).map(serde_json::Value::from),
        "rate" | "bit_rate" => units::rate(&v, kind == "rate").map(|r| match r {
            Rate::Bps(b) => serde_json::json!({ "bps": b }),
            Rate::Pps(p) => serde_json::json!({ "pps": p }),
        }),
        "size" => units::size(&v, true).map(|s| match s {
            Size::Bytes(b) => serde_json::json!({ "bytes": b }),
            Size::Pkts(n) => serde_json::json!({ "pkts": n }),
        }),
        "bytes" => units::bytes(&v).map(serde_json::Value::from),
        "per_second" => units::per_second(&v).map(serde_json::Value::from),
        "time_dist" => law::parse(&v, Quantity::Time),
        "size_dist" => law::parse(
            &v,
            Quantity::Size {
                pkt_bytes: Some(1448),
            },
        ),
        other => return Err(PyValueError::new_err(format!("no quantity {other:?}"))),
    };
    Ok(match r {
        Ok(x) => (Some(x.to_string()), None),
        Err(e) => (None, Some(e)),
    })
}

/// The names the scenario file takes, each declared once in the engine: disciplines, sizing
/// rules, distribution laws, traffic kinds (and which run TCP), topology templates, and the unit
/// suffixes of plan keys (`_ns`: a file key without it is read as a time).
#[pyfunction]
fn file_names() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    use bufferlab_core::file;
    std::collections::BTreeMap::from([
        ("disciplines", file::schema::discipline_names()),
        ("sizing_rules", bufferlab_core::sizing::RULES.to_vec()),
        ("laws", file::law::law_names()),
        ("kinds", file::traffic::kind_names()),
        ("tcp_kinds", file::traffic::tcp_kind_names()),
        ("templates", file::topology::TEMPLATES.to_vec()),
        ("unit_suffixes", file::schema::UNIT_SUFFIXES.to_vec()),
    ])
}

/// The plan's JSON Schema (as JSON): every key with its type, bounds, default and doc line.
/// Names for a message, numbered runs folded and the rest counted past twenty (the reader's own
/// rule, `file::close::name_list`), so that the command line names hosts as the reader does.
#[pyfunction]
fn name_list(names: Vec<String>) -> String {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    bufferlab_core::file::close::name_list(&names)
}

#[pyfunction]
fn plan_schema() -> PyResult<String> {
    serde_json::to_string(&bufferlab_core::scenario::plan_schema())
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// `n` draws of a plan distribution (JSON, e.g. `{"dist": "uniform", "lo": 1e7, "hi": 5e8}`),
/// rounded to non-negative integers, from the run's `seed`: the engine's sampler and random
/// family (the per-pair access delays of a template topology).
#[pyfunction]
fn draw(dist_json: &str, seed: u64, n: usize) -> PyResult<Vec<u64>> {
    let d: bufferlab_core::scenario::Dist =
        serde_json::from_str(dist_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    bufferlab_core::dist::draw_n(&d, seed, n).map_err(PyValueError::new_err)
}

/// Each TCP flow's workload draws in a run of the plan, at most `limit` transfers per flow (the
/// senders replay their own streams: `bufferlab_core::workload_draws`), as dicts: `flow` (its
/// row in the flows table), `id`, `kind`, `src` and `dst` (node ids), `start_ns`,
/// `sizes_bytes`, `arrivals_ns` (web), `idles_ns` (on/off), `complete` (false when cut at
/// `limit`). Raises `PlanError` as a build would.
#[pyfunction]
fn workload_draws<'py>(
    py: Python<'py>,
    plan_json: &str,
    limit: usize,
) -> PyResult<Bound<'py, PyList>> {
    let sc = parse(plan_json)?;
    let draws = py
        .allow_threads(|| {
            catch_unwind(AssertUnwindSafe(|| {
                bufferlab_core::workload_draws(&sc, limit)
            }))
        })
        .map_err(|e| PyRuntimeError::new_err(format!("engine error: {}", panic_text(e))))?
        .map_err(|p| plan_error(&p))?;
    let out = PyList::empty(py);
    for f in draws {
        let d = PyDict::new(py);
        d.set_item("flow", f.flow)?;
        d.set_item("id", f.id)?;
        d.set_item("kind", f.kind)?;
        d.set_item("src", f.src)?;
        d.set_item("dst", f.dst)?;
        let w = f.draws;
        d.set_item("start_ns", w.start.as_ns())?;
        d.set_item("sizes_bytes", w.sizes_bytes)?;
        d.set_item(
            "arrivals_ns",
            w.arrivals.iter().map(|t| t.as_ns()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "idles_ns",
            w.idles.iter().map(|g| g.as_ns()).collect::<Vec<_>>(),
        )?;
        d.set_item("complete", w.complete)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The engine's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// How the engine was compiled: "release", or "pgo" for the profile-guided build of `make pgo`
/// (which sets `BUFFERLAB_BUILD` for the compiler; docs/BENCHMARKS.md gives what it gains).
#[pyfunction]
#[pyo3(name = "build")]
fn build_kind() -> &'static str {
    option_env!("BUFFERLAB_BUILD").unwrap_or("release")
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
    m.add_function(wrap_pyfunction!(build_kind, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(plan_schema, m)?)?;
    m.add_function(wrap_pyfunction!(name_list, m)?)?;
    m.add_function(wrap_pyfunction!(draw, m)?)?;
    m.add_function(wrap_pyfunction!(workload_draws, m)?)?;
    m.add_function(wrap_pyfunction!(check_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(file_names, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(place_problems, m)?)?;
    m.add_function(wrap_pyfunction!(traffic_keys, m)?)?;
    m.add("DEFAULT_SEED", bufferlab_core::file::DEFAULT_SEED)?;
    m.add_function(wrap_pyfunction!(prepare, m)?)?;
    m.add_class::<Prepared>()?;
    m.add_class::<Plan>()?;
    m.add("PlanError", m.py().get_type::<PlanError>())?;
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
