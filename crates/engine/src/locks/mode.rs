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
    /// Key-range (SERIALIZABLE, KEY resources only): shared range, shared key — a range scan
    /// holds it on every key it reads and on the next key past its range, which keeps inserts
    /// out of the gap below each of them.
    RangeSS,
    /// Shared range, update key: an UPDATE / DELETE's scan under SERIALIZABLE.
    RangeSU,
    /// Insert range, null key: an insert's test of the gap it goes into, taken on the next
    /// key and held only while the key is inserted.
    RangeIN,
    /// Exclusive range, exclusive key: a key written under SERIALIZABLE.
    RangeXX,
}

pub const ALL_MODES: [LockMode; 13] = [
    LockMode::SchS,
    LockMode::SchM,
    LockMode::IS,
    LockMode::IU,
    LockMode::IX,
    LockMode::S,
    LockMode::U,
    LockMode::SIX,
    LockMode::X,
    LockMode::RangeSS,
    LockMode::RangeSU,
    LockMode::RangeIN,
    LockMode::RangeXX,
];

const RANGE_BITS: u32 = (1 << LockMode::RangeSS as u32)
    | (1 << LockMode::RangeSU as u32)
    | (1 << LockMode::RangeIN as u32)
    | (1 << LockMode::RangeXX as u32);
const INTENT_BITS: u32 = (1 << LockMode::IS as u32)
    | (1 << LockMode::IU as u32)
    | (1 << LockMode::IX as u32)
    | (1 << LockMode::SIX as u32);

impl LockMode {
    fn bit(self) -> u32 {
        1 << (self as u32)
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
            LockMode::RangeSS => "RangeS-S",
            LockMode::RangeSU => "RangeS-U",
            LockMode::RangeIN => "RangeI-N",
            LockMode::RangeXX => "RangeX-X",
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
            LockMode::RangeSS => "LCK_M_RS_S",
            LockMode::RangeSU => "LCK_M_RS_U",
            LockMode::RangeIN => "LCK_M_RIn_NL",
            LockMode::RangeXX => "LCK_M_RX_X",
        }
    }

    /// The modes a request for `self` can be granted beside (SQL Server's lock compatibility
    /// matrix, "Lock compatibility" and "Key-range locking" in the transaction locking guide),
    /// as a bit set. Range modes lock keys only, so their relation to the intent modes never
    /// decides a grant; they are given the intent compatibility of their key part (RangeS-S
    /// as S, RangeS-U as U, RangeX-X as X; RangeI-N as none).
    fn compatible_set(self) -> u32 {
        use LockMode::*;
        let set = |ms: &[LockMode]| ms.iter().fold(0u32, |a, m| a | m.bit());
        match self {
            SchS => set(&[
                SchS, IS, IU, IX, S, U, SIX, X, RangeSS, RangeSU, RangeIN, RangeXX,
            ]),
            SchM => 0,
            IS => set(&[SchS, IS, IU, IX, S, U, SIX, RangeSS, RangeSU]),
            IU => set(&[SchS, IS, IU, IX, S, SIX, RangeSS]),
            IX => set(&[SchS, IS, IU, IX]),
            S => set(&[SchS, IS, IU, S, U, RangeSS, RangeSU, RangeIN]),
            U => set(&[SchS, IS, S, RangeSS, RangeIN]),
            SIX => set(&[SchS, IS, IU]),
            X => set(&[SchS, RangeIN]),
            RangeSS => set(&[SchS, IS, IU, S, U, RangeSS, RangeSU]),
            RangeSU => set(&[SchS, IS, S, RangeSS]),
            RangeIN => set(&[SchS, S, U, X, RangeIN]),
            RangeXX => set(&[SchS]),
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
        // Object-level modes convert among themselves; a key lock that is or becomes a range
        // lock converts among the key modes (intent modes never meet range modes).
        let range = self.is_range() || other.is_range();
        let universe = if range { !INTENT_BITS } else { !RANGE_BITS };
        let both = self.compatible_set() & other.compatible_set() & universe;
        let mut best = LockMode::SchM;
        let mut best_count = 0;
        for m in ALL_MODES {
            if m.bit() & universe == 0 {
                continue;
            }
            let c = m.compatible_set() & universe;
            if c & !both == 0 && c.count_ones() > best_count {
                best = m;
                best_count = c.count_ones();
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

    /// A key-range mode (KEY resources only).
    #[inline]
    pub fn is_range(self) -> bool {
        matches!(
            self,
            LockMode::RangeSS | LockMode::RangeSU | LockMode::RangeIN | LockMode::RangeXX
        )
    }

    /// The object lock that makes a request for `self` on one of the object's rows redundant
    /// (an escalated S covers RangeS-S: the whole object is read-locked, gaps included; only
    /// X keeps every other owner's range locks off the object, so only X covers RangeI-N).
    pub fn row_mode(self) -> LockMode {
        match self {
            LockMode::RangeSS => LockMode::S,
            LockMode::RangeSU => LockMode::U,
            LockMode::RangeIN => LockMode::X,
            LockMode::RangeXX => LockMode::X,
            m => m,
        }
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
        assert_eq!(S.convert(RangeSS), RangeSS);
        assert_eq!(RangeSS.convert(U), RangeSU);
        assert_eq!(RangeSU.convert(X), RangeXX);
        assert_eq!(RangeSS.convert(X), RangeXX);
        assert_eq!(U.convert(RangeSS), RangeSU);
        assert!(RangeSS.covers(S) && RangeSU.covers(U) && RangeXX.covers(X));
        assert!(!S.covers(RangeSS) && !RangeSS.covers(RangeSU));
    }

    #[test]
    fn key_range_matrix() {
        // SQL Server's key-range compatibility matrix: requested (row) against granted.
        let modes = [S, U, X, RangeSS, RangeSU, RangeIN, RangeXX];
        let yes = [
            [true, true, false, true, true, true, false],
            [true, false, false, true, false, true, false],
            [false, false, false, false, false, true, false],
            [true, true, false, true, true, false, false],
            [true, false, false, true, false, false, false],
            [true, true, true, false, false, true, false],
            [false, false, false, false, false, false, false],
        ];
        for (i, a) in modes.iter().enumerate() {
            for (j, b) in modes.iter().enumerate() {
                assert_eq!(
                    a.compatible(*b),
                    yes[i][j],
                    "{a:?} requested, {b:?} granted"
                );
            }
        }
    }
}
