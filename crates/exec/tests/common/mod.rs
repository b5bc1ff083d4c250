//! Shared test harness: a tiny catalog + session over real storage.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;

use common::{SqlError, SqlResult};
use exec::{ExecEnv, ResultColumn, RowSink};
use plan::catalog::{
    self, Catalog, ColumnDef, IdentitySpec, IndexDef, IndexKind, QualifiedName, TableDef, TableRef,
    TableStorage,
};
use plan::BindEnv;
use storage::{Database, StorageConfig, Txn};
use types::{DataType, Value};

/// The test session's variables: a frame of slots, named (lower case, with `@`).
#[derive(Default)]
pub struct Vars {
    names: Vec<String>,
    pub values: Vec<(DataType, Value)>,
}

impl Vars {
    /// Declares (or re-sets) `name`.
    pub fn insert(&mut self, name: String, v: (DataType, Value)) {
        match self.slot(&name) {
            Some(s) => self.values[s] = v,
            None => {
                self.names.push(name.to_lowercase());
                self.values.push(v);
            }
        }
    }

    pub fn slot(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }
}

impl std::ops::Index<&str> for Vars {
    type Output = (DataType, Value);
    fn index(&self, name: &str) -> &(DataType, Value) {
        &self.values[self.slot(name).expect("declared variable")]
    }
}

pub struct Env {
    _dir: tempfile::TempDir,
    db: Arc<Database>,
    txn: Option<Txn>,
    pub tables: HashMap<String, Arc<TableDef>>,
    pub views: HashMap<String, Arc<catalog::ViewDef>>,
    pub vars: Vars,
    identity: HashMap<i32, i64>,
    next_id: i32,
    /// Operator memory budget / spill directory handed to exec (tests force tiny budgets).
    pub spill: exec::SpillConfig,
    /// What the last statement spilled.
    pub last_spills: exec::SpillStats,
}

impl Catalog for Env {
    fn current_database(&self) -> String {
        "testdb".into()
    }
    fn current_schema(&self) -> String {
        "dbo".into()
    }
    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        let k = name.name.to_lowercase();
        if let Some(v) = self.views.get(&k) {
            return Ok(Some(TableRef::View(v.clone())));
        }
        Ok(self.tables.get(&k).map(|t| TableRef::Table(t.clone())))
    }
}

impl BindEnv for Env {
    fn variable_slot(&self, name: &str) -> Option<(usize, DataType)> {
        let slot = self.vars.slot(name)?;
        Some((slot, self.vars.values[slot].0.clone()))
    }
}

impl ExecEnv for Env {
    fn storage(&mut self, _database: &str) -> SqlResult<Arc<Database>> {
        Ok(self.db.clone())
    }
    fn txn(&mut self, _database: &str) -> SqlResult<&mut Txn> {
        if self.txn.is_none() {
            self.txn = Some(self.db.begin()?);
        }
        self.txn
            .as_mut()
            .ok_or_else(|| SqlError::internal("no txn"))
    }
    fn variable_at(&self, slot: usize) -> Option<&Value> {
        self.vars.values.get(slot).map(|v| &v.1)
    }
    fn set_variable_at(&mut self, slot: usize, v: Value) -> SqlResult<()> {
        match self.vars.values.get_mut(slot) {
            Some(e) => e.1 = v,
            None => return Err(SqlError::internal("variable slot out of range")),
        }
        Ok(())
    }
    fn session_id(&self) -> i32 {
        51
    }
    fn spill_config(&self) -> exec::SpillConfig {
        self.spill.clone()
    }
    fn next_identity(&mut self, table: &TableDef) -> SqlResult<i64> {
        let spec = table.identity().map(|(_, s)| s).unwrap_or(IdentitySpec {
            seed: 1,
            increment: 1,
        });
        let e = self
            .identity
            .entry(table.object_id)
            .or_insert(spec.seed - spec.increment);
        *e += spec.increment;
        Ok(*e)
    }
    fn referencing_tables(&mut self, _db: &str, id: i32) -> SqlResult<Vec<Arc<TableDef>>> {
        Ok(self
            .tables
            .values()
            .filter(|t| t.foreign_keys.iter().any(|f| f.ref_object_id == id))
            .cloned()
            .collect())
    }
    fn table_by_id(&mut self, _db: &str, id: i32) -> SqlResult<Option<Arc<TableDef>>> {
        Ok(self.tables.values().find(|t| t.object_id == id).cloned())
    }
    fn create_table(&mut self, spec: &plan::NewTableSpec) -> SqlResult<Arc<TableDef>> {
        let cols: Vec<(&str, DataType, bool)> = spec
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.data_type.clone(), c.nullable))
            .collect();
        let name = spec.name.clone();
        self.create(&name, &cols, None)
    }
}

#[derive(Default)]
pub struct Rows {
    pub messages: Vec<SqlError>,
    pub cols: Vec<ResultColumn>,
    pub rows: Vec<Vec<Value>>,
    pub is_query: bool,
    pub count: Option<u64>,
}

impl RowSink for Rows {
    fn columns(&mut self, cols: &[ResultColumn]) -> SqlResult<()> {
        self.cols = cols.to_vec();
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> SqlResult<()> {
        self.rows.push(row.to_vec());
        Ok(())
    }
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Database::open(
            dir.path(),
            StorageConfig {
                sync_commit: false,
                ..StorageConfig::default()
            },
        )
        .expect("open db");
        Env {
            _dir: dir,
            db,
            txn: None,
            tables: HashMap::new(),
            views: HashMap::new(),
            vars: Vars::default(),
            identity: HashMap::new(),
            next_id: 100,
            spill: exec::SpillConfig::default(),
            last_spills: exec::SpillStats::default(),
        }
    }

    /// Creates a table; `pk` = clustered primary key column ordinals.
    pub fn create(
        &mut self,
        name: &str,
        cols: &[(&str, DataType, bool)],
        pk: Option<&[usize]>,
    ) -> SqlResult<Arc<TableDef>> {
        self.next_id += 1;
        let mut indexes = Vec::new();
        let storage = match pk {
            Some(k) => {
                indexes.push(IndexDef {
                    index_id: 1,
                    name: format!("PK_{name}"),
                    unique: true,
                    primary_key: true,
                    unique_constraint: false,
                    clustered: true,
                    kind: IndexKind::RowStore,
                    key_columns: k.iter().map(|&c| (c, false)).collect(),
                    included: vec![],
                    filter: None,
                    storage_id: 0,
                    ignore_dup_key: false,
                    fill_factor: 0,
                    optimize_for_sequential_key: false,
                });
                TableStorage::Clustered { index: 0 }
            }
            None => TableStorage::Heap(0),
        };
        let mut t = TableDef {
            object_id: self.next_id,
            database: "testdb".into(),
            schema: "dbo".into(),
            name: name.into(),
            columns: cols
                .iter()
                .map(|(n, t, nullable)| ColumnDef::new(*n, t.clone(), *nullable))
                .collect(),
            indexes,
            storage,
            checks: vec![],
            foreign_keys: vec![],
            is_temp: false,
            create_date: String::new(),
        };
        let db = self.db.clone();
        let txn = self.txn("testdb")?;
        exec::table_io::create_table_storage(&db, txn, &mut t)?;
        let t = Arc::new(t);
        self.tables.insert(name.to_lowercase(), t.clone());
        self.commit()?;
        Ok(t)
    }

    /// Adds a nonclustered index on `cols` and builds it.
    pub fn add_index(
        &mut self,
        table: &str,
        name: &str,
        cols: &[usize],
        unique: bool,
    ) -> SqlResult<()> {
        let mut t = (*self.tables[&table.to_lowercase()]).clone();
        t.indexes.push(IndexDef {
            index_id: t.indexes.len() as i32 + 2,
            name: name.into(),
            unique,
            primary_key: false,
            unique_constraint: false,
            clustered: false,
            kind: IndexKind::RowStore,
            key_columns: cols.iter().map(|&c| (c, false)).collect(),
            included: vec![],
            filter: None,
            storage_id: 0,
            ignore_dup_key: false,
            fill_factor: 0,
            optimize_for_sequential_key: false,
        });
        let pos = t.indexes.len() - 1;
        let db = self.db.clone();
        let txn = self.txn("testdb")?;
        exec::table_io::create_index_storage(&db, txn, &mut t, pos)?;
        let t = Arc::new(t);
        exec::table_io::build_index(&db, txn, &t, pos)?;
        self.tables.insert(table.to_lowercase(), t);
        self.commit()
    }

    pub fn commit(&mut self) -> SqlResult<()> {
        if let Some(t) = self.txn.take() {
            t.commit()?;
        }
        Ok(())
    }

    /// Runs one statement; DDL (CREATE TABLE / INDEX, DROP TABLE) is handled here.
    pub fn run_stmt(&mut self, s: &parser::ast::Statement) -> SqlResult<Rows> {
        use parser::ast::StatementKind as K;
        match &s.kind {
            K::CreateTable(ct) => {
                self.create_from_ast(ct)?;
                return Ok(Rows::default());
            }
            K::CreateIndex(ci) => {
                let t = ci.table.name_str().to_lowercase();
                let Some(def) = self.tables.get(&t).cloned() else {
                    return Err(SqlError::invalid_object(ci.table.name_str()));
                };
                let cols: Vec<usize> = ci
                    .index
                    .columns
                    .iter()
                    .filter_map(|c| def.column_index(&c.name.value))
                    .collect();
                self.add_index(&t, &ci.index.name.value, &cols, ci.index.unique)?;
                return Ok(Rows::default());
            }
            K::CreateView(cv) => {
                let k = cv.name.name_str().to_lowercase();
                if self.views.contains_key(&k) || self.tables.contains_key(&k) {
                    return Err(SqlError::new(2714, &[&cv.name.name_str()]));
                }
                self.next_id += 1;
                self.views.insert(
                    k,
                    Arc::new(catalog::ViewDef {
                        object_id: self.next_id,
                        database: "testdb".into(),
                        schema: "dbo".into(),
                        name: cv.name.name_str().into(),
                        text: cv.text.clone(),
                        columns: cv.columns.iter().map(|c| c.value.clone()).collect(),
                        schemabinding: false,
                        uses_quoted_identifier: true,
                        create_date: String::new(),
                        uses_ansi_nulls: true,
                    }),
                );
                return Ok(Rows::default());
            }
            K::Drop {
                object_type: parser::ast::ObjectType::View,
                names,
                ..
            } => {
                for n in names {
                    if self.views.remove(&n.name_str().to_lowercase()).is_none() {
                        return Err(SqlError::custom(3701, 11, 1, format!("Cannot drop the view '{}', because it does not exist or you do not have permission.", n.name_str())));
                    }
                }
                return Ok(Rows::default());
            }
            K::Drop {
                object_type: parser::ast::ObjectType::Table,
                names,
                ..
            } => {
                for n in names {
                    if let Some(t) = self.tables.remove(&n.name_str().to_lowercase()) {
                        let db = self.db.clone();
                        let txn = self.txn("testdb")?;
                        exec::table_io::drop_table_storage(&db, txn, &t)?;
                        self.commit()?;
                    } else {
                        return Err(SqlError::custom(3701, 11, 1, format!("Cannot drop the table '{}', because it does not exist or you do not have permission.", n.name_str())));
                    }
                }
                return Ok(Rows::default());
            }
            K::Merge(_) => {
                // the engine's MERGE path: bind, optimize both inputs and every expression
                let bound = plan::bind_merge(s, &*self)?;
                let phys = bound.try_map(
                    &mut |op: plan::LogicalOp| {
                        let columns = op.columns();
                        match optimizer::optimize(
                            plan::Statement::Select {
                                input: op,
                                columns,
                                assign: None,
                            },
                            &*self,
                        )? {
                            plan::Statement::Select { input, .. } => Ok(input),
                            _ => Err(SqlError::internal("optimizer changed statement kind")),
                        }
                    },
                    &mut |e| optimizer::optimize_scalar(e, &*self),
                )?;
                let mut sink = Rows::default();
                return match exec::execute_merge(&phys, self, &mut sink) {
                    Ok(sum) => {
                        self.last_spills = sum.spills;
                        self.commit()?;
                        sink.count = sum.rows_affected;
                        if !sink.cols.is_empty() {
                            sink.is_query = true;
                        } else {
                            sink.rows =
                                vec![vec![Value::BigInt(sum.rows_affected.unwrap_or(0) as i64)]];
                        }
                        Ok(sink)
                    }
                    Err(e) => {
                        if let Some(t) = self.txn.take() {
                            t.abort()?;
                        }
                        Err(e)
                    }
                };
            }
            _ => {}
        }
        let bound = plan::bind_statement(s, &*self)?;
        let phys = optimizer::optimize(bound, &*self)?;
        let mut sink = Rows::default();
        match exec::execute(&phys, self, &mut sink) {
            Ok(sum) => {
                self.commit()?;
                sink.messages = sum.messages;
                self.last_spills = sum.spills;
                if matches!(phys, plan::Statement::Select { assign: None, .. }) {
                    sink.is_query = true;
                } else if !sink.cols.is_empty() {
                    // OUTPUT rows, then the row count
                    sink.is_query = true;
                    sink.count = sum.rows_affected;
                } else {
                    sink.count = sum.rows_affected;
                    sink.rows = vec![vec![Value::BigInt(sum.rows_affected.unwrap_or(0) as i64)]];
                }
                Ok(sink)
            }
            Err(e) => {
                if let Some(t) = self.txn.take() {
                    t.abort()?;
                }
                Err(e)
            }
        }
    }

    fn create_from_ast(&mut self, ct: &parser::ast::CreateTable) -> SqlResult<()> {
        use parser::ast::{ColumnConstraintKind, TableConstraintKind};
        let name = ct.name.name_str().to_string();
        if self.tables.contains_key(&name.to_lowercase()) {
            return Err(SqlError::new(2714, &[&name]));
        }
        let mut cols = Vec::new();
        let mut pk: Option<Vec<usize>> = None;
        for (i, c) in ct.definition.columns.iter().enumerate() {
            let t = match &c.data_type {
                Some(t) => plan::decl_type(t)?,
                None => DataType::Int,
            };
            let mut nullable = c.nullable.unwrap_or(true);
            for k in &c.constraints {
                if let ColumnConstraintKind::PrimaryKey { .. } = k.kind {
                    pk = Some(vec![i]);
                    nullable = false;
                }
            }
            cols.push((c.name.value.clone(), t, nullable));
        }
        for tc in &ct.definition.constraints {
            if let TableConstraintKind::PrimaryKey { columns, .. } = &tc.kind {
                let v: Vec<usize> = columns
                    .iter()
                    .filter_map(|c| {
                        cols.iter()
                            .position(|x| x.0.eq_ignore_ascii_case(&c.name.value))
                    })
                    .collect();
                for &i in &v {
                    cols[i].2 = false;
                }
                pk = Some(v);
            }
        }
        let refs: Vec<(&str, DataType, bool)> = cols
            .iter()
            .map(|(n, t, b)| (n.as_str(), t.clone(), *b))
            .collect();
        self.create(&name, &refs, pk.as_deref())?;
        Ok(())
    }

    /// Runs a batch; returns the last statement's result.
    pub fn run(&mut self, sql: &str) -> SqlResult<Rows> {
        let stmts = parser::parse_batch(sql)?;
        let mut last = Rows::default();
        for s in &stmts {
            last = self.run_stmt(s)?;
        }
        Ok(last)
    }

    pub fn explain(&mut self, sql: &str) -> String {
        let stmts = parser::parse_batch(sql).expect("parse");
        let bound = plan::bind_statement(&stmts[0], &*self).expect("bind");
        let phys = optimizer::optimize(bound, &*self).expect("optimize");
        optimizer::explain(&phys)
    }

    /// Query result rendered as text lines `v1|v2|...`.
    pub fn q(&mut self, sql: &str) -> Vec<String> {
        match self.run(sql) {
            Ok(r) => r
                .rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|v| {
                            if v.is_null() {
                                "NULL".to_string()
                            } else {
                                v.to_sql_text()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .collect(),
            Err(e) => panic!("query failed: {sql}\n{e}"),
        }
    }

    pub fn err(&mut self, sql: &str) -> SqlError {
        match self.run(sql) {
            Ok(_) => panic!("expected an error: {sql}"),
            Err(e) => e,
        }
    }
}
