//! `bufferlab._core.KernelNet`: the kernel backend seen from Python. The scenario's network runs
//! on a Rust thread against the wall clock (the GIL is not needed while it runs); Python starts
//! the programs in the namespaces and watches the clock.

use bufferlab_core::metrics::hist::Hist;
use bufferlab_core::time::Duration;
use std::net::Ipv4Addr;

use bufferlab_kernel::netns::{node_addr, HostSpec};
use bufferlab_kernel::Session;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{distributions, parse, tables};

/// One host: its node id, name, `net.*` sysctls inside its namespace and extra `ip route`
/// arguments per destination node.
type HostArg = (
    u32,
    String,
    Vec<(String, String)>,
    Vec<(u32, String)>,
    Vec<(String, String)>,
);

#[pyclass(unsendable)]
struct KernelNet {
    s: Session,
}

#[pymethods]
impl KernelNet {
    /// Build the network of `plan_json` and create one namespace per host.
    #[new]
    fn new(py: Python<'_>, plan_json: &str, hosts: Vec<HostArg>) -> PyResult<Self> {
        let sc = parse(plan_json)?;
        let specs: Vec<HostSpec> = hosts
            .into_iter()
            .map(|(node, name, sysctls, routes, link)| HostSpec {
                node,
                name,
                addr: node_addr(node),
                sysctls,
                routes: routes
                    .into_iter()
                    .map(|(dst, extra)| (node_addr(dst), extra))
                    .collect(),
                link,
            })
            .collect();
        let s = py
            .allow_threads(|| Session::create(&sc, specs))
            .map_err(PyValueError::new_err)?;
        Ok(KernelNet { s })
    }

    /// (node id, name, namespace, address) of every host.
    fn hosts(&self) -> Vec<(u32, String, String, String)> {
        self.s
            .hosts()
            .map(|(h, ns)| (h.node, h.name.clone(), ns.to_string(), h.addr.to_string()))
            .collect()
    }

    /// Run the network from CLOCK_MONOTONIC time `t0_ns` (`time.monotonic_ns()`) for
    /// `duration_ns`; `spin_ns` of busy polling before each event, and `keep_awake` (every core
    /// kept out of its idle state by idle-priority spinners), trade CPU for precision.
    /// The scenario's packet captures go into `capture_dir` if given.
    #[pyo3(signature = (t0_ns, duration_ns, spin_ns=0, capture_dir=None, keep_awake=false))]
    fn start(
        &mut self,
        t0_ns: u64,
        duration_ns: u64,
        spin_ns: u64,
        capture_dir: Option<std::path::PathBuf>,
        keep_awake: bool,
    ) -> PyResult<()> {
        self.s
            .start(
                t0_ns,
                Duration::from_ns(duration_ns),
                bufferlab_kernel::driver::Precision {
                    spin_ns: Duration::from_ns(spin_ns),
                    keep_awake,
                },
                capture_dir.as_deref(),
            )
            .map_err(PyRuntimeError::new_err)
    }

    /// Run time reached, in seconds.
    fn elapsed(&self) -> f64 {
        self.s.elapsed_ns().secs()
    }

    fn running(&self) -> bool {
        self.s.running()
    }

    fn stop(&self) {
        self.s.stop()
    }

    /// Wait for the end of the run; the same dict as `run()`, plus "driver": the wall clock's
    /// figures (packets in and out, delivery lateness quantiles in seconds).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = py
            .allow_threads(|| self.s.finish())
            .map_err(PyRuntimeError::new_err)?;
        let d = PyDict::new(py);
        d.set_item("summary", out.summary_json())?;
        let (ts, tr) = tables(py, &out)?;
        d.set_item("timeseries", ts)?;
        d.set_item("transfers", tr)?;
        d.set_item("distributions", distributions(py, &out)?)?;
        let st = self.s.stats();
        let drv = PyDict::new(py);
        drv.set_item("pkts_in", st.pkts_in)?;
        drv.set_item("pkts_out", st.pkts_out)?;
        drv.set_item("not_ipv4", st.not_ipv4)?;
        drv.set_item("no_host", st.no_host)?;
        drv.set_item("write_errors", st.write_errors)?;
        drv.set_item("wakeups", st.wakeups)?;
        drv.set_item("icmp_time_exceeded", st.icmp_time_exceeded)?;
        drv.set_item("icmp_rate_limited", st.icmp_rate_limited)?;
        drv.set_item("realtime_priority", st.realtime_priority)?;
        drv.set_item("spin_us", st.spin.as_ns() as f64 / 1e3)?;
        drv.set_item("awake_cores", st.awake_cores)?;
        for (k, q) in [("lateness_p50_s", 0.5), ("lateness_p99_s", 0.99)] {
            drv.set_item(k, st.lateness.quantile(q).map(|v| v as f64 / 1e9))?;
        }
        drv.set_item("lateness_max_s", st.lateness.max().map(|v| v as f64 / 1e9))?;
        drv.set_item(
            "min_round_trip_s",
            self.s.min_round_trip().map(|d| d.as_ns() as f64 / 1e9),
        )?;
        d.set_item("driver", drv)?;
        Ok(d)
    }

    /// Stop the network and remove the namespaces (also done when the object is dropped).
    fn close(&mut self) {
        self.s.close()
    }
}

/// What the machine lacks for the kernel backend (one line), or None.
#[pyfunction]
fn kernel_preflight() -> Option<String> {
    bufferlab_kernel::preflight().err()
}

/// Remove namespaces left by killed runs; returns their names.
#[pyfunction]
fn kernel_cleanup() -> Vec<String> {
    bufferlab_kernel::cleanup()
}

/// The address of node `id` inside the namespaces.
#[pyfunction]
fn kernel_node_addr(id: u32) -> String {
    let a: Ipv4Addr = node_addr(id);
    a.to_string()
}

/// Round-trip times measured on the hosts (`TCP_INFO` samples, echo replies) in the simulator's
/// RTT histogram, so a kernel run's `rtt_s` CDF and percentiles have the simulator's buckets:
/// (mean, p50, p99 in seconds, CDF values in seconds, CDF fractions).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn kernel_rtt_distribution(
    samples_ns: Vec<u64>,
) -> (Option<f64>, Option<f64>, Option<f64>, Vec<f64>, Vec<f64>) {
    let mut h = Hist::default();
    for v in samples_ns {
        h.record(v);
    }
    let s = |v: u64| v as f64 / 1e9;
    let (values, cdf) = h.cdf().into_iter().map(|(v, c)| (s(v), c)).unzip();
    (
        h.mean().map(|m| m / 1e9),
        h.quantile(0.5).map(s),
        h.quantile(0.99).map(s),
        values,
        cdf,
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<KernelNet>()?;
    m.add_function(wrap_pyfunction!(kernel_rtt_distribution, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_preflight, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_cleanup, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_node_addr, m)?)?;
    m.add(
        "KERNEL_FLOW_PORT_BASE",
        bufferlab_kernel::driver::FLOW_PORT_BASE,
    )?;
    Ok(())
}
