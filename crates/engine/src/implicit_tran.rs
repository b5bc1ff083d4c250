//! `SET IMPLICIT_TRANSACTIONS ON`: which statements open a transaction when none is open.
//!
//! SQL Server's list (SET IMPLICIT_TRANSACTIONS, Remarks): ALTER TABLE, BEGIN TRANSACTION,
//! CREATE, DELETE, DROP, FETCH, GRANT, INSERT, MERGE, OPEN, REVOKE, SELECT, TRUNCATE TABLE,
//! UPDATE — "equivalent to an unseen BEGIN TRANSACTION being executed first", so an explicit
//! BEGIN TRANSACTION in this mode leaves @@TRANCOUNT at 2. A SELECT that reads no table
//! (`SELECT GETDATE()`, `SELECT 1, 'ABC'`) does not open one. The transaction stays open until
//! COMMIT or ROLLBACK; a disconnect rolls it back like any open transaction.

use parser::ast::{Query, QueryBody, SecurityStatement, StatementKind, TableRef};

/// Whether `kind` opens a transaction under IMPLICIT_TRANSACTIONS ON when @@TRANCOUNT is 0.
pub(crate) fn starts_implicit_transaction(kind: &StatementKind) -> bool {
    use StatementKind as K;
    match kind {
        K::Select(q) => reads_a_table(q),
        K::Insert(_)
        | K::Update(_)
        | K::Delete(_)
        | K::Merge(_)
        | K::Truncate(_)
        | K::AlterTable(_)
        | K::BeginTransaction { .. }
        | K::Open(_)
        | K::Fetch(_)
        | K::Drop { .. }
        | K::DropIndex { .. }
        | K::CreateTable(_)
        | K::CreateIndex(_)
        | K::CreateView(_)
        | K::CreateProcedure(_)
        | K::CreateFunction(_)
        | K::CreateTrigger(_)
        | K::CreateSchema { .. }
        | K::CreateSequence(_)
        | K::CreateType(_)
        | K::CreateStatistics(_)
        | K::CreatePartitionFunction(_)
        | K::CreatePartitionScheme(_) => true,
        // GRANT, DENY and REVOKE are on the list; the principal statements are not.
        K::Security { stmt, .. } => matches!(**stmt, SecurityStatement::Permission(_)),
        _ => false,
    }
}

/// A query whose FROM (in any branch of a set operation) names a table source.
fn reads_a_table(q: &Query) -> bool {
    body_reads_a_table(&q.body)
}

fn body_reads_a_table(b: &QueryBody) -> bool {
    match b {
        QueryBody::Select(s) => s.from.iter().any(|t| !matches!(t, TableRef::Values { .. })),
        QueryBody::SetOp { left, right, .. } => {
            body_reads_a_table(left) || body_reads_a_table(right)
        }
        QueryBody::Parenthesized(q) => reads_a_table(q),
    }
}

impl crate::session::Session {
    /// The unseen BEGIN TRANSACTION of implicit transaction mode, before `kind` runs (called
    /// by the statement interpreter and by compiled programs' query nodes).
    pub(crate) fn begin_implicit_transaction(&mut self, kind: &StatementKind) {
        if self.options.implicit_transactions
            && self.trancount == 0
            && starts_implicit_transaction(kind)
        {
            self.tran_name = None;
            self.trancount = 1;
        }
    }
}
