//! CAKE's three flow lists per tin (new, old, decaying; Linux `list_head`s): doubly linked
//! through each flow's `prev`/`next`, since a decaying flow that gets a packet leaves its list
//! from the middle (the singly linked [`crate::qdisc::flow_list::Chain`] of FQ-CoDel and `fq`
//! only pops heads).

use super::Flow;
use crate::qdisc::flow_list::NIL;

/// Which list a flow is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum ListId {
    New = 0,
    Old = 1,
    Decaying = 2,
    None = 3,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct List {
    pub(crate) head: u32,
    tail: u32,
}

impl List {
    pub(crate) const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.head == NIL
    }

    #[inline]
    pub(crate) fn push_back(&mut self, flows: &mut [Flow], f: u32) {
        flows[f as usize].prev = self.tail;
        flows[f as usize].next = NIL;
        if self.tail == NIL {
            self.head = f;
        } else {
            flows[self.tail as usize].next = f;
        }
        self.tail = f;
    }

    #[inline]
    pub(crate) fn remove(&mut self, flows: &mut [Flow], f: u32) {
        let (p, n) = (flows[f as usize].prev, flows[f as usize].next);
        if p == NIL {
            self.head = n;
        } else {
            flows[p as usize].next = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            flows[n as usize].prev = p;
        }
        flows[f as usize].prev = NIL;
        flows[f as usize].next = NIL;
    }
}
