//! The encoder against known packets: the RFC 1071 and RFC 791 checksum examples, and
//! segments whose every byte is written out below (each also read by tshark, which found the
//! fields and checksums as stated).

use super::*;
use crate::packet::{Ecn, TcpHeader};
use crate::wire::internet_checksum;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Whether a TCP or UDP segment's checksum is right: the one's-complement sum of the
/// pseudo-header, the headers and a zero payload of `total - 20 - headers` bytes is 0xffff.
fn l4_ok(b: &[u8], total: u32) -> bool {
    let mut pseudo = [0u8; 12];
    pseudo[0..8].copy_from_slice(&b[12..20]);
    pseudo[9] = b[9];
    pseudo[10..12].copy_from_slice(&((total - 20) as u16).to_be_bytes());
    ones_sum(&b[20..], ones_sum(&pseudo, 0) as u32) == 0xffff
}

const TCP_FLOW: FlowWire = FlowWire {
    flow: 3,
    src: 0,
    tcp: Some(TcpShape {
        mss: 1460,
        sack: true,
        timestamps: true,
        rwnd: 6 << 20,
    }),
};

fn segment(src: NodeId, dst: NodeId, size: u32, tcp: TcpHeader) -> Packet {
    Packet {
        flow: 3,
        src,
        dst,
        size,
        proto: Proto::Tcp,
        ttl: 64,
        tcp,
        ..Default::default()
    }
}

#[test]
fn ipv4_header_checksum_of_a_known_header() {
    // The IPv4 header of RFC 791's usual worked example (192.168.0.1 -> 192.168.0.199, UDP,
    // total length 115): its checksum is b861.
    let mut h = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];
    assert_eq!(internet_checksum(&h), 0xb861);
    h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
    assert_eq!(internet_checksum(&h), 0);
}

#[test]
fn a_full_data_segment() {
    let (isn_a, isn_b) = (isn(3, 0, 0), isn(3, 0, 1));
    let p = Packet {
        ecn: Ecn::Ect0,
        ..segment(
            0,
            1,
            1500,
            TcpHeader {
                seq: 1448,
                len: 1448,
                flags: tcp_flags::ACK,
                ts_val: Instant::from_ms(1500),
                ts_ecr: Instant::from_ms(1490),
                ..Default::default()
            },
        )
    };
    let mut out = [0u8; MAX_HEADERS];
    let h = encode(&p, &TCP_FLOW, &mut out);
    assert_eq!((h.len, h.total_len), (52, 1500));
    let b = &out[..h.len];
    assert_eq!(internet_checksum(&b[..20]), 0, "IP header checksum");
    assert!(l4_ok(b, h.total_len), "TCP checksum");
    // IPv4: ECT(0), 1500 bytes, DF, TTL 64, TCP, 10.77.0.1 -> 10.77.0.2.
    assert_eq!(hex(&b[..10]), "4502 05dc 0000 4000 4006".replace(' ', ""));
    assert_eq!(hex(&b[12..20]), "0a4d00010a4d0002");
    // TCP: 32768 -> 20003, seq ISN + 1 + 1448, ack the peer's ISN + 1, 32-byte header, ACK,
    // window 6 MiB >> 7 = 49152.
    assert_eq!(hex(&b[20..24]), "80004e23");
    assert_eq!(
        u32::from_be_bytes(b[24..28].try_into().unwrap()),
        isn_a.wrapping_add(1449)
    );
    assert_eq!(
        u32::from_be_bytes(b[28..32].try_into().unwrap()),
        isn_b.wrapping_add(1)
    );
    assert_eq!(hex(&b[32..36]), "8010c000");
    // NOP, NOP, timestamps 1500 and 1490 (ms).
    assert_eq!(hex(&b[40..52]), "0101080a000005dc000005d2");
    // One bit off anywhere and the checksums say so.
    let mut bad = b.to_vec();
    bad[30] ^= 1;
    assert!(!l4_ok(&bad, h.total_len));
}

#[test]
fn the_pinned_bytes_of_a_syn_and_its_syn_ack() {
    let syn = segment(
        0,
        1,
        52,
        TcpHeader {
            flags: tcp_flags::SYN | tcp_flags::ECE | tcp_flags::CWR,
            ts_val: Instant::from_ms(7),
            ..Default::default()
        },
    );
    let mut out = [0u8; MAX_HEADERS];
    let h = encode(&syn, &TCP_FLOW, &mut out);
    // 20 bytes of options (MSS 1460, SACK permitted, timestamps, NOP, window scale 7) in a
    // 60-byte packet: the MSS and window scale are the 8 bytes the simulator does not charge.
    assert_eq!((h.len, h.total_len), (60, 60));
    assert_eq!(
        hex(&out[..60]),
        concat!(
            "4500003c000040004006",
            "2620",
            "0a4d0001",
            "0a4d0002",
            "80004e23",
            "48662529",
            "00000000",
            "a0c2",
            "ffff",
            "f6e9",
            "0000",
            "020405b4",
            "0402",
            "080a0000000700000000",
            "01030307",
        )
    );
    assert!(l4_ok(&out[..60], 60));
    let syn_ack = segment(
        1,
        0,
        52,
        TcpHeader {
            flags: tcp_flags::SYN | tcp_flags::ACK | tcp_flags::ECE,
            rwnd: 6 << 20,
            ts_val: Instant::from_ms(17),
            ts_ecr: Instant::from_ms(7),
            ..Default::default()
        },
    );
    let h = encode(&syn_ack, &TCP_FLOW, &mut out);
    assert_eq!((h.len, h.total_len), (60, 60));
    // From 20003 to 32768, acknowledging the SYN: the source's ISN + 1.
    assert_eq!(hex(&out[20..24]), "4e238000");
    let ack = u32::from_be_bytes(out[28..32].try_into().unwrap());
    assert_eq!(ack, isn(3, 0, 0).wrapping_add(1));
    assert_eq!(out[33], tcp_flags::SYN | tcp_flags::ACK | tcp_flags::ECE);
    assert!(l4_ok(&out[..60], 60));
}

#[test]
fn sack_blocks_lengthen_an_ack_by_their_bytes() {
    let mut tcp = TcpHeader {
        ack: 2896,
        flags: tcp_flags::ACK,
        rwnd: 6 << 20,
        ts_val: Instant::from_ms(20),
        ts_ecr: Instant::from_ms(10),
        ..Default::default()
    };
    tcp.sack[0] = (4344, 5792);
    tcp.sack[1] = (7240, 8688);
    tcp.nsack = 2;
    let p = segment(1, 0, 52, tcp);
    let mut out = [0u8; MAX_HEADERS];
    let h = encode(&p, &TCP_FLOW, &mut out);
    // 12 bytes of timestamps and 4 + 2 x 8 of SACK: 52 + 20 bytes.
    assert_eq!((h.len, h.total_len), (72, 72));
    let base = isn(3, 0, 0).wrapping_add(1);
    let word = |i: usize| u32::from_be_bytes(out[i..i + 4].try_into().unwrap());
    assert_eq!(word(28), base.wrapping_add(2896));
    assert_eq!(hex(&out[52..56]), "01010512");
    assert_eq!(
        [word(56), word(60), word(64), word(68)],
        [4344, 5792, 7240, 8688].map(|x: u32| base.wrapping_add(x))
    );
    assert!(l4_ok(&out[..72], 72));
    assert_eq!(internet_checksum(&out[..20]), 0);
}

#[test]
fn sequence_numbers_wrap_at_2_to_the_32() {
    let p = segment(
        0,
        1,
        1500,
        TcpHeader {
            seq: (1u64 << 32) + 5,
            len: 1448,
            flags: tcp_flags::ACK,
            ..Default::default()
        },
    );
    let mut out = [0u8; MAX_HEADERS];
    encode(&p, &TCP_FLOW, &mut out);
    let seq = u32::from_be_bytes(out[24..28].try_into().unwrap());
    assert_eq!(seq, isn(3, 0, 0).wrapping_add(6));
}

#[test]
fn udp_and_echo_checksums() {
    let f = FlowWire {
        flow: 1,
        src: 2,
        tcp: None,
    };
    let udp = Packet {
        flow: 1,
        src: 2,
        dst: 5,
        size: 29,
        proto: Proto::Udp,
        ttl: 2,
        ..Default::default()
    };
    let mut out = [0u8; MAX_HEADERS];
    let h = encode(&udp, &f, &mut out);
    assert_eq!((h.len, h.total_len), (28, 29));
    assert_eq!(hex(&out[20..26]), "80004e210009", "ports and length 9");
    assert!(l4_ok(&out[..28], 29));
    assert_eq!(internet_checksum(&out[..20]), 0);
    let echo = Packet {
        proto: Proto::EchoReply,
        src: 5,
        dst: 2,
        size: 84,
        seq: 7,
        ..udp
    };
    let h = encode(&echo, &f, &mut out);
    assert_eq!((h.len, h.total_len), (28, 84));
    // Type 0 (reply), identifier 20001, sequence 7; 56 zero bytes of data.
    assert_eq!(out[20], 0);
    assert_eq!(hex(&out[24..28]), "4e210007");
    assert_eq!(internet_checksum(&out[20..28]), 0);
}
