//! The pcap file format (libpcap's, `pcap-savefile(5)`; draft-ietf-opsawg-pcap): a 24-byte
//! file header, then per packet a 16-byte record header and the bytes kept of it.
//!
//! Timestamps are in nanoseconds (the magic number 0xa1b23c4d says so), the link type is
//! LINKTYPE_RAW (101: each record starts with the IPv4 header), fields in the writer's byte
//! order (little-endian here; readers tell by the magic). Writes go through a buffer: no system
//! call per packet.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::time::{Instant, NS_PER_SEC};

/// The magic number of a pcap file with nanosecond timestamps.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_RAW: raw IPv4/IPv6, no link-layer header.
pub const LINKTYPE_RAW: u32 = 101;
pub const FILE_HEADER: u64 = 24;
pub const RECORD_HEADER: u64 = 16;
const BUFFER_BYTES: usize = 256 * 1024;

static ZEROS: [u8; 4096] = [0; 4096];

/// One pcap file being written.
pub struct PcapFile {
    out: BufWriter<File>,
    /// Packets and bytes written so far (headers included).
    pub packets: u64,
    pub bytes: u64,
}

impl PcapFile {
    /// Create `path` (replacing any file there) with a file header announcing `snaplen`.
    pub fn create(path: &Path, snaplen: u32) -> io::Result<PcapFile> {
        let mut out = BufWriter::with_capacity(BUFFER_BYTES, File::create(path)?);
        out.write_all(&file_header(snaplen))?;
        Ok(PcapFile {
            out,
            packets: 0,
            bytes: FILE_HEADER,
        })
    }

    /// One record at `at`: `data`, then `zeros` zero bytes, of a packet `orig_len` bytes long.
    pub fn write(
        &mut self,
        at: Instant,
        data: &[u8],
        zeros: usize,
        orig_len: u32,
    ) -> io::Result<()> {
        let kept = data.len() + zeros;
        self.out
            .write_all(&record_header(at, kept as u32, orig_len))?;
        self.out.write_all(data)?;
        let mut left = zeros;
        while left > 0 {
            let n = left.min(ZEROS.len());
            self.out.write_all(&ZEROS[..n])?;
            left -= n;
        }
        self.packets += 1;
        self.bytes += RECORD_HEADER + kept as u64;
        Ok(())
    }

    /// Write out what the buffer holds.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The file header: magic, version 2.4, no time zone offset, no accuracy figure, the snapshot
/// length and the link type.
pub fn file_header(snaplen: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// A record header: seconds and nanoseconds of `at` (from the epoch: the run starts at
/// 1970-01-01 00:00:00), bytes kept and the packet's length.
pub fn record_header(at: Instant, kept: u32, orig_len: u32) -> [u8; 16] {
    let ns = at.as_ns();
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&((ns / NS_PER_SEC) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((ns % NS_PER_SEC) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&kept.to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_as_libpcap_writes_them() {
        // A nanosecond-resolution little-endian file starts 4d 3c b2 a1, version 2.4.
        assert_eq!(
            file_header(128)[..8],
            [0x4d, 0x3c, 0xb2, 0xa1, 0x02, 0x00, 0x04, 0x00]
        );
        assert_eq!(file_header(128)[16..], [128, 0, 0, 0, 101, 0, 0, 0]);
        let r = record_header(Instant::from_ns(3_000_000_123), 52, 1500);
        assert_eq!(r, [3, 0, 0, 0, 123, 0, 0, 0, 52, 0, 0, 0, 0xdc, 0x05, 0, 0]);
    }

    #[test]
    fn records_and_zero_payload() {
        let dir = std::env::temp_dir().join(format!("bufferlab-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.pcap");
        let mut f = PcapFile::create(&path, 9000).unwrap();
        f.write(Instant::from_ms(1), &[0x45, 1, 2], 5000, 6000)
            .unwrap();
        f.flush().unwrap();
        let b = std::fs::read(&path).unwrap();
        assert_eq!(b.len() as u64, f.bytes);
        assert_eq!(b.len(), 24 + 16 + 5003);
        assert_eq!(&b[40..43], &[0x45, 1, 2]);
        assert!(b[43..].iter().all(|&x| x == 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
