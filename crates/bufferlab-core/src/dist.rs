//! The scenario's distributions ([`Dist`], re-exported by [`crate::scenario`]) and sampling them.

use rand::Rng as _;
use rand_distr::{Distribution, Exp, LogNormal, Pareto};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rng::Rng;

/// A random variable; times in ns, sizes in bytes.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Const {
        value: f64,
    },
    Exp {
        mean: f64,
    },
    Uniform {
        lo: f64,
        hi: f64,
    },
    /// Values `k * unit` for `k` in `1..=max`, P(k) proportional to k^-s.
    Zipf {
        s: f64,
        max: u64,
        unit: f64,
    },
    /// Pareto with shape `shape` (> 1) and the given mean.
    Pareto {
        shape: f64,
        mean: f64,
    },
    /// Lognormal with the given mean and standard deviation (of the variable, not of its log).
    Lognormal {
        mean: f64,
        sd: f64,
    },
}

/// A distribution ready to sample: checked and with its derived constants computed once.
#[derive(Clone, Debug)]
pub enum Sampler {
    Const(f64),
    Exp(Exp<f64>),
    Uniform(f64, f64),
    /// Cumulative probabilities of k = 1..=max, and the unit.
    Zipf(Box<[f64]>, f64),
    Pareto(Pareto<f64>),
    LogNormal(LogNormal<f64>),
}

/// Zipf supports are tabulated; beyond this many values the table would be too large.
pub const ZIPF_MAX_SUPPORT: u64 = 10_000_000;

/// What is wrong with a distribution [`Sampler::new`] refuses, in the scenario's terms (the
/// front end's parser catches these first; a plan written by hand reaches this).
fn invalid(d: &Dist) -> String {
    match *d {
        Dist::Const { value } => {
            format!("const: the value must be finite and at least 0 (got {value})")
        }
        Dist::Exp { mean } => format!("exp: the mean must be finite and above 0 (got {mean})"),
        Dist::Uniform { lo, hi } => {
            format!("uniform: the bounds must be finite with 0 <= lo <= hi (got lo {lo}, hi {hi})")
        }
        Dist::Zipf { s, max, unit } => format!(
            "zipf: s and the unit must be finite and above 0, and max between 1 and \
             {ZIPF_MAX_SUPPORT} values, the most the engine tabulates (got s {s}, max {max}, \
             unit {unit})"
        ),
        Dist::Pareto { shape, mean } => format!(
            "pareto: the shape must be above 1 (a finite mean) and the mean finite and above 0 \
             (got shape {shape}, mean {mean})"
        ),
        Dist::Lognormal { mean, sd } => format!(
            "lognormal: the mean must be finite and above 0 and sd finite and at least 0 (got \
             mean {mean}, sd {sd})"
        ),
    }
}

impl Sampler {
    pub fn new(d: &Dist) -> Result<Sampler, String> {
        let finite_pos = |x: f64| x.is_finite() && x > 0.0;
        Ok(match *d {
            Dist::Const { value } if value.is_finite() && value >= 0.0 => Sampler::Const(value),
            Dist::Exp { mean } if finite_pos(mean) => {
                Sampler::Exp(Exp::new(1.0 / mean).map_err(|e| e.to_string())?)
            }
            Dist::Uniform { lo, hi }
                if lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi =>
            {
                Sampler::Uniform(lo, hi)
            }
            Dist::Zipf { s, max, unit }
                if finite_pos(s) && (1..=ZIPF_MAX_SUPPORT).contains(&max) && finite_pos(unit) =>
            {
                let mut cdf = Vec::with_capacity(max as usize);
                let mut acc = 0.0;
                for k in 1..=max {
                    acc += (k as f64).powf(-s);
                    cdf.push(acc);
                }
                for c in &mut cdf {
                    *c /= acc;
                }
                Sampler::Zipf(cdf.into_boxed_slice(), unit)
            }
            // Pareto with shape a and scale x_m has mean a x_m / (a - 1) for a > 1.
            Dist::Pareto { shape, mean }
                if finite_pos(mean) && shape.is_finite() && shape > 1.0 =>
            {
                let scale = mean * (shape - 1.0) / shape;
                Sampler::Pareto(Pareto::new(scale, shape).map_err(|e| e.to_string())?)
            }
            // Lognormal: sigma^2 = ln(1 + sd^2/mean^2), mu = ln(mean) - sigma^2/2.
            Dist::Lognormal { mean, sd } if finite_pos(mean) && sd.is_finite() && sd >= 0.0 => {
                let s2 = (1.0 + (sd / mean).powi(2)).ln();
                Sampler::LogNormal(
                    LogNormal::new(mean.ln() - s2 / 2.0, s2.sqrt()).map_err(|e| e.to_string())?,
                )
            }
            ref other => return Err(invalid(other)),
        })
    }

    /// The mean of the distribution (for checks and sizing).
    pub fn mean(&self) -> f64 {
        match self {
            Sampler::Const(v) => *v,
            Sampler::Exp(_) | Sampler::Pareto(_) | Sampler::LogNormal(_) | Sampler::Zipf(..) => {
                f64::NAN
            }
            Sampler::Uniform(a, b) => (a + b) / 2.0,
        }
    }

    #[inline]
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            Sampler::Const(v) => *v,
            Sampler::Exp(d) => d.sample(rng),
            Sampler::Uniform(a, b) => {
                if a == b {
                    *a
                } else {
                    rng.gen_range(*a..*b)
                }
            }
            Sampler::Zipf(cdf, unit) => {
                let u: f64 = rng.gen();
                let k = cdf.partition_point(|&c| c < u) + 1;
                k.min(cdf.len()) as f64 * unit
            }
            Sampler::Pareto(d) => d.sample(rng),
            Sampler::LogNormal(d) => d.sample(rng),
        }
    }

    /// A sample rounded to a non-negative integer (ns or bytes).
    #[inline]
    pub fn sample_u64(&self, rng: &mut Rng) -> u64 {
        let v = self.sample(rng);
        if v.is_finite() && v > 0.0 {
            v.round().min(u64::MAX as f64 / 2.0) as u64
        } else {
            0
        }
    }
}

/// `n` draws of `d`, each rounded to a non-negative integer (ns or bytes), from the run's
/// `seed`: the per-pair access delays of a template topology. Drawn here, with the engine's
/// sampler and stream family, so a scenario has one random family and one copy of each law;
/// the resolved plan then carries the drawn values, which every backend builds alike.
pub fn draw_n(d: &Dist, seed: u64, n: usize) -> Result<Vec<u64>, String> {
    let s = Sampler::new(d)?;
    let mut rng = crate::rng::stream(seed, crate::rng::Stream::Access, 0);
    Ok((0..n).map(|_| s.sample_u64(&mut rng)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    fn mean_of(d: Dist, n: usize) -> f64 {
        let s = Sampler::new(&d).unwrap();
        let mut r = stream(1, Stream::Traffic, 0);
        (0..n).map(|_| s.sample(&mut r)).sum::<f64>() / n as f64
    }

    #[test]
    fn means_match() {
        assert!((mean_of(Dist::Exp { mean: 2.0 }, 200_000) - 2.0).abs() < 0.03);
        assert!((mean_of(Dist::Uniform { lo: 1.0, hi: 3.0 }, 100_000) - 2.0).abs() < 0.02);
        assert!(
            (mean_of(
                Dist::Lognormal {
                    mean: 130.0,
                    sd: 30.0
                },
                200_000
            ) - 130.0)
                .abs()
                < 1.0
        );
        assert!(
            (mean_of(
                Dist::Pareto {
                    shape: 2.5,
                    mean: 36.0
                },
                400_000
            ) - 36.0)
                .abs()
                < 1.0
        );
    }

    #[test]
    fn zipf_frequencies() {
        // P(1)/P(2) = 2^s.
        let s = Sampler::new(&Dist::Zipf {
            s: 1.7,
            max: 1000,
            unit: 1.0,
        })
        .unwrap();
        let mut r = stream(2, Stream::Traffic, 0);
        let (mut ones, mut twos) = (0.0, 0.0);
        for _ in 0..200_000 {
            match s.sample(&mut r) as u64 {
                1 => ones += 1.0,
                2 => twos += 1.0,
                _ => {}
            }
        }
        assert!((ones / twos - 2f64.powf(1.7)).abs() < 0.1);
    }

    #[test]
    fn draws_are_the_seeds_and_the_laws() {
        let d = Dist::Uniform {
            lo: 10.0e6,
            hi: 500.0e6,
        };
        let a = draw_n(&d, 4, 1000).unwrap();
        assert_eq!(a, draw_n(&d, 4, 1000).unwrap(), "same seed, same draws");
        assert_ne!(a, draw_n(&d, 5, 1000).unwrap(), "another seed, other draws");
        assert!(a.iter().all(|&v| (10_000_000..=500_000_000).contains(&v)));
        let mean = a.iter().sum::<u64>() as f64 / a.len() as f64;
        // Uniform(10, 500) ms: mean 255 ms, standard error of 1000 draws 4.5 ms.
        assert!((mean - 255.0e6).abs() < 15.0e6, "{mean}");
        assert!(draw_n(&Dist::Exp { mean: -1.0 }, 1, 3).is_err());
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(Sampler::new(&Dist::Exp { mean: 0.0 }).is_err());
        assert!(Sampler::new(&Dist::Pareto {
            shape: 1.0,
            mean: 5.0
        })
        .is_err());
        assert!(Sampler::new(&Dist::Uniform { lo: 3.0, hi: 1.0 }).is_err());
        assert!(Sampler::new(&Dist::Zipf {
            s: 1.0,
            max: 0,
            unit: 1.0
        })
        .is_err());
        // The message says what the bound is, not the engine's names for the fields.
        let e = Sampler::new(&Dist::Zipf {
            s: 1.7,
            max: ZIPF_MAX_SUPPORT + 1,
            unit: 1448.0,
        })
        .unwrap_err();
        assert!(
            e.starts_with("zipf: ") && e.contains("10000000 values"),
            "{e}"
        );
        assert!(!e.contains("Zipf {"), "{e}");
    }
}
