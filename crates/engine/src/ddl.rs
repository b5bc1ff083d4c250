//! DDL: CREATE/ALTER/DROP of tables, indexes, views, modules, schemas, sequences.
//!
//! Every change goes through the session's open transaction (dbcat C1) and marks the
//! database's catalog touched (session T4).

use std::sync::Arc;

use catalog::*;
use common::{ObjectId, SqlError, SqlResult};
use parser::ast::{self, StatementKind};
use types::{DataType, Value};

use crate::events::EventSink;
use crate::server::DbHandle;
use crate::session::Session;

/// AST name → [`QualifiedName`].
pub fn qualified(n: &ast::ObjectName) -> QualifiedName {
    QualifiedName {
        database: n.database().map(|i| i.value.clone()),
        schema: n.schema().map(|i| i.value.clone()),
        name: n.name().map(|i| i.value.clone()).unwrap_or_default(),
    }
}

/// `'db.schema.name'` text (OBJECT_ID argument) → [`QualifiedName`]; brackets are removed.
pub fn qualified_from_text(t: &str) -> QualifiedName {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_br = false;
    let mut in_q = false;
    for c in t.trim().chars() {
        match c {
            '[' if !in_q => in_br = true,
            ']' if in_br => in_br = false,
            '"' if !in_br => in_q = !in_q,
            '.' if !in_br && !in_q => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    parts.push(cur);
    let name = parts.pop().unwrap_or_default();
    let schema = parts.pop().filter(|s| !s.is_empty());
    let database = parts.pop().filter(|s| !s.is_empty());
    QualifiedName {
        database,
        schema,
        name,
    }
}

/// Source text of an expression (for defaults, checks, computed columns).
pub fn expr_text(e: &ast::Expr) -> String {
    format!("{e}")
}

/// `datetime` text of now (create_date).
pub fn now_text() -> String {
    datetime_text(std::time::SystemTime::now())
}

/// `datetime` text ("yyyy-mm-dd hh:mi:ss.mmm", UTC) of a point in time.
pub fn datetime_text(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let days = (secs / 86_400_000) as i32 + 719_162; // 1970-01-01 since 0001-01-01
    let ms = (secs % 86_400_000) as i64;
    let (y, m, d) = types::datetime::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000
    )
}

fn hex_suffix(id: ObjectId, salt: u32) -> String {
    let x = (id as u32 as u64) << 32 | salt as u64;
    let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("{:016X}", h)
}

fn truncated(name: &str, n: usize) -> String {
    name.chars().take(n).collect()
}

impl Session {
    /// Dispatches a DDL statement.
    pub(crate) fn exec_ddl(
        &mut self,
        s: &ast::Statement,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let _ = sink;
        // objects this statement creates go to the filegroup its ON clauses name
        self.ddl_data_space = self.statement_data_space(&s.kind)?;
        let done = self.exec_ddl_statement(s);
        self.ddl_data_space = None;
        done
    }

    fn exec_ddl_statement(&mut self, s: &ast::Statement) -> SqlResult<()> {
        self.check_ddl_allowed_in_snapshot(&s.kind)?;
        match &s.kind {
            StatementKind::CreateTable(ct) => self.create_table(ct).map(|_| ()),
            StatementKind::Drop {
                object_type,
                if_exists,
                names,
            } => {
                for n in names {
                    self.drop_object(*object_type, *if_exists, n)?;
                }
                Ok(())
            }
            StatementKind::CreateIndex(ci) => self.create_index(&ci.table, &ci.index),
            StatementKind::DropIndex { if_exists, targets } => {
                for t in targets {
                    self.drop_index(*if_exists, t)?;
                }
                Ok(())
            }
            StatementKind::CreateSchema {
                name,
                authorization,
            } => {
                let h = self.current_db()?;
                if h.cat.read().schema(&name.value).is_some() {
                    return Err(SqlError::new(2714, &[&name.value]));
                }
                // AUTHORIZATION: the owner (security/: ownership chaining compares owners)
                let owner = match authorization {
                    None => None,
                    Some(o) => Some(
                        h.cat
                            .read()
                            .security
                            .principal_id(&o.value)
                            .ok_or_else(|| SqlError::new(15151, &[&"find", &"user", &o.value]))?,
                    ),
                };
                let tree = h.store.catalog_btree()?;
                let db = h.def.name.clone();
                let txn = self.txn_for(&db)?;
                let id = h.cat.write().put_schema(&tree, txn, &name.value)?;
                if let Some(owner) = owner {
                    h.cat.write().set_schema_owner(&tree, txn, id, owner)?;
                }
                self.touch_catalog(&db)?;
                Ok(())
            }
            StatementKind::CreateView(cv) => self.create_view(cv),
            StatementKind::CreateProcedure(cp) => self.create_module(
                cp.mode,
                &cp.name,
                ModuleKind::Procedure,
                &cp.text,
                &cp.params,
                None,
            ),
            StatementKind::CreateFunction(cf) => {
                let (kind, returns) = match &cf.body {
                    ast::FunctionBody::Scalar { returns, .. } => (
                        ModuleKind::ScalarFunction,
                        Some(self.resolve_type_name(returns)?),
                    ),
                    ast::FunctionBody::InlineTable { .. } => {
                        (ModuleKind::InlineTableFunction, None)
                    }
                    ast::FunctionBody::MultiStatement { .. } => (ModuleKind::TableFunction, None),
                };
                // table functions: body checks (tvf.rs), result columns of `RETURNS @t TABLE`
                let table_cols = match &cf.body {
                    ast::FunctionBody::MultiStatement { table, body, .. } => {
                        crate::tvf::check_function_body(body)
                            .map_err(|e| e.in_procedure(cf.name.name_str()))?;
                        Some(self.function_table_columns(table, cf.name.name_str())?)
                    }
                    ast::FunctionBody::InlineTable { query } => {
                        self.check_inline_function(query, &cf.params)
                            .map_err(|e| e.in_procedure(cf.name.name_str()))?;
                        None
                    }
                    ast::FunctionBody::Scalar { body, .. } => {
                        crate::tvf::check_function_body(body)
                            .map_err(|e| e.in_procedure(cf.name.name_str()))?;
                        None
                    }
                };
                crate::tvf::check_alter_kind(self, cf.mode, &cf.name, kind)?;
                self.create_module(cf.mode, &cf.name, kind, &cf.text, &cf.params, returns)?;
                match table_cols {
                    Some(cols) => self.set_function_table(&cf.name, cols),
                    None => Ok(()),
                }
            }
            StatementKind::CreateTrigger(ct) => self.create_trigger(ct),
            StatementKind::AlterTable(at) => self.alter_table(at),
            StatementKind::CreateSequence(cs) => self.create_sequence(cs),
            StatementKind::AlterSequence(a) => self.alter_sequence(&a.name, &a.options),
            StatementKind::CreateType(ct) => self.create_type(ct),
            StatementKind::AlterIndex(a) => self.alter_index(a),
            // statistics/ddl.rs
            StatementKind::CreateStatistics(cs) => self.create_statistics(cs),
            StatementKind::UpdateStatistics(us) => self.update_statistics(us),
            _ => Err(SqlError::internal("not a DDL statement")),
        }
    }

    /// (handle, schema name) for a new object named `n`; checks the schema exists.
    pub(crate) fn target_of(&self, n: &QualifiedName) -> SqlResult<(Arc<DbHandle>, String)> {
        let (db, schema) = self.resolve_parts(n);
        let h = self.db(&db)?;
        if !n.is_temp() {
            // another transaction's uncommitted CREATE / DROP SCHEMA is waited for
            let found = h.cat.read().schema(&schema).map(|s| s.schema_id);
            self.await_named_entry(&h, crate::dbcat::MetaClass::Schema, found)?;
        }
        if !n.is_temp() && h.cat.read().schema(&schema).is_none() {
            return Err(SqlError::custom(
                2760,
                16,
                1,
                format!("The specified schema name \"{schema}\" either does not exist or you do not have permission to use it."),
            ));
        }
        let schema = h
            .cat
            .read()
            .schema(&schema)
            .map(|s| s.name.clone())
            .unwrap_or(schema);
        Ok((h, schema))
    }

    fn check_name_free(&self, h: &DbHandle, schema: &str, q: &QualifiedName) -> SqlResult<()> {
        if q.is_temp() && !q.name.starts_with("##") {
            if self.temp_tables.contains_key(&q.name.to_lowercase()) {
                return Err(SqlError::new(2714, &[&q.name]));
            }
            return Ok(());
        }
        h.cat.read().check_free(schema, &q.name)
    }

    /// Storage name of a temp table (`#t____...____000000000001`, 116 chars + 12 hex).
    fn temp_storage_name(&mut self, name: &str) -> String {
        self.temp_counter += 1;
        let mut s = name.to_string();
        while s.chars().count() < 116 {
            s.push('_');
        }
        format!("{s}{:012X}", ((self.spid as u64) << 32) | self.temp_counter)
    }

    /// CREATE TABLE.
    pub(crate) fn create_table(&mut self, ct: &ast::CreateTable) -> SqlResult<Arc<TableDef>> {
        let q = qualified(&ct.name);
        let (h, schema) = self.target_of(&q)?;
        self.check_name_free(&h, &schema, &q)?;
        let def = &ct.definition;
        let mut columns: Vec<ColumnDef> = Vec::new();
        for c in &def.columns {
            if columns.iter().any(|x| name_eq(&x.name, &c.name.value)) {
                return Err(SqlError::new(2705, &[&c.name.value, &q.name]));
            }
            columns.push(self.column_def(c, &q.name)?);
        }
        crate::limits::check_table_shape(&q.name, &columns)?;
        let mut cons: Vec<ast::TableConstraint> = def.constraints.clone();
        // per constraint: the column of a column-level CHECK (547 and parent_column_id name it)
        let mut check_column: Vec<Option<usize>> = vec![None; cons.len()];
        for (i, c) in def.columns.iter().enumerate() {
            for cc in &c.constraints {
                let kind = match &cc.kind {
                    ast::ColumnConstraintKind::PrimaryKey {
                        clustered,
                        with_options,
                        on,
                    } => ast::TableConstraintKind::PrimaryKey {
                        clustered: *clustered,
                        columns: vec![ast::IndexColumn {
                            name: c.name.clone(),
                            desc: false,
                        }],
                        with_options: with_options.clone(),
                        on: on.clone(),
                    },
                    ast::ColumnConstraintKind::Unique {
                        clustered,
                        with_options,
                        on,
                    } => ast::TableConstraintKind::Unique {
                        clustered: *clustered,
                        columns: vec![ast::IndexColumn {
                            name: c.name.clone(),
                            desc: false,
                        }],
                        with_options: with_options.clone(),
                        on: on.clone(),
                    },
                    ast::ColumnConstraintKind::Check(e) => {
                        ast::TableConstraintKind::Check(e.clone())
                    }
                    ast::ColumnConstraintKind::References(r) => {
                        ast::TableConstraintKind::ForeignKey {
                            columns: vec![c.name.clone()],
                            references: r.clone(),
                        }
                    }
                };
                check_column.push(matches!(kind, ast::TableConstraintKind::Check(_)).then_some(i));
                cons.push(ast::TableConstraint {
                    name: cc.name.clone(),
                    kind,
                });
            }
        }
        let storage_name = if q.is_temp() && !q.name.starts_with("##") {
            self.temp_storage_name(&q.name)
        } else {
            q.name.clone()
        };
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let object_id = {
            let txn = self.txn_for(&db)?;
            h.cat.write().new_object_id(&tree, txn)?
        };
        let mut table = TableDef {
            object_id,
            database: db.clone(),
            schema: schema.clone(),
            name: storage_name,
            columns,
            indexes: Vec::new(),
            storage: TableStorage::Heap(0),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            is_temp: q.is_temp(),
            create_date: now_text(),
        };
        self.type_computed_columns(&mut table, 0)?;
        let mut salt = 0u32;
        for (k, c) in cons.iter().enumerate() {
            salt += 1;
            let checks_before = table.checks.len();
            self.add_constraint(&h, &mut table, c, &q.name, salt)?;
            if let Some(col) = check_column.get(k).copied().flatten() {
                for ck in table.checks.iter_mut().skip(checks_before) {
                    ck.column = Some(col);
                }
            }
        }
        for ix in &def.indexes {
            self.add_index_def(&mut table, ix, &q.name)?;
        }
        // Default constraint names.
        for (i, c) in table.columns.iter_mut().enumerate() {
            if c.default.is_some() && c.default_name.is_none() {
                c.default_name = Some(format!(
                    "DF__{}__{}__{}",
                    truncated(&q.name, 9),
                    truncated(&c.name, 5),
                    &hex_suffix(object_id, 1000 + i as u32)[..8]
                ));
            }
        }
        // Storage objects.
        {
            let space = self.ddl_data_space;
            let txn = self.txn_for(&db)?;
            let mut clustered = None;
            for (pos, ix) in table.indexes.iter_mut().enumerate() {
                ix.storage_id = h.store.create_btree_on(txn, space)?.0;
                if ix.clustered {
                    clustered = Some(pos);
                }
            }
            table.storage = match clustered {
                Some(index) => TableStorage::Clustered { index },
                None => TableStorage::Heap(h.store.create_heap_on(txn, space)?.0),
            };
        }
        let table = Arc::new(table);
        // other sessions' access to the new table waits until this transaction ends
        self.lock_schema(&h, table.object_id)?;
        {
            let txn = self.txn_for(&db)?;
            h.cat
                .write()
                .put(&tree, txn, SchemaObject::Table(table.clone()))?;
        }
        self.touch_catalog(&db)?;
        if q.is_temp() && !q.name.starts_with("##") {
            self.temp_tables.insert(q.name.to_lowercase(), object_id);
        }
        Ok(table)
    }

    pub(crate) fn column_def(
        &self,
        c: &ast::ColumnDefinition,
        table: &str,
    ) -> SqlResult<ColumnDef> {
        let _ = table;
        let (data_type, user_type, type_nullable) = match &c.data_type {
            Some(t) => {
                let params: Vec<types::TypeParam> = t
                    .params
                    .iter()
                    .map(|p| match p {
                        ast::TypeParam::Number(n) => types::TypeParam::Num(*n as i64),
                        ast::TypeParam::Max => types::TypeParam::Max,
                    })
                    .collect();
                match DataType::from_name(&t.name, &params) {
                    Ok(dt) => (dt, None, None),
                    Err(e) => {
                        let schema = t
                            .schema
                            .as_ref()
                            .map(|s| s.value.clone())
                            .unwrap_or("dbo".into());
                        let h = self.current_db()?;
                        let ut = self.user_type_committed(&h, &schema, &t.name)?;
                        match ut {
                            Some(u) => match &u.base {
                                Some(b) => (b.clone(), Some(u.name.clone()), Some(u.nullable)),
                                None => return Err(e),
                            },
                            None => return Err(e),
                        }
                    }
                }
            }
            // Computed column: the type is derived when bound; sql_variant-like placeholder.
            None => (DataType::Int, None, None),
        };
        let is_pk = c
            .constraints
            .iter()
            .any(|k| matches!(k.kind, ast::ColumnConstraintKind::PrimaryKey { .. }));
        let nullable = match c.nullable {
            Some(n) => n,
            None => {
                if c.identity.is_some() || is_pk {
                    false
                } else {
                    type_nullable.unwrap_or(self.options.ansi_null_dflt_on)
                }
            }
        };
        if let Some((_, inc)) = c.identity {
            if inc == 0 {
                return Err(SqlError::custom(
                    2749,
                    16,
                    2,
                    format!("Identity column '{}' must be of data type int, bigint, smallint, tinyint, or decimal or numeric with a scale of 0, and constrained to be nonnullable.", c.name.value),
                ));
            }
            if !(data_type.is_integer()
                || matches!(
                    data_type,
                    DataType::Decimal { scale: 0, .. } | DataType::Numeric { scale: 0, .. }
                ))
            {
                return Err(SqlError::custom(
                    2749,
                    16,
                    2,
                    format!("Identity column '{}' must be of data type int, bigint, smallint, tinyint, or decimal or numeric with a scale of 0, and constrained to be nonnullable.", c.name.value),
                ));
            }
        }
        Ok(ColumnDef {
            name: c.name.value.clone(),
            data_type,
            nullable,
            identity: c
                .identity
                .map(|(seed, increment)| IdentitySpec { seed, increment }),
            default: c.default.as_ref().map(|d| expr_text(&d.expr)),
            default_name: c
                .default
                .as_ref()
                .and_then(|d| d.name.as_ref().map(|n| n.value.clone())),
            computed: c.computed.as_ref().map(expr_text),
            persisted: c.persisted,
            collation: c.collation.clone(),
            rowguidcol: c.rowguidcol,
            user_type,
        })
    }

    fn index_columns(
        table: &TableDef,
        cols: &[ast::IndexColumn],
        tname: &str,
    ) -> SqlResult<Vec<(usize, bool)>> {
        let mut out = Vec::new();
        for c in cols {
            let Some(i) = table.column_index(&c.name.value) else {
                return Err(SqlError::custom(
                    1911,
                    16,
                    1,
                    format!(
                        "Column name '{}' does not exist in the target table or view.",
                        c.name.value
                    ),
                ));
            };
            if out.iter().any(|(x, _)| *x == i) {
                return Err(SqlError::custom(
                    1919,
                    16,
                    1,
                    format!("Column '{}' in table '{tname}' is specified more than once in the index key list.", c.name.value),
                ));
            }
            out.push((i, c.desc));
        }
        Ok(out)
    }

    fn next_index_id(table: &TableDef, clustered: bool) -> i32 {
        if clustered {
            1
        } else {
            table
                .indexes
                .iter()
                .map(|i| i.index_id)
                .max()
                .unwrap_or(1)
                .max(1)
                + 1
        }
    }

    pub(crate) fn add_constraint(
        &mut self,
        h: &DbHandle,
        table: &mut TableDef,
        c: &ast::TableConstraint,
        tname: &str,
        salt: u32,
    ) -> SqlResult<()> {
        let oid = table.object_id;
        match &c.kind {
            ast::TableConstraintKind::PrimaryKey {
                clustered,
                columns,
                with_options,
                ..
            }
            | ast::TableConstraintKind::Unique {
                clustered,
                columns,
                with_options,
                ..
            } => {
                crate::noops::check_index_options(with_options, "CREATE TABLE")?;
                let pk = matches!(c.kind, ast::TableConstraintKind::PrimaryKey { .. });
                if pk && table.primary_key().is_some() {
                    return Err(SqlError::new(1779, &[&tname]));
                }
                let has_clustered = table.indexes.iter().any(|i| i.clustered);
                let clustered = clustered.unwrap_or(pk && !has_clustered);
                if clustered && has_clustered {
                    let existing = table
                        .indexes
                        .iter()
                        .find(|i| i.clustered)
                        .map(|i| i.name.clone())
                        .unwrap_or_default();
                    return Err(SqlError::new(1902, &[&"table", &tname, &existing]));
                }
                let name = match &c.name {
                    Some(n) => n.value.clone(),
                    None => format!(
                        "{}__{}__{}",
                        if pk { "PK" } else { "UQ" },
                        truncated(tname, 8),
                        hex_suffix(oid, salt)
                    ),
                };
                if table.index_by_name(&name).is_some() {
                    return Err(SqlError::new(2714, &[&name]));
                }
                let key = Self::index_columns(table, columns, tname)?;
                if pk {
                    for (i, _) in &key {
                        let col = &mut table.columns[*i];
                        if col.nullable {
                            // SQL Server makes PK columns NOT NULL when nullability was not given
                            // explicitly; an explicit NULL is error 8111.
                            col.nullable = false;
                        }
                    }
                }
                let index_id = Self::next_index_id(table, clustered);
                table.indexes.push(IndexDef {
                    index_id,
                    name,
                    unique: true,
                    primary_key: pk,
                    unique_constraint: !pk,
                    clustered,
                    kind: IndexKind::RowStore,
                    key_columns: key,
                    included: vec![],
                    filter: None,
                    storage_id: 0,
                    ignore_dup_key: ignore_dup_key_on(with_options),
                    fill_factor: 0,
                    optimize_for_sequential_key: option_on(
                        with_options,
                        "OPTIMIZE_FOR_SEQUENTIAL_KEY",
                    ),
                });
            }
            ast::TableConstraintKind::Check(e) => {
                let name = match &c.name {
                    Some(n) => n.value.clone(),
                    None => format!(
                        "CK__{}__{}",
                        truncated(tname, 9),
                        &hex_suffix(oid, salt)[..8]
                    ),
                };
                table.checks.push(CheckDef {
                    name,
                    text: expr_text(e),
                    column: None,
                    disabled: false,
                    not_trusted: false,
                });
            }
            ast::TableConstraintKind::ForeignKey {
                columns,
                references,
            } => {
                let rq = qualified(&references.table);
                let (rdb, rschema) = self.resolve_parts(&rq);
                let self_ref = name_eq(&rq.name, tname) && name_eq(&rschema, &table.schema);
                let rtable: Arc<TableDef> = if self_ref {
                    Arc::new(table.clone())
                } else {
                    match self
                        .engine
                        .database(&rdb)
                        .and_then(|d| d.cat.read().table(&rschema, &rq.name))
                    {
                        Some(t) => t,
                        None => {
                            return Err(SqlError::new(
                                1767,
                                &[
                                    &c.name.as_ref().map(|n| n.value.clone()).unwrap_or_default(),
                                    &rq.name,
                                ],
                            ))
                        }
                    }
                };
                let _ = h;
                let mut cols = Vec::new();
                for col in columns {
                    match table.column_index(&col.value) {
                        Some(i) => cols.push(i),
                        None => return Err(SqlError::invalid_column(&col.value)),
                    }
                }
                let ref_columns: Vec<String> = if references.columns.is_empty() {
                    match rtable.primary_key() {
                        Some(pk) => pk
                            .key_columns
                            .iter()
                            .map(|(i, _)| rtable.columns[*i].name.clone())
                            .collect(),
                        None => {
                            return Err(SqlError::custom(
                                1773,
                                16,
                                0,
                                format!("Foreign key has implicit reference to object '{}' which does not have a primary key defined on it.", rq.name),
                            ))
                        }
                    }
                } else {
                    references.columns.iter().map(|c| c.value.clone()).collect()
                };
                let name = match &c.name {
                    Some(n) => n.value.clone(),
                    None => format!(
                        "FK__{}__{}__{}",
                        truncated(tname, 8),
                        truncated(&rq.name, 8),
                        &hex_suffix(oid, salt)[..8]
                    ),
                };
                let act = |a: Option<ast::ReferentialAction>| match a {
                    Some(ast::ReferentialAction::Cascade) => RefAction::Cascade,
                    Some(ast::ReferentialAction::SetNull) => RefAction::SetNull,
                    Some(ast::ReferentialAction::SetDefault) => RefAction::SetDefault,
                    _ => RefAction::NoAction,
                };
                table.foreign_keys.push(ForeignKeyDef {
                    name,
                    columns: cols,
                    ref_object_id: if self_ref {
                        table.object_id
                    } else {
                        rtable.object_id
                    },
                    ref_schema: rtable.schema.clone(),
                    ref_table: rtable.name.clone(),
                    ref_columns,
                    on_delete: act(references.on_delete),
                    on_update: act(references.on_update),
                    disabled: false,
                    not_trusted: false,
                });
            }
            ast::TableConstraintKind::Default { expr, column } => {
                let Some(i) = table.column_index(&column.value) else {
                    return Err(SqlError::invalid_column(&column.value));
                };
                let col = &mut table.columns[i];
                if col.default.is_some() {
                    return Err(SqlError::custom(
                        1781,
                        16,
                        1,
                        "Column already has a DEFAULT bound to it.",
                    ));
                }
                col.default = Some(expr_text(expr));
                col.default_name = c.name.as_ref().map(|n| n.value.clone());
            }
        }
        Ok(())
    }

    fn add_index_def(
        &mut self,
        table: &mut TableDef,
        ix: &ast::IndexDefinition,
        tname: &str,
    ) -> SqlResult<usize> {
        if ix.columnstore {
            return Err(SqlError::unsupported("COLUMNSTORE index"));
        }
        if table.index_by_name(&ix.name.value).is_some() {
            return Err(SqlError::new(1913, &[&ix.name.value, &"table", &tname]));
        }
        let clustered = ix.clustered.unwrap_or(false);
        if clustered {
            if let Some(c) = table.indexes.iter().find(|i| i.clustered) {
                return Err(SqlError::new(1902, &[&"table", &tname, &c.name]));
            }
        }
        let key = Self::index_columns(table, &ix.columns, tname)?;
        let mut included = Vec::new();
        for c in &ix.include {
            match table.column_index(&c.value) {
                Some(i) => included.push(i),
                None => return Err(SqlError::invalid_column(&c.value)),
            }
        }
        crate::noops::check_index_options(&ix.with_options, "CREATE INDEX")?;
        let ignore_dup_key = ignore_dup_key_on(&ix.with_options);
        if ignore_dup_key && !ix.unique {
            return Err(SqlError::new(1916, &[&"nonunique", &"ignore_dup_key"]));
        }
        let optimize_for_sequential_key =
            option_on(&ix.with_options, "OPTIMIZE_FOR_SEQUENTIAL_KEY");
        let index_id = Self::next_index_id(table, clustered);
        table.indexes.push(IndexDef {
            index_id,
            name: ix.name.value.clone(),
            unique: ix.unique,
            primary_key: false,
            unique_constraint: false,
            clustered,
            kind: IndexKind::RowStore,
            key_columns: key,
            included,
            filter: ix.filter.as_ref().map(expr_text),
            storage_id: 0,
            ignore_dup_key,
            fill_factor: 0,
            optimize_for_sequential_key,
        });
        Ok(table.indexes.len() - 1)
    }

    /// CREATE INDEX on an existing table: builds the index from the rows already there.
    fn create_index(
        &mut self,
        tname: &ast::ObjectName,
        ix: &ast::IndexDefinition,
    ) -> SqlResult<()> {
        let q = qualified(tname);
        let Some((h, obj)) = self.find_object(&q)? else {
            return Err(SqlError::new(1088, &[&q.display()]));
        };
        let SchemaObject::Table(t) = obj else {
            return Err(SqlError::new(1088, &[&q.display()]));
        };
        let mut table = (*t).clone();
        let pos = self.add_index_def(&mut table, ix, &q.name)?;
        crate::statistics::place_new_index(&h.cat.read(), &mut table, pos)?;
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let table = if table.indexes[pos].clustered {
            // A heap becomes a clustered B-tree: every row moves and every nonclustered index
            // is rebuilt (its locators change from RIDs to clustered keys).
            table.storage = TableStorage::Clustered { index: pos };
            let map: Vec<Option<usize>> = (0..table.columns.len()).map(Some).collect();
            let old = t.clone();
            Arc::new(self.rebuild_table(&h, &old, table, &map, &[])?)
        } else {
            {
                // without ON, an index goes where its table is
                let space = self
                    .ddl_data_space
                    .or_else(|| crate::filegroups::table_data_space(&h, &table));
                let txn = self.txn_for(&db)?;
                table.indexes[pos].storage_id = h.store.create_btree_on(txn, space)?.0;
            }
            let table = Arc::new(table);
            self.fill_index(&h, &table, pos)?;
            table
        };
        let txn = self.txn_for(&db)?;
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Table(table.clone()))?;
        self.touch_catalog(&db)?;
        // the index's statistics, a by-product of its build in SQL Server
        self.build_index_statistics(&h, &table, &ix.name.value)
    }

    fn drop_index(&mut self, if_exists: bool, t: &ast::DropIndexTarget) -> SqlResult<()> {
        let q = qualified(&t.table);
        let found = self.find_object(&q)?;
        let (h, table) = match found {
            Some((h, SchemaObject::Table(tb))) => (h, tb),
            _ => {
                if if_exists {
                    return Ok(());
                }
                return Err(SqlError::custom(
                    3701,
                    11,
                    7,
                    format!("Cannot drop the index '{}.{}', because it does not exist or you do not have permission.", q.name, t.index.value),
                ));
            }
        };
        let Some(pos) = table
            .indexes
            .iter()
            .position(|i| name_eq(&i.name, &t.index.value))
        else {
            if if_exists {
                return Ok(());
            }
            return Err(SqlError::custom(
                3701,
                11,
                7,
                format!("Cannot drop the index '{}.{}', because it does not exist or you do not have permission.", q.name, t.index.value),
            ));
        };
        let ix = &table.indexes[pos];
        if ix.primary_key || ix.unique_constraint {
            return Err(SqlError::custom(
                3723,
                16,
                4,
                format!("An explicit DROP INDEX is not allowed on index '{}.{}'. It is being used for {} constraint enforcement.", q.name, ix.name, if ix.primary_key { "PRIMARY KEY" } else { "UNIQUE KEY" }),
            ));
        }
        if ix.clustered {
            return Err(SqlError::unsupported("DROP of a clustered index"));
        }
        let mut nt = (*table).clone();
        let removed = nt.indexes.remove(pos);
        if let TableStorage::Clustered { index } = nt.storage {
            if index > pos {
                nt.storage = TableStorage::Clustered { index: index - 1 };
            }
        }
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.store
            .drop_object(txn, storage::ObjId(removed.storage_id))?;
        let nt = Arc::new(nt);
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Table(nt.clone()))?;
        self.touch_catalog(&db)?;
        self.drop_index_statistics(&h, &nt, removed.index_id)
    }

    fn drop_object(
        &mut self,
        kind: ast::ObjectType,
        if_exists: bool,
        n: &ast::ObjectName,
    ) -> SqlResult<()> {
        let q = qualified(n);
        let what = match kind {
            ast::ObjectType::Table => "table",
            ast::ObjectType::View => "view",
            ast::ObjectType::Procedure => "procedure",
            ast::ObjectType::Function => "function",
            ast::ObjectType::Trigger => "trigger",
            ast::ObjectType::Sequence => "sequence",
            ast::ObjectType::Schema => "schema",
            ast::ObjectType::Database => "database",
            ast::ObjectType::Type => "type",
            _ => "object",
        };
        match kind {
            ast::ObjectType::Type => return self.drop_type(if_exists, n),
            ast::ObjectType::Statistics => {
                return self.drop_statistics(if_exists, std::slice::from_ref(n))
            }
            ast::ObjectType::Database => {
                // Removing the files cannot be undone by a rollback (SQL Server: autocommit only).
                if self.trancount > 0 {
                    return Err(SqlError::new(574, &[&"DROP DATABASE"]));
                }
                if self.engine.database(&q.name).is_none()
                    && self.engine.unavailable(&q.name).is_none()
                    && if_exists
                {
                    return Ok(());
                }
                if catalog::name_eq(&self.database, &q.name) {
                    return Err(SqlError::custom(
                        3702,
                        16,
                        4,
                        format!(
                            "Cannot drop database \"{}\" because it is currently in use.",
                            q.name
                        ),
                    ));
                }
                return self.engine.drop_database(&q.name);
            }
            ast::ObjectType::Schema => {
                let h = self.current_db()?;
                let Some(s) = h.cat.read().schema(&q.name).cloned() else {
                    if if_exists {
                        return Ok(());
                    }
                    return Err(SqlError::new(3701, &[&what, &q.name]));
                };
                if h.cat
                    .read()
                    .objects
                    .values()
                    .any(|o| name_eq(o.schema(), &s.name))
                {
                    return Err(SqlError::custom(
                        3729,
                        16,
                        1,
                        format!(
                            "Cannot drop schema '{}' because it is being referenced by object.",
                            s.name
                        ),
                    ));
                }
                let db = h.def.name.clone();
                let tree = h.store.catalog_btree()?;
                let txn = self.txn_for(&db)?;
                h.cat.write().remove_schema(&tree, txn, s.schema_id)?;
                self.touch_catalog(&db)?;
                return Ok(());
            }
            _ => {}
        }
        let found = self.find_object(&q)?;
        let matches = |o: &SchemaObject| match (kind, o) {
            (ast::ObjectType::Table, SchemaObject::Table(_)) => true,
            (ast::ObjectType::View, SchemaObject::View(_)) => true,
            (ast::ObjectType::Sequence, SchemaObject::Sequence(_)) => true,
            (ast::ObjectType::Procedure, SchemaObject::Module(m)) => {
                m.kind == ModuleKind::Procedure
            }
            (ast::ObjectType::Trigger, SchemaObject::Module(m)) => m.kind == ModuleKind::Trigger,
            (ast::ObjectType::Function, SchemaObject::Module(m)) => matches!(
                m.kind,
                ModuleKind::ScalarFunction
                    | ModuleKind::InlineTableFunction
                    | ModuleKind::TableFunction
            ),
            _ => false,
        };
        let Some((h, obj)) = found.filter(|(_, o)| matches(o)) else {
            if if_exists {
                return Ok(());
            }
            return Err(SqlError::new(3701, &[&what, &q.display()]));
        };
        let db = h.def.name.clone();
        if let SchemaObject::Table(t) = &obj {
            // Referenced by a foreign key of another table?
            let referencing = h.cat.read().tables().find_map(|o| {
                o.foreign_keys
                    .iter()
                    .find(|f| f.ref_object_id == t.object_id && o.object_id != t.object_id)
                    .map(|f| (f.name.clone(), o.name.clone()))
            });
            if let Some((fk, other)) = referencing {
                let _ = other;
                return Err(SqlError::custom(
                    3726,
                    16,
                    1,
                    format!("Could not drop object '{}' because it is referenced by a FOREIGN KEY constraint '{fk}'.", q.display()),
                ));
            }
            self.lock_schema(&h, t.object_id)?;
            self.drop_table_by_id(&db, t.object_id)?;
            // Triggers on the table go with it.
            let trig: Vec<ObjectId> = h
                .cat
                .read()
                .objects
                .values()
                .filter_map(|o| match o {
                    SchemaObject::Module(m)
                        if m.trigger
                            .as_ref()
                            .is_some_and(|tr| tr.table_object_id == t.object_id) =>
                    {
                        Some(m.object_id)
                    }
                    _ => None,
                })
                .collect();
            let tree = h.store.catalog_btree()?;
            for id in trig {
                let txn = self.txn_for(&db)?;
                h.cat.write().remove(&tree, txn, id)?;
            }
            return Ok(());
        }
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat.write().remove(&tree, txn, obj.object_id())?;
        if let SchemaObject::View(v) = &obj {
            // INSTEAD OF triggers on the view go with it.
            let trig: Vec<ObjectId> = h
                .cat
                .read()
                .objects
                .values()
                .filter_map(|o| match o {
                    SchemaObject::Module(m)
                        if m.trigger
                            .as_ref()
                            .is_some_and(|tr| tr.table_object_id == v.object_id) =>
                    {
                        Some(m.object_id)
                    }
                    _ => None,
                })
                .collect();
            for id in trig {
                let txn = self.txn_for(&db)?;
                h.cat.write().remove(&tree, txn, id)?;
            }
        }
        self.touch_catalog(&db)?;
        Ok(())
    }

    fn create_view(&mut self, cv: &ast::CreateView) -> SqlResult<()> {
        let q = qualified(&cv.name);
        let (h, schema) = self.target_of(&q)?;
        // Views are bound at creation (no deferred name resolution): errors leave no view.
        // Its errors name the view, like errors inside a module body.
        plan::check_view_definition(cv, &*self).map_err(|e| {
            if e.procedure.is_empty() {
                e.in_procedure(q.name.clone())
            } else {
                e
            }
        })?;
        let existing = h.cat.read().lookup(&schema, &q.name).cloned();
        let object_id = match (cv.mode, existing) {
            (ast::CreateMode::Create, Some(_)) => return Err(SqlError::new(2714, &[&q.name])),
            (ast::CreateMode::Alter, None) => return Err(SqlError::invalid_object(&q.name)),
            (_, Some(SchemaObject::View(v))) => Some(v.object_id),
            (_, Some(_)) => return Err(SqlError::new(2714, &[&q.name])),
            (_, None) => None,
        };
        let db = h.def.name.clone();
        let uses_ansi_nulls = self.options.ansi_nulls;
        let tree = h.store.catalog_btree()?;
        let uses_quoted_identifier = self.options.quoted_identifier;
        let txn = self.txn_for(&db)?;
        let object_id = match object_id {
            Some(id) => id,
            None => h.cat.write().new_object_id(&tree, txn)?,
        };
        let v = ViewDef {
            object_id,
            database: db.clone(),
            schema,
            name: q.name.clone(),
            text: cv.text.clone(),
            columns: cv.columns.iter().map(|c| c.value.clone()).collect(),
            schemabinding: cv.options.iter().any(|o| o == "SCHEMABINDING"),
            uses_quoted_identifier,
            create_date: now_text(),
            uses_ansi_nulls,
        };
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::View(Arc::new(v)))?;
        self.touch_catalog(&db)?;
        Ok(())
    }

    fn create_module(
        &mut self,
        mode: ast::CreateMode,
        name: &ast::ObjectName,
        kind: ModuleKind,
        text: &str,
        params: &[ast::ProcParam],
        returns: Option<DataType>,
    ) -> SqlResult<()> {
        let q = qualified(name);
        let (h, schema) = self.target_of(&q)?;
        // `#proc`: private to the session, stored under a unique name like a #temp table.
        let local_temp = q.is_temp() && !q.name.starts_with("##");
        let existing = if local_temp {
            self.find_object(&q)?.map(|(_, o)| o)
        } else {
            h.cat.read().lookup(&schema, &q.name).cloned()
        };
        let stored_name = match (&existing, local_temp) {
            (Some(SchemaObject::Module(m)), true) => m.name.clone(),
            (_, true) => self.temp_storage_name(&q.name),
            _ => q.name.clone(),
        };
        let object_id = match (mode, existing) {
            (ast::CreateMode::Create, Some(_)) => return Err(SqlError::new(2714, &[&q.name])),
            (ast::CreateMode::Alter, None) => {
                return Err(SqlError::custom(
                    208,
                    16,
                    6,
                    format!("Invalid object name '{}'.", q.name),
                ))
            }
            (_, Some(SchemaObject::Module(m))) => Some(m.object_id),
            (_, Some(_)) => return Err(SqlError::new(2714, &[&q.name])),
            (_, None) => None,
        };
        let mut parameters = Vec::new();
        for p in params {
            parameters.push(ParameterDef {
                name: p.name.clone(),
                data_type: self.resolve_type_name(&p.data_type)?,
                default: p.default.as_ref().map(expr_text),
                output: p.output,
                readonly: p.readonly,
                table_type: None,
            });
        }
        let db = h.def.name.clone();
        let uses_ansi_nulls = self.options.ansi_nulls;
        let tree = h.store.catalog_btree()?;
        let uses_quoted_identifier = self.options.quoted_identifier;
        let txn = self.txn_for(&db)?;
        let object_id = match object_id {
            Some(id) => id,
            None => h.cat.write().new_object_id(&tree, txn)?,
        };
        let m = ModuleDef {
            object_id,
            database: db.clone(),
            schema,
            name: stored_name,
            kind,
            text: text.to_string(),
            parameters,
            returns,
            returns_table: vec![],
            trigger: None,
            uses_quoted_identifier,
            create_date: now_text(),
            uses_ansi_nulls,
        };
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Module(Arc::new(m)))?;
        self.touch_catalog(&db)?;
        if local_temp {
            self.temp_tables.insert(q.name.to_lowercase(), object_id);
        }
        Ok(())
    }

    fn create_trigger(&mut self, ct: &ast::CreateTrigger) -> SqlResult<()> {
        let tq = qualified(&ct.table);
        if tq.is_temp() {
            return Err(SqlError::custom(
                2115,
                16,
                1,
                "Cannot create trigger on a temporary object.",
            ));
        }
        let instead_of = ct.timing == ast::TriggerTiming::InsteadOf;
        // AFTER triggers only on tables; INSTEAD OF on tables and views (8197 otherwise).
        let (parent_id, parent_schema, parent_name) = match self.find_object(&tq)? {
            Some((_, SchemaObject::Table(t))) => (t.object_id, t.schema.clone(), t.name.clone()),
            Some((_, SchemaObject::View(v))) if instead_of => {
                (v.object_id, v.schema.clone(), v.name.clone())
            }
            _ => return Err(SqlError::new(8197, &[&tq.display()])),
        };
        // The trigger lives in its table's schema (2108 when named in another one).
        let mut name = ct.name.clone();
        if name.parts.len() == 1 {
            name.parts.insert(0, ast::Ident::new(parent_schema.clone()));
        } else if !name_eq(&qualified(&name).schema.unwrap_or_default(), &parent_schema) {
            return Err(SqlError::custom(
                2108,
                15,
                1,
                format!(
                    "Cannot create trigger '{}' because its schema is different from the schema of the target table or view.",
                    qualified(&ct.name).display()
                ),
            ));
        }
        let q = qualified(&name);
        if instead_of {
            let is_view = !matches!(self.find_object(&tq)?, Some((_, SchemaObject::Table(_))));
            self.check_instead_of_unique(parent_id, &parent_name, is_view, &q, &ct.events)?;
        }
        self.create_module(ct.mode, &name, ModuleKind::Trigger, &ct.text, &[], None)?;
        let (h, schema) = self.target_of(&q)?;
        let Some(SchemaObject::Module(m)) = h.cat.read().lookup(&schema, &q.name).cloned() else {
            return Err(SqlError::internal("trigger vanished"));
        };
        let mut m = (*m).clone();
        m.trigger = Some(TriggerDef {
            table_object_id: parent_id,
            table_schema: parent_schema,
            table_name: parent_name,
            on_insert: ct.events.contains(&ast::TriggerEvent::Insert),
            on_update: ct.events.contains(&ast::TriggerEvent::Update),
            on_delete: ct.events.contains(&ast::TriggerEvent::Delete),
            instead_of,
            disabled: false,
        });
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Module(Arc::new(m)))?;
        self.touch_catalog(&db)?;
        Ok(())
    }

    fn create_sequence(&mut self, cs: &ast::CreateSequence) -> SqlResult<()> {
        let q = qualified(&cs.name);
        let (h, schema) = self.target_of(&q)?;
        h.cat.read().check_free(&schema, &q.name)?;
        let data_type = match &cs.data_type {
            Some(t) => self.resolve_type_name(t)?,
            None => DataType::BigInt,
        };
        let (tmin, tmax): (i128, i128) = match data_type {
            DataType::TinyInt => (0, 255),
            DataType::SmallInt => (i16::MIN as i128, i16::MAX as i128),
            DataType::Int => (i32::MIN as i128, i32::MAX as i128),
            _ => (i64::MIN as i128, i64::MAX as i128),
        };
        let mut start = None;
        let mut increment = 1i128;
        let mut min = tmin;
        let mut max = tmax;
        let mut cycle = false;
        let mut cache = None;
        for o in &cs.options {
            let num = |me: &mut Session, e: &ast::Expr| -> SqlResult<i128> {
                Ok(crate::interp::value_to_i64(&me.eval(e)?)? as i128)
            };
            match o {
                ast::SequenceOption::StartWith(e) => start = Some(num(self, e)?),
                ast::SequenceOption::IncrementBy(e) => increment = num(self, e)?,
                ast::SequenceOption::MinValue(Some(e)) => min = num(self, e)?,
                ast::SequenceOption::MaxValue(Some(e)) => max = num(self, e)?,
                ast::SequenceOption::Cycle(c) => cycle = *c,
                ast::SequenceOption::Cache(Some(Some(e))) => cache = Some(num(self, e)? as i64),
                // NO CACHE: every value is persisted (sequence.rs treats 0 as a block of 1).
                ast::SequenceOption::Cache(None) => cache = Some(0),
                _ => {}
            }
        }
        let start = start.unwrap_or(if increment > 0 { min } else { max });
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        let object_id = h.cat.write().new_object_id(&tree, txn)?;
        let s = SequenceDef {
            object_id,
            database: db.clone(),
            schema,
            name: q.name.clone(),
            data_type,
            start,
            increment,
            min,
            max,
            cycle,
            cache,
            current: None,
            create_date: now_text(),
        };
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Sequence(Arc::new(s)))?;
        self.touch_catalog(&db)?;
        Ok(())
    }

    /// ALTER SEQUENCE: new options; RESTART [WITH n] forgets the values handed out.
    fn alter_sequence(
        &mut self,
        name: &ast::ObjectName,
        options: &[ast::SequenceOption],
    ) -> SqlResult<()> {
        let q = qualified(name);
        let Some((h, SchemaObject::Sequence(cur))) = self.find_object(&q)? else {
            return Err(SqlError::invalid_object(&q.display()));
        };
        let mut s = (*cur).clone();
        s.current = crate::sequence::current_value(&h, &cur);
        for o in options {
            let num = |me: &mut Session, e: &ast::Expr| -> SqlResult<i128> {
                Ok(crate::interp::value_to_i64(&me.eval(e)?)? as i128)
            };
            match o {
                ast::SequenceOption::Restart(Some(e)) => {
                    s.start = num(self, e)?;
                    s.current = None;
                }
                ast::SequenceOption::Restart(None) => s.current = None,
                ast::SequenceOption::StartWith(e) => s.start = num(self, e)?,
                ast::SequenceOption::IncrementBy(e) => s.increment = num(self, e)?,
                ast::SequenceOption::MinValue(Some(e)) => s.min = num(self, e)?,
                ast::SequenceOption::MaxValue(Some(e)) => s.max = num(self, e)?,
                ast::SequenceOption::Cycle(c) => s.cycle = *c,
                ast::SequenceOption::Cache(Some(Some(e))) => s.cache = Some(num(self, e)? as i64),
                ast::SequenceOption::Cache(Some(None)) => s.cache = None,
                ast::SequenceOption::Cache(None) => s.cache = Some(0),
                _ => {}
            }
        }
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Sequence(Arc::new(s)))?;
        self.touch_catalog(&db)?;
        h.sequences.lock().remove(&cur.object_id);
        Ok(())
    }

    fn alter_table(&mut self, at: &ast::AlterTable) -> SqlResult<()> {
        let q = qualified(&at.name);
        let Some((h, SchemaObject::Table(t))) = self.find_object(&q)? else {
            return Err(SqlError::invalid_object(&q.display()));
        };
        self.lock_schema(&h, t.object_id)?;
        let mut table = (*t).clone();
        // statistics follow the table's column ordinals (statistics/ddl.rs)
        let mut dropped_columns: Vec<usize> = Vec::new();
        let mut retyped_columns: Vec<usize> = Vec::new();
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        match &at.action {
            ast::AlterTableAction::Add(elements) => {
                let (checks_before, fks_before) = (table.checks.len(), table.foreign_keys.len());
                let mut salt = 100 + table.checks.len() as u32 + table.foreign_keys.len() as u32;
                for el in elements {
                    salt += 1;
                    match el {
                        ast::TableElement::Column(c) => {
                            if table.column_index(&c.name.value).is_some() {
                                return Err(SqlError::new(2705, &[&c.name.value, &q.name]));
                            }
                            // 1,024 columns / 8,060-byte minimum row (Msg 1702 / 1701)
                            let mut shape = table.columns.clone();
                            shape.push(self.typed_column_def(&table, c, &q.name)?);
                            crate::limits::check_table_shape(&q.name, &shape)?;
                            if self.table_has_rows(&h, &table)? {
                                let col = self.typed_column_def(&table, c, &q.name)?;
                                if !col.nullable && col.default.is_none() && col.identity.is_none()
                                {
                                    return Err(SqlError::custom(
                                        4901,
                                        16,
                                        1,
                                        format!("ALTER TABLE only allows columns to be added that can contain nulls, or have a DEFAULT definition specified, or the column being added is an identity or timestamp column, or alternatively if none of the previous conditions are satisfied the table must be empty to allow addition of this column. Column '{}' cannot be added to non-empty table '{}' because it does not satisfy these conditions.", c.name.value, q.name),
                                    ));
                                }
                                if col.identity.is_some() {
                                    table = self.add_identity_column_with_rows(&h, &table, col)?;
                                } else {
                                    // Existing rows get NULL in a nullable new column (no WITH
                                    // VALUES), the default in a NOT NULL one.
                                    let mut fill = Vec::new();
                                    if !col.nullable {
                                        if let Some(d) = &col.default {
                                            let e = parser::parse_expression(d)?;
                                            let v = self.eval(&e)?;
                                            let v = exec::valops::cast(&v, &col.data_type)?;
                                            fill.push((table.columns.len(), v));
                                        }
                                    }
                                    let before = Arc::new(table.clone());
                                    let mut after = table.clone();
                                    let computed = match &col.computed {
                                        Some(text) => vec![(
                                            after.columns.len(),
                                            plan::bind_table_expression(&before, text, &*self)?,
                                        )],
                                        None => Vec::new(),
                                    };
                                    after.columns.push(col);
                                    let map: Vec<Option<usize>> = (0..before.columns.len())
                                        .map(Some)
                                        .chain(std::iter::once(None))
                                        .collect();
                                    table = self.rebuild_table_computing(
                                        &h, &before, after, &map, &fill, &computed,
                                    )?;
                                }
                            } else {
                                let col = self.typed_column_def(&table, c, &q.name)?;
                                table.columns.push(col);
                            }
                            let i = table.columns.len() - 1;
                            if table.columns[i].default.is_some()
                                && table.columns[i].default_name.is_none()
                            {
                                table.columns[i].default_name = Some(format!(
                                    "DF__{}__{}__{}",
                                    truncated(&q.name, 9),
                                    truncated(&table.columns[i].name, 5),
                                    &hex_suffix(table.object_id, salt)[..8]
                                ));
                            }
                            for cc in &c.constraints {
                                let kind = match &cc.kind {
                                    ast::ColumnConstraintKind::Check(e) => {
                                        ast::TableConstraintKind::Check(e.clone())
                                    }
                                    ast::ColumnConstraintKind::References(r) => {
                                        ast::TableConstraintKind::ForeignKey {
                                            columns: vec![c.name.clone()],
                                            references: r.clone(),
                                        }
                                    }
                                    ast::ColumnConstraintKind::PrimaryKey {
                                        clustered,
                                        with_options,
                                        on,
                                    }
                                    | ast::ColumnConstraintKind::Unique {
                                        clustered,
                                        with_options,
                                        on,
                                    } => {
                                        // a column-level key is the one-column table constraint
                                        let (clustered, with_options, on) =
                                            (*clustered, with_options.clone(), on.clone());
                                        let columns = vec![ast::IndexColumn {
                                            name: c.name.clone(),
                                            desc: false,
                                        }];
                                        let kind = if matches!(
                                            cc.kind,
                                            ast::ColumnConstraintKind::PrimaryKey { .. }
                                        ) {
                                            ast::TableConstraintKind::PrimaryKey {
                                                clustered,
                                                columns,
                                                with_options,
                                                on,
                                            }
                                        } else {
                                            ast::TableConstraintKind::Unique {
                                                clustered,
                                                columns,
                                                with_options,
                                                on,
                                            }
                                        };
                                        let tc = ast::TableConstraint {
                                            name: cc.name.clone(),
                                            kind,
                                        };
                                        self.add_key_constraint(
                                            &h, &mut table, &tc, &q.name, salt,
                                        )?;
                                        continue;
                                    }
                                };
                                let is_check = matches!(kind, ast::TableConstraintKind::Check(_));
                                let checks_before = table.checks.len();
                                self.add_constraint(
                                    &h,
                                    &mut table,
                                    &ast::TableConstraint {
                                        name: cc.name.clone(),
                                        kind,
                                    },
                                    &q.name,
                                    salt,
                                )?;
                                if is_check {
                                    // a column-level CHECK names its column (547)
                                    let col = table.column_index(&c.name.value);
                                    for ck in table.checks.iter_mut().skip(checks_before) {
                                        ck.column = col;
                                    }
                                }
                            }
                        }
                        ast::TableElement::Constraint(c) => {
                            if matches!(
                                c.kind,
                                ast::TableConstraintKind::PrimaryKey { .. }
                                    | ast::TableConstraintKind::Unique { .. }
                            ) {
                                self.add_key_constraint(&h, &mut table, c, &q.name, salt)?;
                            } else {
                                self.add_constraint(&h, &mut table, c, &q.name, salt)?;
                            }
                        }
                        ast::TableElement::Index(ix) => {
                            let pos = self.add_index_def(&mut table, ix, &q.name)?;
                            let space = self
                                .ddl_data_space
                                .or_else(|| crate::filegroups::table_data_space(&h, &table));
                            let txn = self.txn_for(&db)?;
                            table.indexes[pos].storage_id = h.store.create_btree_on(txn, space)?.0;
                            let snapshot = Arc::new(table.clone());
                            self.fill_index(&h, &snapshot, pos)?;
                        }
                    }
                }
                self.settle_added_constraints(
                    &mut table,
                    checks_before,
                    fks_before,
                    at.with_check,
                )?;
            }
            ast::AlterTableAction::DropConstraints { if_exists, names } => {
                for n in names {
                    let name = &n.value;
                    if let Some(pos) = table.indexes.iter().position(|i| {
                        (i.primary_key || i.unique_constraint) && name_eq(&i.name, name)
                    }) {
                        if table.indexes[pos].clustered {
                            return Err(SqlError::unsupported("dropping a clustered constraint"));
                        }
                        let ix = table.indexes.remove(pos);
                        if let TableStorage::Clustered { index } = table.storage {
                            if index > pos {
                                table.storage = TableStorage::Clustered { index: index - 1 };
                            }
                        }
                        let txn = self.txn_for(&db)?;
                        h.store.drop_object(txn, storage::ObjId(ix.storage_id))?;
                    } else if let Some(pos) =
                        table.checks.iter().position(|c| name_eq(&c.name, name))
                    {
                        table.checks.remove(pos);
                    } else if let Some(pos) = table
                        .foreign_keys
                        .iter()
                        .position(|c| name_eq(&c.name, name))
                    {
                        table.foreign_keys.remove(pos);
                    } else if let Some(c) = table
                        .columns
                        .iter_mut()
                        .find(|c| c.default_name.as_deref().is_some_and(|d| name_eq(d, name)))
                    {
                        c.default = None;
                        c.default_name = None;
                    } else if !*if_exists {
                        return Err(SqlError::custom(
                            3728,
                            16,
                            1,
                            format!("'{name}' is not a constraint."),
                        ));
                    }
                }
            }
            ast::AlterTableAction::DropColumns { if_exists, names } => {
                for n in names {
                    let Some(i) = table.column_index(&n.value) else {
                        if *if_exists {
                            continue;
                        }
                        return Err(SqlError::custom(
                            4924,
                            16,
                            1,
                            format!("ALTER TABLE DROP COLUMN failed because column '{}' does not exist in table '{}'.", n.value, q.name),
                        ));
                    };
                    let has_rows = self.table_has_rows(&h, &table)?;
                    if table.indexes.iter().any(|ix| {
                        ix.key_columns.iter().any(|(c, _)| *c == i) || ix.included.contains(&i)
                    }) {
                        let ix = table
                            .indexes
                            .iter()
                            .find(|ix| {
                                ix.key_columns.iter().any(|(c, _)| *c == i)
                                    || ix.included.contains(&i)
                            })
                            .map(|ix| ix.name.clone())
                            .unwrap_or_default();
                        return Err(SqlError::custom(
                            5074,
                            16,
                            1,
                            format!("The object '{ix}' is dependent on column '{}'.", n.value),
                        ));
                    }
                    if let Some(d) = &table.columns[i].default_name {
                        if table.columns[i].default.is_some() {
                            return Err(SqlError::custom(
                                5074,
                                16,
                                1,
                                format!("The object '{d}' is dependent on column '{}'.", n.value),
                            ));
                        }
                    }
                    self.check_drop_column_statistics(&h, &table, i)?;
                    dropped_columns.push(i);
                    let old_columns = table.columns.clone();
                    table.columns.remove(i);
                    let fix = |c: &mut usize| {
                        if *c > i {
                            *c -= 1;
                        }
                    };
                    for ix in table.indexes.iter_mut() {
                        for (c, _) in ix.key_columns.iter_mut() {
                            fix(c);
                        }
                        for c in ix.included.iter_mut() {
                            fix(c);
                        }
                    }
                    for fk in table.foreign_keys.iter_mut() {
                        for c in fk.columns.iter_mut() {
                            fix(c);
                        }
                    }
                    if has_rows {
                        // The row format changes: rewrite the rows without the column.
                        let mut before = table.clone();
                        before.columns = old_columns;
                        let map: Vec<Option<usize>> = (0..before.columns.len())
                            .filter(|&j| j != i)
                            .map(Some)
                            .collect();
                        let before = Arc::new(before);
                        table = self.rebuild_table(&h, &before, table, &map, &[])?;
                    }
                }
            }
            ast::AlterTableAction::AlterColumn {
                name,
                data_type,
                nullable,
                ..
            } => {
                let Some(i) = table.column_index(&name.value) else {
                    return Err(SqlError::invalid_column(&name.value));
                };
                let t = self.resolve_type_name(data_type)?;
                // without NULL / NOT NULL the column becomes nullable (ANSI_NULL_DFLT_ON), but a
                // primary key column stays NOT NULL
                let in_pk = table
                    .indexes
                    .iter()
                    .any(|ix| ix.primary_key && ix.key_columns.iter().any(|(c, _)| *c == i));
                let to_nullable = nullable.unwrap_or(!in_pk);
                if t != table.columns[i].data_type {
                    self.check_drop_column_statistics(&h, &table, i)?;
                    retyped_columns.push(i);
                }
                if (t != table.columns[i].data_type || (!to_nullable && table.columns[i].nullable))
                    && self.table_has_rows(&h, &table)?
                {
                    table = self.alter_column_with_rows(&h, &table, i, t, to_nullable)?;
                } else {
                    table.columns[i].data_type = t;
                    table.columns[i].nullable = to_nullable;
                }
            }
            ast::AlterTableAction::CheckConstraints { enable, names } => {
                self.switch_constraints(&mut table, *enable, names, at.with_check)?;
            }
            ast::AlterTableAction::Set(options) => {
                return crate::noops::check_alter_table_set(options);
            }
            ast::AlterTableAction::Rebuild(options) => {
                crate::noops::check_index_options(options, "ALTER TABLE")?;
                return self.rebuild_in_place(&h, &t);
            }
        }
        let txn = self.txn_for(&db)?;
        let table = Arc::new(table);
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Table(table.clone()))?;
        self.touch_catalog(&db)?;
        for i in dropped_columns {
            self.column_dropped_statistics(&h, &table, i)?;
        }
        for i in retyped_columns {
            self.column_retyped_statistics(&h, &table, i)?;
        }
        Ok(())
    }

    /// Fills a new index from the table's existing rows.
    ///
    /// Building an index over existing rows needs exec's row format (`exec::table_io`, not yet
    /// published); until then only empty tables can get a new index, and a non-empty table gets
    /// a clear error instead of an index that silently misses rows.
    /// Fills the freshly created nonclustered index `table.indexes[pos]` from the table's rows
    /// (1505 on duplicate keys of a unique index).
    pub(crate) fn fill_index(
        &mut self,
        h: &DbHandle,
        table: &Arc<TableDef>,
        pos: usize,
    ) -> SqlResult<()> {
        if !self.table_has_rows(h, table)? {
            return Ok(());
        }
        let db = h.def.name.clone();
        let cancel = self.cancel.clone();
        let progress = self.progress.clone();
        // the total for the shell's bar: a slot count, which reads no records
        let rows = exec::table_io::TableStore::open(h.store.clone(), table.clone())
            .and_then(|s| s.count_slots())
            .unwrap_or(0);
        let _progress = progress.start(rows);
        let watch = exec::table_io::RowLoopWatch {
            cancel: Some(&cancel),
            progress: Some(&progress),
        };
        let txn = self.txn_for(&db)?;
        exec::table_io::build_index_watched(&h.store, txn, table, pos, watch)
    }

    /// Moves a table's rows into new storage organised as `new` describes (a clustered index
    /// created on a heap, columns added / dropped / retyped): creates fresh storage for `new`,
    /// copies the rows (`map`: per column of `new`, its source column in `old`; None = NULL;
    /// `fill`: columns of `new` set to a constant instead, e.g. an added column's default) and
    /// drops the old storage. Returns `new` with its storage ids filled in.
    pub(crate) fn rebuild_table(
        &mut self,
        h: &DbHandle,
        old: &Arc<TableDef>,
        new: TableDef,
        map: &[Option<usize>],
        fill: &[(usize, Value)],
    ) -> SqlResult<TableDef> {
        self.rebuild_table_computing(h, old, new, map, fill, &[])
    }

    /// [`Self::rebuild_table`], also evaluating `computed` (column, expression bound over the
    /// new table) for every row: a computed column added to a table that has rows.
    pub(crate) fn rebuild_table_computing(
        &mut self,
        h: &DbHandle,
        old: &Arc<TableDef>,
        mut new: TableDef,
        map: &[Option<usize>],
        fill: &[(usize, Value)],
        computed: &[(usize, plan::ScalarExpr)],
    ) -> SqlResult<TableDef> {
        let db = h.def.name.clone();
        // Rows are read (and computed columns evaluated, which needs the session) before the
        // transaction is borrowed for the writes.
        let rows = if fill.is_empty() && computed.is_empty() {
            None
        } else {
            let src = exec::table_io::TableStore::open(h.store.clone(), old.clone())?;
            let mut rows: Vec<Vec<Value>> = Vec::new();
            let cancel = self.cancel.clone();
            src.for_each_row(&mut |row, _| {
                cancel.check()?;
                let mut r: Vec<Value> = map
                    .iter()
                    .map(|m| m.and_then(|i| row.get(i).cloned()).unwrap_or(Value::Null))
                    .collect();
                for (i, v) in fill {
                    if let Some(slot) = r.get_mut(*i) {
                        *slot = v.clone();
                    }
                }
                rows.push(r);
                Ok(())
            })?;
            for r in rows.iter_mut() {
                self.cancel.check()?;
                for (i, e) in computed {
                    let Some(col) = new.columns.get(*i) else {
                        continue;
                    };
                    let v = exec::eval_over_row(e, r, self)?;
                    let v = exec::valops::cast(&v, &col.data_type)?;
                    if let Some(slot) = r.get_mut(*i) {
                        *slot = v;
                    }
                }
            }
            Some(rows)
        };
        let cancel = self.cancel.clone();
        let progress = self.progress.clone();
        let watch = exec::table_io::RowLoopWatch {
            cancel: Some(&cancel),
            progress: Some(&progress),
        };
        // a rebuilt table stays in its filegroup unless the statement names one
        let space = self
            .ddl_data_space
            .or_else(|| crate::filegroups::table_data_space(h, old));
        let txn = self.txn_for(&db)?;
        exec::table_io::create_table_storage_on(&h.store, txn, &mut new, space)?;
        let new = Arc::new(new);
        match rows {
            None => {
                exec::table_io::copy_rows_watched(&h.store, txn, old, &new, map, watch)?;
            }
            Some(rows) => {
                let mut dst = exec::table_io::TableStore::open(h.store.clone(), new.clone())?;
                for r in rows {
                    cancel.check()?;
                    dst.insert_row(txn, &r)?;
                }
            }
        }
        exec::table_io::drop_table_storage(&h.store, txn, old)?;
        Ok((*new).clone())
    }

    pub(crate) fn table_has_rows(&mut self, h: &DbHandle, t: &TableDef) -> SqlResult<bool> {
        let mut batch = storage::RowBatch::new();
        match t.storage {
            TableStorage::Heap(id) => {
                let mut scan = h.store.heap(storage::ObjId(id))?.scan()?;
                loop {
                    batch.clear();
                    let more = scan.next_batch(&mut batch)?;
                    if !batch.is_empty() {
                        return Ok(true);
                    }
                    if !more {
                        return Ok(false);
                    }
                }
            }
            TableStorage::Clustered { index } => {
                let Some(ix) = t.indexes.get(index) else {
                    return Ok(false);
                };
                let mut scan = h.store.btree(storage::ObjId(ix.storage_id))?.range(
                    std::ops::Bound::Unbounded,
                    std::ops::Bound::Unbounded,
                    storage::ScanDirection::Forward,
                )?;
                loop {
                    batch.clear();
                    let more = scan.next_batch(&mut batch)?;
                    if !batch.is_empty() {
                        return Ok(true);
                    }
                    if !more {
                        return Ok(false);
                    }
                }
            }
        }
    }

    /// SELECT ... INTO: creates the target table (a heap).
    pub(crate) fn create_table_from_spec(
        &mut self,
        spec: &plan::NewTableSpec,
    ) -> SqlResult<Arc<TableDef>> {
        let q = QualifiedName {
            database: spec.database.clone(),
            schema: spec.schema.clone(),
            name: spec.name.clone(),
        };
        let (h, schema) = self.target_of(&q)?;
        self.check_name_free(&h, &schema, &q)?;
        let mut seen: Vec<&str> = Vec::new();
        for c in spec.columns.iter() {
            if c.name.is_empty() {
                return Err(SqlError::custom(
                    1038,
                    15,
                    5,
                    "An object or column name is missing or empty. For SELECT INTO statements, verify each column has a name. For other statements, look for empty alias names. Aliases defined as \"\" or [] are not allowed. Change the alias to a valid name.",
                ));
            }
            if seen.iter().any(|s| name_eq(s, &c.name)) {
                return Err(SqlError::new(2705, &[&c.name, &q.name]));
            }
            seen.push(&c.name);
        }
        let storage_name = if q.is_temp() && !q.name.starts_with("##") {
            self.temp_storage_name(&q.name)
        } else {
            q.name.clone()
        };
        let db = h.def.name.clone();
        let tree = h.store.catalog_btree()?;
        let txn = self.txn_for(&db)?;
        let object_id = h.cat.write().new_object_id(&tree, txn)?;
        let heap = h.store.create_heap(txn)?;
        let table = Arc::new(TableDef {
            object_id,
            database: db.clone(),
            schema,
            name: storage_name,
            columns: spec.columns.clone(),
            indexes: vec![],
            storage: TableStorage::Heap(heap.0),
            checks: vec![],
            foreign_keys: vec![],
            is_temp: q.is_temp(),
            create_date: now_text(),
        });
        h.cat
            .write()
            .put(&tree, txn, SchemaObject::Table(table.clone()))?;
        self.touch_catalog(&db)?;
        if q.is_temp() && !q.name.starts_with("##") {
            self.temp_tables.insert(q.name.to_lowercase(), object_id);
        }
        Ok(table)
    }
}

/// `WITH (IGNORE_DUP_KEY = ON)` among index / key constraint options.
fn ignore_dup_key_on(options: &[ast::OptionSetting]) -> bool {
    option_on(options, "IGNORE_DUP_KEY")
}

/// `WITH (name = ON)` among an index's or constraint's options.
fn option_on(options: &[ast::OptionSetting], name: &str) -> bool {
    options
        .iter()
        .any(|o| o.name == name && matches!(o.value, Some(ast::OptionValue::On)))
}
