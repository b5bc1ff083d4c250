//! `ALTER DATABASE SCOPED CONFIGURATION` and `sys.database_scoped_configurations`: settings
//! kept with each database (in its catalog's `Config` rows, so they travel with the data
//! directory as SQL Server's travel with a restored or attached database).
//!
//! What each configuration does in latchkey (engine README "Database scoped configurations"):
//! * acted on: `MAXDOP` (a statement's degree of parallelism when it has no `OPTION (MAXDOP)`;
//!   0 = the server's `max degree of parallelism`), `BATCH_MODE_ON_ROWSTORE` (OFF: row mode
//!   unless the statement says `USE HINT ('ALLOW_BATCH_MODE')`), `IDENTITY_CACHE`
//!   (identity_cache.rs: OFF reserves one value per write, after writing the values handed
//!   out so far back, so no gap is left), `CLEAR PROCEDURE_CACHE` (this database's plans
//!   recompile).
//! * both values hold by construction: switches that turn off something latchkey never does
//!   (parameter sniffing, interleaved execution, memory grant feedback, adaptive joins, deferred
//!   compilation of table variables).
//! * otherwise only the default is accepted; another value is Msg 40517 naming the setting.
//!
//! Values are `int`: latchkey has no `sql_variant`, and every configuration listed has an
//! integer or ON (1) / OFF (0) value. The string-valued ones (ELEVATE_ONLINE,
//! ELEVATE_RESUMABLE) are not listed and refused. A change is its own committed catalog write
//! (not part of an open user transaction) and makes this database's plans recompile.

use common::{SqlError, SqlResult};
use parser::ast::{self, OptionValue};
use types::{DataType, Value};

use crate::server::DbHandle;
use crate::session::Session;

/// How latchkey treats the values of a configuration.
#[derive(Clone, Copy, PartialEq)]
enum Treatment {
    /// The engine reads the value and acts on it.
    Acted,
    /// ON and OFF both describe what latchkey does.
    EitherHolds,
    /// Only the default describes what latchkey does.
    DefaultOnly,
}

struct ScopedOption {
    /// `configuration_id` (SQL Server 2019's numbering).
    id: i32,
    name: &'static str,
    default: i64,
    /// ON / OFF (1 / 0) rather than a number.
    switch: bool,
    treatment: Treatment,
}

const fn switch(id: i32, name: &'static str, on: bool, treatment: Treatment) -> ScopedOption {
    ScopedOption {
        id,
        name,
        default: on as i64,
        switch: true,
        treatment,
    }
}

use Treatment::*;

const OPTIONS: &[ScopedOption] = &[
    ScopedOption {
        id: 1,
        name: "MAXDOP",
        default: 0,
        switch: false,
        treatment: Acted,
    },
    switch(2, "LEGACY_CARDINALITY_ESTIMATION", false, DefaultOnly),
    switch(3, "PARAMETER_SNIFFING", true, EitherHolds),
    switch(4, "QUERY_OPTIMIZER_HOTFIXES", false, DefaultOnly),
    switch(6, "IDENTITY_CACHE", true, Acted),
    switch(7, "INTERLEAVED_EXECUTION_TVF", true, EitherHolds),
    switch(8, "BATCH_MODE_MEMORY_GRANT_FEEDBACK", true, EitherHolds),
    switch(9, "BATCH_MODE_ADAPTIVE_JOINS", true, EitherHolds),
    switch(10, "TSQL_SCALAR_UDF_INLINING", true, DefaultOnly),
    switch(13, "OPTIMIZE_FOR_AD_HOC_WORKLOADS", false, DefaultOnly),
    switch(14, "XTP_PROCEDURE_EXECUTION_STATISTICS", false, DefaultOnly),
    switch(15, "XTP_QUERY_EXECUTION_STATISTICS", false, DefaultOnly),
    switch(16, "ROW_MODE_MEMORY_GRANT_FEEDBACK", true, EitherHolds),
    switch(
        17,
        "ISOLATE_SECURITY_POLICY_CARDINALITY",
        false,
        DefaultOnly,
    ),
    switch(18, "BATCH_MODE_ON_ROWSTORE", true, Acted),
    switch(19, "DEFERRED_COMPILATION_TV", true, EitherHolds),
    switch(20, "ACCELERATED_PLAN_FORCING", true, DefaultOnly),
    switch(21, "GLOBAL_TEMPORARY_TABLE_AUTO_DROP", true, DefaultOnly),
    switch(22, "LIGHTWEIGHT_QUERY_PROFILING", true, DefaultOnly),
    switch(23, "VERBOSE_TRUNCATION_WARNINGS", true, DefaultOnly),
    switch(24, "LAST_QUERY_PLAN_STATS", false, DefaultOnly),
    ScopedOption {
        id: 25,
        name: "PAUSED_RESUMABLE_INDEX_ABORT_DURATION_MINUTES",
        default: 1440,
        switch: false,
        treatment: DefaultOnly,
    },
    switch(
        27,
        "EXEC_QUERY_STATS_FOR_SCALAR_FUNCTIONS",
        true,
        DefaultOnly,
    ),
];

pub(crate) const MAXDOP: i32 = 1;
pub(crate) const BATCH_MODE_ON_ROWSTORE: i32 = 18;
pub(crate) const IDENTITY_CACHE: i32 = 6;

/// The catalog `Config` row of configuration `id` (ids below the versioning row's -1).
fn config_row(id: i32) -> i32 {
    -1000 - id
}

fn option(id: i32) -> Option<&'static ScopedOption> {
    OPTIONS.iter().find(|o| o.id == id)
}

/// The value of configuration `id` in database `h` (its default when never set).
pub(crate) fn value(h: &DbHandle, id: i32) -> i64 {
    value_in(&h.cat.read(), id)
}

/// [`value`] from a database's catalog.
pub(crate) fn value_in(cat: &crate::dbcat::DbCatalog, id: i32) -> i64 {
    let default = option(id).map_or(0, |o| o.default);
    cat.configs.get(&config_row(id)).copied().unwrap_or(default)
}

/// The settings of a database the optimizer's options take (`query_hints::apply_parallelism`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PlanSettings {
    /// 0 = the server's `max degree of parallelism`.
    pub maxdop: i64,
    pub batch_mode_on_rowstore: bool,
}

pub(crate) fn plan_settings(h: &DbHandle) -> PlanSettings {
    PlanSettings {
        maxdop: value(h, MAXDOP),
        batch_mode_on_rowstore: value(h, BATCH_MODE_ON_ROWSTORE) != 0,
    }
}

impl Session {
    /// `ALTER DATABASE SCOPED CONFIGURATION …` in the current database (module comment).
    pub(crate) fn alter_scoped_configuration(
        &mut self,
        c: &ast::ScopedConfiguration,
    ) -> SqlResult<()> {
        self.check_ddl_permission("ALTER ANY DATABASE SCOPED CONFIGURATION")?;
        let h = self.current_db()?;
        let (for_secondary, o) = match c {
            ast::ScopedConfiguration::ClearProcedureCache(handle) => {
                let handle = match handle {
                    Some(e) => match self.eval(e)? {
                        Value::VarBinary(b) | Value::Binary(b) => Some(b),
                        _ => return Err(SqlError::new(102, &[&"PROCEDURE_CACHE"])),
                    },
                    None => None,
                };
                match handle {
                    Some(b) => {
                        self.engine().plans.remove(Some(&b));
                    }
                    None => self.engine().plans.remove_database(h.def.database_id),
                }
                h.generation.bump();
                self.plan_cache.clear();
                self.proc_cache.clear();
                return Ok(());
            }
            ast::ScopedConfiguration::Set {
                for_secondary,
                option,
            } => (*for_secondary, option),
        };
        let Some(opt) = OPTIONS.iter().find(|x| x.name == o.name) else {
            return Err(match o.name.as_str() {
                "ELEVATE_ONLINE" | "ELEVATE_RESUMABLE" => SqlError::unsupported(format!(
                    "ALTER DATABASE SCOPED CONFIGURATION SET {}",
                    o.name
                )),
                _ => SqlError::new(102, &[&o.name]),
            });
        };
        let shown = match &o.value {
            Some(OptionValue::On) => "ON".to_string(),
            Some(OptionValue::Off) => "OFF".to_string(),
            Some(OptionValue::Number(n)) => n.clone(),
            Some(OptionValue::Word(w)) => w.to_ascii_uppercase(),
            Some(OptionValue::String(s)) => format!("'{s}'"),
            None => String::new(),
        };
        if for_secondary {
            // no database here has secondary replicas to apply it to
            return Err(SqlError::unsupported(format!(
                "ALTER DATABASE SCOPED CONFIGURATION FOR SECONDARY SET {} = {shown}",
                opt.name
            )));
        }
        let value = match (&o.value, opt.switch) {
            (Some(OptionValue::On), true) => 1,
            (Some(OptionValue::Off), true) => 0,
            (Some(OptionValue::Number(n)), false) => match n.parse::<i64>() {
                Ok(v) if (0..=32767).contains(&v) => v,
                _ => {
                    return Err(SqlError::new(15129, &[&n, &opt.name]));
                }
            },
            _ => return Err(SqlError::new(102, &[&shown])),
        };
        let holds = match opt.treatment {
            Acted | EitherHolds => true,
            DefaultOnly => value == opt.default,
        };
        if !holds {
            return Err(SqlError::unsupported(format!(
                "ALTER DATABASE SCOPED CONFIGURATION SET {} = {shown}",
                opt.name
            )));
        }
        let tree = h.store.catalog_btree()?;
        {
            let mut cat = h.cat.write();
            if cat
                .configs
                .get(&config_row(opt.id))
                .copied()
                .unwrap_or(opt.default)
                == value
            {
                return Ok(());
            }
            let mut txn = h.store.begin()?;
            match cat.put_config(&tree, &mut txn, config_row(opt.id), value) {
                Ok(()) => txn.commit()?,
                Err(e) => {
                    let _ = txn.abort();
                    return Err(e);
                }
            }
        }
        if opt.id == IDENTITY_CACHE {
            if value == 0 {
                // the values handed out so far become the persisted ones: no gap after a crash
                crate::identity_cache::release(&h)?;
            }
            h.identity_cache
                .store(value != 0, std::sync::atomic::Ordering::Release);
        }
        // plans compiled under the old value recompile
        h.generation.bump();
        Ok(())
    }
}

/// `sys.database_scoped_configurations` of the session's current database.
pub(crate) fn sys_view(session: &Session) -> SqlResult<(Vec<catalog::ColumnDef>, Vec<Vec<Value>>)> {
    let h = session.current_db()?;
    let cols = [
        ("configuration_id", DataType::Int, false),
        ("name", DataType::NVarChar(Some(60)), true),
        ("value", DataType::Int, true),
        ("value_for_secondary", DataType::Int, true),
        ("is_value_default", DataType::Bit, true),
    ]
    .into_iter()
    .map(|(n, t, null)| catalog::ColumnDef::new(n, t, null))
    .collect();
    let rows = OPTIONS
        .iter()
        .map(|o| {
            let v = value(&h, o.id);
            vec![
                Value::Int(o.id),
                Value::NVarChar(o.name.to_string()),
                Value::Int(i32::try_from(v).unwrap_or(i32::MAX)),
                Value::Null,
                Value::Bit(v == o.default),
            ]
        })
        .collect();
    Ok((cols, rows))
}
