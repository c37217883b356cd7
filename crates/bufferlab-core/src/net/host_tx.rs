//! What a host's egress tells the sockets above it, per flow: what Linux keeps in the socket
//! and the transmit path updates.
//!
//! - the bytes of each connection's packets still in the host — in its qdisc, on its NIC ring or
//!   being serialized — Linux's `sk_wmem_alloc`, which TCP small queues bound
//!   (`tcp_small_queue_check`, [`crate::tcp::tsq`]); a packet stops counting at its TX
//!   completion (the end of its serialization: the driver frees the skb and `tcp_wfree` runs),
//!   or when the host's qdisc drops it;
//! - whether the connection is waiting for such a completion (`TSQ_THROTTLED`): the completion
//!   then wakes the sender (`tcp_wfree` queues the socket for `tcp_tsq_handler`, which calls
//!   `tcp_write_xmit`), with one event, not one per packet;
//! - whether the host's egress is an `fq` qdisc with pacing (Linux's `sk_pacing_status =
//!   SK_PACING_FQ`, which `fq_classify` sets at the socket's first packet; known when the network
//!   is built, since every packet of the flow leaves by the same port): the sender then spaces
//!   its packets' departure times at its pacing rate for `fq` to enforce.
//!
//! The sender counts what it hands its host (Linux charges `sk_wmem_alloc` in
//! `tcp_transmit_skb`, before the packet reaches the qdisc); the port counts down what leaves
//! and wakes a waiting sender (no call into the agent per packet).

/// One connection's packets in the host's egress.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnTx {
    /// IP bytes of its packets queued or being sent by the host.
    pub queued_bytes: u64,
    /// The sender stopped for TCP small queues and waits for a completion.
    pub throttled: bool,
}

/// One flow's sockets as the host's egress sees them.
#[derive(Clone, Debug, Default)]
pub struct HostTx {
    /// Whether the host's egress counts this flow's data packets (TCP small queues apply).
    pub tracked: bool,
    /// Whether the host's egress is an `fq` with pacing (its sender's `SK_PACING_FQ`).
    pub paced_by_fq: bool,
    /// Per connection (web flows open several).
    conns: Vec<ConnTx>,
}

impl HostTx {
    /// Connection `conn`'s state (zero until its first packet).
    #[inline]
    pub fn conn(&self, conn: u32) -> ConnTx {
        self.conns.get(conn as usize).copied().unwrap_or_default()
    }

    #[inline]
    fn conn_mut(&mut self, conn: u32) -> &mut ConnTx {
        let c = conn as usize;
        if c >= self.conns.len() {
            // Once per new connection, not per packet.
            self.conns.resize(c + 1, ConnTx::default());
        }
        &mut self.conns[c]
    }

    /// The sender of `conn` stops until one of its packets leaves the host.
    pub fn throttle(&mut self, conn: u32) {
        self.conn_mut(conn).throttled = true;
    }

    /// The sender handed its host a data packet of `bytes` of `conn`: counted if the host's
    /// egress tracks the flow (it counts the packet down when it leaves).
    #[inline]
    pub fn on_send(&mut self, conn: u32, bytes: u32) {
        if self.tracked {
            self.conn_mut(conn).queued_bytes += bytes as u64;
        }
    }

    /// A packet of `conn` left the host (TX completion) or was dropped there; whether its
    /// sender was waiting for that (the flag is cleared: the caller wakes it once).
    #[inline]
    pub(crate) fn on_release(&mut self, conn: u32, bytes: u32) -> bool {
        let c = self.conn_mut(conn);
        c.queued_bytes -= bytes as u64;
        std::mem::take(&mut c.throttled)
    }
}

/// Whether TCP small queues apply to a sender whose block says `setting` (`tsq`), behind a host
/// egress with or without a NIC ring and an `fq` qdisc: by default where the egress models a
/// Linux host's stack (a `ring`, or the `fq` qdisc only Linux hosts run), as Linux's TCP always
/// has them; `true` or `false` wherever.
pub fn applies(setting: Option<bool>, egress_has_ring: bool, egress_is_fq: bool) -> bool {
    setting.unwrap_or(egress_has_ring || egress_is_fq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_wakes_a_waiting_sender_once() {
        let mut h = HostTx::default();
        h.on_send(2, 1500);
        assert_eq!(h.conn(2).queued_bytes, 0, "not tracked");
        h.tracked = true;
        h.on_send(2, 1500);
        h.on_send(2, 1500);
        assert_eq!(h.conn(2).queued_bytes, 3000);
        assert_eq!(h.conn(0).queued_bytes, 0);
        h.throttle(2);
        assert!(h.on_release(2, 1500));
        assert!(!h.on_release(2, 1500));
        assert_eq!(h.conn(2).queued_bytes, 0);
    }

    #[test]
    fn default_is_on_where_the_egress_models_linux() {
        assert!(!applies(None, false, false));
        assert!(applies(None, true, false));
        assert!(applies(None, false, true));
        assert!(applies(Some(true), false, false));
        assert!(!applies(Some(false), true, true));
    }
}
