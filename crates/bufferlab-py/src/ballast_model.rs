//! The ballast's closed forms (Braud et al. §II, eqs. 5–7) as Python functions: the engine's own
//! `ballast::model`, so the reproduction of the paper's model and the ballast controller use
//! one copy of each equation.

use bufferlab_core::ballast::model;
use pyo3::prelude::*;

/// Eq. 6: the UDP packet rate `R_U = R_T (α − 1)` that divides the queueing delay by `alpha`
/// (0 for `alpha` ≤ 1).
#[pyfunction]
pub fn ballast_rate_for_reduction(tcp_pps: f64, alpha: f64) -> f64 {
    model::rate_for_reduction(tcp_pps, alpha)
}

/// Eq. 5 (eq. 6 solved for α): `α = (R_U + R_T) / R_T = 1 + R_U / R_T` (infinite for `R_T` ≤ 0).
#[pyfunction]
pub fn ballast_reduction_for_rate(tcp_pps: f64, udp_pps: f64) -> f64 {
    model::reduction_for_rate(tcp_pps, udp_pps)
}

/// Eq. 7: the UDP stream's share of the bytes, `OH_U = 1 / (1 + (S_T / S_U) / (α − 1))`
/// (0 for `alpha` ≤ 1).
#[pyfunction]
pub fn ballast_overhead_share(alpha: f64, tcp_bytes: f64, udp_bytes: f64) -> f64 {
    model::overhead_share(alpha, tcp_bytes, udp_bytes)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ballast_rate_for_reduction, m)?)?;
    m.add_function(wrap_pyfunction!(ballast_reduction_for_rate, m)?)?;
    m.add_function(wrap_pyfunction!(ballast_overhead_share, m)?)?;
    Ok(())
}
