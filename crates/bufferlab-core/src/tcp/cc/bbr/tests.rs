//! BBR's state machine on synthetic ACKs: each test feeds rate samples and the connection state
//! the sender would, and checks a rule of `tcp_bbr.c`.

use super::*;

const MSS: u64 = 1000;
const MS: Duration = Duration::from_ms(1);

/// A driver: a flow whose every ACK delivers one segment, with the delivery rate and RTT the
/// test chooses.
struct Feed {
    bbr: Bbr,
    w: CwndState,
    now: Instant,
    delivered: u64,
    in_flight: u64,
    ca: CaState,
    /// Until the next segment may leave (the sender's pacing).
    edt_wait: Duration,
}

impl Feed {
    fn new(seed: u64) -> Feed {
        let mut f = Feed {
            bbr: Bbr::new(seed),
            w: CwndState {
                cwnd_bytes: 10 * MSS,
                ssthresh_bytes: u64::MAX / 4,
                mss_bytes: MSS,
                whole_segments: false,
                abc_limit_bytes: 0,
            },
            now: Instant::ZERO + 40 * MS,
            delivered: 0,
            // STARTUP's queue: far more than a BDP in flight until a test says otherwise.
            in_flight: 1000 * MSS,
            ca: CaState::Open,
            edt_wait: Duration::ZERO,
        };
        let c = f.conn();
        f.bbr.on_established(
            &f.w,
            &ConnState {
                srtt: Some(40 * MS),
                ..c
            },
        );
        f
    }

    fn conn(&self) -> ConnState {
        ConnState {
            now: self.now,
            ca: self.ca,
            in_flight_bytes: self.in_flight,
            srtt: Some(40 * MS),
            delivered_bytes: self.delivered,
            delivered_at: self.now,
            lost_bytes: 0,
            cwnd_limited: true,
            edt_wait: self.edt_wait,
        }
    }

    /// One ACK at `dt` after the last, delivering one segment sent when `prior` bytes had been
    /// delivered, measured at `rate` bytes/s over an interval `rtt` long.
    fn ack(&mut self, dt: Duration, prior: u64, rate: u64, rtt: Duration) -> Control {
        self.now += dt;
        self.delivered += MSS;
        let interval = rtt;
        let delivered = rate * interval.as_ns() / 1_000_000_000;
        let rs = RateSample {
            delivered: Some(delivered),
            interval: Some(interval),
            prior_delivered: prior,
            acked_sacked: MSS,
            rtt: Some(rtt),
            prior_in_flight: self.in_flight,
            ..RateSample::default()
        };
        let c = self.conn();
        self.bbr.cong_control(&mut self.w, &rs, &c)
    }

    /// Fill the pipe at 10 Mb/s over 40 ms (50 segments a round), drain to one BDP in flight,
    /// and be in PROBE_BW.
    fn reach_probe_bw(&mut self) {
        for _ in 0..12 {
            self.round(50, 1_250_000, 40 * MS);
        }
        self.in_flight = 50 * MSS;
        self.round(50, 1_250_000, 40 * MS);
        assert_eq!(self.bbr.mode(), Mode::ProbeBw);
    }

    /// One packet-timed round of `n` ACKs over `rtt`, at `rate`.
    fn round(&mut self, n: u64, rate: u64, rtt: Duration) {
        let start = self.delivered;
        for _ in 0..n {
            self.ack(rtt / n, start, rate, rtt);
        }
    }
}

#[test]
fn gains_are_linuxs() {
    assert_eq!((HIGH_GAIN, DRAIN_GAIN, CWND_GAIN), (739, 88, 512));
    assert_eq!(
        PACING_GAIN.iter().sum::<u64>(),
        8 * UNIT,
        "the cycle averages to 1"
    );
    // Pacing at gain × bw less 1 %: 1 MB/s at 5/4 is 1.2375 MB/s.
    assert_eq!(Bbr::pacing_of(1_000_000, UNIT * 5 / 4), 1_237_500);
}

#[test]
fn startup_paces_at_high_gain_from_the_handshake_rtt() {
    let f = Feed::new(1);
    // 10 segments over 40 ms = 250 kB/s, times 739/256, less 1 %.
    let expect = 250_000u64 * 739 * 99 / (256 * 100);
    assert_eq!(f.bbr.pacing_rate, Some(expect));
    assert_eq!(f.bbr.mode(), Mode::Startup);
}

#[test]
fn startup_ends_after_three_rounds_without_growth_then_drains() {
    let mut f = Feed::new(1);
    let rtt = 40 * MS;
    let mut rate = 100_000;
    // Doubling rounds: never full.
    for _ in 0..6 {
        f.round(10, rate, rtt);
        rate *= 2;
        assert!(!f.bbr.full_bw_reached());
    }
    let top = rate / 2;
    // Flat at `top`: the first flat round still counts as growth over the last recorded
    // full_bw (set two rounds back), then three rounds without 25 % growth.
    let mut flat_rounds = 0;
    while !f.bbr.full_bw_reached() {
        f.round(10, top, rtt);
        flat_rounds += 1;
        assert!(flat_rounds <= 4, "STARTUP did not end");
    }
    assert!((3..=4).contains(&flat_rounds), "{flat_rounds}");
    assert_eq!(f.bbr.mode(), Mode::Drain);
    assert_eq!(f.bbr.gains(), (DRAIN_GAIN, HIGH_GAIN));
    // DRAIN paces at 88/256 of the estimate.
    assert_eq!(f.bbr.pacing_rate, Some(Bbr::pacing_of(top, DRAIN_GAIN)));
    // Until the flight is down to one BDP (plus the burst budget).
    let bdp = top * 40 / 1000;
    f.in_flight = 2 * bdp;
    f.round(10, top, rtt);
    assert_eq!(f.bbr.mode(), Mode::Drain);
    f.in_flight = bdp;
    f.ack(MS, f.delivered, top, rtt);
    assert_eq!(f.bbr.mode(), Mode::ProbeBw);
    assert_ne!(f.bbr.cycle_idx(), 1, "never starts in the draining phase");
}

/// The phase PROBE_BW starts in, for a seed.
fn first_phase(seed: u64) -> usize {
    let mut f = Feed::new(seed);
    f.bbr.full_bw_reached = true;
    f.bbr.min_rtt = Some(40 * MS);
    f.bbr.reset_probe_bw_mode(f.now);
    f.bbr.cycle_idx()
}

#[test]
fn the_gain_cycle_starts_at_a_seeded_random_phase_other_than_the_drain() {
    let mut seen = [0u32; CYCLE_LEN];
    for seed in 0..700 {
        seen[first_phase(seed)] += 1;
        assert_eq!(first_phase(seed), first_phase(seed), "deterministic");
    }
    assert_eq!(seen[1], 0);
    // Seven phases equally likely: 100 each on average.
    for (i, &n) in seen.iter().enumerate() {
        if i != 1 {
            assert!((60..=140).contains(&n), "phase {i}: {n}");
        }
    }
}

#[test]
fn cwnd_is_twice_the_bdp_plus_the_burst_budget() {
    let mut f = Feed::new(3);
    let rtt = 40 * MS;
    let rate = 1_250_000; // 10 Mb/s: 50 kB per 40 ms = 50 segments
    for _ in 0..12 {
        f.round(50, rate, rtt);
    }
    assert!(f.bbr.full_bw_reached());
    f.in_flight = 50 * MSS;
    for _ in 0..20 {
        f.round(50, rate, rtt);
    }
    assert_eq!(f.bbr.mode(), Mode::ProbeBw);
    // 2 × 50 segments, plus the aggregation allowance (one ACK's worth on a smooth ACK
    // stream: each ACK starts an epoch and is its excess), plus 3 bursts of 2 (pacing above
    // 150 kB/s), rounded up to even; in the probing phase two more.
    assert_eq!(f.bbr.aggr.extra_acked(), MSS);
    let probing = f.bbr.gains().0 > UNIT;
    let expect = (100u64 + 1 + 6).div_ceil(2) * 2 + if probing { 2 } else { 0 };
    assert_eq!(f.w.cwnd_bytes, expect * MSS);
    // And the pacing rate is the phase's gain times the estimate.
    assert_eq!(
        f.bbr.pacing_rate,
        Some(Bbr::pacing_of(rate, f.bbr.gains().0))
    );
}

/// `bbr_quantization_budget` adds its two packets in the cycle's probing phase only (Linux 5.1
/// on: `cycle_idx == 0`). Before, it tested the gain it was given, and the window's target
/// (cwnd_gain 2) had them in every phase.
#[test]
fn the_two_extra_packets_of_the_window_are_the_probing_phases_alone() {
    let mut f = Feed::new(3);
    let (rtt, rate) = (40 * MS, 1_250_000);
    f.reach_probe_bw();
    // Enough in flight that each probe ends after its min RTT.
    f.in_flight = 80 * MSS;
    let mut by_phase = [None; CYCLE_LEN];
    for _ in 0..40 * 50 {
        f.ack(rtt / 50, f.delivered - 50 * MSS, rate, rtt);
        by_phase[f.bbr.cycle_idx()] = Some(f.w.cwnd_bytes / MSS);
    }
    let base = (100u64 + 1 + 6).div_ceil(2) * 2;
    assert_eq!(by_phase[0], Some(base + 2), "probing");
    for (i, w) in by_phase.iter().enumerate().skip(1) {
        assert_eq!(*w, Some(base), "phase {i}");
    }
}

/// `bbr_packets_in_net_at_edt` (Linux 4.20 on): the probing phase ends once what will be in the
/// network when the next burst leaves — the flight before the ACK, plus that burst, less what
/// the path delivers while the pacing holds it — reaches 5/4 of the BDP.
#[test]
fn the_probe_ends_on_the_flight_at_the_next_departure() {
    // 50 segments per 40 ms.
    let (rtt, rate) = (40 * MS, 1_250_000);
    // Into the probing phase, a full min RTT along, with `gap` segments short of its target
    // flight (5/4 × 50 rounded up, 63, + 6 for bursts, rounded to even, + 2: 72 segments) and
    // the next departure `wait` away: does the next ACK end the phase?
    let ends = |gap: u64, wait: Duration| {
        let mut f = Feed::new(3);
        f.reach_probe_bw();
        f.in_flight = 80 * MSS;
        for _ in 0..20 {
            if f.bbr.cycle_idx() == 7 {
                break;
            }
            f.round(50, rate, rtt);
        }
        assert_eq!(f.bbr.cycle_idx(), 7, "{:?}", f.bbr.mode());
        f.in_flight = 30 * MSS;
        for _ in 0..100 {
            if f.bbr.cycle_idx() == 0 {
                break;
            }
            f.ack(MS, f.delivered, rate, rtt);
        }
        assert_eq!(f.bbr.cycle_idx(), 0);
        f.round(50, rate, rtt);
        let target = f.bbr.inflight(rate, f.bbr.gains().0, MSS) / MSS;
        assert_eq!(target, 72);
        f.in_flight = (target - gap) * MSS;
        f.edt_wait = wait;
        f.ack(MS, f.delivered, rate, rtt);
        f.bbr.cycle_idx() != 0
    };
    // The burst about to leave (two segments at this rate) counts.
    assert!(ends(0, Duration::ZERO));
    assert!(ends(2, Duration::ZERO));
    assert!(!ends(3, Duration::ZERO));
    // 2.5 ms to the next departure: three whole segments delivered by then; 1.5 ms: one.
    assert!(!ends(0, Duration::from_us(2500)));
    assert!(ends(0, Duration::from_us(1500)));
}

#[test]
fn probe_rtt_after_ten_seconds_holds_four_packets_for_200_ms_and_a_round() {
    let mut f = Feed::new(4);
    let rtt = 40 * MS;
    let rate = 1_250_000;
    // Fill the pipe, then keep the RTT at 50 ms: the 40 ms minimum is never seen again.
    for _ in 0..15 {
        f.round(50, rate, rtt);
    }
    f.in_flight = 50 * MSS;
    f.round(50, rate, rtt);
    assert_eq!(f.bbr.mode(), Mode::ProbeBw);
    let t_min = f.bbr.min_rtt_at;
    while f.bbr.mode() != Mode::ProbeRtt {
        f.round(50, rate, 50 * MS);
        assert!(f.now < t_min + MIN_RTT_WIN + Duration::from_ms(100));
    }
    assert!(f.now > t_min + MIN_RTT_WIN);
    assert_eq!(f.w.cwnd_bytes, CWND_MIN_PKTS * MSS);
    // The flight falls to 4 packets; from then 200 ms and a round.
    f.in_flight = 4 * MSS;
    let at4 = f.now;
    while f.bbr.mode() == Mode::ProbeRtt {
        f.ack(5 * MS, f.delivered, rate, 40 * MS);
        if f.bbr.mode() == Mode::ProbeRtt {
            assert_eq!(f.w.cwnd_bytes, CWND_MIN_PKTS * MSS);
        }
    }
    let held = f.now - at4;
    assert!(
        held > PROBE_RTT_TIME && held <= PROBE_RTT_TIME + 10 * MS,
        "{held:?}"
    );
    assert_eq!(f.bbr.mode(), Mode::ProbeBw);
    assert!(
        f.w.cwnd_bytes >= 100 * MSS,
        "the window before PROBE_RTT (2 BDP and more) is restored: {}",
        f.w.cwnd_bytes
    );
    assert_eq!(f.bbr.min_rtt(), Some(40 * MS));
    assert_eq!(f.bbr.probe_rtts(), 1);
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_the_window() {
    let mut f = Feed::new(5);
    let rate = 1_250_000;
    for _ in 0..15 {
        f.round(50, rate, 40 * MS);
    }
    f.in_flight = 50 * MSS;
    f.round(50, rate, 40 * MS);
    assert_eq!(f.bbr.mode(), Mode::ProbeBw);
    let before = f.w.cwnd_bytes;
    // A loss: recovery begins with 30 packets in flight.
    f.bbr.on_congestion(f.now, &mut f.w, before);
    f.ca = CaState::Recovery;
    f.in_flight = 30 * MSS;
    f.ack(MS, f.delivered, rate, 40 * MS);
    assert_eq!(
        f.w.cwnd_bytes,
        31 * MSS,
        "in flight plus what the ACK delivered"
    );
    // Recovery ends: the window before it returns (capped by the target, which may be two
    // packets less outside the probing phase).
    f.ca = CaState::Open;
    f.ack(MS, f.delivered, rate, 40 * MS);
    assert!(
        f.w.cwnd_bytes + 2 * MSS >= before,
        "{} < {before}",
        f.w.cwnd_bytes
    );
}
