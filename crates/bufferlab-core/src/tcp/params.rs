//! TCP options of a traffic block (`tcp` map of the plan) and their defaults.

use serde::Deserialize;

use crate::scenario::TcpOptions;
use crate::time::{Time, NS_PER_MS, NS_PER_SEC};

/// IPv4 (20 B) + TCP (20 B) headers. Options (timestamps, SACK blocks) are carried as header
/// fields of the simulated packet but not charged on the wire, so a pure ACK is 40 B and a
/// full data segment MSS + 40 B.
pub const HEADER_BYTES: u32 = 40;

/// Which congestion control a connection runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// RFC 5681 slow start and congestion avoidance, RFC 6582 NewReno recovery.
    #[default]
    Newreno,
    /// RFC 9438.
    Cubic,
    /// Brakmo & Peterson 1995.
    Vegas,
}

/// Every TCP option with its default. Plan keys carry their unit (`min_rto_ns`, `mss_bytes`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpParams {
    /// Congestion control. Default NewReno, the standard algorithm of RFC 5681/6582 and the one
    /// seed 003 sizes buffers for.
    pub cc: CcKind,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery. Default on, as Linux
    /// (`net.ipv4.tcp_sack = 1`); off gives NewReno recovery on cumulative ACKs only.
    pub sack: bool,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2): an ACK for every second full segment or
    /// after `delack_ns`. Default on (RFC 1122: a TCP SHOULD implement them; Linux does).
    pub delayed_ack: bool,
    /// Delayed-ACK timer. Default 40 ms, Linux's `TCP_DELACK_MIN` (RFC 1122 requires < 500 ms).
    pub delack_ns: Time,
    /// Multiplicative decrease factor: the window after a loss is `beta` times the flight size.
    /// Default per algorithm: 0.5 NewReno (RFC 5681 eq. 4), 0.7 Cubic (RFC 9438 §4.6),
    /// 0.75 Vegas (Brakmo & Peterson 1995: a loss found by Vegas' retransmission check cuts the
    /// window by a quarter). Seed 003 §5 uses 0.875 for NewReno.
    pub beta: Option<f64>,
    /// Initial window in segments. Default 10 (RFC 6928).
    pub initial_window: u32,
    /// Lower bound of the retransmission timeout. Default 200 ms as Linux (`TCP_RTO_MIN`);
    /// RFC 6298 §2.4 says 1 s.
    pub min_rto_ns: Time,
    /// Upper bound of the retransmission timeout. Default 60 s (RFC 6298 §2.5).
    pub max_rto_ns: Time,
    /// Maximum segment size (payload). Default 1460 B: a 1500 B Ethernet MTU less 40 B of IPv4
    /// and TCP headers (RFC 879, RFC 6691).
    pub mss_bytes: u32,
    /// Receiver window. Default 1 GiB, the largest window TCP can advertise (window scale 14,
    /// RFC 7323 §2.3): the window never limits a flow unless a scenario says so. Buffer-sizing
    /// experiments (seeds 003, 004) assume flows limited by the network only; a stock Linux
    /// host is `rwnd = "6MiB"` (`tcp_rmem` maximum), seed 000's FreeBSD hosts are far smaller.
    pub rwnd_bytes: u64,
    /// Send buffer: bytes sent and not yet acknowledged. Default 1 GiB for the same reason
    /// (Linux's `tcp_wmem` maximum is 4 MiB).
    pub sndbuf_bytes: u64,
    /// Three-way handshake before the data and a FIN exchange after it (RFC 793). Default on,
    /// as every real stack and ns-3 do: the SYN/SYN-ACK exchange gives the sender its first RTT
    /// sample, so a path whose RTT exceeds the 1 s initial RTO (RFC 6298 §2.1) does not time
    /// out spuriously on its first window; short connections also hold the reverse buffer for
    /// the extra round trips seed 000 §III counts. Off gives ns-2's set-up-free agents.
    pub handshake: bool,
    /// Vegas thresholds in packets queued at the bottleneck. Defaults α = 1, β = 3, γ = 1
    /// (Brakmo & Peterson 1995; also ns-2's defaults, which seed 003 used).
    pub vegas_alpha: f64,
    pub vegas_beta: f64,
    pub vegas_gamma: f64,
    /// Cubic's scaling constant C in segments/s³. Default 0.4 (RFC 9438 §5).
    pub cubic_c: f64,
    /// Cubic fast convergence (RFC 9438 §4.7). Default on.
    pub cubic_fast_convergence: bool,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            cc: CcKind::Newreno,
            sack: true,
            delayed_ack: true,
            delack_ns: 40 * NS_PER_MS,
            beta: None,
            initial_window: 10,
            min_rto_ns: 200 * NS_PER_MS,
            max_rto_ns: 60 * NS_PER_SEC,
            mss_bytes: 1460,
            rwnd_bytes: 1 << 30,
            sndbuf_bytes: 1 << 30,
            handshake: true,
            vegas_alpha: 1.0,
            vegas_beta: 3.0,
            vegas_gamma: 1.0,
            cubic_c: 0.4,
            cubic_fast_convergence: true,
        }
    }
}

/// The plan keys [`TcpParams`] accepts.
pub const KEYS: [&str; 17] = [
    "cc",
    "sack",
    "delayed_ack",
    "delack_ns",
    "beta",
    "initial_window",
    "min_rto_ns",
    "max_rto_ns",
    "mss_bytes",
    "rwnd_bytes",
    "sndbuf_bytes",
    "handshake",
    "vegas_alpha",
    "vegas_beta",
    "vegas_gamma",
    "cubic_c",
    "cubic_fast_convergence",
];

impl TcpParams {
    /// The multiplicative decrease factor in force.
    pub fn beta(&self) -> f64 {
        self.beta.unwrap_or(match self.cc {
            CcKind::Newreno => 0.5,
            CcKind::Cubic => 0.7,
            CcKind::Vegas => 0.75,
        })
    }

    /// Parse a block's `tcp` map; `path` is the block's key path (`traffic[2]`). Errors name the
    /// offending key.
    pub fn from_options(path: &str, opts: &TcpOptions) -> Result<TcpParams, String> {
        for k in opts.keys() {
            if !KEYS.contains(&k.as_str()) {
                return Err(format!(
                    "{path}.{k}: unknown TCP option (known: {})",
                    KEYS.join(", ")
                ));
            }
        }
        // Parse key by key first, so that a type error names its key.
        for (k, v) in opts {
            let mut one = serde_json::Map::new();
            one.insert(k.clone(), v.clone());
            if let Err(e) = serde_json::from_value::<TcpParams>(serde_json::Value::Object(one)) {
                return Err(format!("{path}.{k}: {e}"));
            }
        }
        let p: TcpParams = serde_json::from_value(serde_json::Value::Object(opts.clone()))
            .map_err(|e| format!("{path}.tcp: {e}"))?;
        p.check(path)?;
        Ok(p)
    }

    fn check(&self, path: &str) -> Result<(), String> {
        let err = |k: &str, m: String| Err(format!("{path}.{k}: {m}"));
        if !(64..=65_495).contains(&self.mss_bytes) {
            return err(
                "mss_bytes",
                format!(
                    "{} B is not a usable MSS (64 B to 65495 B; 1460 B is usual)",
                    self.mss_bytes
                ),
            );
        }
        if !(1..=1000).contains(&self.initial_window) {
            return err("initial_window", "between 1 and 1000 segments".into());
        }
        let b = self.beta();
        if !(b > 0.0 && b < 1.0) {
            return err("beta", format!("a decrease factor in (0, 1), got {b}"));
        }
        if self.min_rto_ns == 0 || self.min_rto_ns > self.max_rto_ns {
            return err("min_rto_ns", "positive and at most max_rto".into());
        }
        if self.max_rto_ns > 3600 * NS_PER_SEC {
            return err("max_rto_ns", "at most one hour".into());
        }
        if self.delack_ns == 0 || self.delack_ns >= 500 * NS_PER_MS {
            return err(
                "delack_ns",
                "positive and below 500 ms (RFC 1122 §4.2.3.2)".into(),
            );
        }
        let mss = self.mss_bytes as u64;
        if self.rwnd_bytes < mss || self.rwnd_bytes > 1 << 30 {
            return err(
                "rwnd_bytes",
                "between one segment and 1 GiB (RFC 7323 §2.3)".into(),
            );
        }
        if self.sndbuf_bytes < mss || self.sndbuf_bytes > 1 << 32 {
            return err("sndbuf_bytes", "between one segment and 4 GiB".into());
        }
        let (a, bt, g) = (self.vegas_alpha, self.vegas_beta, self.vegas_gamma);
        if !(a.is_finite() && bt.is_finite() && g.is_finite() && a > 0.0 && a <= bt && g > 0.0) {
            return err(
                "vegas_alpha",
                format!("Vegas needs 0 < alpha <= beta and gamma > 0, got {a}, {bt}, {g}"),
            );
        }
        if !(self.cubic_c.is_finite() && self.cubic_c > 0.0 && self.cubic_c <= 100.0) {
            return err("cubic_c", "a positive constant (0.4 in RFC 9438)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(v: serde_json::Value) -> TcpOptions {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn defaults_cite_their_values() {
        let p = TcpParams::from_options("traffic[0]", &opts(json!({}))).unwrap();
        assert_eq!(p.mss_bytes, 1460);
        assert_eq!(p.initial_window, 10);
        assert_eq!(p.min_rto_ns, 200 * NS_PER_MS);
        assert_eq!(p.beta(), 0.5);
        let c = TcpParams::from_options("t", &opts(json!({"cc": "cubic"}))).unwrap();
        assert_eq!(c.beta(), 0.7);
    }

    #[test]
    fn unknown_key_is_named() {
        let e = TcpParams::from_options("traffic[3]", &opts(json!({"sak": true}))).unwrap_err();
        assert!(e.starts_with("traffic[3].sak: unknown TCP option"), "{e}");
    }

    #[test]
    fn bad_value_is_named() {
        let e = TcpParams::from_options("traffic[1]", &opts(json!({"cc": "bbr"}))).unwrap_err();
        assert!(e.starts_with("traffic[1].cc:"), "{e}");
        let e = TcpParams::from_options("traffic[1]", &opts(json!({"beta": 1.5}))).unwrap_err();
        assert!(e.starts_with("traffic[1].beta:"), "{e}");
        let e = TcpParams::from_options("traffic[1]", &opts(json!({"sack": "yes"}))).unwrap_err();
        assert!(e.starts_with("traffic[1].sack:"), "{e}");
        let e = TcpParams::from_options("traffic[1]", &opts(json!({"mss_bytes": 10}))).unwrap_err();
        assert!(e.starts_with("traffic[1].mss_bytes:"), "{e}");
    }
}
