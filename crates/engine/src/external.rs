//! External data sources, file formats and tables: SQL Server 2022's
//! `CREATE EXTERNAL TABLE ... AS SELECT` (CETAS) writing Parquet, and `SELECT ... FROM` an
//! external table reading it back. Local locations only (plain paths or `file://`); remote ones
//! are Msg 40517 naming the scheme.
//!
//! The definitions live in the database's catalog (`DbCatalog::external`, catalog rows of kind
//! `E`, catalog/src/external.rs), written under the statement's transaction like every other
//! catalog change: a rolled-back CREATE leaves nothing, and they survive a restart. The files
//! they point at are not transactional: a rolled-back CETAS leaves its file behind, and
//! `DROP EXTERNAL ...` removes the definition and leaves the files, as SQL Server does.
//! Data sources and file formats are database-scoped (ids from 65536, as SQL Server's
//! `data_source_id` / `file_format_id`); an external table is a schema object with an object id,
//! listed in `sys.objects` / `sys.tables` (`is_external` = 1) / `sys.columns`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use catalog::external::{ExternalColumn, ExternalObjectDef, ExternalObjectKind};
use catalog::serial::{self, ObjectKind};
use common::{SqlError, SqlResult};
use fileio::parquet_io::{self, FileColumn, ParquetCompression};
use parser::ast;
use storage::{BTree, Txn};
use types::DataType;

use crate::dbcat::DbCatalog;
use crate::events::{CollectSink, Event, EventSink};
use crate::session::Session;

/// `CREATE EXTERNAL TABLE`'s files: where they are and the columns they hold.
#[derive(Clone, Debug)]
pub(crate) struct ExternalTable {
    pub path: PathBuf,
    pub columns: Vec<FileColumn>,
}

/// First `data_source_id` / `file_format_id` of a database (SQL Server numbers them so).
const FIRST_EXTERNAL_ID: i32 = 65536;

/// The SNAPPY codec name SQL Server 2022 writes Parquet with unless told otherwise.
const SNAPPY: &str = "org.apache.hadoop.io.compress.SnappyCodec";

fn option_text(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Literal(ast::Literal::String { value, .. }) => Some(value.clone()),
        ast::Expr::Column(n) => Some(
            n.parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join("."),
        ),
        _ => None,
    }
}

fn exists_error(name: &str) -> SqlError {
    SqlError::new(2714, &[&name])
}

fn missing_option(kind: &str, option: &str) -> SqlError {
    SqlError::custom(
        46505,
        16,
        1,
        format!("Missing required external {kind} option '{option}'."),
    )
}

/// Msg 46525-style "not found" for a named data source / file format.
fn not_found(kind: &str, name: &str) -> SqlError {
    SqlError::custom(
        46525,
        16,
        1,
        format!("External {kind} '{name}' does not exist or you do not have permission."),
    )
}

fn kind_words(kind: ExternalObjectKind) -> (&'static str, &'static str) {
    match kind {
        ExternalObjectKind::DataSource => ("external data source", "EXTERNAL DATA SOURCE"),
        ExternalObjectKind::FileFormat => ("external file format", "EXTERNAL FILE FORMAT"),
        ExternalObjectKind::Table => ("external table", "EXTERNAL TABLE"),
    }
}

fn catalog_kind(kind: ast::ExternalKind) -> ExternalObjectKind {
    match kind {
        ast::ExternalKind::DataSource => ExternalObjectKind::DataSource,
        ast::ExternalKind::FileFormat => ExternalObjectKind::FileFormat,
        ast::ExternalKind::Table => ExternalObjectKind::Table,
    }
}

impl DbCatalog {
    /// The external table `schema.name`, if any (names compare case-insensitively).
    pub(crate) fn external_table(
        &self,
        schema: &str,
        name: &str,
    ) -> Option<&Arc<ExternalObjectDef>> {
        self.external.values().find(|o| {
            o.kind == ExternalObjectKind::Table
                && catalog::name_eq(&o.schema, schema)
                && catalog::name_eq(&o.name, name)
        })
    }

    /// The database-scoped data source or file format `name`.
    pub(crate) fn external_named(
        &self,
        kind: ExternalObjectKind,
        name: &str,
    ) -> Option<&Arc<ExternalObjectDef>> {
        self.external
            .values()
            .find(|o| o.kind == kind && catalog::name_eq(&o.name, name))
    }

    /// The data source or file format with id `id`.
    pub(crate) fn external_by_id(
        &self,
        kind: ExternalObjectKind,
        id: i32,
    ) -> Option<&Arc<ExternalObjectDef>> {
        self.external
            .values()
            .find(|o| o.kind == kind && o.id == id)
    }

    /// External objects of one kind, by id.
    pub(crate) fn externals(&self, kind: ExternalObjectKind) -> Vec<&Arc<ExternalObjectDef>> {
        let mut v: Vec<_> = self.external.values().filter(|o| o.kind == kind).collect();
        v.sort_by_key(|o| o.id);
        v
    }

    fn next_external_id(&self, kind: ExternalObjectKind) -> i32 {
        self.external
            .values()
            .filter(|o| o.kind == kind)
            .map(|o| o.id.saturating_add(1))
            .max()
            .unwrap_or(FIRST_EXTERNAL_ID)
    }

    /// Adds an external object (cache and B-tree, under `txn`: C1).
    fn put_external(&mut self, tree: &BTree, txn: &mut Txn, o: ExternalObjectDef) -> SqlResult<()> {
        self.generation.bump();
        let key = serial::object_key(ObjectKind::External, o.key_id);
        tree.upsert(txn, &key, &catalog::external::encode_external(&o))?;
        self.external.insert(o.key_id, Arc::new(o));
        Ok(())
    }

    /// Removes an external object (cache and B-tree).
    fn remove_external(&mut self, tree: &BTree, txn: &mut Txn, key_id: i32) -> SqlResult<()> {
        self.generation.bump();
        if self.external.remove(&key_id).is_some() {
            tree.delete(txn, &serial::object_key(ObjectKind::External, key_id))?;
        }
        Ok(())
    }
}

/// How a name given to an external DDL statement resolves: (database, schema, object name).
struct ExternalName {
    db: String,
    schema: String,
    name: String,
}

impl Session {
    fn external_name(&self, name: &ast::ObjectName) -> SqlResult<ExternalName> {
        if name.parts.len() > 3 {
            return Err(SqlError::new(
                117,
                &[&name.to_string(), &"CREATE EXTERNAL", &"three-part"],
            ));
        }
        let q = crate::ddl::qualified(name);
        let (db, schema) = self.resolve_parts(&q);
        Ok(ExternalName {
            db,
            schema,
            name: q.name,
        })
    }

    /// The external table `name` resolves to, if any (binder fallback after Msg 208).
    pub(crate) fn external_table(&self, name: &ast::ObjectName) -> Option<ExternalTable> {
        let n = self.external_name(name).ok()?;
        let h = self.engine().database(&n.db)?;
        let cat = h.cat.read();
        let t = cat.external_table(&n.schema, &n.name)?;
        let ds = cat.external_by_id(ExternalObjectKind::DataSource, t.data_source_id)?;
        let base = fileio::local_path(&ds.location).ok()?;
        Some(ExternalTable {
            path: base.join(t.location.trim_start_matches('/')),
            columns: t
                .columns
                .iter()
                .map(|c| FileColumn {
                    name: c.name.clone(),
                    data_type: c.data_type.clone(),
                })
                .collect(),
        })
    }

    /// The object id of the external table `name` (OBJECT_ID's fallback).
    pub(crate) fn external_table_id(&self, name: &catalog::QualifiedName) -> Option<i32> {
        if name.is_temp() {
            return None;
        }
        let (db, schema) = self.resolve_parts(name);
        let h = self.engine().database(&db)?;
        let cat = h.cat.read();
        cat.external_table(&schema, &name.name).map(|t| t.id)
    }

    /// `DROP EXTERNAL TABLE | DATA SOURCE | FILE FORMAT`: the definition goes, the files stay.
    pub(crate) fn drop_external(
        &mut self,
        kind: ast::ExternalKind,
        name: &ast::ObjectName,
    ) -> SqlResult<()> {
        let kind = catalog_kind(kind);
        let (what, statement) = kind_words(kind);
        let n = self.external_name(name)?;
        let missing = || {
            // Msg 3701: Cannot drop the %S_MSG '%.*ls', because it does not exist ...
            SqlError::custom(
                3701,
                11,
                5,
                format!("Cannot drop the {what} '{name}', because it does not exist or you do not have permission."),
            )
        };
        let Some(h) = self.engine().database(&n.db) else {
            return Err(missing());
        };
        let found = {
            let cat = h.cat.read();
            let found = match kind {
                ExternalObjectKind::Table => cat.external_table(&n.schema, &n.name),
                _ => cat.external_named(kind, &n.name),
            };
            let Some(found) = found.cloned() else {
                return Err(missing());
            };
            // a data source or file format an external table uses cannot go first
            let user = cat
                .externals(ExternalObjectKind::Table)
                .into_iter()
                .find(|t| match kind {
                    ExternalObjectKind::DataSource => t.data_source_id == found.id,
                    ExternalObjectKind::FileFormat => t.file_format_id == found.id,
                    ExternalObjectKind::Table => false,
                })
                .cloned();
            if let Some(t) = user {
                return Err(SqlError::new(
                    3729,
                    &[&format!("DROP {statement}"), &found.name, &t.name],
                ));
            }
            found
        };
        let tree = h.store.catalog_btree()?;
        let db = h.def.name.clone();
        let txn = self.txn_for(&db)?;
        h.cat.write().remove_external(&tree, txn, found.key_id)?;
        self.touch_catalog(&db)?;
        Ok(())
    }

    pub(crate) fn create_external(
        &mut self,
        c: &ast::CreateExternal,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let n = self.external_name(&c.name)?;
        let mut opts: HashMap<&str, String> = HashMap::new();
        for (name, v) in &c.options {
            let Some(t) = option_text(v) else {
                return Err(SqlError::unsupported(format!(
                    "external option {name} = {v}"
                )));
            };
            opts.insert(name.as_str(), t);
        }
        let allowed: &[&str] = match c.kind {
            ast::ExternalKind::DataSource => &["LOCATION"],
            ast::ExternalKind::FileFormat => &["FORMAT_TYPE", "DATA_COMPRESSION"],
            ast::ExternalKind::Table => &["LOCATION", "DATA_SOURCE", "FILE_FORMAT"],
        };
        if let Some((name, _)) = c
            .options
            .iter()
            .find(|(name, _)| !allowed.contains(&name.as_str()))
        {
            return Err(SqlError::unsupported(format!(
                "external object option {name}"
            )));
        }
        let kind = catalog_kind(c.kind);
        let mut def = ExternalObjectDef {
            kind,
            key_id: 0,
            id: 0,
            schema: String::new(),
            name: n.name.clone(),
            location: String::new(),
            format_type: String::new(),
            data_compression: None,
            data_source_id: 0,
            file_format_id: 0,
            columns: Vec::new(),
            create_date: crate::ddl::now_text(),
        };
        match c.kind {
            ast::ExternalKind::DataSource => {
                let loc = opts
                    .get("LOCATION")
                    .ok_or_else(|| missing_option("data source", "LOCATION"))?;
                fileio::local_path(loc)?;
                def.location = loc.clone();
            }
            ast::ExternalKind::FileFormat => {
                let ft = opts
                    .get("FORMAT_TYPE")
                    .ok_or_else(|| missing_option("file format", "FORMAT_TYPE"))?;
                if !ft.eq_ignore_ascii_case("PARQUET") {
                    return Err(SqlError::unsupported(format!("FORMAT_TYPE = {ft}")));
                }
                def.format_type = "PARQUET".into();
                def.data_compression = opts.get("DATA_COMPRESSION").cloned();
                parquet_compression(&def)?;
            }
            ast::ExternalKind::Table => return self.create_external_table(c, n, def, &opts, sink),
        }
        let h = self.db(&n.db)?;
        if h.cat.read().external_named(kind, &n.name).is_some() {
            return Err(exists_error(&c.name.to_string()));
        }
        let tree = h.store.catalog_btree()?;
        let db = h.def.name.clone();
        let txn = self.txn_for(&db)?;
        let mut cat = h.cat.write();
        def.key_id = cat.new_object_id(&tree, txn)?;
        def.id = cat.next_external_id(kind);
        cat.put_external(&tree, txn, def)?;
        drop(cat);
        self.touch_catalog(&db)?;
        Ok(())
    }

    fn create_external_table(
        &mut self,
        c: &ast::CreateExternal,
        n: ExternalName,
        mut def: ExternalObjectDef,
        opts: &HashMap<&str, String>,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let location = opts
            .get("LOCATION")
            .ok_or_else(|| missing_option("table", "LOCATION"))?;
        let ds_name = opts
            .get("DATA_SOURCE")
            .ok_or_else(|| missing_option("table", "DATA_SOURCE"))?;
        let ff_name = opts
            .get("FILE_FORMAT")
            .ok_or_else(|| missing_option("table", "FILE_FORMAT"))?;
        let (h, schema) = self.target_of(&crate::ddl::qualified(&c.name))?;
        let (ds, ff) = {
            let cat = h.cat.read();
            cat.check_free(&schema, &n.name)?;
            let ds = cat
                .external_named(ExternalObjectKind::DataSource, ds_name)
                .cloned()
                .ok_or_else(|| not_found("data source", ds_name))?;
            let ff = cat
                .external_named(ExternalObjectKind::FileFormat, ff_name)
                .cloned()
                .ok_or_else(|| not_found("file format", ff_name))?;
            (ds, ff)
        };
        let compression = parquet_compression(&ff)?;
        def.schema = schema;
        def.location = location.clone();
        def.data_source_id = ds.id;
        def.file_format_id = ff.id;
        let rel = location.trim_start_matches('/');
        let path = fileio::local_path(&ds.location)?.join(rel);
        let rows_written = match &c.query {
            None => {
                // over existing files: the declared columns, converted when read
                if c.columns.is_empty() {
                    return Err(SqlError::unsupported(
                        "CREATE EXTERNAL TABLE without columns or AS SELECT",
                    ));
                }
                for (col, t, nullable) in &c.columns {
                    def.columns.push(ExternalColumn {
                        name: col.value.clone(),
                        data_type: plan::decl_type(t)?,
                        nullable: *nullable,
                    });
                }
                None
            }
            Some(query) => {
                let (columns, n) =
                    self.write_cetas_file(c, query, &path, rel, location, compression, sink)?;
                def.columns = columns;
                Some(n)
            }
        };
        let tree = h.store.catalog_btree()?;
        let db = h.def.name.clone();
        let txn = self.txn_for(&db)?;
        let mut cat = h.cat.write();
        def.key_id = cat.new_object_id(&tree, txn)?;
        def.id = def.key_id;
        cat.put_external(&tree, txn, def)?;
        drop(cat);
        self.touch_catalog(&db)?;
        if let Some(n) = rows_written {
            self.rowcount = n as i64;
            if !self.options.nocount {
                sink.row_count(n);
            }
        }
        Ok(())
    }

    /// CETAS: runs the query and writes its rows into one Parquet file under the location.
    #[allow(clippy::too_many_arguments)] // reason: the pieces of one CETAS, resolved by the caller
    fn write_cetas_file(
        &mut self,
        c: &ast::CreateExternal,
        query: &ast::Query,
        path: &std::path::Path,
        rel: &str,
        location: &str,
        compression: ParquetCompression,
        sink: &mut dyn EventSink,
    ) -> SqlResult<(Vec<ExternalColumn>, u64)> {
        // a folder location (SQL Server's form) gets one file; a `.parquet` name is the file
        let file = if rel.to_ascii_lowercase().ends_with(".parquet") {
            path.to_path_buf()
        } else {
            path.join("part-00000.parquet")
        };
        if path.exists() {
            return Err(SqlError::custom(
                15842,
                16,
                1,
                format!("Cannot create external table. External table location already exists. Location provided: '{location}'."),
            ));
        }
        let stmt = ast::Statement {
            line: 1,
            span: Default::default(),
            kind: ast::StatementKind::Select(Box::new(query.clone())),
        };
        let mut collect = CollectSink::new();
        self.run_query_statement(&stmt, &mut collect)?;
        let mut result = None;
        for ev in collect.events {
            match ev {
                Event::ResultSet { columns, rows, .. } if result.is_none() => {
                    result = Some((columns, rows))
                }
                Event::Message(m) => sink.message(&m),
                _ => {}
            }
        }
        let (out_cols, rows) =
            result.ok_or_else(|| SqlError::internal("CETAS query returned no result set"))?;
        let mut columns = Vec::with_capacity(out_cols.len());
        for (i, oc) in out_cols.iter().enumerate() {
            if oc.name.is_empty() {
                return Err(SqlError::new(8155, &[&(i + 1), &c.name.to_string()]));
            }
            if columns
                .iter()
                .any(|f: &FileColumn| f.name.eq_ignore_ascii_case(&oc.name))
            {
                return Err(SqlError::new(8156, &[&oc.name, &c.name.to_string()]));
            }
            let data_type = match &oc.data_type {
                DataType::Null => DataType::Int,
                t => t.clone(),
            };
            columns.push(FileColumn {
                name: oc.name.clone(),
                data_type,
            });
        }
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| SqlError::io("create directory", &dir.display().to_string(), &e))?;
        }
        let n = parquet_io::write_file(&file, &columns, &rows, compression)?;
        let columns = columns
            .into_iter()
            .map(|f| ExternalColumn {
                name: f.name,
                data_type: f.data_type,
                nullable: true,
            })
            .collect();
        Ok((columns, n as u64))
    }
}

/// The Parquet codec of a file format (SQL Server 2022 writes Snappy unless told otherwise).
fn parquet_compression(ff: &ExternalObjectDef) -> SqlResult<ParquetCompression> {
    match ff.data_compression.as_deref() {
        None => Ok(ParquetCompression::Snappy),
        Some(s) if s.eq_ignore_ascii_case(SNAPPY) => Ok(ParquetCompression::Snappy),
        Some(s) => Err(SqlError::unsupported(format!("DATA_COMPRESSION = '{s}'"))),
    }
}
