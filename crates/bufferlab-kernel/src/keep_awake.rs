//! Cores kept out of their idle state for the length of a run.
//!
//! A core that has nothing to run halts; on a virtual machine the halt is a VM exit, and the
//! next wake-up on it (an interrupt for the driver's timer, a host program woken by a packet)
//! costs tens of microseconds more than on a core that was running something. Those
//! microseconds are the real hosts' reaction times as the network sees them, and some cases
//! turn on them (docs/kernel-backend.md, "Keeping the cores awake"). One thread per core spins
//! under `SCHED_IDLE`, the policy that runs only when nothing else on that core wants to: any
//! other thread that wakes takes the core at once, so the spinners delay no work and take only
//! time that would have been spent halted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::sys;

/// The spinning threads; they stop when this is dropped.
pub struct KeepAwake {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<bool>>,
}

impl KeepAwake {
    /// One spinner per core the process may run on.
    pub fn start() -> KeepAwake {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .filter_map(|i| {
                let stop = stop.clone();
                std::thread::Builder::new()
                    .name(format!("bufferlab-awake-{i}"))
                    .spawn(move || {
                        // Never spin at the caller's priority: without SCHED_IDLE the thread
                        // would compete with the hosts' programs, so it ends at once.
                        if !sys::idle_priority() {
                            return false;
                        }
                        while !stop.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                        true
                    })
                    .ok()
            })
            .collect();
        KeepAwake { stop, threads }
    }

    /// Stop the spinners; how many of them ran (those that could take `SCHED_IDLE`).
    pub fn stop(mut self) -> usize {
        self.halt()
    }

    fn halt(&mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.threads
            .drain(..)
            .filter_map(|t| t.join().ok())
            .filter(|&ran| ran)
            .count()
    }
}

impl Drop for KeepAwake {
    fn drop(&mut self) {
        self.halt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinners_run_at_idle_priority_and_stop() {
        let k = KeepAwake::start();
        let n = k.threads.len();
        assert!(n >= 1);
        std::thread::sleep(std::time::Duration::from_millis(20));
        // SCHED_IDLE needs no privilege, so every spinner ran, and each stops when asked.
        assert_eq!(k.stop(), n);
    }

    #[test]
    fn idle_priority_is_the_idle_policy() {
        let t = std::thread::spawn(|| {
            let ok = sys::idle_priority();
            (ok, sys::current_policy())
        });
        assert_eq!(t.join().unwrap(), (true, libc::SCHED_IDLE));
    }
}
