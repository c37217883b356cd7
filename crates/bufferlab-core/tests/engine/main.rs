//! The engine's integration tests, each file a module of one test binary: one release link of
//! the engine (with its thin LTO) instead of one per file, which was most of `make test`'s build.

mod common;
mod tcp_util;

mod accounting;
mod aqm_tcp;
mod aqm_udp;
mod ballast;
mod cake;
mod conservation;
mod ecn;
mod engine_udp;
mod l4s;
mod ring_gso;
mod tcp_bbr;
mod tcp_buffers;
mod tcp_cwnd_validation;
mod tcp_fairness;
mod tcp_mathis;
mod tcp_rto_rearm;
mod tcp_vegas;
mod tcp_workloads;
