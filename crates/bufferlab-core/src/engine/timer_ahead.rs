//! The look-ahead for an agent's timer: what its hook reads is a chain of three cache misses
//! (the agent's entry in the engine's table, the endpoint's record it points to, the connection
//! in the record's vector), each known only once the one before has come. In a many-flow run
//! a delayed ACK's or a retransmission timer's hook otherwise waits on all three in turn: they
//! are 4% of the events of `stanford-2.5G-2000`, and their waits some 3% of its run's samples
//! in a profile (`docs/BENCHMARKS.md`). Each link of the chain is started a few events before the timer
//! runs, one event or more after the one before it, while the event queue's front shows the
//! timer coming ([`crate::sched::Sched::peek_nth`]). Prefetches only: nothing here changes a
//! result, and a timer that moves in the front (an event scheduled before it) at worst reads a
//! line before it came.

use super::Engine;
use crate::sched::Ev;

impl Engine {
    /// The timer `n` events after the next one, if the front shows one there: its agent's
    /// entry at the far position, the endpoint's record nearer (reading the entry), the
    /// connection next to the event itself (reading the record).
    #[inline]
    pub(super) fn warm_timer(&self, n: usize, ev: Option<Ev>) {
        let Some(Ev::Timer { agent, token }) = ev else {
            return;
        };
        let Some(a) = self.agents.get(agent as usize) else {
            return;
        };
        match n {
            TIMER_ENTRY => crate::prefetch::line(a),
            TIMER_RECORD => a.agent.prefetch(),
            // A TCP endpoint's token is the connection's number (its application's timer has
            // another, which names none).
            _ => a.agent.prefetch_conn(token),
        }
    }
}

/// Where in the front (events after the next one) a timer's agent entry is asked for.
pub(super) const TIMER_ENTRY: usize = 3;
/// Where its endpoint's record is asked for (the entry read).
pub(super) const TIMER_RECORD: usize = 1;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every position, a TCP endpoint's connection token, its application's token, an agent
    /// out of range and an event that is no timer: each only reads (nothing panics, the
    /// engine's run is unchanged).
    #[test]
    fn warming_a_timer_only_reads() {
        let sc = crate::engine::two_nodes(json!([{ "kind": "tcp", "pairs": [["a", "b"]] }]));
        let e = crate::build::build(&sc).unwrap();
        let agents = e.agents().len() as u32;
        assert!(agents >= 2);
        for n in [0, TIMER_RECORD, 2, TIMER_ENTRY, 9] {
            for agent in [0, agents - 1, agents, u32::MAX] {
                for token in [0, 1, u32::MAX] {
                    e.warm_timer(n, Some(Ev::Timer { agent, token }));
                }
            }
            e.warm_timer(n, Some(Ev::TxDone(0)));
            e.warm_timer(n, None);
        }
    }
}
