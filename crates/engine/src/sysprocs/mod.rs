//! System stored procedures (`sp_help`, `sp_helptext`, `sp_helpindex`, `sp_helpdb`,
//! `sp_columns`, `sp_tables`, `sp_spaceused`, `sp_rename`, `sp_who`, `sp_who2`,
//! `sp_datatype_info`, `sp_datatype_info_100`), the session
//! registry behind `sp_who`, `SERVERPROPERTY` and `sys.key_constraints`.
//!
//! Each procedure answers with SQL Server's result-set shapes (column names, types and order
//! as Microsoft documents them) built from the catalog caches, and SQL Server's messages and
//! error numbers. They are found by name wherever they are called from (`EXEC sp_help`,
//! `master.dbo.sp_help`, `sys.sp_help`, from any database) and take positional or named
//! parameters (`@objname = ...`); a bare word is its own text, as in SQL Server.

mod help;
mod keys;
mod rename;
mod serverprop;
mod sessions;
mod space;
mod typeinfo;

use common::{SqlError, SqlResult};
use parser::ast;
use types::{DataType, Value};

use crate::events::{EventSink, OutColumn};
use crate::session::Session;

pub(crate) use keys::key_constraints;
pub(crate) use serverprop::server_property;
pub(crate) use sessions::{cpu_clock_us, from_unix_us, sql_handle_of, thread_cpu_clock, unix_us};
pub use sessions::{
    pack_statement_offsets, unpack_statement_offsets, ConnectionInfo, LiveRequest, SessionEntry,
    SessionRegistry, COMMANDS,
};

/// A system procedure: its name and its parameters in declaration order.
struct ProcSpec {
    name: &'static str,
    params: &'static [&'static str],
}

const PROCS: &[ProcSpec] = &[
    ProcSpec {
        name: "sp_help",
        params: &["@objname"],
    },
    ProcSpec {
        name: "sp_helptext",
        params: &["@objname", "@columnname"],
    },
    ProcSpec {
        name: "sp_helpindex",
        params: &["@objname"],
    },
    ProcSpec {
        name: "sp_helpdb",
        params: &["@dbname"],
    },
    ProcSpec {
        name: "sp_columns",
        params: &[
            "@table_name",
            "@table_owner",
            "@table_qualifier",
            "@column_name",
            "@ODBCVer",
        ],
    },
    ProcSpec {
        name: "sp_tables",
        params: &[
            "@table_name",
            "@table_owner",
            "@table_qualifier",
            "@table_type",
            "@fUsePattern",
        ],
    },
    ProcSpec {
        name: "sp_spaceused",
        params: &[
            "@objname",
            "@updateusage",
            "@mode",
            "@oneresultset",
            "@include_total_xtp_storage",
        ],
    },
    ProcSpec {
        name: "sp_rename",
        params: &["@objname", "@newname", "@objtype"],
    },
    ProcSpec {
        name: "sp_who",
        params: &["@loginame"],
    },
    ProcSpec {
        name: "sp_who2",
        params: &["@loginame"],
    },
    ProcSpec {
        name: "sp_datatype_info",
        params: &["@data_type", "@ODBCVer"],
    },
    ProcSpec {
        name: "sp_createstats",
        params: &["@indexonly", "@fullscan", "@norecompute", "@incremental"],
    },
    ProcSpec {
        name: "sp_updatestats",
        params: &["@resample"],
    },
    ProcSpec {
        name: "sp_datatype_info_100",
        params: &["@data_type", "@ODBCVer"],
    },
];

/// Arguments of one call, bound to the procedure's parameters (None: not supplied / DEFAULT).
pub(crate) struct Args {
    proc_name: &'static str,
    params: &'static [&'static str],
    values: Vec<Option<Value>>,
}

impl Args {
    /// The value of a parameter (None when not supplied, DEFAULT or NULL).
    fn get(&self, param: &str) -> Option<&Value> {
        let i = self
            .params
            .iter()
            .position(|p| p.eq_ignore_ascii_case(param))?;
        self.values.get(i)?.as_ref().filter(|v| !v.is_null())
    }

    /// A parameter's text (None when not supplied or NULL).
    fn text(&self, param: &str) -> Option<String> {
        self.get(param)
            .and_then(|v| crate::render::value_text(v, &DataType::NVarChar(None)))
    }

    /// A required parameter's text: Msg 201 when missing.
    fn required(&self, param: &str) -> SqlResult<String> {
        self.text(param).ok_or_else(|| {
            let mut e = SqlError::new(201, &[&self.proc_name, &param]);
            e.state = 4;
            e
        })
    }
}

/// Columns of a result set from `name:type` specs (`"Name:nvarchar(128)"`).
fn out_columns(spec: &[&str]) -> SqlResult<Vec<OutColumn>> {
    spec.iter()
        .map(|c| {
            let (name, t) = c.rsplit_once(':').unwrap_or((c, "int"));
            Ok(OutColumn {
                name: name.to_string(),
                data_type: catalog::serial::type_from_text(t)?,
            })
        })
        .collect()
}

impl Session {
    /// Runs `name` if it is one of the system procedures of this module; `Ok(None)` when it
    /// is not one (the caller looks for a user procedure).
    pub(crate) fn call_system_procedure(
        &mut self,
        name: &catalog::QualifiedName,
        args: &[ast::ExecArg],
        sink: &mut dyn EventSink,
    ) -> SqlResult<Option<i32>> {
        let Some(spec) = PROCS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(&name.name))
        else {
            return Ok(None);
        };
        // `master.dbo.sp_help` / `sys.sp_help` / `dbo.sp_help`: the schema may be sys or dbo,
        // the database any (system procedures run in the current database, as in SQL Server).
        if let Some(s) = &name.schema {
            if !(s.eq_ignore_ascii_case("sys") || s.eq_ignore_ascii_case("dbo")) {
                return Ok(None);
            }
        }
        let args = self.bind_system_args(spec, args)?;
        let status = match spec.name {
            "sp_help" => self.sp_help(&args, sink)?,
            "sp_helptext" => self.sp_helptext(&args, sink)?,
            "sp_helpindex" => self.sp_helpindex(&args, sink)?,
            "sp_helpdb" => self.sp_helpdb(&args, sink)?,
            "sp_columns" => self.sp_columns(&args, sink)?,
            "sp_tables" => self.sp_tables(&args, sink)?,
            "sp_spaceused" => self.sp_spaceused(&args, sink)?,
            "sp_rename" => self.sp_rename(&args, sink)?,
            "sp_who" => self.sp_who(&args, sink, false)?,
            "sp_who2" => self.sp_who(&args, sink, true)?,
            "sp_datatype_info" => self.sp_datatype_info(&args, sink, true)?,
            "sp_datatype_info_100" => self.sp_datatype_info(&args, sink, false)?,
            "sp_createstats" => {
                let flag = |p: &str, word: &str| -> SqlResult<bool> {
                    match args.text(p) {
                        None => Ok(false),
                        Some(v) if v.trim().eq_ignore_ascii_case(word) => Ok(true),
                        Some(v) if v.trim().eq_ignore_ascii_case("NO") => Ok(false),
                        Some(v) => {
                            Err(SqlError::unsupported(format!("sp_createstats {p} = '{v}'")))
                        }
                    }
                };
                if flag("@incremental", "incremental")? {
                    return Err(SqlError::unsupported("sp_createstats @incremental"));
                }
                let (index_only, full_scan, no_recompute) = (
                    flag("@indexonly", "indexonly")?,
                    flag("@fullscan", "fullscan")?,
                    flag("@norecompute", "norecompute")?,
                );
                self.sp_createstats(index_only, full_scan, no_recompute, sink)?
            }
            "sp_updatestats" => {
                if args.text("@resample").is_some() {
                    return Err(SqlError::unsupported("sp_updatestats @resample"));
                }
                self.sp_updatestats(sink)?
            }
            _ => return Ok(None),
        };
        Ok(Some(status))
    }

    /// Binds positional and named arguments as SQL Server does for procedures: 8144 for too
    /// many, 8145 for an unknown name, 119 for a positional argument after a named one.
    fn bind_system_args(&mut self, spec: &ProcSpec, args: &[ast::ExecArg]) -> SqlResult<Args> {
        let mut values: Vec<Option<Value>> = vec![None; spec.params.len()];
        if args.len() > spec.params.len() {
            return Err(SqlError::new(8144, &[&spec.name]));
        }
        let mut named = false;
        for (i, a) in args.iter().enumerate() {
            let slot = match &a.name {
                Some(n) => {
                    named = true;
                    spec.params
                        .iter()
                        .position(|p| p.eq_ignore_ascii_case(n))
                        .ok_or_else(|| {
                            SqlError::custom(
                                8145,
                                16,
                                2,
                                format!("{n} is not a parameter for procedure {}.", spec.name),
                            )
                        })?
                }
                None if named => {
                    return Err(SqlError::custom(
                        119,
                        15,
                        1,
                        format!("Must pass parameter number {} and subsequent parameters as '@name = value'. After the form '@name = value' has been used, all subsequent parameters must be passed in the form '@name = value'.", i + 1),
                    ))
                }
                None => i,
            };
            let v = match &a.value {
                ast::Expr::Default => None,
                // a bare word is its own text (`EXEC sp_help t`)
                ast::Expr::Column(n) if n.parts.len() == 1 => {
                    Some(Value::NVarChar(n.name_str().to_string()))
                }
                e => Some(self.eval(e)?),
            };
            values[slot] = v;
        }
        Ok(Args {
            proc_name: spec.name,
            params: spec.params,
            values,
        })
    }

    /// Sends one result set (values are converted to the declared column types).
    fn send_result(
        &self,
        sink: &mut dyn EventSink,
        spec: &[&str],
        rows: Vec<Vec<Value>>,
    ) -> SqlResult<()> {
        let cols = out_columns(spec)?;
        sink.result_start(&cols);
        let n = rows.len() as u64;
        for r in rows {
            let mut out = Vec::with_capacity(r.len());
            for (v, c) in r.into_iter().zip(&cols) {
                out.push(if v.is_null() {
                    v
                } else {
                    exec::valops::cast(&v, &c.data_type)?
                });
            }
            sink.row(&out);
        }
        sink.result_end(n, false, !self.options.nocount);
        Ok(())
    }
}

/// An informational message as SQL Server's system procedures print them (severity 0).
fn info(sink: &mut dyn EventSink, number: i32, text: String) {
    sink.message(&crate::events::InfoMessage {
        text,
        number,
        severity: 0,
        state: 1,
    });
}

fn nv(s: &str) -> Value {
    Value::NVarChar(s.to_string())
}

fn vc(s: &str) -> Value {
    Value::VarChar(s.to_string())
}
