//! SQL Server's lock modes, their compatibility matrix and conversions.

/// A lock mode (`sys.dm_tran_locks.request_mode` spells them as [`LockMode::name`] does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockMode {
    /// Schema stability: held while a statement compiles or runs against an object.
    SchS,
    /// Schema modification: DDL; compatible with nothing.
    SchM,
    /// Intent shared.
    IS,
    /// Intent update.
    IU,
    /// Intent exclusive.
    IX,
    /// Shared.
    S,
    /// Update: a read that will probably write; compatible with S, not with another U.
    U,
    /// Shared with intent exclusive.
    SIX,
    /// Exclusive.
    X,
}

pub const ALL_MODES: [LockMode; 9] = [
    LockMode::SchS,
    LockMode::SchM,
    LockMode::IS,
    LockMode::IU,
    LockMode::IX,
    LockMode::S,
    LockMode::U,
    LockMode::SIX,
    LockMode::X,
];

impl LockMode {
    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// `request_mode` text of `sys.dm_tran_locks`.
    pub fn name(self) -> &'static str {
        match self {
            LockMode::SchS => "Sch-S",
            LockMode::SchM => "Sch-M",
            LockMode::IS => "IS",
            LockMode::IU => "IU",
            LockMode::IX => "IX",
            LockMode::S => "S",
            LockMode::U => "U",
            LockMode::SIX => "SIX",
            LockMode::X => "X",
        }
    }

    /// The wait type a request for this mode waits under (`LCK_M_*`).
    pub fn wait_type(self) -> &'static str {
        match self {
            LockMode::SchS => "LCK_M_SCH_S",
            LockMode::SchM => "LCK_M_SCH_M",
            LockMode::IS => "LCK_M_IS",
            LockMode::IU => "LCK_M_IU",
            LockMode::IX => "LCK_M_IX",
            LockMode::S => "LCK_M_S",
            LockMode::U => "LCK_M_U",
            LockMode::SIX => "LCK_M_SIX",
            LockMode::X => "LCK_M_X",
        }
    }

    /// The modes a request for `self` can be granted beside (SQL Server's lock compatibility
    /// matrix, "Lock compatibility" in the transaction locking guide), as a bit set.
    fn compatible_set(self) -> u16 {
        use LockMode::*;
        let set = |ms: &[LockMode]| ms.iter().fold(0u16, |a, m| a | m.bit());
        match self {
            SchS => set(&[SchS, IS, IU, IX, S, U, SIX, X]),
            SchM => 0,
            IS => set(&[SchS, IS, IU, IX, S, U, SIX]),
            IU => set(&[SchS, IS, IU, IX, S, SIX]),
            IX => set(&[SchS, IS, IU, IX]),
            S => set(&[SchS, IS, IU, S, U]),
            U => set(&[SchS, IS, S]),
            SIX => set(&[SchS, IS, IU]),
            X => set(&[SchS]),
        }
    }

    /// Can a request for `self` be granted while another owner holds `held`?
    #[inline]
    pub fn compatible(self, held: LockMode) -> bool {
        self.compatible_set() & held.bit() != 0
    }

    /// The mode an owner holds after asking for `other` while holding `self` (SQL Server's
    /// lock conversion): the weakest mode at least as strong as both, i.e. the mode with the
    /// largest compatibility set inside both sets. S + IX = SIX; U + IX has no mode here
    /// (SQL Server's UIX) and becomes X, which only blocks more.
    pub fn convert(self, other: LockMode) -> LockMode {
        if self == other {
            return self;
        }
        let both = self.compatible_set() & other.compatible_set();
        let mut best = LockMode::SchM;
        for m in ALL_MODES {
            let c = m.compatible_set();
            if c & !both == 0 && c.count_ones() > best.compatible_set().count_ones() {
                best = m;
            }
        }
        // Sch-S + X: X's set is {Sch-S}, which fits; the loop found it.
        best
    }

    /// Does holding `self` make a request for `other` on the same resource redundant?
    #[inline]
    pub fn covers(self, other: LockMode) -> bool {
        self.convert(other) == self
    }

    /// Modes that allow writing below (counted per object for readers' lock avoidance).
    #[inline]
    pub fn is_write_intent(self) -> bool {
        matches!(
            self,
            LockMode::IX | LockMode::SIX | LockMode::X | LockMode::SchM
        )
    }
}

#[cfg(test)]
mod tests {
    use super::LockMode::*;
    use super::*;

    #[test]
    fn every_mode_waits_under_a_reported_wait_type() {
        // A wait type missing from common::waits is silently dropped by `record`.
        for m in ALL_MODES {
            assert!(
                common::waits::WAIT_TYPES.contains(&m.wait_type()),
                "{} not in WAIT_TYPES",
                m.wait_type()
            );
        }
    }

    #[test]
    fn matrix_is_symmetric() {
        for a in ALL_MODES {
            for b in ALL_MODES {
                assert_eq!(a.compatible(b), b.compatible(a), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(S.convert(IX), SIX);
        assert_eq!(IX.convert(S), SIX);
        assert_eq!(S.convert(U), U);
        assert_eq!(U.convert(X), X);
        assert_eq!(IS.convert(IX), IX);
        assert_eq!(IU.convert(IX), IX);
        assert_eq!(U.convert(IX), X);
        assert_eq!(SchS.convert(X), X);
        assert_eq!(IS.convert(S), S);
        assert!(X.covers(S));
        assert!(!S.covers(U));
        assert!(SIX.covers(S) && SIX.covers(IX));
    }
}
