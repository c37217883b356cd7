//! bufferlab-kernel: the kernel backend. Every host node of a scenario is a Linux network
//! namespace with the kernel's own TCP/UDP/ICMP behind a TUN device; everything between the
//! hosts is bufferlab's engine ([`bufferlab_core::realtime`]) paced by the wall clock. Linux
//! only; the core sees only "a host endpoint".

#[cfg(target_os = "linux")]
pub mod driver;
pub mod icmp;
pub mod ipv4;
#[cfg(target_os = "linux")]
pub mod keep_awake;
#[cfg(target_os = "linux")]
pub mod netns;
#[cfg(target_os = "linux")]
pub mod session;
#[cfg(target_os = "linux")]
pub mod slab;
#[cfg(target_os = "linux")]
mod sys;

#[cfg(all(test, target_os = "linux"))]
mod real_hosts;

#[cfg(target_os = "linux")]
pub use session::{cleanup, preflight, Session};
#[cfg(target_os = "linux")]
pub use sys::{monotonic_ns, precise_timers, realtime_priority};
