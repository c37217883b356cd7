//! TCP endpoints. (Being built: see the TCP issue.)

use crate::agent::build::Builder;
use crate::agent::{AgentHooks, Io};
use crate::packet::Packet;
use crate::scenario::TrafficSpec;

/// A TCP endpoint (sender, receiver, or a multiplexer of many connections).
pub struct TcpAgent {}

impl AgentHooks for TcpAgent {
    fn on_start(&mut self, _io: &mut Io) {}
    fn on_packet(&mut self, _io: &mut Io, _pkt: &Packet) {}
    fn on_timer(&mut self, _io: &mut Io, _token: u32) {}
}

pub fn build(path: &str, t: &TrafficSpec, _b: &mut Builder) -> Result<(), String> {
    Err(format!(
        "{path}.kind: not supported yet: {:?} traffic (TCP is not in the engine yet)",
        t.kind()
    ))
}
