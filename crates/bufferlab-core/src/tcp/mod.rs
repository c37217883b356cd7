//! TCP: senders and receivers for bulk, sized, web and on/off transfers.
//!
//! - [`params`]: the options of a traffic block's `tcp` map and their defaults;
//! - [`rtt`]: RTT estimation and the retransmission timeout (RFC 6298);
//! - [`cc`]: congestion control behind one trait (NewReno, Cubic, Vegas, BBR, DCTCP, Prague);
//! - [`accecn`]: Accurate ECN feedback's counters (RFC 9768);
//! - [`scoreboard`]: the SACK scoreboard (RFC 6675); [`prr`]: Proportional Rate Reduction
//!   (RFC 6937), the sending rate during SACK recovery; [`rack`]: RACK's time-based loss
//!   detection (RFC 8985); [`frto`]: spurious timeouts (RFC 5682); [`dsack`]: D-SACK
//!   (RFC 2883) and the undo of needless recoveries;
//! - [`sender`]: one connection's sending state machine (its settings, variables and counters
//!   apart in `send_vars`), [`receiver`]: the receiving side;
//! - [`endpoint`]: the agents; [`workload`]: the workloads that drive them and their draws;
//! - [`tsq`]: TCP small queues, what a Linux sender keeps in its own host's egress;
//! - [`gso`]: how a Linux sender cuts its data into GSO buffers (TSO autosizing and deferral).
//!
//! Sequence numbers are 64-bit byte offsets from 0 (no wrap-around); the SYN and FIN do not take
//! a sequence number. See `docs/tcp.md`.

pub mod accecn;
pub mod bufauto;
pub mod cc;
pub mod comp_sack;
pub mod cwnd_use;
pub mod dsack;
pub mod endpoint;
pub mod frto;
pub mod gso;
pub mod minmax;
pub mod pacing;
pub mod params;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod rcv_rtt;
pub mod rcv_window;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
mod send_vars;
pub mod sender;
pub mod tlp;
pub mod tsq;
pub mod workload;

pub use endpoint::TcpSender;
pub use params::TcpParams;
pub use receiver::TcpReceiver;

#[cfg(test)]
mod badrxt_tests;
#[cfg(test)]
mod bbr_tests;
#[cfg(test)]
mod bufauto_tests;
#[cfg(test)]
mod dctcp_tests;
#[cfg(test)]
mod dsack_tests;
#[cfg(test)]
mod edt_tests;
#[cfg(test)]
mod frto_tests;
#[cfg(test)]
mod pacing_tests;
#[cfg(test)]
mod sack_rtt_tests;
#[cfg(test)]
mod testnet;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tlp_tests;
#[cfg(test)]
mod tsq_tests;
