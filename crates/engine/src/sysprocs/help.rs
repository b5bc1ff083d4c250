//! `sp_help`, `sp_helptext`, `sp_helpindex`, `sp_helpdb`, `sp_columns`, `sp_tables`.

use std::sync::Arc;

use catalog::{ColumnDef, IndexDef, IndexKind, SchemaObject, TableDef};
use common::{SqlError, SqlResult};
use types::{DataType, Value};

use super::{info, nv, vc, Args};
use crate::events::EventSink;
use crate::server::DbHandle;
use crate::session::Session;
use crate::sysviews::{dt, type_info};

const COLLATION: &str = "SQL_Latin1_General_CP1_CI_AS";

/// sp_help's `Object_type` / `Type` text of a `sys.objects.type` code (SQL Server takes it
/// from `spt_values` type 'O9T').
fn object_type_text(code: &str) -> &'static str {
    match code.trim() {
        "U" => "user table",
        "V" => "view",
        "P" => "stored procedure",
        "FN" => "scalar function",
        "IF" => "inline function",
        "TF" => "table function",
        "TR" => "trigger",
        "SO" => "sequence object",
        "PK" => "primary key cns",
        "UQ" => "unique key cns",
        "C" => "check cns",
        "F" => "foreign key cns",
        "D" => "default (maybe cns)",
        _ => "user table",
    }
}

/// Msg 15009: the object is not in the current database.
fn no_such_object(name: &str, db: &str) -> SqlError {
    SqlError::new(15009, &[&name, &db])
}

/// The key list of an index as sp_helpindex shows it: `a, b(-)`.
fn index_keys(t: &TableDef, ix: &IndexDef) -> String {
    let mut parts: Vec<String> = ix
        .key_columns
        .iter()
        .filter_map(|(c, desc)| {
            let n = &t.columns.get(*c)?.name;
            Some(if *desc { format!("{n}(-)") } else { n.clone() })
        })
        .collect();
    if ix.kind == IndexKind::ColumnStore && parts.is_empty() {
        parts = ix
            .included
            .iter()
            .filter_map(|c| t.columns.get(*c).map(|c| c.name.clone()))
            .collect();
    }
    parts.join(", ")
}

/// sp_helpindex's `index_description`.
fn index_description(ix: &IndexDef, filegroup: &str) -> String {
    let mut d = String::from(if ix.clustered {
        "clustered"
    } else {
        "nonclustered"
    });
    if ix.kind == IndexKind::ColumnStore {
        d.push_str(" columnstore");
    }
    if ix.ignore_dup_key {
        d.push_str(", ignore duplicate keys");
    }
    if ix.unique {
        d.push_str(", unique");
    }
    if ix.primary_key {
        d.push_str(", primary key");
    } else if ix.unique_constraint {
        d.push_str(", unique key");
    }
    d.push_str(" located on ");
    d.push_str(filegroup);
    d
}

/// Length in bytes as sys.columns.max_length (-1 for max).
fn byte_length(t: &DataType) -> i32 {
    type_info(t).1
}

/// Prec / Scale of sp_help (`char(5)`, blank for types without them).
fn prec_scale(t: &DataType) -> (Value, Value) {
    let (_, _, p, s) = type_info(t);
    // sp_help lists these types' precision and scale, blanks for the others
    let shown = matches!(
        t,
        DataType::TinyInt
            | DataType::SmallInt
            | DataType::Int
            | DataType::BigInt
            | DataType::Decimal { .. }
            | DataType::Numeric { .. }
            | DataType::Real
            | DataType::Float
            | DataType::Money
            | DataType::SmallMoney
            | DataType::Date
            | DataType::Time(_)
            | DataType::DateTime2(_)
            | DataType::DateTimeOffset(_)
    );
    if shown {
        (vc(&p.to_string()), vc(&s.to_string()))
    } else {
        (vc(""), vc(""))
    }
}

fn yes_no(b: bool) -> Value {
    vc(if b { "yes" } else { "no" })
}

fn is_fixed_len_string(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Char(_) | DataType::NChar(_) | DataType::Binary(_)
    )
}

fn is_char_or_binary(t: &DataType) -> bool {
    t.is_string() || matches!(t, DataType::Binary(_) | DataType::VarBinary(_))
}

fn action_text(a: catalog::RefAction) -> &'static str {
    match a {
        catalog::RefAction::NoAction => "No Action",
        catalog::RefAction::Cascade => "Cascade",
        catalog::RefAction::SetNull => "Set_Null",
        catalog::RefAction::SetDefault => "Set_Default",
    }
}

impl Session {
    /// Resolves `@objname` in the current database (15009 when missing or elsewhere).
    fn help_object(&self, name: &str) -> SqlResult<(Arc<DbHandle>, SchemaObject)> {
        let q = crate::ddl::qualified_from_text(name);
        let here = self.database().to_string();
        if q.database
            .as_deref()
            .is_some_and(|d| !catalog::name_eq(d, &here))
        {
            return Err(SqlError::new(15250, &[]));
        }
        match self.find_object(&q)? {
            Some(found) => Ok(found),
            None => Err(no_such_object(name, &here)),
        }
    }

    pub(super) fn sp_help(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let Some(name) = args.text("@objname") else {
            return self.sp_help_all(sink);
        };
        let h = self.current_db()?;
        // a user-defined or system data type
        let q = crate::ddl::qualified_from_text(&name);
        let udt = h
            .cat
            .read()
            .user_type(q.schema.as_deref().unwrap_or("dbo"), &q.name);
        if let Some(t) = udt.filter(|t| t.base.is_some()) {
            let rows = vec![type_row(&t.name, t.base.as_ref(), t.nullable)];
            self.send_result(sink, TYPE_SPEC, rows)?;
            return Ok(0);
        }
        if q.schema.is_none() {
            if let Ok(base) = DataType::from_name(&q.name, &[]) {
                if base.sql_name().eq_ignore_ascii_case(&q.name) {
                    let rows = vec![type_row(&q.name.to_ascii_lowercase(), Some(&base), true)];
                    self.send_result(sink, TYPE_SPEC, rows)?;
                    return Ok(0);
                }
            }
        }
        let (_, obj) = self.help_object(&name)?;
        let created = match &obj {
            SchemaObject::Table(t) => &t.create_date,
            SchemaObject::View(v) => &v.create_date,
            SchemaObject::Module(m) => &m.create_date,
            SchemaObject::Sequence(s) => &s.create_date,
        };
        self.send_result(
            sink,
            &[
                "Name:nvarchar(128)",
                "Owner:nvarchar(128)",
                "Type:nvarchar(31)",
                "Created_datetime:datetime",
            ],
            vec![vec![
                nv(obj.name()),
                nv("dbo"),
                nv(object_type_text(obj.type_code())),
                dt(created),
            ]],
        )?;
        match &obj {
            SchemaObject::Table(t) => self.help_table(&t.columns, Some(t), sink)?,
            SchemaObject::View(v) => {
                let cols = self.view_columns(&v.schema, &v.name)?;
                self.help_table(&cols, None, sink)?;
            }
            SchemaObject::Module(m) => {
                if !m.parameters.is_empty() || m.returns.is_some() {
                    let mut rows = Vec::new();
                    if let Some(r) = &m.returns {
                        rows.push(param_row("", r, 0));
                    }
                    for (i, p) in m.parameters.iter().enumerate() {
                        rows.push(param_row(&p.name, &p.data_type, i as i32 + 1));
                    }
                    self.send_result(
                        sink,
                        &[
                            "Parameter_name:nvarchar(128)",
                            "Type:nvarchar(128)",
                            "Length:smallint",
                            "Prec:int",
                            "Scale:int",
                            "Param_order:int",
                            "Collation:nvarchar(128)",
                        ],
                        rows,
                    )?;
                }
            }
            SchemaObject::Sequence(_) => {}
        }
        Ok(0)
    }

    /// The columns of a view, bound as a query would see them.
    fn view_columns(&mut self, schema: &str, name: &str) -> SqlResult<Vec<ColumnDef>> {
        let q = format!(
            "SELECT TOP (0) * FROM [{}].[{}]",
            schema.replace(']', "]]"),
            name.replace(']', "]]")
        );
        let stmts = parser::parse_batch(&q)?;
        let Some(s) = stmts.first() else {
            return Ok(Vec::new());
        };
        let (plan, _) = self.plan_statement(s)?;
        Ok(match plan {
            plan::Statement::Select { columns, .. } => columns
                .into_iter()
                .map(|c| ColumnDef::new(c.name, c.data_type, c.nullable))
                .collect(),
            _ => Vec::new(),
        })
    }

    /// `sp_help` without an argument: every object of the current database, then the
    /// user-defined data types.
    fn sp_help_all(&mut self, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let h = self.current_db()?;
        let (mut rows, types) = {
            let cat = h.cat.read();
            let mut rows: Vec<(String, String)> = Vec::new();
            for o in cat.objects.values() {
                if let SchemaObject::Table(t) = o {
                    if t.is_temp {
                        continue;
                    }
                    for (_, n, code, _) in crate::sysviews::constraint_objects(t) {
                        rows.push((n, object_type_text(code).to_string()));
                    }
                }
                rows.push((
                    o.name().to_string(),
                    object_type_text(o.type_code()).to_string(),
                ));
            }
            let types: Vec<_> = cat
                .types
                .iter()
                .filter(|t| t.base.is_some())
                .cloned()
                .collect();
            (rows, types)
        };
        // SQL Server: ORDER BY Object_type DESC, Name
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let rows = rows
            .into_iter()
            .map(|(n, t)| vec![nv(&n), nv("dbo"), nv(&t)])
            .collect();
        self.send_result(
            sink,
            &[
                "Name:nvarchar(128)",
                "Owner:nvarchar(128)",
                "Object_type:nvarchar(31)",
            ],
            rows,
        )?;
        let rows = types
            .iter()
            .map(|t| {
                let mut r = type_row(&t.name, t.base.as_ref(), t.nullable);
                r[0] = nv(&t.name);
                r
            })
            .collect();
        self.send_result(sink, USER_TYPE_SPEC, rows)?;
        Ok(0)
    }

    /// The result sets of sp_help after the first for a table (`table`) or a view's columns.
    fn help_table(
        &mut self,
        columns: &[ColumnDef],
        table: Option<&TableDef>,
        sink: &mut dyn EventSink,
    ) -> SqlResult<()> {
        let mut rows = Vec::new();
        for c in columns {
            let ty = &c.data_type;
            let (p, s) = prec_scale(ty);
            let chars = is_char_or_binary(ty);
            rows.push(vec![
                nv(&c.name),
                nv(c.user_type.as_deref().unwrap_or(ty.sql_name())),
                yes_no(c.computed.is_some()),
                Value::Int(byte_length(ty)),
                p,
                s,
                yes_no(c.nullable),
                if chars { vc("no") } else { vc("(n/a)") },
                if chars {
                    yes_no(is_fixed_len_string(ty) && c.nullable)
                } else {
                    vc("(n/a)")
                },
                if ty.is_string() {
                    nv(COLLATION)
                } else {
                    Value::Null
                },
            ]);
        }
        self.send_result(
            sink,
            &[
                "Column_name:nvarchar(128)",
                "Type:nvarchar(128)",
                "Computed:varchar(35)",
                "Length:int",
                "Prec:char(5)",
                "Scale:char(5)",
                "Nullable:varchar(35)",
                "TrimTrailingBlanks:varchar(35)",
                "FixedLenNullInSource:varchar(35)",
                "Collation:nvarchar(128)",
            ],
            rows,
        )?;
        let ident = columns
            .iter()
            .find_map(|c| c.identity.as_ref().map(|i| (c, i)));
        let dec = |v: i64| Value::Decimal {
            mantissa: v as i128,
            scale: 0,
        };
        let row = match ident {
            Some((c, i)) => vec![nv(&c.name), dec(i.seed), dec(i.increment), Value::Int(0)],
            None => vec![
                nv("No identity column defined."),
                Value::Null,
                Value::Null,
                Value::Null,
            ],
        };
        self.send_result(
            sink,
            &[
                "Identity:nvarchar(128)",
                "Seed:numeric(38,0)",
                "Increment:numeric(38,0)",
                "Not For Replication:int",
            ],
            vec![row],
        )?;
        let guid = columns
            .iter()
            .find(|c| c.rowguidcol)
            .map(|c| c.name.as_str());
        self.send_result(
            sink,
            &["RowGuidCol:nvarchar(128)"],
            vec![vec![nv(guid.unwrap_or("No rowguidcol column defined."))]],
        )?;
        let Some(t) = table else {
            return Ok(());
        };
        self.send_result(
            sink,
            &["Data_located_on_filegroup:nvarchar(128)"],
            vec![vec![nv(&self.table_filegroup_name(t))]],
        )?;
        self.send_index_list(t, sink)?;
        // constraints
        let mut rows: Vec<Vec<Value>> = Vec::new();
        let na = || vc("(n/a)");
        for c in &t.checks {
            let kind = match c.column.and_then(|i| t.columns.get(i)) {
                Some(col) => format!("CHECK on column {}", col.name),
                None => "CHECK Table Level ".to_string(),
            };
            rows.push(vec![
                nv(&kind),
                nv(&c.name),
                na(),
                na(),
                vc(if c.disabled { "Disabled" } else { "Enabled" }),
                vc("Is_For_Replication"),
                nv(&format!("({})", c.text)),
            ]);
        }
        for c in &t.columns {
            if let (Some(d), Some(n)) = (&c.default, &c.default_name) {
                rows.push(vec![
                    nv(&format!("DEFAULT on column {}", c.name)),
                    nv(n),
                    na(),
                    na(),
                    na(),
                    na(),
                    nv(&format!("({d})")),
                ]);
            }
        }
        for f in &t.foreign_keys {
            let cols: Vec<&str> = f
                .columns
                .iter()
                .filter_map(|i| t.columns.get(*i).map(|c| c.name.as_str()))
                .collect();
            rows.push(vec![
                nv("FOREIGN KEY"),
                nv(&f.name),
                nv(action_text(f.on_delete)),
                nv(action_text(f.on_update)),
                vc(if f.disabled { "Disabled" } else { "Enabled" }),
                vc("Is_For_Replication"),
                nv(&cols.join(", ")),
            ]);
            rows.push(vec![
                nv(" "),
                nv(" "),
                nv(" "),
                nv(" "),
                vc(" "),
                vc(" "),
                nv(&format!(
                    "REFERENCES {}.{}.{} ({})",
                    t.database,
                    f.ref_schema,
                    f.ref_table,
                    f.ref_columns.join(", ")
                )),
            ]);
        }
        for ix in t
            .indexes
            .iter()
            .filter(|i| i.primary_key || i.unique_constraint)
        {
            let kind = format!(
                "{} ({})",
                if ix.primary_key {
                    "PRIMARY KEY"
                } else {
                    "UNIQUE"
                },
                if ix.clustered {
                    "clustered"
                } else {
                    "non-clustered"
                }
            );
            rows.push(vec![
                nv(&kind),
                nv(&ix.name),
                na(),
                na(),
                na(),
                na(),
                nv(&index_keys(t, ix)),
            ]);
        }
        if rows.is_empty() {
            info(
                sink,
                15469,
                format!(
                    "No constraints are defined on object '{}', or you do not have permissions.",
                    t.name
                ),
            );
        } else {
            self.send_result(
                sink,
                &[
                    "constraint_type:nvarchar(146)",
                    "constraint_name:nvarchar(128)",
                    "delete_action:nvarchar(9)",
                    "update_action:nvarchar(9)",
                    "status_enabled:varchar(8)",
                    "status_for_replication:varchar(19)",
                    "constraint_keys:nvarchar(2126)",
                ],
                rows,
            )?;
        }
        // tables whose foreign keys reference this one
        let h = self.db(&t.database)?;
        let mut refs: Vec<String> = h
            .cat
            .read()
            .tables()
            .flat_map(|o| {
                o.foreign_keys
                    .iter()
                    .filter(|f| f.ref_object_id == t.object_id)
                    .map(|f| format!("{}.{}.{}: {}", o.database, o.schema, o.name, f.name))
                    .collect::<Vec<_>>()
            })
            .collect();
        refs.sort();
        if refs.is_empty() {
            info(
                sink,
                15470,
                format!(
                    "No foreign keys reference table '{}', or you do not have permissions.",
                    t.name
                ),
            );
        } else {
            self.send_result(
                sink,
                &["Table is referenced by foreign key:nvarchar(516)"],
                refs.iter().map(|r| vec![nv(r)]).collect(),
            )?;
        }
        Ok(())
    }

    /// The filegroup a table's rows are in (sp_help's Data_located_on_filegroup).
    fn table_filegroup_name(&self, t: &TableDef) -> String {
        let Ok(h) = self.db(&t.database) else {
            return "PRIMARY".into();
        };
        let ds = crate::filegroups::table_data_space(&h, t).map_or(1, i32::from);
        crate::filegroups::data_space_name(self.engine(), &h, ds)
    }

    /// sp_helpindex's result set, or its message when the table has no index.
    fn send_index_list(&self, t: &TableDef, sink: &mut dyn EventSink) -> SqlResult<()> {
        let mut ixs: Vec<&IndexDef> = t.indexes.iter().collect();
        ixs.sort_by(|a, b| a.name.cmp(&b.name));
        if ixs.is_empty() {
            info(
                sink,
                15472,
                format!(
                    "The object '{}' does not have any indexes, or you do not have permissions.",
                    t.name
                ),
            );
            return Ok(());
        }
        let h = self.db(&t.database)?;
        let rows = ixs
            .iter()
            .map(|ix| {
                let fg = crate::filegroups::object_filegroup_name(self.engine(), &h, ix.storage_id);
                vec![
                    nv(&ix.name),
                    vc(&index_description(ix, &fg)),
                    nv(&index_keys(t, ix)),
                ]
            })
            .collect();
        self.send_result(
            sink,
            &[
                "index_name:nvarchar(128)",
                "index_description:varchar(210)",
                "index_keys:nvarchar(2126)",
            ],
            rows,
        )
    }

    /// `@table_qualifier` of the ODBC catalog procedures: the current database only (15250).
    fn check_qualifier(&self, args: &Args) -> SqlResult<()> {
        match args.text("@table_qualifier") {
            Some(q) if !catalog::name_eq(&q, self.database()) => Err(SqlError::new(15250, &[])),
            _ => Ok(()),
        }
    }

    pub(super) fn sp_helpindex(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let name = args.required("@objname")?;
        let (_, obj) = self.help_object(&name)?;
        match obj {
            SchemaObject::Table(t) => self.send_index_list(&t, sink)?,
            SchemaObject::View(_) => info(
                sink,
                15472,
                format!("The object '{name}' does not have any indexes, or you do not have permissions."),
            ),
            _ => return Err(no_such_object(&name, self.database())),
        }
        Ok(0)
    }

    /// `sp_helptext`: the module's text in lines of at most 255 characters; a line keeps its
    /// line break, a longer line is cut every 255 characters (SQL Server's `Text nvarchar(255)`).
    pub(super) fn sp_helptext(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let name = args.required("@objname")?;
        if args.text("@columnname").is_some() {
            return Err(SqlError::unsupported("sp_helptext @columnname"));
        }
        let (_, obj) = self.help_object(&name)?;
        let text = match &obj {
            SchemaObject::View(v) => v.text.clone(),
            SchemaObject::Module(m) => m.text.clone(),
            _ => {
                return Err(SqlError::new(15197, &[&name]));
            }
        };
        let rows = helptext_lines(&text)
            .into_iter()
            .map(|l| vec![nv(&l)])
            .collect();
        self.send_result(sink, &["Text:nvarchar(255)"], rows)?;
        Ok(0)
    }

    /// `sp_helpdb [@dbname]`.
    pub(super) fn sp_helpdb(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let want = args.text("@dbname");
        let mut dbs: Vec<Arc<DbHandle>> = self
            .engine()
            .databases()
            .into_iter()
            .filter(|h| {
                want.as_deref()
                    .is_none_or(|w| catalog::name_eq(w, &h.def.name))
            })
            .collect();
        if let Some(w) = &want {
            if dbs.is_empty() {
                return Err(SqlError::new(15010, &[w]));
            }
        }
        dbs.sort_by(|a, b| a.def.name.cmp(&b.def.name));
        let mut rows = Vec::new();
        for h in &dbs {
            let bytes = super::space::file_bytes(h);
            // sys.databases.create_date is not recorded yet: the same fixed date it shows
            let created_text = "Jan  1 2024";
            rows.push(vec![
                nv(&h.def.name),
                nv(&format!("{:>13}", format!("{:.2} MB", bytes.total() as f64 / 1_048_576.0))),
                nv("sa"),
                Value::SmallInt(h.def.database_id as i16),
                nv(created_text),
                nv(&format!(
                    "Status=ONLINE, Updateability=READ_WRITE, UserAccess=MULTI_USER, Recovery=FULL, Version=957, Collation={COLLATION}, SQLSortOrder=52, IsAutoCreateStatistics, IsAutoUpdateStatistics"
                )),
                Value::TinyInt(h.def.compatibility_level.clamp(0, 255) as u8),
            ]);
        }
        self.send_result(
            sink,
            &[
                "name:nvarchar(128)",
                "db_size:nvarchar(13)",
                "owner:nvarchar(128)",
                "dbid:smallint",
                "created:nvarchar(11)",
                "status:nvarchar(600)",
                "compatibility_level:tinyint",
            ],
            rows,
        )?;
        if let (Some(_), Some(h)) = (&want, dbs.first()) {
            let rows = super::space::file_bytes(h)
                .files
                .iter()
                .map(|f| {
                    vec![
                        nv(&f.logical),
                        Value::SmallInt(f.file_id),
                        nv(&f.path),
                        if f.log {
                            Value::Null
                        } else {
                            nv(&crate::filegroups::file_filegroup_name(
                                self.engine(),
                                h,
                                f.file_id,
                            ))
                        },
                        vc(&format!("{} KB", f.bytes / 1024)),
                        vc("Unlimited"),
                        vc("65536 KB"),
                        vc(if f.log { "log only" } else { "data only" }),
                    ]
                })
                .collect();
            self.send_result(
                sink,
                &[
                    "name:nvarchar(128)",
                    "fileid:smallint",
                    "filename:nchar(260)",
                    "filegroup:nvarchar(128)",
                    "size:nvarchar(18)",
                    "maxsize:nvarchar(18)",
                    "growth:nvarchar(18)",
                    "usage:varchar(9)",
                ],
                rows,
            )?;
        }
        Ok(0)
    }

    /// `sp_tables`: the tables and views of the current database (ODBC catalog shape).
    pub(super) fn sp_tables(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let name_pat = args.text("@table_name");
        let owner_pat = args.text("@table_owner");
        self.check_qualifier(args)?;
        let types_filter = args.text("@table_type");
        let use_pattern = args.get("@fUsePattern").is_none_or(|v| {
            !matches!(v, Value::Bit(false))
                && crate::interp::value_to_i64(v)
                    .map(|n| n != 0)
                    .unwrap_or(true)
        });
        let matches = |pat: &Option<String>, s: &str| match pat {
            None => true,
            Some(p) if use_pattern => like_ci(s, p),
            Some(p) => catalog::name_eq(s, p),
        };
        let h = self.current_db()?;
        let db = h.def.name.clone();
        let mut rows: Vec<(String, String, String)> = Vec::new();
        for o in h.cat.read().objects.values() {
            let kind = match o {
                // shipped tables (spt_values) are system tables to the ODBC catalog
                SchemaObject::Table(_) if crate::bootstrap::is_ms_shipped(o) => "SYSTEM TABLE",
                SchemaObject::Table(t) if !t.is_temp => "TABLE",
                SchemaObject::View(_) => "VIEW",
                _ => continue,
            };
            if let Some(tf) = &types_filter {
                if !tf.to_ascii_uppercase().contains(&format!("'{kind}'")) {
                    continue;
                }
            }
            if matches(&name_pat, o.name()) && matches(&owner_pat, o.schema()) {
                rows.push((
                    kind.to_string(),
                    o.schema().to_string(),
                    o.name().to_string(),
                ));
            }
        }
        rows.sort();
        let rows = rows
            .into_iter()
            .map(|(k, s, n)| vec![nv(&db), nv(&s), nv(&n), vc(&k), Value::Null])
            .collect();
        self.send_result(
            sink,
            &[
                "TABLE_QUALIFIER:nvarchar(128)",
                "TABLE_OWNER:nvarchar(128)",
                "TABLE_NAME:nvarchar(128)",
                "TABLE_TYPE:varchar(32)",
                "REMARKS:varchar(254)",
            ],
            rows,
        )?;
        Ok(0)
    }

    /// `sp_columns @table_name [, @table_owner, @table_qualifier, @column_name, @ODBCVer]`:
    /// ODBC SQLColumns rows (ODBC 2 type codes, as SQL Server answers by default).
    pub(super) fn sp_columns(&mut self, args: &Args, sink: &mut dyn EventSink) -> SqlResult<i32> {
        let table_pat = args.required("@table_name")?;
        // ODBC 3 codes differ for the date/time types: only the default (2) is produced
        if let Some(v) = args.get("@ODBCVer") {
            if crate::interp::value_to_i64(v)? != 2 {
                return Err(SqlError::unsupported("sp_columns @ODBCVer other than 2"));
            }
        }
        let owner_pat = args.text("@table_owner");
        let col_pat = args.text("@column_name");
        self.check_qualifier(args)?;
        let h = self.current_db()?;
        let db = h.def.name.clone();
        let mut tables: Vec<(String, String, Vec<ColumnDef>)> = Vec::new();
        let objs: Vec<SchemaObject> = h.cat.read().objects.values().cloned().collect();
        for o in objs {
            if !like_ci(o.name(), &table_pat)
                || !owner_pat.as_deref().is_none_or(|p| like_ci(o.schema(), p))
            {
                continue;
            }
            let cols = match &o {
                SchemaObject::Table(t) if !t.is_temp => t.columns.clone(),
                SchemaObject::View(v) => self.view_columns(&v.schema, &v.name)?,
                _ => continue,
            };
            tables.push((o.schema().to_string(), o.name().to_string(), cols));
        }
        tables.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let mut rows = Vec::new();
        for (schema, name, cols) in &tables {
            for (i, c) in cols.iter().enumerate() {
                if !col_pat.as_deref().is_none_or(|p| like_ci(&c.name, p)) {
                    continue;
                }
                rows.push(odbc_column_row(&db, schema, name, i, c));
            }
        }
        self.send_result(
            sink,
            &[
                "TABLE_QUALIFIER:nvarchar(128)",
                "TABLE_OWNER:nvarchar(128)",
                "TABLE_NAME:nvarchar(128)",
                "COLUMN_NAME:nvarchar(128)",
                "DATA_TYPE:smallint",
                "TYPE_NAME:nvarchar(128)",
                "PRECISION:int",
                "LENGTH:int",
                "SCALE:smallint",
                "RADIX:smallint",
                "NULLABLE:smallint",
                "REMARKS:varchar(254)",
                "COLUMN_DEF:nvarchar(4000)",
                "SQL_DATA_TYPE:smallint",
                "SQL_DATETIME_SUB:smallint",
                "CHAR_OCTET_LENGTH:int",
                "ORDINAL_POSITION:int",
                "IS_NULLABLE:varchar(254)",
                "SS_DATA_TYPE:tinyint",
            ],
            rows,
        )?;
        Ok(0)
    }
}

const TYPE_SPEC: &[&str] = &[
    "Type_name:nvarchar(128)",
    "Storage_type:nvarchar(128)",
    "Length:smallint",
    "Prec:int",
    "Scale:int",
    "Nullable:varchar(35)",
    "Default_name:nvarchar(128)",
    "Rule_name:nvarchar(128)",
    "Collation:nvarchar(128)",
];

const USER_TYPE_SPEC: &[&str] = &[
    "User_type:nvarchar(128)",
    "Storage_type:nvarchar(128)",
    "Length:smallint",
    "Prec:int",
    "Scale:int",
    "Nullable:varchar(35)",
    "Default_name:nvarchar(128)",
    "Rule_name:nvarchar(128)",
    "Collation:nvarchar(128)",
];

/// A row of sp_help's data type result set.
fn type_row(name: &str, base: Option<&DataType>, nullable: bool) -> Vec<Value> {
    let base = base.cloned().unwrap_or(DataType::Int);
    let (_, len, p, s) = type_info(&base);
    vec![
        nv(name),
        nv(base.sql_name()),
        Value::SmallInt(len.clamp(-1, i16::MAX as i32) as i16),
        Value::Int(p),
        Value::Int(s),
        yes_no(nullable),
        Value::Null,
        Value::Null,
        if base.is_string() {
            nv(COLLATION)
        } else {
            Value::Null
        },
    ]
}

fn param_row(name: &str, t: &DataType, order: i32) -> Vec<Value> {
    let (_, len, p, s) = type_info(t);
    vec![
        nv(name),
        nv(t.sql_name()),
        Value::SmallInt(len.clamp(-1, i16::MAX as i32) as i16),
        Value::Int(p),
        Value::Int(s),
        Value::Int(order),
        if t.is_string() {
            nv(COLLATION)
        } else {
            Value::Null
        },
    ]
}

/// Splits a module's text as sp_helptext does: at line breaks (each row keeps its `\n`), and
/// every 255 characters within a longer line.
pub(crate) fn helptext_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.split_inclusive('\n') {
        let chars: Vec<char> = line.chars().collect();
        for chunk in chars.chunks(255) {
            out.push(chunk.iter().collect());
        }
    }
    out
}

/// Case-insensitive LIKE with `%`, `_` and `[...]` (the ODBC catalog procedures' patterns).
fn like_ci(s: &str, pat: &str) -> bool {
    exec::eval::like(&s.to_lowercase(), &pat.to_lowercase(), None)
}

/// One sp_columns row (ODBC 2 codes; PRECISION / LENGTH / SS_DATA_TYPE as SQL Server's
/// `spt_datatype_info`).
fn odbc_column_row(db: &str, schema: &str, table: &str, i: usize, c: &ColumnDef) -> Vec<Value> {
    let t = &c.data_type;
    let max = |n: Option<u32>| n.map(|n| n as i32).unwrap_or(i32::MAX);
    let (_, _, p, s) = type_info(t);
    // (DATA_TYPE, PRECISION, LENGTH, SCALE, RADIX, SS_DATA_TYPE not null / null)
    let (code, prec, len, scale, radix, ss): (i16, i32, i32, Option<i16>, Option<i16>, (u8, u8)) =
        match t {
            DataType::Bit => (-7, 1, 1, None, None, (50, 50)),
            DataType::TinyInt => (-6, 3, 1, Some(0), Some(10), (48, 38)),
            DataType::SmallInt => (5, 5, 2, Some(0), Some(10), (52, 38)),
            DataType::Int => (4, 10, 4, Some(0), Some(10), (56, 38)),
            DataType::BigInt => (-5, 19, 8, Some(0), Some(10), (63, 108)),
            DataType::Decimal { precision, scale } => (
                3,
                *precision as i32,
                *precision as i32 + 2,
                Some(*scale as i16),
                Some(10),
                (55, 106),
            ),
            DataType::Numeric { precision, scale } => (
                2,
                *precision as i32,
                *precision as i32 + 2,
                Some(*scale as i16),
                Some(10),
                (63, 108),
            ),
            DataType::Float => (6, 15, 8, None, Some(10), (62, 109)),
            DataType::Real => (7, 7, 4, None, Some(10), (59, 109)),
            DataType::Money => (3, 19, 21, Some(4), Some(10), (60, 110)),
            DataType::SmallMoney => (3, 10, 12, Some(4), Some(10), (122, 110)),
            DataType::Char(n) => (1, *n as i32, *n as i32, None, None, (47, 47)),
            DataType::VarChar(n) => (12, max(*n), max(*n), None, None, (39, 39)),
            DataType::NChar(n) => (-8, *n as i32, *n as i32 * 2, None, None, (39, 39)),
            DataType::NVarChar(n) => (-9, max(*n), max(*n).saturating_mul(2), None, None, (39, 39)),
            DataType::Binary(n) => (-2, *n as i32, *n as i32, None, None, (45, 45)),
            DataType::VarBinary(n) => (-3, max(*n), max(*n), None, None, (37, 37)),
            DataType::DateTime => (11, 23, 16, Some(3), None, (61, 111)),
            DataType::SmallDateTime => (11, 16, 16, Some(0), None, (58, 111)),
            DataType::Date => (-9, 10, 20, None, None, (0, 0)),
            DataType::Time(_) | DataType::DateTime2(_) | DataType::DateTimeOffset(_) => {
                (-9, p, p * 2, Some(s as i16), None, (0, 0))
            }
            DataType::UniqueIdentifier => (-11, 36, 16, None, None, (0, 0)),
            DataType::Null => (4, 10, 4, Some(0), Some(10), (56, 38)),
        };
    let (sql_type, sub) = match t {
        DataType::DateTime | DataType::SmallDateTime => (9, Some(3)),
        _ => (code, None),
    };
    let mut type_name = c
        .user_type
        .clone()
        .unwrap_or_else(|| t.sql_name().to_string());
    if c.identity.is_some() {
        type_name.push_str(" identity");
    }
    let octet = if t.is_string() || matches!(t, DataType::Binary(_) | DataType::VarBinary(_)) {
        Value::Int(len)
    } else {
        Value::Null
    };
    vec![
        nv(db),
        nv(schema),
        nv(table),
        nv(&c.name),
        Value::SmallInt(code),
        nv(&type_name),
        Value::Int(prec),
        Value::Int(len),
        scale.map_or(Value::Null, Value::SmallInt),
        radix.map_or(Value::Null, Value::SmallInt),
        Value::SmallInt(c.nullable as i16),
        Value::Null,
        c.default
            .as_ref()
            .map_or(Value::Null, |d| nv(&format!("({d})"))),
        Value::SmallInt(sql_type),
        sub.map_or(Value::Null, Value::SmallInt),
        octet,
        Value::Int(i as i32 + 1),
        vc(if c.nullable { "YES" } else { "NO" }),
        Value::TinyInt(if c.nullable { ss.1 } else { ss.0 }),
    ]
}
