//! CAKE's DiffServ tins (Høiland-Jørgensen et al. 2018 §III-C; Linux `sch_cake.c`,
//! `cake_config_*` and the codepoint tables): which tin a DSCP goes to, and each tin's share of
//! the bandwidth (its threshold rate, under which it has priority) and DRR weight (used when
//! unshaped).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How packets are sorted into tins by their DSCP (`tc-cake(8)`'s keywords).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Diffserv {
    /// One tin for everything.
    Besteffort,
    /// Bulk (CS1, LE), Best Effort, Voice (TOS4, VA, EF, CS6, CS7): Linux's default.
    #[default]
    Diffserv3,
    /// Bulk (CS1, LE), Best Effort (CS0, AF1x, ...), Video (AF2x-AF4x, CS2, CS3, TOS4), Voice
    /// (CS4, CS5, VA, EF, CS6, CS7).
    Diffserv4,
    /// Eight tins: Bulk, Best Effort, High Throughput, Video Streaming, Low Latency, Shell,
    /// Minimum Latency, Network Control (the RFC 4594 classes pruned to eight).
    Diffserv8,
    /// Eight tins by the old IP precedence (the DSCP's top three bits).
    Precedence,
}

/// One tin's place in its mode: the shift of the bandwidth it has priority up to, and its DRR
/// weight when unshaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TinShare {
    /// The tin's threshold rate is the shaped rate times `num / den`.
    pub(crate) num: u64,
    pub(crate) den: u64,
    /// Weight in DRR between tins when unshaped (Linux `tin_quantum`).
    pub(crate) quantum: i32,
}

impl Diffserv {
    /// Number of tins.
    pub(crate) fn tins(self) -> usize {
        match self {
            Diffserv::Besteffort => 1,
            Diffserv::Diffserv3 => 3,
            Diffserv::Diffserv4 => 4,
            Diffserv::Diffserv8 | Diffserv::Precedence => 8,
        }
    }

    /// The tin of a DSCP (0-63). Tins are in priority order: a higher index wins when both are
    /// under their threshold.
    pub(crate) fn tin_of(self, dscp: u8) -> u8 {
        let d = dscp & 63;
        match self {
            Diffserv::Besteffort => 0,
            // 0 Best Effort, 1 Bulk, 2 Voice.
            Diffserv::Diffserv3 => match d {
                1 | 8 => 1,
                4 | 44 | 46 | 48 | 56 => 2,
                _ => 0,
            },
            // 0 Best Effort, 1 Bulk, 2 Video, 3 Voice.
            Diffserv::Diffserv4 => match d {
                1 | 8 => 1,
                32 | 40 | 44 | 46 | 48 | 56 => 3,
                4 | 16 | 18 | 20 | 22 | 24 | 26 | 28 | 30 | 34 | 36 | 38 => 2,
                _ => 0,
            },
            // 0 LE, 1 Bulk (CS1, AF1x, TOS2), 2 Best Effort, 3 Video (CS3, AF3x, AF4x),
            // 4 Low Latency (TOS4, AF2x), 5 Shell (CS2), 6 Minimum Latency (CS4, CS5, VA, EF),
            // 7 Network Control (CS6, CS7).
            Diffserv::Diffserv8 => match d {
                1 => 0,
                2 | 8 | 10 | 12 | 14 => 1,
                24 | 26 | 28 | 30 | 34 | 36 | 38 => 3,
                4 | 18 | 20 | 22 => 4,
                16 => 5,
                32 | 40 | 44 | 46 => 6,
                48 | 56 => 7,
                _ => 2,
            },
            Diffserv::Precedence => d >> 3,
        }
    }

    /// Tin `i`'s threshold and weight (Linux `cake_config_diffserv3/4/8`, `_precedence`,
    /// `_besteffort`).
    pub(crate) fn share(self, i: usize) -> TinShare {
        let s = |shift: u32, quantum: i32| TinShare {
            num: 1,
            den: 1 << shift,
            quantum,
        };
        match self {
            Diffserv::Besteffort => s(0, 65535),
            // Best Effort the full rate, Bulk 1/16, Voice 1/4; weights 1024, 64, 256.
            Diffserv::Diffserv3 => [s(0, 1024), s(4, 64), s(2, 256)][i],
            // Video 1/2, weight 512.
            Diffserv::Diffserv4 => [s(0, 1024), s(4, 64), s(1, 512), s(2, 256)][i],
            // Each tin 7/8 of the one before, rate and weight (from 256), as Linux steps them.
            Diffserv::Diffserv8 | Diffserv::Precedence => {
                let (mut num, mut den, mut q) = (1u64, 1u64, 256i32);
                for _ in 0..i {
                    num *= 7;
                    den *= 8;
                    q = q * 7 / 8;
                }
                TinShare {
                    num,
                    den,
                    quantum: q.max(1),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codepoints_to_tins() {
        let d3 = Diffserv::Diffserv3;
        // CS1 and LE to Bulk; EF, VA, CS6, CS7 to Voice; CS0, AF11, CS5 stay Best Effort.
        assert_eq!([8, 1].map(|d| d3.tin_of(d)), [1, 1]);
        assert_eq!([46, 44, 48, 56].map(|d| d3.tin_of(d)), [2; 4]);
        assert_eq!([0, 10, 40].map(|d| d3.tin_of(d)), [0; 3]);
        let d4 = Diffserv::Diffserv4;
        assert_eq!([8, 0, 34, 46, 40].map(|d| d4.tin_of(d)), [1, 0, 2, 3, 3]);
        assert_eq!(Diffserv::Precedence.tin_of(46), 5);
        assert_eq!(Diffserv::Diffserv8.tin_of(0), 2);
        assert!((0..64).all(|d| (Diffserv::Diffserv8.tin_of(d) as usize) < 8));
    }

    #[test]
    fn shares() {
        assert_eq!(Diffserv::Diffserv3.share(1).den, 16);
        assert_eq!(Diffserv::Diffserv3.share(2).den, 4);
        let s = Diffserv::Diffserv8.share(2);
        assert_eq!((s.num, s.den, s.quantum), (49, 64, 196));
    }
}
