//! How much may wait for one peer, the rule both servers keep: the WebSocket outbox
//! and the ENet packets counted until ENet lets them go.

/// Messages, and bytes past which a message is refused unless none waits (one always
/// fits, whatever its size).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) messages: usize,
    pub(crate) bytes: usize,
}

impl Limits {
    /// Whether one more message of `len` bytes may join `waiting` messages of
    /// `bytes` bytes.
    #[inline]
    pub(crate) fn admit(&self, waiting: usize, bytes: usize, len: usize) -> bool {
        waiting < self.messages && (waiting == 0 || bytes.saturating_add(len) <= self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_both_limits_and_one_always_fits() {
        let l = Limits {
            messages: 2,
            bytes: 100,
        };
        assert!(l.admit(0, 0, 1000), "one always fits");
        assert!(
            l.admit(1, 60, 40) && !l.admit(1, 60, 41),
            "100 bytes, not 101"
        );
        assert!(!l.admit(2, 0, 0), "two messages");
        assert!(!l.admit(1, usize::MAX, 1), "no overflow");
    }
}
