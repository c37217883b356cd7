//! Every system call the backend makes that the standard library does not wrap: opening a TUN
//! device (`ioctl(TUNSETIFF)`, Documentation/networking/tuntap.rst), entering a network
//! namespace (`setns(2)`), waiting on several descriptors with a nanosecond timeout (`ppoll(2)`)
//! and asking for precise timer wake-ups (`PR_SET_TIMERSLACK`).
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Open a TUN device named `name` (no packet-information header: reads and writes are bare IP
/// packets) in the calling thread's network namespace, non-blocking. The device lives as long
/// as the descriptor.
pub fn open_tun(name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "interface name too long",
        ));
    }
    let path = c"/dev/net/tun";
    // SAFETY: a valid NUL-terminated path; the returned descriptor is checked before use.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: an all-zero ifreq is valid; the name fits (checked above) and stays NUL-terminated.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    ifr.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF reads and writes one ifreq, which outlives the call.
    let r = unsafe {
        libc::ioctl(
            owned.as_raw_fd(),
            libc::TUNSETIFF,
            &mut ifr as *mut libc::ifreq,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(owned)
}

/// Move the calling thread into the network namespace `ns` refers to (a file under
/// `/run/netns`).
pub fn enter_netns(ns: &File) -> io::Result<()> {
    // SAFETY: a valid descriptor of a namespace file; only the calling thread changes namespace.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Wait until one of `fds` is readable or `timeout_ns` passes; returns which are readable.
/// An interrupted wait returns no descriptor ready.
pub fn poll_readable(fds: &[i32], ready: &mut Vec<bool>, timeout_ns: u64) -> io::Result<()> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `pfds` and `ts` outlive the call; the length matches the buffer.
    let r = unsafe {
        libc::ppoll(
            pfds.as_mut_ptr(),
            pfds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    ready.clear();
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            ready.resize(fds.len(), false);
            return Ok(());
        }
        return Err(e);
    }
    ready.extend(pfds.iter().map(|p| p.revents & libc::POLLIN != 0));
    Ok(())
}

/// Timer wake-ups of the calling thread as precise as the kernel can make them (the default
/// slack of 50 µs would be a sixth of the RTT error the backend allows itself).
pub fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and affects only the calling thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// Whether the process runs with root's effective user id.
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and has no arguments.
    unsafe { libc::geteuid() == 0 }
}

/// Whether process `pid` still runs (a namespace left by one that does not is stale). A zombie
/// — killed, not yet reaped by its parent — has exited: its descriptors and namespaces are
/// released and it runs nothing, though `kill(pid, 0)` still finds it (proc(5): state `Z`).
pub fn process_alive(pid: u32) -> bool {
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        return !matches!(stat_state(&stat), Some('Z' | 'X'));
    }
    // SAFETY: signal 0 checks existence and permission only.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The state letter of a `/proc/<pid>/stat` line: the field after the command name, which is
/// in parentheses and may itself hold spaces and parentheses (so read from the last `)`).
fn stat_state(stat: &str) -> Option<char> {
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Read one packet from a non-blocking descriptor: `Ok(None)` when nothing is waiting.
pub fn read_packet(fd: i32, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: `buf` is valid for `buf.len()` bytes for the duration of the call.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// Write one packet; a TUN write is a whole packet or nothing.
pub fn write_packet(fd: i32, pkt: &[u8]) -> io::Result<()> {
    // SAFETY: `pkt` is valid for its length for the duration of the call.
    let n = unsafe { libc::write(fd, pkt.as_ptr() as *const libc::c_void, pkt.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Send SIGKILL to process `pid` (a program left in one of our namespaces).
pub fn kill(pid: u32) {
    // SAFETY: kill has no memory arguments; a process that is gone gives ESRCH, ignored.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock the driver and the programs in the namespaces
/// share (Python's `time.monotonic_ns()` reads the same one).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec the call fills in.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Run the calling thread under SCHED_FIFO (priority 10) when allowed, so other work on a busy
/// machine does not delay its wake-ups by a scheduler tick; it sleeps in `ppoll` between events,
/// and the kernel's RT throttling (`sched_rt_runtime_us`) bounds it in any case. Returns whether
/// the policy took effect.
pub fn realtime_priority() -> bool {
    let p = libc::sched_param { sched_priority: 10 };
    // SAFETY: pid 0 is the calling thread; `p` outlives the call.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}

/// Run the calling thread under SCHED_IDLE: it gets a core only when nothing else on it wants
/// one (`keep_awake`). Returns whether the policy took effect.
pub fn idle_priority() -> bool {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; `p` outlives the call.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &p) == 0 }
}

/// The calling thread's scheduling policy (`SCHED_*`).
#[cfg(test)]
pub fn current_policy() -> i32 {
    // SAFETY: pid 0 is the calling thread.
    unsafe { libc::sched_getscheduler(0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_state_reads_past_a_command_with_parentheses() {
        assert_eq!(stat_state("42 (sleep) S 1 42 42 0"), Some('S'));
        assert_eq!(stat_state("42 (a) b) Z 1 42"), Some('Z'));
        assert_eq!(stat_state("42 (no end"), None);
    }

    #[test]
    fn a_zombie_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Not reaped: after it exits the child stays a zombie until `wait`.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while process_alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        assert_eq!(
            stat_state(&state),
            Some('Z'),
            "the child is a zombie, not gone"
        );
        assert!(!process_alive(pid));
        child.wait().unwrap();
        assert!(!process_alive(pid));
        assert!(process_alive(std::process::id()));
    }
}
