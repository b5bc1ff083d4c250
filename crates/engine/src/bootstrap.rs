//! First-start setup of `master`: system tables that are real tables in SQL Server.
//!
//! `master.dbo.spt_values` has SQL Server's shape (`name nvarchar(35) NULL, number int NOT NULL,
//! type nchar(3) NOT NULL, low int NULL, high int NULL, status int NULL`). Contents: the 2,048
//! type `'P'` rows (`number` 0..2047, `name` NULL, `low` = number / 8 + 1 (the byte of a
//! bitmap), `high` = 2^(number % 8) (the bit in that byte), `status` 0), which is the part
//! scripts rely on (`WHERE type = 'P'` number tables, cross joins as row sources). The other
//! lookup types of SQL Server 2019's table (about 460 rows decoding status bits for old system
//! procedures) are not reproduced: no public, authoritative listing of them was found, and
//! inventing them would be worse than leaving them out. SQL Server 2019 has about 2,500 rows in
//! total; latchkey has 2,048.

use std::sync::Arc;

use common::{SqlError, SqlResult};

use crate::events::{CollectSink, Event};
use crate::server::{DbHandle, Engine};
use crate::session::Session;

/// True for the objects the bootstrap creates (`sys.objects.is_ms_shipped`,
/// `OBJECTPROPERTY(id, 'IsMSShipped')`): they must not look like user tables.
pub fn is_ms_shipped(o: &catalog::SchemaObject) -> bool {
    matches!(o, catalog::SchemaObject::Table(t)
        if catalog::name_eq(&t.database, "master")
            && catalog::name_eq(&t.schema, "dbo")
            && catalog::name_eq(&t.name, "spt_values"))
}

/// The SQL that creates and fills `spt_values`.
pub fn spt_values_sql() -> Vec<String> {
    let mut out = vec![
        "CREATE TABLE dbo.spt_values (name nvarchar(35) NULL, number int NOT NULL, type nchar(3) NOT NULL, low int NULL, high int NULL, status int NULL)".to_string(),
    ];
    for chunk in (0..2048).collect::<Vec<i32>>().chunks(1000) {
        let values: Vec<String> = chunk
            .iter()
            .map(|n| format!("(NULL,{n},N'P',{},{},0)", n / 8 + 1, 1 << (n % 8)))
            .collect();
        out.push(format!(
            "INSERT INTO dbo.spt_values (name, number, type, low, high, status) VALUES {}",
            values.join(",")
        ));
    }
    out
}

/// Creates master's system objects when they are missing (first start, or an earlier start
/// whose bootstrap failed). Runs in one transaction: a failure leaves nothing half-built.
pub fn bootstrap_master(engine: &Arc<Engine>, master: &Arc<DbHandle>) -> SqlResult<()> {
    if master.cat.read().table("dbo", "spt_values").is_some() {
        return Ok(());
    }
    let mut session = Session::new(engine.clone());
    session.options.nocount = true;
    let mut batches = vec!["BEGIN TRANSACTION".to_string()];
    batches.extend(spt_values_sql());
    batches.push("COMMIT".to_string());
    for sql in batches {
        let mut sink = CollectSink::new();
        session.execute_batch(&sql, &mut sink);
        if let Some(Event::Error(e)) = sink.events.iter().find(|e| matches!(e, Event::Error(_))) {
            let mut sink = CollectSink::new();
            session.execute_batch("IF @@TRANCOUNT > 0 ROLLBACK", &mut sink);
            return Err(SqlError::custom(
                e.number,
                e.severity,
                e.state,
                format!("bootstrap of master.dbo.spt_values failed: {}", e.message),
            ));
        }
    }
    // the bootstrap's batches are not the users' plans (sys.dm_exec_cached_plans)
    engine.plans.remove(None);
    Ok(())
}
