//! External data sources, file formats and tables: SQL Server 2022's
//! `CREATE EXTERNAL TABLE ... AS SELECT` (CETAS) writing Parquet, and `SELECT ... FROM` an
//! external table reading it back. Local locations only (plain paths or `file://`); remote ones
//! are Msg 40517 naming the scheme.
//!
//! The objects are kept per database in the engine (not yet in the catalog, so they last until
//! the server stops; the files they point at stay). `DROP EXTERNAL ...` removes the definition
//! and leaves the files, as SQL Server does.

use std::collections::HashMap;
use std::path::PathBuf;

use common::{SqlError, SqlResult};
use fileio::parquet_io::{self, FileColumn, ParquetCompression};
use parser::ast;
use types::DataType;

use crate::events::{CollectSink, Event, EventSink};
use crate::session::Session;

/// `CREATE EXTERNAL TABLE`'s files: where they are and the columns they hold.
#[derive(Clone, Debug)]
pub(crate) struct ExternalTable {
    pub path: PathBuf,
    pub columns: Vec<FileColumn>,
}

/// Key: (database, schema, name), lower-cased (names compare case-insensitively).
type Key = (String, String, String);

/// The external objects of every database.
#[derive(Default)]
pub(crate) struct ExternalObjects {
    data_sources: HashMap<Key, PathBuf>,
    file_formats: HashMap<Key, ParquetCompression>,
    tables: HashMap<Key, ExternalTable>,
}

pub(crate) type Registry = parking_lot::Mutex<ExternalObjects>;

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

impl Session {
    fn external_key(&self, name: &ast::ObjectName) -> SqlResult<Key> {
        let parts = &name.parts;
        let (db, schema) = match parts.len() {
            1 => (self.database.clone(), "dbo".to_string()),
            2 => (self.database.clone(), parts[0].value.clone()),
            3 => (parts[0].value.clone(), parts[1].value.clone()),
            _ => {
                return Err(SqlError::new(
                    117,
                    &[&name.to_string(), &"CREATE EXTERNAL", &"three-part"],
                ))
            }
        };
        let obj = parts.last().map(|p| p.value.clone()).unwrap_or_default();
        Ok((db.to_lowercase(), schema.to_lowercase(), obj.to_lowercase()))
    }

    /// The external table `name` resolves to, if any (binder fallback after Msg 208).
    pub(crate) fn external_table(&self, name: &ast::ObjectName) -> Option<ExternalTable> {
        let key = self.external_key(name).ok()?;
        self.engine.external.lock().tables.get(&key).cloned()
    }

    pub(crate) fn drop_external(
        &mut self,
        kind: ast::ExternalKind,
        name: &ast::ObjectName,
    ) -> SqlResult<()> {
        let key = self.external_key(name)?;
        let mut reg = self.engine.external.lock();
        let found = match kind {
            ast::ExternalKind::DataSource => reg.data_sources.remove(&key).is_some(),
            ast::ExternalKind::FileFormat => reg.file_formats.remove(&key).is_some(),
            ast::ExternalKind::Table => reg.tables.remove(&key).is_some(),
        };
        if !found {
            // Msg 3701: Cannot drop the %S_MSG '%.*ls', because it does not exist ...
            let what = match kind {
                ast::ExternalKind::DataSource => "external data source",
                ast::ExternalKind::FileFormat => "external file format",
                ast::ExternalKind::Table => "external table",
            };
            return Err(SqlError::custom(
                3701,
                11,
                5,
                format!("Cannot drop the {what} '{name}', because it does not exist or you do not have permission."),
            ));
        }
        Ok(())
    }

    pub(crate) fn create_external(
        &mut self,
        c: &ast::CreateExternal,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let key = self.external_key(&c.name)?;
        let mut opts: HashMap<&str, String> = HashMap::new();
        for (n, v) in &c.options {
            let Some(t) = option_text(v) else {
                return Err(SqlError::unsupported(format!("external option {n} = {v}")));
            };
            opts.insert(n.as_str(), t);
        }
        let allowed: &[&str] = match c.kind {
            ast::ExternalKind::DataSource => &["LOCATION"],
            ast::ExternalKind::FileFormat => &["FORMAT_TYPE", "DATA_COMPRESSION"],
            ast::ExternalKind::Table => &["LOCATION", "DATA_SOURCE", "FILE_FORMAT"],
        };
        if let Some((n, _)) = c
            .options
            .iter()
            .find(|(n, _)| !allowed.contains(&n.as_str()))
        {
            return Err(SqlError::unsupported(format!("external object option {n}")));
        }
        match c.kind {
            ast::ExternalKind::DataSource => {
                let loc = opts
                    .get("LOCATION")
                    .ok_or_else(|| missing_option("data source", "LOCATION"))?;
                let path = fileio::local_path(loc)?;
                let mut reg = self.engine.external.lock();
                if reg.data_sources.contains_key(&key) {
                    return Err(exists_error(&c.name.to_string()));
                }
                reg.data_sources.insert(key, path);
                Ok(())
            }
            ast::ExternalKind::FileFormat => {
                let ft = opts
                    .get("FORMAT_TYPE")
                    .ok_or_else(|| missing_option("file format", "FORMAT_TYPE"))?;
                if !ft.eq_ignore_ascii_case("PARQUET") {
                    return Err(SqlError::unsupported(format!("FORMAT_TYPE = {ft}")));
                }
                // SQL Server 2022 writes Parquet with Snappy unless told otherwise
                let compression = match opts.get("DATA_COMPRESSION").map(String::as_str) {
                    None => ParquetCompression::Snappy,
                    Some(s)
                        if s.eq_ignore_ascii_case("org.apache.hadoop.io.compress.SnappyCodec") =>
                    {
                        ParquetCompression::Snappy
                    }
                    Some(s) => {
                        return Err(SqlError::unsupported(format!("DATA_COMPRESSION = '{s}'")))
                    }
                };
                let mut reg = self.engine.external.lock();
                if reg.file_formats.contains_key(&key) {
                    return Err(exists_error(&c.name.to_string()));
                }
                reg.file_formats.insert(key, compression);
                Ok(())
            }
            ast::ExternalKind::Table => self.create_external_table(c, key, &opts, sink),
        }
    }

    fn create_external_table(
        &mut self,
        c: &ast::CreateExternal,
        key: Key,
        opts: &HashMap<&str, String>,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let location = opts
            .get("LOCATION")
            .ok_or_else(|| missing_option("table", "LOCATION"))?;
        let ds = opts
            .get("DATA_SOURCE")
            .ok_or_else(|| missing_option("table", "DATA_SOURCE"))?;
        let ff = opts
            .get("FILE_FORMAT")
            .ok_or_else(|| missing_option("table", "FILE_FORMAT"))?;
        let lookup = |n: &str| self.external_key(&ast::ObjectName::single(n.to_string()));
        let (ds_key, ff_key) = (lookup(ds)?, lookup(ff)?);
        let (base, compression) = {
            let reg = self.engine.external.lock();
            if reg.tables.contains_key(&key) {
                return Err(exists_error(&c.name.to_string()));
            }
            let base = reg
                .data_sources
                .get(&ds_key)
                .cloned()
                .ok_or_else(|| not_found("data source", ds))?;
            let comp = *reg
                .file_formats
                .get(&ff_key)
                .ok_or_else(|| not_found("file format", ff))?;
            (base, comp)
        };
        if self.find_object(&crate::ddl::qualified(&c.name))?.is_some() {
            return Err(exists_error(&c.name.to_string()));
        }
        let rel = location.trim_start_matches('/');
        let path = base.join(rel);
        let Some(query) = &c.query else {
            // over existing files: the declared columns, converted when read
            if c.columns.is_empty() {
                return Err(SqlError::unsupported(
                    "CREATE EXTERNAL TABLE without columns or AS SELECT",
                ));
            }
            let mut columns = Vec::with_capacity(c.columns.len());
            for (n, t) in &c.columns {
                columns.push(FileColumn {
                    name: n.value.clone(),
                    data_type: plan::decl_type(t)?,
                });
            }
            self.engine
                .external
                .lock()
                .tables
                .insert(key, ExternalTable { path, columns });
            return Ok(());
        };
        // a folder location (SQL Server's form) gets one file; a `.parquet` name is the file
        let file = if rel.to_ascii_lowercase().ends_with(".parquet") {
            path.clone()
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
        self.engine
            .external
            .lock()
            .tables
            .insert(key, ExternalTable { path, columns });
        self.rowcount = n as i64;
        if !self.options.nocount {
            sink.row_count(n);
        }
        Ok(())
    }
}
