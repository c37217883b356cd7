//! RACK's walk over the sending-order list: the same verdicts as judging every segment of the
//! window (RFC 8985 §6.2 step 5 read literally), at a cost set by what an ACK changes.

use proptest::prelude::*;

use super::*;

/// RFC 8985's RACK_detect_loss read literally: every segment in flight (neither SACKed nor lost
/// and waiting) sent before the reference is lost once its deadline has passed; the timer is the
/// earliest deadline of those still inside their window.
fn literal_detect(s: &mut Scoreboard, now: Instant, reo_wnd: Duration) -> Option<Instant> {
    let (xmit, end, rtt) = s.rack?.reference()?;
    let mut timer: Option<Instant> = None;
    for seg in s.head..s.end() {
        let x = *s.seg(seg);
        let f = x.flags;
        if f & SACKED != 0 || (f & LOST != 0 && f & RETX == 0) {
            continue;
        }
        if (x.sent, x.start + x.len as u64) > (xmit, end) {
            continue;
        }
        let deadline = x.sent + rtt + reo_wnd;
        if deadline <= now {
            if f & LOST == 0 {
                s.lost += 1;
            }
            let mut nf = f | LOST;
            if f & RETX != 0 {
                nf &= !RETX;
                s.retx -= 1;
            }
            s.set(seg, nf);
            s.retx_scan = s.retx_scan.min(seg);
            s.rack_hi = s.rack_hi.max(seg + 1);
        } else {
            timer = Some(timer.map_or(deadline, |t| t.min(deadline)));
        }
    }
    timer
}

/// What the two must agree on: every segment's flags but the list's own bit, and the counts.
fn verdicts(s: &Scoreboard) -> (Vec<u8>, u32, u32, u32, u64, u64) {
    let flags = s.flags.iter().map(|x| x.flags & !LISTED).collect();
    (flags, s.lost, s.retx, s.sacked, s.retx_scan, s.rack_hi)
}

/// The list holds exactly the segments in flight, sorted by (last sent, end), linked both ways.
fn check_list(s: &Scoreboard) {
    let mut seen = Vec::new();
    let (mut seg, mut prev) = (s.order_first, NIL);
    while seg != NIL {
        let x = s.seg(seg);
        assert_eq!(link(seg, x.prev), prev);
        assert!(x.flags & LISTED != 0);
        seen.push((x.sent, x.start + x.len as u64, seg));
        prev = seg;
        seg = link(seg, x.next);
    }
    assert_eq!(s.order_last, prev);
    assert!(seen
        .windows(2)
        .all(|w| (w[0].0, w[0].1) <= (w[1].0, w[1].1)));
    let in_flight = s
        .flags
        .iter()
        .filter(|x| x.flags & SACKED == 0 && !(x.flags & LOST != 0 && x.flags & RETX == 0))
        .count();
    assert_eq!(seen.len(), in_flight);
}

#[derive(Clone, Debug)]
enum Op {
    Send(u8),
    Sack(u8, u8),
    Ack(u8),
    IsLost,
    Resend,
    Timeout,
    Undo,
    Detect { rtt_ms: u8, reo_ms: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1u8..6).prop_map(Op::Send),
        (0u8..40, 1u8..8).prop_map(|(a, n)| Op::Sack(a, n)),
        (0u8..4).prop_map(Op::Ack),
        Just(Op::IsLost),
        Just(Op::Resend),
        Just(Op::Timeout),
        Just(Op::Undo),
        (0u8..30, 0u8..5).prop_map(|(rtt_ms, reo_ms)| Op::Detect { rtt_ms, reo_ms }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_walk_judges_as_the_whole_window(ops in prop::collection::vec(op(), 1..120)) {
        let ms = Duration::from_ms;
        let mut s = Scoreboard::default();
        s.enable_rack();
        let mut now = Instant::ZERO;
        let mut next_byte = 0u64;
        for o in ops {
            // Time moves by 0 or 1 ms per step, so several sends share a nanosecond.
            if next_byte % 3000 == 0 {
                now = now + ms(1);
            }
            match o {
                Op::Send(n) => {
                    for _ in 0..n {
                        s.push(next_byte, 1000, now);
                        next_byte += 1000;
                    }
                }
                Op::Sack(a, n) => {
                    let lo = s.head + a as u64;
                    s.rack_begin(now, now, ms(1));
                    s.sack(lo, lo + n as u64);
                }
                Op::Ack(n) => {
                    s.rack_begin(now, now, ms(1));
                    s.ack_to((s.head + n as u64).min(s.end()));
                }
                Op::IsLost => s.detect_losses(),
                Op::Resend => {
                    if let Some(k) = s.next_retx() {
                        s.on_retx(k, now);
                    }
                }
                Op::Timeout => s.mark_all_lost(),
                Op::Undo => s.unmark_lost(),
                Op::Detect { rtt_ms, reo_ms } => {
                    let later = now + ms(rtt_ms as u64);
                    let mut lit = s.clone();
                    let want = literal_detect(&mut lit, later, ms(reo_ms as u64));
                    let got = s.rack_detect(later, ms(reo_ms as u64));
                    prop_assert_eq!(got, want);
                    prop_assert_eq!(verdicts(&s), verdicts(&lit));
                }
            }
            check_list(&s);
        }
    }
}

/// A window of 10,000 segments with a hole at its head, SACKed one segment per ACK: each ACK's
/// walk looks at a few segments (the hole, then the first one it cannot judge yet), not at the
/// thousands below the reference that are already SACKed.
#[test]
fn an_ack_costs_what_it_changes_in_a_window_of_ten_thousand() {
    let ms = Duration::from_ms;
    let us = Duration::from_us;
    let mut s = Scoreboard::default();
    s.enable_rack();
    let n = 10_000u64;
    for k in 0..n {
        s.push(k * 1000, 1000, Instant::ZERO + us(k));
    }
    let rtt = ms(50);
    // Segment 0 is lost; 1..n arrive, each SACKed by its own ACK one RTT after its sending.
    for k in 1..n {
        let now = Instant::ZERO + us(k) + rtt;
        s.rack_begin(now, Instant::ZERO + us(k), rtt);
        s.sack(k, k + 1);
        s.rack_detect(now, ms(5));
    }
    // Segment 0's deadline (0 + 50 + 5 ms) passes at the ACK of segment 5000.
    assert!(s.is_lost(0));
    assert_eq!(s.lost(), 1);
    let acks = n - 1;
    assert!(
        s.rack_visits <= 2 * acks + 1,
        "{} segments visited for {acks} ACKs",
        s.rack_visits
    );
}
