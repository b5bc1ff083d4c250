//! First-start setup of `master`: system tables that are real tables in SQL Server.
//!
//! `master.dbo.spt_values` has SQL Server's shape (`name nvarchar(35) NULL, number int NOT NULL,
//! type nchar(3) NOT NULL, low int NULL, high int NULL, status int NULL`). Contents:
//! - the 2,048 type `'P'` rows (`number` 0..2047, `name` NULL, `low` = number / 8 + 1 (the byte
//!   of a bitmap), `high` = 2^(number % 8) (the bit in that byte), `status` 0), generated here;
//!   scripts rely on them (`WHERE type = 'P'` number tables, cross joins as row sources);
//! - the 504 rows of SQL Server 2019's other 28 types (`spt_values_rows.tsv`: 'A' server
//!   options, 'B', 'D'/'D2'/'DC' database status bits, 'DBR' fixed database roles, 'E',
//!   'EOB'/'EOD' audit object classes, 'F', 'F_U', 'G', 'I' index status bits, 'J', 'K',
//!   'L' lock modes, 'LNG', 'LO', 'LR', 'LS', 'O', 'O9T' sysobjects.type decodes, 'R',
//!   'SFL', 'SOP' @@OPTIONS bits, 'SRV', 'T', 'V').
//!
//! Source of the non-'P' rows: a data script of `master.dbo.spt_values` made with Azure Data
//! Studio from a SQL Server instance, published in the MIT-licensed repository
//! DataHandwerk/DataHandwerk-toolkit-mssql, file
//! `db_DataHandwerk/configT/Stored Procedures/usp_init_spt_values.sql` (commit d6400304,
//! 2021-09-05). It holds 2,552 rows; its 2,048 'P' rows are exactly the ones generated here
//! (checked when the file was converted), which is the evidence that the dump is SQL Server's
//! own table and not Sybase ASE's (whose spt_values differs). The rows are facts about SQL Server
//! (names and bit values); they are stored as tab-separated data (`\N` = NULL), not as the
//! script. SQL Server itself ships them from its `u_tables.sql` install script, which is not
//! public under a licence; rows that script carried in older versions and the dump lacks (for
//! example the 'C' configuration rows of SQL Server 2000, now `sys.configurations`) are left
//! out. A data directory created before these rows existed gets them at its next start
//! ([`bootstrap_master`]); the rows have no identity, so the upgrade is "insert when no
//! non-'P' row exists", which is idempotent.

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

/// SQL Server 2019's non-'P' rows (see the module comment for the source).
const OTHER_ROWS_TSV: &str = include_str!("spt_values_rows.tsv");

/// One row of `spt_values`.
#[derive(Clone, Debug, PartialEq)]
pub struct SptValuesRow {
    pub name: Option<String>,
    pub number: i32,
    pub kind: String,
    pub low: Option<i32>,
    pub high: Option<i32>,
    pub status: Option<i32>,
}

/// The non-'P' rows, parsed from `spt_values_rows.tsv` (`type, number, name, low, high,
/// status`, tab-separated, `\N` = NULL).
pub fn other_rows() -> SqlResult<Vec<SptValuesRow>> {
    let bad = |line: usize| SqlError::internal(format!("spt_values_rows.tsv line {line}"));
    let int = |s: &str, line: usize| -> SqlResult<Option<i32>> {
        if s == "\\N" {
            return Ok(None);
        }
        s.parse::<i32>().map(Some).map_err(|_| bad(line))
    };
    let mut rows = Vec::new();
    for (i, line) in OTHER_ROWS_TSV.lines().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let [kind, number, name, low, high, status] = f[..] else {
            return Err(bad(i + 1));
        };
        rows.push(SptValuesRow {
            name: (name != "\\N").then(|| name.to_string()),
            number: int(number, i + 1)?.ok_or_else(|| bad(i + 1))?,
            kind: kind.to_string(),
            low: int(low, i + 1)?,
            high: int(high, i + 1)?,
            status: int(status, i + 1)?,
        });
    }
    Ok(rows)
}

fn sql_int(v: Option<i32>) -> String {
    v.map_or_else(|| "NULL".to_string(), |n| n.to_string())
}

/// INSERT statements for the non-'P' rows, a few hundred rows each.
fn other_rows_sql() -> SqlResult<Vec<String>> {
    let rows = other_rows()?;
    Ok(rows
        .chunks(200)
        .map(|chunk| {
            let values: Vec<String> = chunk
                .iter()
                .map(|r| {
                    let name = r.name.as_ref().map_or_else(
                        || "NULL".to_string(),
                        |n| format!("N'{}'", n.replace('\'', "''")),
                    );
                    format!(
                        "({name},{},N'{}',{},{},{})",
                        r.number,
                        r.kind,
                        sql_int(r.low),
                        sql_int(r.high),
                        sql_int(r.status)
                    )
                })
                .collect();
            format!(
                "INSERT INTO dbo.spt_values (name, number, type, low, high, status) VALUES {}",
                values.join(",")
            )
        })
        .collect())
}

/// The SQL that creates and fills `spt_values`.
pub fn spt_values_sql() -> SqlResult<Vec<String>> {
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
    out.extend(other_rows_sql()?);
    Ok(out)
}

/// Creates master's system objects when they are missing (first start, or an earlier start
/// whose bootstrap failed), and adds the non-'P' rows of `spt_values` to a master created
/// before they existed. Each runs in one transaction: a failure leaves nothing half-built.
pub fn bootstrap_master(engine: &Arc<Engine>, master: &Arc<DbHandle>) -> SqlResult<()> {
    let mut session = Session::new(engine.clone());
    session.options.nocount = true;
    let body = if master.cat.read().table("dbo", "spt_values").is_some() {
        if has_other_rows(&mut session)? {
            return Ok(());
        }
        other_rows_sql()?
    } else {
        spt_values_sql()?
    };
    let mut batches = vec!["BEGIN TRANSACTION".to_string()];
    batches.extend(body);
    batches.push("COMMIT".to_string());
    for sql in batches {
        let mut sink = CollectSink::new();
        session.execute_batch(&sql, &mut sink);
        if let Some(e) = first_error(&sink) {
            let mut sink = CollectSink::new();
            session.execute_batch("IF @@TRANCOUNT > 0 ROLLBACK", &mut sink);
            return Err(bootstrap_error(&e));
        }
    }
    // the bootstrap's batches are not the users' plans (sys.dm_exec_cached_plans)
    engine.plans.remove(None);
    Ok(())
}

fn first_error(sink: &CollectSink) -> Option<common::SqlError> {
    sink.events.iter().find_map(|e| match e {
        Event::Error(e) => Some(e.clone()),
        _ => None,
    })
}

fn bootstrap_error(e: &SqlError) -> SqlError {
    SqlError::custom(
        e.number,
        e.severity,
        e.state,
        format!("bootstrap of master.dbo.spt_values failed: {}", e.message),
    )
}

/// True when `spt_values` already holds rows of a type other than 'P' (the upgrade is done).
fn has_other_rows(session: &mut Session) -> SqlResult<bool> {
    let mut sink = CollectSink::new();
    session.execute_batch(
        "SELECT COUNT(*) FROM master.dbo.spt_values WHERE type <> N'P'",
        &mut sink,
    );
    if let Some(e) = first_error(&sink) {
        return Err(bootstrap_error(&e));
    }
    let count = sink
        .result_sets()
        .first()
        .and_then(|rows| rows.first())
        .and_then(|row| row.first())
        .cloned();
    Ok(!matches!(count, Some(types::Value::Int(0))))
}
