//! Databases that could not be opened (storage README "Open-time checks"): a damaged user
//! database does not stop the engine; it is listed in `sys.databases` as RECOVERY_PENDING
//! (its files could not be opened: Msg 5120, 5172, 5173) or SUSPECT (recovery failed: Msg
//! 9004, 824, ...), and using it raises Msg 945 / 926 as SQL Server does. Damage in `master`
//! refuses to start the engine.

use catalog::DatabaseDef;
use common::SqlError;

/// `sys.databases.state` of a database that is not ONLINE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbState {
    RecoveryPending,
    Suspect,
}

impl DbState {
    /// The state of a database whose open failed with `e`.
    pub fn of_open_error(e: &SqlError) -> DbState {
        match e.number {
            5120 | 5172 | 5173 => DbState::RecoveryPending,
            _ => DbState::Suspect,
        }
    }

    /// `sys.databases.state`.
    pub fn code(self) -> u8 {
        match self {
            DbState::RecoveryPending => 3,
            DbState::Suspect => 4,
        }
    }

    /// `sys.databases.state_desc`.
    pub fn desc(self) -> &'static str {
        match self {
            DbState::RecoveryPending => "RECOVERY_PENDING",
            DbState::Suspect => "SUSPECT",
        }
    }
}

/// A registered database that is not open, and why.
#[derive(Clone, Debug)]
pub struct Unavailable {
    pub def: DatabaseDef,
    pub state: DbState,
    /// The error of the failed open (what SQL Server writes to its errorlog).
    pub error: SqlError,
}

impl Unavailable {
    /// The error of using the database: Msg 945 (files) or 926 (suspect).
    pub fn use_error(&self) -> SqlError {
        match self.state {
            DbState::RecoveryPending => SqlError::new(945, &[&self.def.name]),
            DbState::Suspect => SqlError::new(926, &[&self.def.name]),
        }
    }
}

/// A storage open error with the database's name where storage named its directory.
pub fn name_open_error(e: SqlError, name: &str) -> SqlError {
    if e.number == 9004 {
        let mut n = SqlError::new(9004, &[&name]);
        n.state = e.state;
        return n;
    }
    e
}
