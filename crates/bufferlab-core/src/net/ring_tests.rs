//! The ring's descriptors: one packet each, or one GSO buffer each.

use super::*;
use crate::net::ring_gso::GSO_MAX_SIZE;
use crate::scenario::{BqlSpec, RingSpec};

fn ring(size: u32, bql: BqlSpec, gso: bool) -> Ring {
    Ring::new(&RingSpec { size, bql, gso })
}

fn seg(flow: u32, left: u8) -> Seg {
    Seg {
        flow,
        conn: 0,
        left,
    }
}

const T: Instant = Instant::ZERO;

/// Offer a buffer of `n` segments of `bytes` of `flow` while the driver may take them; the
/// segments taken.
fn offer_buffer(r: &mut Ring, id: &mut u32, flow: u32, n: u8, bytes: u32) -> u32 {
    let mut taken = 0;
    for i in 0..n {
        if !r.may_take() {
            break;
        }
        r.offer(*id, bytes, seg(flow, n - 1 - i), T);
        *id += 1;
        taken += 1;
    }
    taken
}

/// Without GSO a descriptor is a packet: 512 × 1500 B fill a 512-descriptor ring (768 kB).
#[test]
fn without_gso_a_descriptor_is_a_packet() {
    let mut r = ring(512, BqlSpec::Off, false);
    let mut n = 0;
    while r.may_take() {
        r.push(n, 1500, T);
        n += 1;
    }
    assert_eq!((n, r.descriptors(), r.bytes()), (512, 512, 768_000));
}

/// With GSO a descriptor is a buffer: a 512-descriptor ring holds 512 buffers of 3 segments
/// (2.3 MB), and its `size` counts the buffers.
#[test]
fn with_gso_a_descriptor_is_a_buffer() {
    let mut r = ring(512, BqlSpec::Off, true);
    let mut id = 0;
    for b in 0..600 {
        offer_buffer(&mut r, &mut id, b % 7, 3, 1500);
    }
    assert_eq!(r.descriptors(), 512);
    assert_eq!(r.len(), 3 * 512);
    assert_eq!(r.bytes(), 3 * 512 * 1500);
    // The NIC takes a buffer's segments one by one; its descriptor is free after the third.
    for _ in 0..2 {
        r.pop();
        assert_eq!(r.descriptors(), 512);
    }
    r.pop();
    assert_eq!(r.descriptors(), 511);
}

/// The rest of a buffer joins its descriptor on a full ring, with BQL's budget overdrawn: the
/// queue stops between buffers (Linux queues the whole super-packet).
#[test]
fn a_buffer_is_taken_whole() {
    let mut r = ring(1, BqlSpec::Fixed(64), true);
    let mut id = 0;
    assert_eq!(offer_buffer(&mut r, &mut id, 1, 4, 1500), 4);
    assert_eq!((r.descriptors(), r.len(), r.dql.avail() < 0), (1, 4, true));
    assert!(!r.may_take());
}

/// Segments of another flow, or not the next of the newest buffer, start a descriptor of their
/// own; with none free, the packet waits beside the ring, then takes the first one freed.
#[test]
fn only_the_next_segment_joins() {
    let mut r = ring(2, BqlSpec::Off, true);
    r.offer(0, 1500, seg(1, 2), T);
    r.offer(1, 1500, seg(2, 1), T); // another flow, same count
    assert_eq!(r.descriptors(), 2);
    r.offer(2, 1500, seg(2, 0), T); // flow 2's next
    assert_eq!((r.descriptors(), r.len()), (2, 3));
    // Flow 2's buffer is complete; nothing else joins and both descriptors are taken.
    assert!(!r.may_take());
    let mut r = ring(1, BqlSpec::Off, true);
    r.offer(0, 1500, seg(1, 3), T);
    assert!(
        r.may_take(),
        "the buffer's next segment needs no descriptor"
    );
    r.offer(1, 1500, seg(1, 1), T); // its next was lost: a new buffer's, no descriptor free
    assert_eq!((r.descriptors(), r.len(), r.bytes()), (1, 2, 3000));
    assert!(!r.may_take());
    r.place_held();
    assert_eq!(r.descriptors(), 1);
    assert_eq!(r.pop().map(|e| e.0), Some(0));
    r.place_held();
    assert_eq!((r.descriptors(), r.len()), (1, 1));
    assert_eq!(r.pop().map(|e| e.0), Some(1));
    assert!(r.is_empty());
}

/// A descriptor holds at most `gso_max_size`: 44 segments of 1500 B take two.
#[test]
fn a_descriptor_holds_at_most_64_kib() {
    let mut r = ring(8, BqlSpec::Off, true);
    let mut id = 0;
    assert_eq!(offer_buffer(&mut r, &mut id, 1, 44, 1500), 44);
    assert_eq!(r.descriptors(), 2);
    let first = (GSO_MAX_SIZE / 1500) as u64;
    for _ in 0..first {
        r.pop();
    }
    assert_eq!((r.descriptors(), r.len()), (1, 44 - first));
}

/// BQL learns of a descriptor's bytes once, at its last segment's completion.
#[test]
fn bql_completes_a_descriptor_whole() {
    let mut r = ring(4, BqlSpec::Off, true);
    let mut id = 0;
    offer_buffer(&mut r, &mut id, 1, 3, 1500);
    offer_buffer(&mut r, &mut id, 2, 1, 100);
    let mut reported = Vec::new();
    while let Some((_, bytes, _)) = r.pop() {
        r.started(bytes);
        reported.push(r.on_wire);
    }
    assert_eq!(reported, [0, 0, 4500, 100]);
    let mut r = ring(4, BqlSpec::Auto, false);
    r.push(0, 1500, T);
    let (_, b, _) = r.pop().unwrap();
    r.started(b);
    assert_eq!(r.on_wire, 1500);
}

/// The rest of a buffer whose first segments the NIC already took still holds a descriptor.
#[test]
fn a_buffer_started_on_the_wire_keeps_its_descriptor() {
    let mut r = ring(1, BqlSpec::Off, true);
    r.offer(0, 1500, seg(1, 2), T);
    r.pop();
    assert_eq!(r.descriptors(), 0);
    assert!(r.may_take());
    r.offer(1, 1500, seg(1, 1), T);
    assert_eq!(r.descriptors(), 1);
    r.offer(2, 1500, seg(1, 0), T);
    assert_eq!((r.descriptors(), r.len()), (1, 2));
}
