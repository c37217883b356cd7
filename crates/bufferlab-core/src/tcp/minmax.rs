//! A windowed maximum in constant space: the largest value seen over the last `win` units of
//! time (round trips for BBR's bandwidth filter), from three samples — the best, and the best of
//! the later quarter and half of the window, which take over as the best ages out. Kathleen
//! Nichols' algorithm, as Linux keeps it in `lib/win_minmax.c` (`minmax_running_max`) for BBR's
//! `bw` filter; the result is exact whenever the maximum is one of the three kept, and otherwise
//! a value from the window no smaller than the one it replaced.

/// One sample: its time (in the filter's unit) and value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

/// The windowed maximum: `s[0]` the best, `s[1]` and `s[2]` the second and third choices, each
/// no older than the one before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The current maximum (0 before any sample).
    #[inline]
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forget everything: `v` at time `t` is the only sample.
    pub fn reset(&mut self, t: u64, v: u64) -> u64 {
        let s = Sample { t, v };
        self.s = [s; 3];
        v
    }

    /// Take `v` measured at time `t` (times never decrease) into a window of `win`; the maximum.
    pub fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let new = Sample { t, v };
        // A new best, or every kept sample older than the window: start over from this one.
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = new;
            self.s[2] = new;
        } else if v >= self.s[2].v {
            self.s[2] = new;
        }
        self.age(win, new)
    }

    /// Let the best age out of the window, and refresh the later choices when a quarter (second
    /// choice) or half (third) of the window has passed without one.
    fn age(&mut self, win: u64, new: Sample) -> u64 {
        let dt = new.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best is too old: the later choices move up, the new sample is the last; the
            // second choice may be too old as well.
            self.shift_in(new);
            if new.t.saturating_sub(self.s[0].t) > win {
                self.shift_in(new);
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = new;
        }
        self.s[0].v
    }

    fn shift_in(&mut self, new: Sample) {
        self.s[0] = self.s[1];
        self.s[1] = self.s[2];
        self.s[2] = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_maximum_of_the_window() {
        let mut m = WindowedMax::default();
        assert_eq!(m.update(10, 0, 100), 100);
        // Smaller values inside the window leave the maximum.
        for t in 1..=10 {
            assert_eq!(m.update(10, t, 50 + t), 100);
        }
        // Round 11: the best (round 0) is 11 rounds old; a later choice takes over.
        let v = m.update(10, 11, 40);
        assert!((50..100).contains(&v), "{v}");
        // A bigger sample wins at once.
        assert_eq!(m.update(10, 12, 500), 500);
    }

    #[test]
    fn a_falling_rate_is_followed_within_the_window() {
        // The rate halves at round 20: the filter still reports the old rate for the window,
        // then no more than a window (plus the sub-window refresh) after the last old sample.
        let mut m = WindowedMax::default();
        let mut t_new = None;
        for t in 0..60u64 {
            let v = if t < 20 { 1000 } else { 500 };
            let got = m.update(10, t, v);
            if t < 20 {
                assert_eq!(got, 1000);
            } else if got == 500 && t_new.is_none() {
                t_new = Some(t);
            }
        }
        let t = t_new.expect("the filter followed the fall");
        assert!((29..=31).contains(&t), "followed at round {t}");
    }

    #[test]
    fn exact_against_a_brute_force_window_on_monotone_runs() {
        // On a rising then falling sequence the three kept samples suffice: compare with the
        // true maximum of the last `win` + 1 rounds.
        let win = 10u64;
        let seq: Vec<u64> = (0..40)
            .map(|t| if t < 20 { t * 10 } else { 400 - t * 10 })
            .collect();
        let mut m = WindowedMax::default();
        for (t, &v) in seq.iter().enumerate() {
            let got = m.update(win, t as u64, v);
            let lo = (t as u64).saturating_sub(win) as usize;
            let truth = *seq[lo..=t].iter().max().unwrap();
            assert!(
                got <= truth.max(seq[t]) && got >= v,
                "t {t}: {got} vs {truth}"
            );
        }
    }
}
