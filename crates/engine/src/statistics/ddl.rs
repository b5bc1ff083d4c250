//! `CREATE STATISTICS`, `UPDATE STATISTICS`, `DROP STATISTICS`, `sp_updatestats`, and the
//! statistics side of index and column DDL. Statistics written by DDL are part of the
//! statement's transaction (a rollback undoes them, dbcat C1/C2).

use std::sync::Arc;

use catalog::statistics::StatisticsObject;
use catalog::{name_eq, SchemaObject, TableDef};
use common::{SqlError, SqlResult};
use parser::ast::{self, StatisticsOption};

use super::{
    build_data, build_data_filtered, mark_built, next_stats_id, stored_part, table_objects,
    type_supported, Sample,
};
use crate::ddl::qualified;
use crate::server::DbHandle;
use crate::session::Session;

/// Which objects `UPDATE STATISTICS` rebuilds.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    All,
    Columns,
    Index,
}

struct Options {
    sample: Option<Sample>,
    resample: bool,
    no_recompute: bool,
    scope: Scope,
}

fn parse_options(opts: &[StatisticsOption], statement: &str) -> SqlResult<Options> {
    let mut o = Options {
        sample: None,
        resample: false,
        no_recompute: false,
        scope: Scope::All,
    };
    let update = statement == "UPDATE STATISTICS";
    for opt in opts {
        match opt {
            StatisticsOption::FullScan => o.sample = Some(Sample::Full),
            StatisticsOption::Sample { value, percent } => {
                let bad = || SqlError::unsupported(format!("{statement} WITH SAMPLE {value}"));
                o.sample = Some(if *percent {
                    let p: f64 = value.parse().map_err(|_| bad())?;
                    if !(0.0..=100.0).contains(&p) {
                        return Err(bad());
                    }
                    Sample::Percent(p)
                } else {
                    Sample::Rows(value.parse().map_err(|_| bad())?)
                });
            }
            StatisticsOption::NoRecompute => o.no_recompute = true,
            StatisticsOption::Incremental(false) => {}
            StatisticsOption::Incremental(true) => {
                return Err(SqlError::unsupported(format!(
                    "{statement} WITH INCREMENTAL = ON"
                )))
            }
            StatisticsOption::Other(s) => {
                let off = matches!(s.value, Some(ast::OptionValue::Off));
                match s.name.as_str() {
                    "RESAMPLE" if update => o.resample = true,
                    "ALL" if update => o.scope = Scope::All,
                    "COLUMNS" if update => o.scope = Scope::Columns,
                    "INDEX" if update => o.scope = Scope::Index,
                    // a serial build; OFF is what latchkey does
                    "MAXDOP" => {}
                    "PERSIST_SAMPLE_PERCENT" | "AUTO_DROP" if off => {}
                    other => {
                        return Err(SqlError::unsupported(format!("{statement} WITH {other}")))
                    }
                }
            }
        }
    }
    Ok(o)
}

/// The database's user tables (not #temp ones, not the bootstrap's `spt_values`).
fn user_tables(h: &DbHandle) -> Vec<Arc<TableDef>> {
    h.cat
        .read()
        .objects
        .values()
        .filter(|o| !crate::bootstrap::is_ms_shipped(o))
        .filter_map(|o| match o {
            SchemaObject::Table(t) if !t.is_temp => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn not_located(name: &str) -> SqlError {
    SqlError::new(2767, &[&name])
}

impl Session {
    /// Builds an object's data; a filtered object's predicate (its stored text) is bound over
    /// the table and evaluated per row by this session.
    fn build_object_data(
        &mut self,
        h: &DbHandle,
        table: &Arc<TableDef>,
        cols: &[usize],
        filter: Option<&str>,
        sample: Sample,
    ) -> SqlResult<(Option<catalog::statistics::StatisticsData>, u64)> {
        let Some(text) = filter else {
            return build_data(&h.store, table, cols, sample);
        };
        let predicate = plan::bind_table_expression(table, text, &*self)?;
        let mut accept = |row: &[types::Value]| -> SqlResult<bool> {
            Ok(exec::eval_over_row(&predicate, row, self)?.is_true())
        };
        build_data_filtered(&h.store, table, cols, sample, Some(&mut accept))
    }

    fn statistics_table(
        &self,
        name: &ast::ObjectName,
    ) -> SqlResult<(Arc<DbHandle>, Arc<TableDef>)> {
        let q = qualified(name);
        match self.find_object(&q)? {
            Some((h, SchemaObject::Table(t))) => Ok((h, t)),
            _ => Err(SqlError::new(1088, &[&q.display()])),
        }
    }

    /// Stores a table's full list of objects under the statement's transaction.
    fn put_statistics(
        &mut self,
        h: &DbHandle,
        table: &TableDef,
        list: Vec<Arc<StatisticsObject>>,
    ) -> SqlResult<()> {
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        let mut cat = h.cat.write();
        // DDL (CREATE/UPDATE/DROP STATISTICS, sp_updatestats): cached plans recompile (only
        // the owner's for its own #temp table: touch_catalog)
        if !cat.is_private_temp(&table.name) {
            cat.generation.bump();
        }
        cat.statistics.put(&tree, txn, table, stored_part(list))?;
        // sys.stats readers in other sessions wait for the end of the transaction (README
        // "Catalog visibility")
        cat.mark_pending(crate::dbcat::MetaClass::Stats, table.object_id, txn.id());
        drop(cat);
        self.touch_catalog(&db)?;
        Ok(())
    }

    /// `CREATE STATISTICS name ON t (cols) [WITH FULLSCAN | SAMPLE n PERCENT|ROWS, NORECOMPUTE]`.
    pub(crate) fn create_statistics(&mut self, cs: &ast::CreateStatistics) -> SqlResult<()> {
        let (h, table) = self.statistics_table(&cs.table)?;
        let filter = cs.filter.as_ref().map(crate::ddl::expr_text);
        let opts = parse_options(&cs.options, "CREATE STATISTICS")?;
        if opts.resample {
            return Err(SqlError::unsupported("CREATE STATISTICS WITH RESAMPLE"));
        }
        let name = cs.name.value.clone();
        let all = table_objects(&h.cat.read(), &table);
        if all.iter().any(|o| name_eq(&o.name, &name))
            || table.indexes.iter().any(|i| name_eq(&i.name, &name))
        {
            return Err(SqlError::new(1913, &[&name, &"table", &table.name]));
        }
        let mut cols = Vec::new();
        for c in &cs.columns {
            let Some(i) = table.column_index(&c.value) else {
                return Err(SqlError::new(1911, &[&c.value]));
            };
            if !type_supported(&table.columns[i].data_type) {
                return Err(SqlError::new(1978, &[&table.columns[i].name, &table.name]));
            }
            if cols.contains(&i) {
                return Err(SqlError::custom(
                    1909,
                    16,
                    1,
                    format!("Cannot use duplicate column names in statistics. Column name '{}' listed more than once.", c.value),
                ));
            }
            cols.push(i);
        }
        let (data, counter) = self.build_object_data(
            &h,
            &table,
            &cols,
            filter.as_deref(),
            opts.sample.unwrap_or(Sample::Auto),
        )?;
        let id = next_stats_id(&table, &all);
        let mut list = all;
        list.push(Arc::new(StatisticsObject {
            stats_id: id,
            name,
            columns: cols,
            index_id: None,
            auto_created: false,
            user_created: true,
            no_recompute: opts.no_recompute,
            filter,
            data,
        }));
        self.put_statistics(&h, &table, list)?;
        mark_built(&h.store, &table, id, counter);
        Ok(())
    }

    /// `UPDATE STATISTICS t [name | (names)] [WITH FULLSCAN | SAMPLE | RESAMPLE, NORECOMPUTE,
    /// ALL | COLUMNS | INDEX]`.
    pub(crate) fn update_statistics(&mut self, us: &ast::UpdateStatistics) -> SqlResult<()> {
        let (h, table) = self.statistics_table(&us.table)?;
        let opts = parse_options(&us.options, "UPDATE STATISTICS")?;
        let all = table_objects(&h.cat.read(), &table);
        for n in &us.names {
            if !all.iter().any(|o| name_eq(&o.name, &n.value)) {
                return Err(not_located(&n.value));
            }
        }
        let mut list = Vec::with_capacity(all.len());
        let mut built = Vec::new();
        for o in all {
            let chosen = if us.names.is_empty() {
                match opts.scope {
                    Scope::All => true,
                    Scope::Columns => o.index_id.is_none(),
                    Scope::Index => o.index_id.is_some(),
                }
            } else {
                us.names.iter().any(|n| name_eq(&n.value, &o.name))
            };
            if !chosen {
                list.push(o);
                continue;
            }
            let sample = match (opts.sample, opts.resample, &o.data) {
                (Some(s), _, _) => s,
                (None, true, Some(d)) if d.rows_sampled < d.rows && d.rows > 0 => {
                    Sample::Percent(d.rows_sampled as f64 * 100.0 / d.rows as f64)
                }
                (None, true, _) => Sample::Full,
                (None, false, _) => Sample::Auto,
            };
            self.cancel.check()?;
            let (data, counter) =
                self.build_object_data(&h, &table, &o.columns, o.filter.as_deref(), sample)?;
            built.push((o.stats_id, counter));
            list.push(Arc::new(StatisticsObject {
                data,
                no_recompute: opts.no_recompute,
                ..(*o).clone()
            }));
        }
        self.put_statistics(&h, &table, list)?;
        for (id, counter) in built {
            mark_built(&h.store, &table, id, counter);
        }
        Ok(())
    }

    /// `DROP STATISTICS t.s [, ...]`.
    pub(crate) fn drop_statistics(
        &mut self,
        if_exists: bool,
        names: &[ast::ObjectName],
    ) -> SqlResult<()> {
        for n in names {
            let shown = n
                .parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            let missing = || SqlError::new(3701, &[&"statistics", &shown]);
            let Some((stat, table_parts)) = n.parts.split_last().filter(|(_, t)| !t.is_empty())
            else {
                return Err(missing());
            };
            let tname = ast::ObjectName {
                parts: table_parts.to_vec(),
            };
            let found = match self.find_object(&qualified(&tname))? {
                Some((h, SchemaObject::Table(t))) => Some((h, t)),
                _ => None,
            };
            let Some((h, table)) = found else {
                if if_exists {
                    continue;
                }
                return Err(missing());
            };
            let all = table_objects(&h.cat.read(), &table);
            let Some(o) = all.iter().find(|o| name_eq(&o.name, &stat.value)) else {
                if if_exists {
                    continue;
                }
                return Err(missing());
            };
            if o.index_id.is_some() {
                return Err(SqlError::new(3739, &[&"DROP", &shown]));
            }
            let id = o.stats_id;
            let list = all.into_iter().filter(|o| o.stats_id != id).collect();
            self.put_statistics(&h, &table, list)?;
        }
        Ok(())
    }

    /// `sp_updatestats`: rebuilds, with the default sample, every statistics object of every
    /// user table of the current database that has modifications since its last build (or was
    /// never built); reports each table as SQL Server does.
    pub(crate) fn sp_updatestats(
        &mut self,
        sink: &mut dyn crate::events::EventSink,
    ) -> SqlResult<i32> {
        let h = self.current_db()?;
        let mut tables: Vec<Arc<TableDef>> = user_tables(&h);
        tables.sort_by(|a, b| {
            (a.schema.to_lowercase(), a.name.to_lowercase())
                .cmp(&(b.schema.to_lowercase(), b.name.to_lowercase()))
        });
        let info = |sink: &mut dyn crate::events::EventSink, text: String| {
            sink.message(&crate::events::InfoMessage {
                text,
                number: 0,
                severity: 0,
                state: 1,
            });
        };
        for t in tables {
            info(sink, format!("Updating [{}].[{}]", t.schema, t.name));
            let all = table_objects(&h.cat.read(), &t);
            let (mut updated, mut total) = (0, 0);
            let mut list = Vec::new();
            let mut built = Vec::new();
            for o in all {
                total += 1;
                let stale =
                    o.data.is_none() || super::modification_counter(&h.store, &t, o.stats_id) > 0;
                if !stale {
                    info(
                        sink,
                        format!("    [{}], update is not necessary...", o.name),
                    );
                    list.push(o);
                    continue;
                }
                self.cancel.check()?;
                let (data, counter) =
                    self.build_object_data(&h, &t, &o.columns, o.filter.as_deref(), Sample::Auto)?;
                built.push((o.stats_id, counter));
                info(sink, format!("    [{}] has been updated...", o.name));
                updated += 1;
                list.push(Arc::new(StatisticsObject {
                    data,
                    ..(*o).clone()
                }));
            }
            if updated > 0 {
                self.put_statistics(&h, &t, list)?;
                for (id, counter) in built {
                    mark_built(&h.store, &t, id, counter);
                }
            }
            info(sink, format!("    {updated} index(es)/statistic(s) have been updated, {} did not require update.", total - updated));
            info(sink, String::new());
        }
        info(sink, "Statistics for all tables have been updated.".into());
        Ok(0)
    }

    /// `sp_createstats [@indexonly] [, @fullscan] [, @norecompute]`: single-column statistics,
    /// named after the column, on every column of every user table that leads no statistics
    /// object (with `indexonly`: only columns of an index), as SQL Server does.
    pub(crate) fn sp_createstats(
        &mut self,
        index_only: bool,
        full_scan: bool,
        no_recompute: bool,
        sink: &mut dyn crate::events::EventSink,
    ) -> SqlResult<i32> {
        let h = self.current_db()?;
        let mut tables: Vec<Arc<TableDef>> = user_tables(&h);
        tables.sort_by_key(|t| t.object_id);
        let info = |sink: &mut dyn crate::events::EventSink, text: String| {
            sink.message(&crate::events::InfoMessage {
                text,
                number: 0,
                severity: 0,
                state: 1,
            });
        };
        let mut created = 0;
        for t in tables {
            let mut list = table_objects(&h.cat.read(), &t);
            let mut names = Vec::new();
            let mut built = Vec::new();
            for (c, col) in t.columns.iter().enumerate() {
                let in_index = t
                    .indexes
                    .iter()
                    .any(|ix| ix.key_columns.iter().any(|(k, _)| *k == c));
                let led = list.iter().any(|o| o.columns.first() == Some(&c));
                let taken = list.iter().any(|o| name_eq(&o.name, &col.name))
                    || t.indexes.iter().any(|i| name_eq(&i.name, &col.name));
                if led
                    || taken
                    || (index_only && !in_index)
                    || !type_supported(&col.data_type)
                    || col.computed.is_some()
                {
                    continue;
                }
                self.cancel.check()?;
                let sample = if full_scan {
                    Sample::Full
                } else {
                    Sample::Auto
                };
                let (data, counter) = build_data(&h.store, &t, &[c], sample)?;
                let id = next_stats_id(&t, &list);
                built.push((id, counter));
                list.push(Arc::new(StatisticsObject {
                    stats_id: id,
                    name: col.name.clone(),
                    columns: vec![c],
                    index_id: None,
                    auto_created: false,
                    user_created: true,
                    no_recompute,
                    filter: None,
                    data,
                }));
                names.push(col.name.clone());
            }
            if names.is_empty() {
                continue;
            }
            info(
                sink,
                format!(
                    "Table '{}.{}.{}': Creating statistics for the following columns:",
                    h.def.name, t.schema, t.name
                ),
            );
            for n in &names {
                info(sink, format!("     {n}"));
            }
            created += names.len();
            self.put_statistics(&h, &t, list)?;
            for (id, counter) in built {
                mark_built(&h.store, &t, id, counter);
            }
        }
        info(sink, format!("Statistics have been created for the {created} indicated columns of tables in the database."));
        Ok(0)
    }

    /// After `CREATE INDEX` on a table with rows: the index's statistics, built with a full
    /// scan (SQL Server gets them from the index build's sort).
    pub(crate) fn build_index_statistics(
        &mut self,
        h: &DbHandle,
        table: &Arc<TableDef>,
        index_name: &str,
    ) -> SqlResult<()> {
        let all = table_objects(&h.cat.read(), table);
        let Some(o) = all
            .iter()
            .find(|o| o.index_id.is_some() && name_eq(&o.name, index_name))
            .cloned()
        else {
            return Ok(());
        };
        let (data, counter) = build_data(&h.store, table, &o.columns, Sample::Full)?;
        if data.is_none() {
            return Ok(());
        }
        let list = all
            .into_iter()
            .map(|x| {
                if x.stats_id == o.stats_id {
                    Arc::new(StatisticsObject {
                        data: data.clone(),
                        ..(*x).clone()
                    })
                } else {
                    x
                }
            })
            .collect();
        self.put_statistics(h, table, list)?;
        mark_built(&h.store, table, o.stats_id, counter);
        Ok(())
    }

    /// After `DROP INDEX`: the index's statistics go with it.
    pub(crate) fn drop_index_statistics(
        &mut self,
        h: &DbHandle,
        table: &TableDef,
        index_id: i32,
    ) -> SqlResult<()> {
        let stored = h.cat.read().statistics.stored(table.object_id).to_vec();
        if !stored.iter().any(|o| o.index_id == Some(index_id)) {
            return Ok(());
        }
        let list = stored
            .into_iter()
            .filter(|o| o.index_id != Some(index_id))
            .collect();
        self.put_statistics(h, table, list)
    }

    /// `ALTER TABLE DROP COLUMN` of column `i`: Msg 5074 when a user-created statistics
    /// object uses it (automatic ones are dropped with the column).
    pub(crate) fn check_drop_column_statistics(
        &self,
        h: &DbHandle,
        table: &TableDef,
        i: usize,
    ) -> SqlResult<()> {
        let cat = h.cat.read();
        if let Some(o) = cat
            .statistics
            .stored(table.object_id)
            .iter()
            .find(|o| o.index_id.is_none() && !o.auto_created && o.columns.contains(&i))
        {
            let col = &table.columns[i].name;
            return Err(SqlError::new(
                5074,
                &[&"statistics", &o.name, &"column", col],
            ));
        }
        Ok(())
    }

    /// After column `i` was dropped from `new` (same object id): automatic statistics on it
    /// go, the other objects' column ordinals shift down.
    pub(crate) fn column_dropped_statistics(
        &mut self,
        h: &DbHandle,
        new: &TableDef,
        i: usize,
    ) -> SqlResult<()> {
        let stored = h.cat.read().statistics.stored(new.object_id).to_vec();
        if stored.is_empty() {
            return Ok(());
        }
        let list = stored
            .into_iter()
            .filter(|o| !o.columns.contains(&i))
            .map(|o| {
                let columns = o
                    .columns
                    .iter()
                    .map(|&c| if c > i { c - 1 } else { c })
                    .collect();
                Arc::new(StatisticsObject {
                    columns,
                    ..(*o).clone()
                })
            })
            .collect();
        self.put_statistics(h, new, list)
    }

    /// After `ALTER COLUMN` changed column `i`'s type: automatic statistics on it go, and the
    /// histograms of index statistics on it are dropped (rebuilt when next needed), since
    /// their keys have the old type.
    pub(crate) fn column_retyped_statistics(
        &mut self,
        h: &DbHandle,
        table: &TableDef,
        i: usize,
    ) -> SqlResult<()> {
        let stored = h.cat.read().statistics.stored(table.object_id).to_vec();
        if !stored.iter().any(|o| o.columns.contains(&i)) {
            return Ok(());
        }
        let list = stored
            .into_iter()
            .filter(|o| !(o.auto_created && o.columns.contains(&i)))
            .map(|o| {
                if o.columns.contains(&i) {
                    Arc::new(StatisticsObject {
                        data: None,
                        ..(*o).clone()
                    })
                } else {
                    o
                }
            })
            .collect();
        self.put_statistics(h, table, list)
    }

    /// `ALTER DATABASE SET AUTO_CREATE_STATISTICS | AUTO_UPDATE_STATISTICS ON|OFF`: a
    /// transaction of its own, committed durably (ALTER DATABASE is not part of the caller's
    /// transaction).
    pub(crate) fn set_auto_statistics(
        &mut self,
        database: &str,
        o: &ast::OptionSetting,
    ) -> SqlResult<()> {
        let on = match &o.value {
            Some(ast::OptionValue::On) => true,
            Some(ast::OptionValue::Off) => false,
            _ => {
                return Err(SqlError::unsupported(format!(
                    "ALTER DATABASE SET {}",
                    o.name
                )))
            }
        };
        let h = self.db(database)?;
        let tree = h.store.catalog_btree()?;
        let (create, update) = if o.name == "AUTO_CREATE_STATISTICS" {
            (Some(on), None)
        } else {
            (None, Some(on))
        };
        let mut cat = h.cat.write();
        let mut txn = h.store.begin()?;
        match cat.statistics.set_options(&tree, &mut txn, create, update) {
            Ok(()) => txn.commit(),
            Err(e) => {
                let _ = txn.abort();
                Err(e)
            }
        }
    }
}
