//! The workloads that drive a TCP sender, and their random draws: one function per draw, which
//! the sender calls as it runs and [`replay`] calls on a copy of its stream, so that the draws a
//! run will make can be known before it runs (the kernel backend's hosts play the same
//! transfers, `docs/kernel-backend.md`) and can never drift from the run's.

use crate::dist::Sampler;
use crate::rng::Rng;
use crate::time::{Duration, Instant};

/// What the application does.
#[derive(Clone)]
pub enum Workload {
    /// One connection: `Some(bytes)` then close, or `None` for an endless stream.
    Transfer { size: Option<u64> },
    /// A new connection every exponential gap of mean `mean_gap_ns`, of a size drawn from
    /// `sizes`, until the end of the run.
    Web { mean_gap_ns: f64, sizes: Sampler },
    /// Send a burst drawn from `sizes`, idle for a time drawn from `idle`, repeat.
    OnOff { sizes: Sampler, idle: Sampler },
}

/// The time of the first transfer: the first draw of a sender's stream.
pub(super) fn draw_start(start: &Sampler, rng: &mut Rng) -> Instant {
    Instant::from_ns(start.sample_u64(rng))
}

/// A transfer's size: a web connection's or an on/off burst's (at least one byte).
pub(super) fn draw_size(sizes: &Sampler, rng: &mut Rng) -> u64 {
    sizes.sample_u64(rng).max(1)
}

/// The arrival after one at `now` of web connections at `1 / mean_gap_ns` a nanosecond: an
/// exponential gap (a Poisson process), at least 1 ns.
pub(super) fn draw_next_arrival(mean_gap_ns: f64, rng: &mut Rng, now: Instant) -> Instant {
    let gap: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, rng);
    now.saturating_add(Duration::from_ns(
        (gap * mean_gap_ns).round().max(1.0) as u64
    ))
}

/// An on/off sender's idle time after a burst is acknowledged.
pub(super) fn draw_idle(idle: &Sampler, rng: &mut Rng) -> Duration {
    Duration::from_ns(idle.sample_u64(rng))
}

/// A sender's workload draws in the order it makes them: the start, then per transfer its size
/// and, for web, the next arrival, for on/off, the idle time after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Draws {
    /// When the first transfer begins; at or after the run's end, none does.
    pub start: Instant,
    /// Each transfer's size in order (one for a sized transfer, none for an endless stream).
    pub sizes_bytes: Vec<u64>,
    /// Web: each transfer's arrival (the first at `start`), every one before the run's end.
    pub arrivals: Vec<Instant>,
    /// On/off: the idle time after each transfer (`idles[i]` after `sizes_bytes[i]`). The
    /// sender is closed-loop: when a transfer begins depends on when the last one completed,
    /// but not which draw it takes.
    pub idles: Vec<Duration>,
    /// False when the draws stopped at the limit before the run's end could be reached.
    pub complete: bool,
}

/// The draws a sender of workload `work` with start law `start`, stream `rng` and end `stop`
/// makes in a run, at most `limit` transfers of them. Web: every arrival before `stop`. On/off:
/// every transfer that may begin before `stop`: transfer `i` begins no earlier than `start`
/// plus the idle times before it, so the draws stop once those reach `stop`.
pub fn replay(
    work: &Workload,
    start: &Sampler,
    mut rng: Rng,
    stop: Instant,
    limit: usize,
) -> Draws {
    let t0 = draw_start(start, &mut rng);
    let mut d = Draws {
        start: t0,
        sizes_bytes: Vec::new(),
        arrivals: Vec::new(),
        idles: Vec::new(),
        complete: true,
    };
    if t0 >= stop {
        return d;
    }
    match work {
        Workload::Transfer { size } => d.sizes_bytes.extend(*size),
        Workload::Web { mean_gap_ns, sizes } => {
            let mut now = t0;
            loop {
                if d.sizes_bytes.len() >= limit {
                    d.complete = false;
                    break;
                }
                d.sizes_bytes.push(draw_size(sizes, &mut rng));
                d.arrivals.push(now);
                now = draw_next_arrival(*mean_gap_ns, &mut rng, now);
                if now >= stop {
                    break;
                }
            }
        }
        Workload::OnOff { sizes, idle } => {
            let mut earliest = t0;
            loop {
                if d.sizes_bytes.len() >= limit {
                    d.complete = false;
                    break;
                }
                d.sizes_bytes.push(draw_size(sizes, &mut rng));
                let gap = draw_idle(idle, &mut rng);
                d.idles.push(gap);
                earliest = earliest.saturating_add(gap);
                if earliest >= stop {
                    break;
                }
            }
        }
    }
    d
}
