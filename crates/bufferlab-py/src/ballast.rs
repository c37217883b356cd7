//! The ballast controller for the `bufferlab ballast` tool: the engine's own
//! [`AutoController`], driven from Python with the wall clock.

use bufferlab_core::ballast::{AutoConfig, AutoController, Observation};
use bufferlab_core::time::{Duration, Instant};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(name = "BallastController", module = "bufferlab._core")]
pub struct PyBallastController {
    inner: AutoController,
}

#[pymethods]
impl PyBallastController {
    #[new]
    #[pyo3(signature = (*, target_ns=None, max_share=0.2, udp_bytes=29, max_pps=5000.0, period_ns=500_000_000))]
    fn new(
        target_ns: Option<u64>,
        max_share: f64,
        udp_bytes: u32,
        max_pps: f64,
        period_ns: u64,
    ) -> PyResult<Self> {
        if !(max_share > 0.0 && max_share < 1.0) {
            return Err(PyValueError::new_err("max_share must be between 0 and 1"));
        }
        if !(max_pps.is_finite() && max_pps > 0.0) || period_ns == 0 || udp_bytes == 0 {
            return Err(PyValueError::new_err(
                "max_pps, period_ns and udp_bytes must be positive",
            ));
        }
        let cfg = AutoConfig {
            target_queue_ns: target_ns.map(Duration::from_ns),
            max_share,
            udp_bytes,
            max_pps,
            period_ns: Duration::from_ns(period_ns),
            ..AutoConfig::default()
        };
        Ok(PyBallastController {
            inner: AutoController::new(cfg),
        })
    }

    /// Hand the controller the host's TCP counters; get the decision as a dict.
    #[pyo3(signature = (now_ns, data_segs_out, data_bytes_out, srtt_ns=None, min_rtt_ns=None))]
    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        now_ns: u64,
        data_segs_out: u64,
        data_bytes_out: u64,
        srtt_ns: Option<u64>,
        min_rtt_ns: Option<u64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = self.inner.on_observation(Observation {
            now: Instant::from_ns(now_ns),
            data_segs_out,
            data_bytes_out,
            srtt_ns: srtt_ns.map(Duration::from_ns),
            min_rtt_ns: min_rtt_ns.map(Duration::from_ns),
        });
        let out = PyDict::new(py);
        out.set_item("now_ns", d.now.as_ns())?;
        out.set_item("rate_pps", d.rate_pps)?;
        out.set_item("alpha", d.alpha)?;
        out.set_item("tcp_pps", d.tcp_pps)?;
        out.set_item("queue_ns", d.queue_ns.map(Duration::as_ns))?;
        out.set_item("target_ns", d.target_ns.as_ns())?;
        out.set_item("action", d.action.name())?;
        Ok(out)
    }

    #[getter]
    fn period_ns(&self) -> u64 {
        self.inner.config().period_ns.as_ns()
    }
}
