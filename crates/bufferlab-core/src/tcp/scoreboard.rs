//! The sender's SACK scoreboard (RFC 6675 §3): one entry (start, length, flags) per outstanding
//! segment, in a ring that grows to the largest window and is then reused, so no allocation per
//! packet.
//!
//! Segments are numbered in the order they were first sent (segment boundaries need not be
//! multiples of the MSS: an on/off source ends each burst with a short segment); byte offsets
//! map to numbers by binary search.
//! Counts are kept as they change, so the pipe (RFC 6675 §4, `SetPipe`) costs O(1):
//! `pipe = outstanding − sacked − lost + retransmitted` (the lost segments that were resent are
//! in the network again).
//!
//! With RACK, the segments RACK must judge (neither SACKed nor lost and waiting for their
//! retransmission) are also threaded on a list in the order they were last sent, as Linux keeps
//! its `tsorted_sent_queue`: a retransmission moves to the tail, a SACK or a loss takes a segment
//! off. RACK's walk then starts at the oldest and stops at the first segment it cannot yet call
//! lost, so an ACK costs what it changes, not the window.
//!
//! The scoreboard also notices reordering, for RACK's window: a segment never resent delivered
//! (SACKed or cumulatively acknowledged) below the highest SACKed one, which a FIFO path never
//! does (Linux's `tcp_check_sack_reordering`, `reord_seen`); and it counts retransmissions,
//! against which D-SACKs are read ([`super::dsack`]).
//!
//! With the delivery-rate estimator on ([`Self::enable_rate`]) a second ring beside the entries
//! holds each segment's [`TxStamp`], and every delivery, SACK and loss marking is reported to it;
//! without, the ring stays empty and costs nothing.

use std::collections::VecDeque;

use super::params::DUP_THRESH;
use super::rack::Rack;
use super::rate::{RateEstimator, TxStamp};
use crate::time::{Duration, Instant};

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETX: u8 = 4;
/// Sent more than once (kept when a lost retransmission clears `RETX`): RACK's RTT samples from
/// such a segment are ambiguous.
const EVER_RETX: u8 = 8;
/// On the sending-order list (RACK only).
const LISTED: u8 = 16;
/// No segment (the list's ends).
const NIL: u64 = u64::MAX;
/// SACK blocks remembered: two ACKs' worth (an ACK carries at most four).
const SACK_SEEN: usize = 8;

#[derive(Clone, Copy, Debug)]
struct Seg {
    start: u64,
    len: u32,
    flags: u8,
    /// When it was last sent (RACK orders segments by it).
    sent: Instant,
    /// Neighbours on the sending-order list, as their distance from this segment in segment
    /// numbers (0 at the ends: [`link`]). Four bytes each, not eight, make an entry 32 bytes
    /// instead of 40: two to a cache line, where an ACK walks the ring's head and the list.
    prev: i32,
    next: i32,
}

/// The segment `off` numbers from `seg` on the sending-order list (`NIL` for 0: none).
#[inline]
fn link(seg: u64, off: i32) -> u64 {
    if off == 0 {
        NIL
    } else {
        seg.wrapping_add_signed(off as i64)
    }
}

/// The distance from `seg` to its neighbour `to` (0 for `NIL`). Both are in the window, which
/// holds far fewer than 2^31 segments (an entry is 32 bytes: 64 GiB).
#[inline]
fn offset(seg: u64, to: u64) -> i32 {
    if to == NIL {
        return 0;
    }
    let d = to.wrapping_sub(seg) as i64;
    debug_assert!(
        d != 0 && i32::try_from(d).is_ok(),
        "list link {seg} -> {to}"
    );
    d as i32
}

#[derive(Clone, Debug)]
pub struct Scoreboard {
    flags: VecDeque<Seg>,
    /// Segment number of `flags[0]` (the first unacknowledged segment).
    head: u64,
    sacked: u32,
    lost: u32,
    retx: u32,
    /// Segments loss detection has marked lost, ever (Linux's `tp->lost`): what an ACK newly
    /// marked is the change across it (`rs->losses`).
    marked_lost: u64,
    /// Every non-SACKed segment below this one is marked lost (IsLost was checked up to here).
    lost_scan: u64,
    /// SACKed segments in `[head, lost_scan)`.
    sacked_below_scan: u32,
    /// No lost segment waiting for a retransmission lies below this one.
    retx_scan: u64,
    /// RACK (RFC 8985), when the connection runs it.
    rack: Option<Rack>,
    /// One past the highest segment RACK marked lost: [`Self::next_retx`] may stop at the loss
    /// scan only beyond it.
    rack_hi: u64,
    /// The sending-order list's oldest and newest segments (RACK only; `NIL` when empty).
    order_first: u64,
    order_last: u64,
    /// The largest (last sent, end byte) ever put on the list: no listed segment's is above it.
    order_max: (Instant, u64),
    /// The delivery-rate estimator, when the connection runs one (boxed: a connection without
    /// one carries a pointer, not its 170 bytes), and its stamp of each entry (`stamps[i]`
    /// belongs to `flags[i]`).
    rate: Option<Box<RateEstimator>>,
    stamps: VecDeque<TxStamp>,
    /// One past the highest SACKed byte before the ACK being read, and after it (Linux's
    /// `prior_fack`, `tcp_highest_sack_seq`).
    fack: u64,
    fack_now: u64,
    /// A segment never resent was delivered below `fack` (Linux's `reord_seen`).
    reordered: bool,
    /// Retransmissions in all (Linux's `total_retrans`).
    resent_total: u64,
    /// The last SACK blocks taken, as segment ranges, every segment of which is SACKed (Linux's
    /// `recv_sack_cache`): a block that spans one of them skips it.
    sack_seen: [(u64, u64); SACK_SEEN],
    /// Where the next block taken goes in `sack_seen`.
    sack_seen_at: usize,
    /// The sending times of the oldest and the newest segment never resent that the ACK being
    /// read SACKed (Linux's `first_sackt`, `last_sackt`), if it SACKed any.
    sack_sent: Option<(Instant, Instant)>,
    /// Segments RACK's walks have looked at, in all (a test reads the cost per ACK).
    #[cfg(test)]
    rack_visits: u64,
}

impl Default for Scoreboard {
    fn default() -> Self {
        Scoreboard {
            flags: VecDeque::new(),
            head: 0,
            sacked: 0,
            lost: 0,
            marked_lost: 0,
            retx: 0,
            lost_scan: 0,
            sacked_below_scan: 0,
            retx_scan: 0,
            rack: None,
            rack_hi: 0,
            order_first: NIL,
            order_last: NIL,
            order_max: (Instant::ZERO, 0),
            rate: None,
            stamps: VecDeque::new(),
            fack: 0,
            fack_now: 0,
            reordered: false,
            resent_total: 0,
            sack_seen: [(0, 0); SACK_SEEN],
            sack_seen_at: 0,
            sack_sent: None,
            #[cfg(test)]
            rack_visits: 0,
        }
    }
}

impl Scoreboard {
    /// The engine's look-ahead: the lines of the record an ACK reads (the ring's header, the
    /// sending-order list's ends).
    #[inline]
    pub(crate) fn prefetch(&self) {
        crate::prefetch::line(&self.flags);
        crate::prefetch::line(&self.order_last);
    }

    /// Segments sent and not cumulatively acknowledged.
    pub fn outstanding(&self) -> u64 {
        self.flags.len() as u64
    }

    /// One past the highest segment sent.
    pub fn end(&self) -> u64 {
        self.head + self.flags.len() as u64
    }

    pub fn sacked(&self) -> u32 {
        self.sacked
    }

    pub fn lost(&self) -> u32 {
        self.lost
    }

    /// Segments marked lost by loss detection so far (RACK, RFC 6675's IsLost, recovery's head).
    pub fn marked_lost(&self) -> u64 {
        self.marked_lost
    }

    /// Lost segments resent and not yet delivered or lost again.
    pub fn retransmitted(&self) -> u32 {
        self.retx
    }

    /// Segments believed to be in the network (RFC 6675 §4 pipe, in segments).
    pub fn pipe(&self) -> u64 {
        self.outstanding() + self.retx as u64 - self.sacked as u64 - self.lost as u64
    }

    fn at(&self, seg: u64) -> u8 {
        self.flags[(seg - self.head) as usize].flags
    }

    fn set(&mut self, seg: u64, f: u8) {
        self.flags[(seg - self.head) as usize].flags = f;
    }

    fn seg(&self, seg: u64) -> &Seg {
        &self.flags[(seg - self.head) as usize]
    }

    fn seg_mut(&mut self, seg: u64) -> &mut Seg {
        &mut self.flags[(seg - self.head) as usize]
    }

    /// Put `seg` on the sending-order list, which stays sorted by (last sent, end byte) as RFC
    /// 8985's RACK_sent_after orders segments: after every segment sent before it, and after
    /// those sent at the same instant that end lower. It was sent now, so it goes at the tail or,
    /// when segments ending higher went out at the same nanosecond, just before them. `key`: its
    /// (last sent, end byte).
    fn order_insert(&mut self, seg: u64, key: (Instant, u64)) {
        debug_assert_eq!(key, {
            let s = self.seg(seg);
            (s.sent, s.start + s.len as u64)
        });
        let (after, before) = self.order_place(key);
        {
            let s = self.seg_mut(seg);
            s.prev = offset(seg, after);
            s.next = offset(seg, before);
            s.flags |= LISTED;
        }
        self.order_link(seg, key, after, before);
    }

    /// The neighbours a segment of `key` goes between on the sending-order list (`NIL` at the
    /// ends). No listed key is above the largest key ever listed (`order_max`), so a key at or
    /// above it goes at the tail without reading an entry: every new segment's (it is sent now
    /// and ends above every other). Its ring slot and its neighbour's share a line that is
    /// mostly not in the cache (the ring's tail, last written a window ago); the insertion read
    /// both back right after writing the new one, and waited on that line twice (3.3% of
    /// `stanford-2.5G-2000`'s samples, `docs/BENCHMARKS.md`).
    #[inline]
    fn order_place(&self, key: (Instant, u64)) -> (u64, u64) {
        if self.order_max <= key {
            return (self.order_last, NIL);
        }
        let mut after = self.order_last;
        while after != NIL {
            let a = self.seg(after);
            if (a.sent, a.start + a.len as u64) <= key {
                break;
            }
            after = link(after, a.prev);
        }
        let before = if after == NIL {
            self.order_first
        } else {
            link(after, self.seg(after).next)
        };
        (after, before)
    }

    /// Link `seg`, of `key` (whose own links already name them), between `after` and `before`.
    #[inline]
    fn order_link(&mut self, seg: u64, key: (Instant, u64), after: u64, before: u64) {
        self.order_max = self.order_max.max(key);
        match after {
            NIL => self.order_first = seg,
            a => self.seg_mut(a).next = offset(a, seg),
        }
        match before {
            NIL => self.order_last = seg,
            b => self.seg_mut(b).prev = offset(b, seg),
        }
    }

    /// Take `seg` off the sending-order list, if it is on it.
    fn order_remove(&mut self, seg: u64) {
        let (prev, next) = {
            let s = self.seg_mut(seg);
            if s.flags & LISTED == 0 {
                return;
            }
            s.flags &= !LISTED;
            (link(seg, s.prev), link(seg, s.next))
        };
        match prev {
            NIL => self.order_first = next,
            p => self.seg_mut(p).next = offset(p, next),
        }
        match next {
            NIL => self.order_last = prev,
            n => self.seg_mut(n).prev = offset(n, prev),
        }
    }

    /// The list from scratch: every segment RACK must judge, sorted (after a spurious timeout
    /// is undone, which puts the whole window back in flight; rare).
    fn order_rebuild(&mut self) {
        self.order_first = NIL;
        self.order_last = NIL;
        let mut keys: Vec<(Instant, u64, u64)> = Vec::new();
        for (i, s) in self.flags.iter_mut().enumerate() {
            s.flags &= !LISTED;
            if s.flags & SACKED == 0 && !(s.flags & LOST != 0 && s.flags & RETX == 0) {
                keys.push((s.sent, s.start + s.len as u64, self.head + i as u64));
            }
        }
        keys.sort_unstable();
        for (sent, end, seg) in keys {
            self.order_insert(seg, (sent, end));
        }
    }

    /// The first unacknowledged segment's number.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// When the first unacknowledged segment was last sent (Linux's `tcp_rtx_queue_head`'s
    /// stamp), if any is outstanding.
    pub fn head_sent(&self) -> Option<Instant> {
        self.flags.front().map(|s| s.sent)
    }

    /// Byte offset and length of segment `seg`.
    pub fn bounds(&self, seg: u64) -> (u64, u32) {
        let s = self.flags[(seg - self.head) as usize];
        (s.start, s.len)
    }

    /// Number of the first segment starting at or after byte `seq`.
    fn first_from(&self, seq: u64) -> u64 {
        // Segments of the first one's size from it: the first starting at or after `seq` is
        // the ceiling of the quotient.
        let guess = self.segs_to(seq).map(|(q, r)| q + u64::from(r > 0));
        self.head + self.partition(guess, |s| s.start < seq) as u64
    }

    /// Number of segments (from the head) that end at or before byte `seq`, plus the head.
    fn first_not_below(&self, seq: u64) -> u64 {
        let guess = self.segs_to(seq).map(|(q, _)| q);
        self.head + self.partition(guess, |s| s.start + s.len as u64 <= seq) as u64
    }

    /// How many segments of the first one's size fit between its start and byte `seq`, and the
    /// bytes left over: where `seq` lies when every segment is of that size (a bulk sender's
    /// window), `None` below the first segment or with none.
    #[inline]
    fn segs_to(&self, seq: u64) -> Option<(u64, u64)> {
        let f = self.flags.front()?;
        let (off, len) = (seq.checked_sub(f.start)?, f.len as u64);
        (len > 0).then(|| (off / len, off % len))
    }

    /// The number of segments (from the head) for which `below` holds, all of them before the
    /// rest (what `partition_point` gives): `guess` is looked at first, its two segments only
    /// (adjacent: one or two cache lines), before a binary search through a window whose lines
    /// are no longer in the cache (a miss a step, with thousands of connections).
    #[inline]
    fn partition(&self, guess: Option<u64>, below: impl Fn(&Seg) -> bool) -> usize {
        let n = self.flags.len();
        if let Some(g) = guess {
            let g = g.min(n as u64) as usize;
            if (g == 0 || below(&self.flags[g - 1])) && (g == n || !below(&self.flags[g])) {
                return g;
            }
        }
        self.flags.partition_point(below)
    }

    /// When the newest segment a cumulative ACK of byte `ack` newly covers was sent, if it was
    /// sent once and not SACKed before: Linux's `last_ackt`, whose round trip
    /// (`ca_rtt_us`) feeds the minimum RTT, while the timestamp echo (the oldest segment of a
    /// delayed ACK's pair) feeds the smoothed RTT.
    pub fn newest_acked_sent(&self, ack: u64) -> Option<Instant> {
        let seg = self.first_not_acked(ack);
        if seg == self.head {
            return None;
        }
        let s = self.seg(seg - 1);
        (s.flags & (RETX | EVER_RETX | SACKED) == 0).then_some(s.sent)
    }

    /// The sending times of the oldest and the newest segment never resent that the ACK being
    /// read (since [`Self::rack_begin`]) SACKed, if it SACKed any: Linux's `sack_rtt_us` and
    /// `ca_rtt_us` are measured from them (`tcp_clean_rtx_queue`).
    pub fn newly_sacked_sent(&self) -> Option<(Instant, Instant)> {
        self.sack_sent
    }

    pub fn is_sacked(&self, seg: u64) -> bool {
        seg >= self.head && seg < self.end() && self.at(seg) & SACKED != 0
    }

    pub fn is_lost(&self, seg: u64) -> bool {
        seg >= self.head && seg < self.end() && self.at(seg) & LOST != 0
    }

    /// A new segment `[start, start + len)` (the next number) was sent at `now`.
    #[inline]
    pub fn push(&mut self, start: u64, len: u32, now: Instant) {
        if let Some(r) = self.rate.as_mut() {
            self.stamps.push_back(r.on_sent(now, self.flags.is_empty()));
        }
        let mut e = Seg {
            start,
            len,
            flags: 0,
            sent: now,
            prev: 0,
            next: 0,
        };
        if self.rack.is_none() {
            self.flags.push_back(e);
            return;
        }
        // The entry is written once, already on the list: no read of its line follows the
        // store that brings it in (the list's insertion read it back, and waited).
        let (seg, key) = (self.end(), (now, start + len as u64));
        let (after, before) = self.order_place(key);
        e.prev = offset(seg, after);
        e.next = offset(seg, before);
        e.flags = LISTED;
        self.flags.push_back(e);
        self.order_link(seg, key, after, before);
    }

    /// Run RACK's loss detection (RFC 8985) besides RFC 6675's IsLost.
    pub fn enable_rack(&mut self) {
        self.rack = Some(Rack::default());
    }

    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_ref()
    }

    pub fn rack_mut(&mut self) -> Option<&mut Rack> {
        self.rack.as_mut()
    }

    /// RACK's reordering window now ([`Rack::reo_wnd`]), zero without RACK.
    pub fn rack_reo_wnd(&self, in_recovery: bool, min_rtt: Duration, srtt: Duration) -> Duration {
        self.rack.map_or(Duration::ZERO, |r| {
            r.reo_wnd(self.reordered, in_recovery, self.sacked, min_rtt, srtt)
        })
    }

    /// Whether the connection has seen reordering (Linux's `reord_seen`).
    pub fn reordered(&self) -> bool {
        self.reordered
    }

    /// Retransmissions sent in all.
    pub fn resent_total(&self) -> u64 {
        self.resent_total
    }

    /// A D-SACK block `[lo, hi)` above the cumulative ACK: how many of the segments wholly
    /// inside it were resent (the needless copies it reports; Linux's `tcp_sacktag_one` with
    /// `dup_sack`). One that was SACKed before its duplicate arrived was reordered, not lost.
    /// Nothing is marked: the SACK block that holds it does that.
    pub fn dsack_resent(&mut self, lo: u64, hi: u64) -> u32 {
        let (a, b) = (self.first_from(lo), self.first_not_below(hi));
        let mut n = 0;
        for seg in a.max(self.head)..b.min(self.end()) {
            let s = self.seg(seg);
            if s.flags & EVER_RETX != 0 {
                n += 1;
                if s.flags & SACKED != 0 && s.start < self.fack {
                    self.reordered = true;
                }
            }
        }
        n
    }

    /// Estimate the delivery rate ([`super::rate`]): stamp each segment sent from now on.
    pub fn enable_rate(&mut self) {
        self.rate = Some(Box::default());
    }

    pub fn rate(&self) -> Option<&RateEstimator> {
        self.rate.as_deref()
    }

    pub fn rate_mut(&mut self) -> Option<&mut RateEstimator> {
        self.rate.as_deref_mut()
    }

    /// `len` bytes were newly marked lost (the estimator's loss count).
    #[inline]
    fn count_lost(&mut self, len: u32) {
        self.marked_lost += 1;
        if let Some(r) = self.rate.as_mut() {
            r.on_lost(len as u64);
        }
    }

    /// An ACK echoing `ts_ecr` arrives at `now`: the segments it delivers update RACK's most
    /// recently sent delivered segment (RFC 8985 §6.2 step 2), judged against `min_rtt`, and are
    /// held against the highest segment SACKed before it for reordering. Called for every ACK,
    /// RACK or not: it also starts the ACK's record of what it newly SACKs
    /// ([`Self::newly_sacked_sent`]).
    pub fn rack_begin(&mut self, now: Instant, ts_ecr: Instant, min_rtt: Duration) {
        self.fack = self.fack_now;
        self.sack_sent = None;
        if let Some(r) = self.rack.as_mut() {
            r.begin(now, ts_ecr, min_rtt);
        }
    }

    /// Segment `s` was delivered (cumulatively, with its stamp `stamp`, or by SACK, with its
    /// stamp still in the ring at `idx`).
    #[inline]
    fn delivered(&mut self, s: Seg, stamp: Option<TxStamp>, idx: usize) {
        let resent = s.flags & (RETX | EVER_RETX) != 0;
        let sacked = stamp.is_none();
        if !resent && s.start < self.fack {
            self.reordered = true;
        }
        if let Some(r) = self.rack.as_mut() {
            r.on_delivered(s.sent, s.start + s.len as u64, resent, sacked);
        }
        if let Some(r) = self.rate.as_mut() {
            let mut popped = stamp.unwrap_or_default();
            let st = match self.stamps.get_mut(idx) {
                Some(st) if sacked => st,
                _ => &mut popped,
            };
            r.on_delivered(st, s.sent, s.start + s.len as u64, s.len, resent, sacked);
        }
    }

    /// RFC 8985 §6.2 step 5 (RACK_detect_loss): every segment sent before the most recently
    /// sent delivered one and not delivered within RACK.rtt + `reo_wnd` of its own sending is
    /// lost, a retransmission too (the loss RFC 6675 finds only by the timer). Returns when the
    /// earliest segment still inside its window would become lost (the reordering timer).
    ///
    /// The walk follows the sending-order list from its oldest segment: the segments on it sent
    /// before the reference that are past their deadline are lost and leave the list; the first
    /// one still inside its window has the earliest deadline of those left (a deadline is its
    /// sending time plus the same RACK.rtt + `reo_wnd`), and every later one is either later or
    /// sent after the reference, so the walk stops there.
    pub fn rack_detect(&mut self, now: Instant, reo_wnd: Duration) -> Option<Instant> {
        let r = self.rack?;
        let (xmit, end, rtt) = r.reference()?;
        let mut seg = self.order_first;
        while seg != NIL {
            #[cfg(test)]
            {
                self.rack_visits += 1;
            }
            let s = *self.seg(seg);
            if (s.sent, s.start + s.len as u64) > (xmit, end) {
                return None;
            }
            let deadline = s.sent + rtt + reo_wnd;
            if deadline > now {
                return Some(deadline);
            }
            let f = s.flags;
            let mut nf = f | LOST;
            self.count_lost(s.len);
            if f & LOST == 0 {
                self.lost += 1;
            }
            if f & RETX != 0 {
                nf &= !RETX;
                self.retx -= 1;
            }
            self.order_remove(seg);
            self.set(seg, nf & !LISTED);
            self.retx_scan = self.retx_scan.min(seg);
            self.rack_hi = self.rack_hi.max(seg + 1);
            seg = link(seg, s.next);
        }
        None
    }

    /// Bytes below `ack` are cumulatively acknowledged.
    pub fn ack_bytes(&mut self, ack: u64) {
        let seg = self.first_not_acked(ack);
        self.ack_to(seg);
    }

    /// [`Self::first_not_below`] for a cumulative ACK, which mostly covers the first segment or
    /// two: those (the lines `ack_to` reads next) are looked at before a binary search through
    /// a window whose lines are no longer in the cache (with thousands of connections).
    fn first_not_acked(&self, ack: u64) -> u64 {
        match self
            .flags
            .iter()
            .take(4)
            .position(|s| s.start + s.len as u64 > ack)
        {
            Some(i) => self.head + i as u64,
            None => self.first_not_below(ack),
        }
    }

    /// A SACK block of bytes `[lo, hi)`: the segments wholly inside it.
    pub fn sack_bytes(&mut self, lo: u64, hi: u64) {
        let (a, b) = (self.first_from(lo), self.first_not_below(hi));
        self.sack(a, b);
    }

    /// Segments below `seg` are cumulatively acknowledged.
    pub fn ack_to(&mut self, seg: u64) {
        while self.head < seg {
            if self.flags.front().is_some_and(|s| s.flags & LISTED != 0) {
                self.order_remove(self.head);
            }
            let Some(s) = self.flags.pop_front() else {
                self.head = seg;
                break;
            };
            let f = s.flags;
            let stamp = if self.rate.is_some() {
                self.stamps.pop_front()
            } else {
                None
            };
            if f & SACKED == 0 {
                self.delivered(s, Some(stamp.unwrap_or_default()), 0);
            }
            if f & SACKED != 0 {
                self.sacked -= 1;
                if self.head < self.lost_scan {
                    self.sacked_below_scan -= 1;
                }
            }
            if f & LOST != 0 {
                self.lost -= 1;
            }
            if f & RETX != 0 {
                self.retx -= 1;
            }
            self.head += 1;
        }
        if self.lost_scan < self.head {
            self.lost_scan = self.head;
            self.sacked_below_scan = 0;
        }
        self.retx_scan = self.retx_scan.max(self.head);
    }

    fn set_sacked(&mut self, seg: u64) -> bool {
        let s = self.flags[(seg - self.head) as usize];
        let f = s.flags;
        if f & SACKED != 0 {
            return false;
        }
        self.delivered(s, None, (seg - self.head) as usize);
        self.fack_now = self.fack_now.max(s.start + s.len as u64);
        if f & (RETX | EVER_RETX) == 0 {
            // Never resent: its one sending is the one the SACK answers (Karn).
            self.sack_sent = Some(match self.sack_sent {
                Some((first, last)) => (first.min(s.sent), last.max(s.sent)),
                None => (s.sent, s.sent),
            });
        }
        self.order_remove(seg);
        self.set(seg, SACKED);
        self.sacked += 1;
        if f & LOST != 0 {
            self.lost -= 1;
        }
        if f & RETX != 0 {
            self.retx -= 1;
        }
        if seg < self.lost_scan {
            self.sacked_below_scan += 1;
        }
        true
    }

    /// A SACK block covering segments `[lo, hi)`. Every segment inside it is SACKed, skipping
    /// the ranges of the blocks taken last, all of whose segments are SACKed already (Linux's
    /// `tcp_sacktag_write_queue` skips its `recv_sack_cache` the same way). Blocks are
    /// re-reported on every ACK while they grow, so the cost is a block's new part: its new
    /// ends, and the hole in its middle when a retransmission that filled the gap between two
    /// blocks joins them into one.
    pub fn sack(&mut self, lo: u64, hi: u64) {
        let lo = lo.max(self.head);
        let hi = hi.min(self.end());
        if lo >= hi {
            return;
        }
        let mut k = lo;
        while k < hi {
            match self.sack_seen.iter().find(|&&(a, b)| a <= k && k < b) {
                Some(&(_, b)) => k = b,
                None => {
                    self.set_sacked(k);
                    k += 1;
                }
            }
        }
        self.sack_seen[self.sack_seen_at] = (lo, hi);
        self.sack_seen_at = (self.sack_seen_at + 1) % SACK_SEEN;
    }

    /// RFC 6675 §4 IsLost, applied in order: a segment is lost once DupThresh segments above it
    /// are SACKed. The set of such segments only grows, so a scan pointer makes this O(1)
    /// amortized per segment.
    pub fn detect_losses(&mut self) {
        let end = self.end();
        while self.lost_scan < end {
            let f = self.at(self.lost_scan);
            let me = (f & SACKED != 0) as u32;
            let above = self.sacked - self.sacked_below_scan - me;
            if above < DUP_THRESH {
                break;
            }
            if me == 1 {
                self.sacked_below_scan += 1;
            } else if f & LOST == 0 {
                self.lose(self.lost_scan);
            }
            self.lost_scan += 1;
        }
    }

    /// Mark `seg` (neither SACKed nor lost) lost. It waits for its retransmission and leaves
    /// RACK's list, unless it was resent already (a resent segment is unmarked only when a
    /// spurious timeout is undone): then its copy is still in flight and RACK still judges it.
    fn lose(&mut self, seg: u64) {
        let f = self.at(seg);
        if f & RETX == 0 {
            self.order_remove(seg);
        }
        let f = self.at(seg);
        self.set(seg, f | LOST);
        self.lost += 1;
        let len = self.seg(seg).len;
        self.count_lost(len);
    }

    /// Mark one segment lost (the first unacknowledged one when recovery starts on DupThresh
    /// duplicate ACKs, RFC 6675 §5 step 4.2).
    pub fn mark_lost(&mut self, seg: u64) {
        if seg < self.head || seg >= self.end() {
            return;
        }
        let f = self.at(seg);
        if f & (SACKED | LOST) == 0 {
            self.lose(seg);
            self.retx_scan = self.retx_scan.min(seg);
        }
    }

    /// Retransmission timeout (RFC 6675 §5.1): every segment not SACKed is lost, and the ones
    /// retransmitted are presumed lost again.
    pub fn mark_all_lost(&mut self) {
        self.retx = 0;
        self.lost = 0;
        let mut newly = 0;
        for s in self.flags.iter_mut() {
            if s.flags & SACKED == 0 {
                // Newly lost, or a retransmission lost again (Linux's `tcp_mark_skb_lost`).
                if s.flags & LOST == 0 || s.flags & RETX != 0 {
                    newly += s.len as u64;
                }
                s.flags = LOST;
                self.lost += 1;
            }
        }
        if let Some(r) = self.rate.as_mut() {
            r.on_lost(newly);
        }
        self.lost_scan = self.end();
        self.sacked_below_scan = self.sacked;
        self.retx_scan = self.head;
        // Nothing left in flight for RACK to judge (`flags = LOST` cleared every LISTED).
        self.order_first = NIL;
        self.order_last = NIL;
    }

    /// A timeout was found spurious (RFC 5682): no segment is presumed lost any more, and
    /// IsLost starts over from the head. Resent segments stay counted in the pipe (both copies
    /// may still be in the network).
    pub fn unmark_lost(&mut self) {
        for s in self.flags.iter_mut() {
            s.flags &= !LOST;
        }
        self.lost = 0;
        self.lost_scan = self.head;
        self.sacked_below_scan = 0;
        self.retx_scan = self.head;
        self.rack_hi = self.head;
        if self.rack.is_some() {
            self.order_rebuild();
        }
    }

    /// RFC 6675 §4 NextSeg rule 1: the first lost segment not yet retransmitted.
    pub fn next_retx(&mut self) -> Option<u64> {
        let end = self.end();
        while self.retx_scan < end {
            let f = self.at(self.retx_scan);
            if f & LOST != 0 && f & (RETX | SACKED) == 0 {
                return Some(self.retx_scan);
            }
            // Nothing lost beyond the loss scans yet.
            if self.retx_scan >= self.lost_scan.max(self.rack_hi) && f & LOST == 0 {
                return None;
            }
            self.retx_scan += 1;
        }
        None
    }

    /// The segment returned by [`Self::next_retx`] was resent at `now`.
    pub fn on_retx(&mut self, seg: u64, now: Instant) {
        let f = self.at(seg);
        if f & RETX == 0 {
            self.set(seg, f | RETX | EVER_RETX);
            self.retx += 1;
        }
        self.resent_total += 1;
        if self.rack.is_some() {
            self.order_remove(seg);
            let s = self.seg_mut(seg);
            s.sent = now;
            let end = s.start + s.len as u64;
            self.order_insert(seg, (now, end));
        } else {
            self.seg_mut(seg).sent = now;
        }
        self.restamp(seg, now);
    }

    /// Without SACK (no RACK; only the estimator reads the entries): the segment starting at
    /// byte `seq` was resent at `now`.
    pub fn on_resent_bytes(&mut self, seq: u64, now: Instant) {
        let seg = self.first_from(seq);
        if seg < self.end() && self.bounds(seg).0 == seq {
            let f = self.at(seg);
            self.set(seg, f | EVER_RETX);
            let s = self.seg_mut(seg);
            s.sent = now;
            // Still the bound of every key on the list, if there is one.
            let key = (now, s.start + s.len as u64);
            self.order_max = self.order_max.max(key);
            self.restamp(seg, now);
        }
    }

    /// A new stamp for `seg`, resent at `now` (`tcp_rate_skb_sent` runs for every copy).
    #[inline]
    fn restamp(&mut self, seg: u64, now: Instant) {
        if let Some(r) = self.rate.as_mut() {
            self.stamps[(seg - self.head) as usize] = r.on_sent(now, false);
        }
    }

    /// Drop every entry and return the memory (a finished connection).
    pub fn release(&mut self) {
        *self = Scoreboard {
            head: self.end(),
            lost_scan: self.end(),
            retx_scan: self.end(),
            rack_hi: self.end(),
            rack: self.rack.map(|_| Rack::default()),
            rate: self.rate.take(),
            resent_total: self.resent_total,
            ..Default::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two entries to a cache line.
    #[test]
    fn an_entry_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Seg>(), 32);
    }

    /// A link reaches back and forth across the window, and 0 is no neighbour.
    #[test]
    fn links_are_offsets() {
        for (seg, to) in [
            (5u64, 9u64),
            (9, 5),
            (1 << 40, (1 << 40) + 70_000),
            (70_000, 0),
        ] {
            assert_eq!(link(seg, offset(seg, to)), to);
        }
        assert_eq!(offset(3, NIL), 0);
        assert_eq!(link(3, 0), NIL);
    }

    fn board(n: u64) -> Scoreboard {
        let mut s = Scoreboard::default();
        for k in 0..n {
            s.push(k * 1000, 1000, Instant::ZERO);
        }
        s
    }

    /// The guess from the first segment's size finds what the binary search alone finds, for
    /// windows of one size and of mixed sizes, at every byte.
    #[test]
    fn guessed_search_is_the_search() {
        let layouts: [&[u32]; 5] = [
            &[],
            &[100; 7],
            &[100, 100, 30, 100, 100],
            &[30, 100, 100, 100],
            &[100, 100, 100, 250, 1],
        ];
        for lens in layouts {
            let mut s = Scoreboard::default();
            let mut at = 1000;
            for &l in lens {
                s.push(at, l, Instant::ZERO);
                at += l as u64;
            }
            for seq in 900..at + 150 {
                let from = s.flags.partition_point(|x| x.start < seq) as u64;
                let not_below = s.flags.partition_point(|x| x.start + x.len as u64 <= seq) as u64;
                assert_eq!(s.first_from(seq), s.head + from, "{lens:?} {seq}");
                assert_eq!(s.first_not_below(seq), s.head + not_below, "{lens:?} {seq}");
            }
        }
    }

    /// The look at the first segments before the search finds what the search alone finds.
    #[test]
    fn first_not_acked_is_the_search() {
        for n in 0..9u64 {
            let mut s = Scoreboard::default();
            for k in 0..n {
                s.push(1000 + 100 * k, 100, Instant::ZERO);
            }
            for ack in (900..2100).step_by(50) {
                assert_eq!(s.first_not_acked(ack), s.first_not_below(ack), "{n} {ack}");
            }
        }
    }

    #[test]
    fn unaligned_segments_map_by_bytes() {
        // Segments of 1000, 300 (end of a burst), 1000, 1000 B.
        let mut s = Scoreboard::default();
        for (a, l) in [(0, 1000), (1000, 300), (1300, 1000), (2300, 1000)] {
            s.push(a, l, Instant::ZERO);
        }
        s.sack_bytes(1300, 3300);
        assert!(!s.is_sacked(1) && s.is_sacked(2) && s.is_sacked(3));
        s.sack_bytes(1000, 1200); // not a whole segment: nothing
        assert!(!s.is_sacked(1));
        s.ack_bytes(1300);
        assert_eq!(s.head(), 2);
        assert_eq!(s.bounds(2), (1300, 1000));
        assert_eq!(s.outstanding(), 2);
    }

    #[test]
    fn pipe_counts_sacked_lost_and_resent() {
        let mut s = board(10);
        assert_eq!(s.pipe(), 10);
        // Segment 2 lost; 3..7 SACKed.
        s.sack(3, 7);
        assert_eq!(s.sacked(), 4);
        s.detect_losses();
        // Segments 0, 1, 2 have >= 3 SACKed above them: lost (RFC 6675 IsLost).
        assert_eq!(s.lost(), 3);
        assert!(s.is_lost(0) && s.is_lost(2) && !s.is_lost(7));
        assert_eq!(s.pipe(), 10 - 4 - 3);
        assert_eq!(s.next_retx(), Some(0));
        s.on_retx(0, Instant::ZERO);
        assert_eq!(s.pipe(), 10 - 4 - 3 + 1);
        assert_eq!(s.next_retx(), Some(1));
        s.on_retx(1, Instant::ZERO);
        s.on_retx(2, Instant::ZERO);
        assert_eq!(s.next_retx(), None);
        // The cumulative ACK passes the holes and the SACKed block.
        s.ack_to(7);
        assert_eq!(
            (s.sacked(), s.lost(), s.outstanding(), s.pipe()),
            (0, 0, 3, 3)
        );
    }

    /// Ten segments sent 1 ms apart (segment k at k ms), with RACK.
    fn rack_board() -> Scoreboard {
        let mut s = Scoreboard::default();
        s.enable_rack();
        for k in 0..10u64 {
            s.push(k * 1000, 1000, Instant::ZERO + Duration::from_ms(k));
        }
        s
    }

    #[test]
    fn rack_marks_what_was_sent_before_a_delivery_and_a_round_trip_ago() {
        let ms = Duration::from_ms;
        let mut s = rack_board();
        // Segment 5 SACKed at 45 ms: RACK.rtt = 40 ms. Segments 0..4 were sent before it; at
        // 45 ms only those sent at least 40 ms ago (all of them, sent 0..4 ms) are lost with no
        // reordering window; one SACK is enough (IsLost would need three).
        s.rack_begin(Instant::ZERO + ms(45), Instant::ZERO + ms(5), ms(40));
        s.sack(5, 6);
        assert_eq!(s.rack_detect(Instant::ZERO + ms(45), Duration::ZERO), None);
        assert_eq!(s.lost(), 5);
        // With a 10 ms window none is lost yet; the timer is for the oldest (0 + 40 + 10 ms).
        let mut s = rack_board();
        s.rack_begin(Instant::ZERO + ms(45), Instant::ZERO + ms(5), ms(40));
        s.sack(5, 6);
        assert_eq!(
            s.rack_detect(Instant::ZERO + ms(45), ms(10)),
            Some(Instant::ZERO + ms(50))
        );
        assert_eq!(s.lost(), 0);
        // Segments 6..9, sent after the reference, are never judged by it.
        assert!(!(6..10).any(|k| s.is_lost(k)));
    }

    #[test]
    fn rack_finds_a_lost_retransmission_and_resends_it() {
        let ms = Duration::from_ms;
        let mut s = rack_board();
        // Segment 0 lost and resent at 50 ms; segments 1..10 SACKed meanwhile.
        s.rack_begin(Instant::ZERO + ms(50), Instant::ZERO + ms(9), ms(40));
        s.sack(1, 10);
        s.detect_losses();
        assert_eq!(s.next_retx(), Some(0));
        s.on_retx(0, Instant::ZERO + ms(50));
        assert_eq!((s.lost(), s.pipe()), (1, 1));
        // New segment 10 sent at 51 ms is SACKed at 92 ms: the retransmission, sent before it
        // and undelivered 41 ms later, is lost again; it leaves the pipe and is resent.
        s.push(10_000, 1000, Instant::ZERO + ms(51));
        s.rack_begin(Instant::ZERO + ms(92), Instant::ZERO + ms(51), ms(40));
        s.sack(10, 11);
        assert_eq!(s.rack_detect(Instant::ZERO + ms(92), Duration::ZERO), None);
        assert_eq!((s.lost(), s.pipe()), (1, 0));
        assert_eq!(s.next_retx(), Some(0));
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_above() {
        let mut s = board(10);
        s.sack(1, 3); // two SACKed above segment 0: not yet lost
        s.detect_losses();
        assert_eq!(s.lost(), 0);
        s.sack(4, 5); // three now; segment 3 has only one above
        s.detect_losses();
        assert!(s.is_lost(0));
        assert!(!s.is_lost(3));
        assert_eq!(s.lost(), 1);
        s.sack(6, 8);
        s.detect_losses();
        assert!(s.is_lost(3), "segment 3 has 3 SACKed above (4, 6, 7)");
        assert!(!s.is_lost(5), "segment 5 has only 2 above");
    }

    #[test]
    fn growing_blocks_only_mark_the_new_part() {
        let mut s = board(20);
        s.sack(5, 8);
        s.sack(5, 12);
        s.sack(3, 12);
        assert_eq!(s.sacked(), 9);
        for k in 3..12 {
            assert!(s.is_sacked(k));
        }
        assert!(!s.is_sacked(2) && !s.is_sacked(12));
    }

    /// A retransmission fills the hole between two SACKed blocks and the receiver reports the
    /// two as one (RFC 2018 §4): both ends of that block were SACKed before, the filled hole in
    /// its middle must be too, or RACK later takes the delivered retransmission for lost.
    #[test]
    fn a_block_that_joins_two_marks_the_filled_hole() {
        let mut s = board(30);
        s.sack(5, 10);
        s.sack(13, 20);
        s.sack(22, 25);
        s.sack(5, 20); // 10..13 arrived
        assert_eq!(s.sacked(), 18);
        for k in 5..20 {
            assert!(s.is_sacked(k), "{k}");
        }
        // A hole beyond what the remembered blocks cover is walked as well.
        for k in 0..SACK_SEEN as u64 {
            s.sack(26 + k % 2, 27 + k % 2);
        }
        s.sack(5, 25);
        assert_eq!(s.sacked(), 22);
        assert!((5..25).all(|k| s.is_sacked(k)) && !s.is_sacked(25) && !s.is_sacked(4));
    }

    proptest::proptest! {
        /// Whatever blocks arrive, in whatever order (growing, joining, nested, repeated), and
        /// whatever cumulative ACKs between them: every segment any block covered is SACKed,
        /// and no other.
        #[test]
        fn every_segment_a_block_covers_is_sacked(
            ops in proptest::collection::vec((0u64..60, 0u64..25, 0u8..8), 1..80)
        ) {
            let mut s = board(60);
            let mut want = [false; 60];
            for (a, n, kind) in ops {
                if kind == 0 {
                    s.ack_to(a.max(s.head()));
                    continue;
                }
                let b = (a + n).min(60);
                s.sack(a, b);
                for k in a.max(s.head())..b {
                    want[k as usize] = true;
                }
                for k in s.head()..60 {
                    proptest::prop_assert_eq!(s.is_sacked(k), want[k as usize], "segment {}", k);
                }
                let count = (s.head()..60).filter(|&k| want[k as usize]).count();
                proptest::prop_assert_eq!(s.sacked() as usize, count);
            }
        }
    }

    #[test]
    fn timeout_marks_everything_unsacked_lost() {
        let mut s = board(6);
        s.sack(2, 3);
        s.mark_lost(0);
        s.on_retx(0, Instant::ZERO);
        s.mark_all_lost();
        assert_eq!(s.lost(), 5);
        assert_eq!(s.pipe(), 0);
        assert_eq!(
            s.next_retx(),
            Some(0),
            "the earlier retransmission is lost too"
        );
        s.on_retx(0, Instant::ZERO);
        assert_eq!(s.next_retx(), Some(1));
        s.on_retx(1, Instant::ZERO);
        assert_eq!(s.next_retx(), Some(3), "segment 2 was SACKed");
    }
}

#[cfg(test)]
#[path = "scoreboard_rack_tests.rs"]
mod rack_order_tests;
