//! The new and old lists FQ-CoDel and `fq` keep their flow queues on (RFC 8290 §4.2; Linux
//! `sch_fq_codel.c`, `sch_fq.c`): singly linked through each flow's `next` index into the
//! discipline's flow table, with a head and a tail. Nothing is allocated; a push or a pop
//! touches at most two flows.

/// "No flow" (or "no slot") in a link.
pub(crate) const NIL: u32 = u32::MAX;

/// A flow that is on at most one list at a time.
pub(crate) trait Linked {
    /// The next flow on the list this one is on.
    fn next_mut(&mut self) -> &mut u32;
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Chain {
    pub(crate) head: u32,
    pub(crate) tail: u32,
}

impl Chain {
    pub(crate) const EMPTY: Chain = Chain {
        head: NIL,
        tail: NIL,
    };

    /// Append flow `f` of `flows` at the tail.
    #[inline]
    pub(crate) fn push<T: Linked>(&mut self, flows: &mut [T], f: u32) {
        *flows[f as usize].next_mut() = NIL;
        if self.tail == NIL {
            self.head = f;
        } else {
            *flows[self.tail as usize].next_mut() = f;
        }
        self.tail = f;
    }

    /// Take the head off (the caller has just read it: the list is not empty) and return it.
    #[inline]
    pub(crate) fn pop<T: Linked>(&mut self, flows: &mut [T]) -> u32 {
        let f = self.head;
        let next = std::mem::replace(flows[f as usize].next_mut(), NIL);
        self.head = next;
        if next == NIL {
            self.tail = NIL;
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Node(u32);
    impl Linked for Node {
        fn next_mut(&mut self) -> &mut u32 {
            &mut self.0
        }
    }

    #[test]
    fn first_in_first_out() {
        let mut nodes: Vec<Node> = (0..4).map(|_| Node(NIL)).collect();
        let mut c = Chain::EMPTY;
        for f in [2, 0, 3] {
            c.push(&mut nodes, f);
        }
        assert_eq!((c.pop(&mut nodes), c.pop(&mut nodes)), (2, 0));
        c.push(&mut nodes, 1);
        assert_eq!((c.pop(&mut nodes), c.pop(&mut nodes)), (3, 1));
        assert_eq!((c.head, c.tail), (NIL, NIL));
        assert!(nodes.iter().all(|n| n.0 == NIL));
    }
}
