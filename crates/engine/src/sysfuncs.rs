//! Metadata and session functions evaluated by the engine: OBJECTPROPERTY(EX), INDEXPROPERTY,
//! TYPE_ID, COL_NAME, COL_LENGTH, OBJECT_SCHEMA_NAME, IDENT_SEED/IDENT_INCR, USER_ID, SUSER_ID,
//! DATABASE_PRINCIPAL_ID, HAS_PERMS_BY_NAME, FULLTEXTSERVICEPROPERTY, SESSIONPROPERTY,
//! CONTEXT_INFO. The binder (plan::binder::functions) fixes their result types; every answer
//! here has exactly that type. Unknown objects or properties give NULL, as in SQL Server.

use catalog::{name_eq, ModuleKind, SchemaObject, TableDef};
use common::SqlResult;
use types::{DataType, Value};

use crate::session::Session;

fn text(v: &Value) -> Option<String> {
    if v.is_null() {
        return None;
    }
    crate::render::value_text(v, &DataType::NVarChar(None))
}

fn int_arg(v: Option<&Value>) -> SqlResult<Option<i64>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_null() => Ok(None),
        Some(v) => crate::interp::value_to_i64(v).map(Some),
    }
}

fn flag(b: bool) -> Value {
    Value::Int(b as i32)
}

/// `sys.types` user_type_id of a system type name.
fn system_type_id(name: &str) -> Option<i32> {
    crate::sysviews::SYSTEM_TYPES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(n, id)| if *n == "sysname" { 256 } else { *id })
}

impl Session {
    fn object_by_id(&self, id: i64) -> SqlResult<Option<SchemaObject>> {
        let h = self.current_db()?;
        let cat = h.cat.read();
        Ok(i32::try_from(id)
            .ok()
            .and_then(|id| cat.objects.get(&id).cloned()))
    }

    fn table_by_name(&self, name: &str) -> SqlResult<Option<std::sync::Arc<TableDef>>> {
        let q = crate::ddl::qualified_from_text(name);
        Ok(match self.find_object(&q)? {
            Some((_, SchemaObject::Table(t))) => Some(t),
            _ => None,
        })
    }

    fn has_trigger(&self, table_id: i32, pred: impl Fn(&catalog::TriggerDef) -> bool) -> bool {
        let Ok(h) = self.current_db() else {
            return false;
        };
        let cat = h.cat.read();
        let found = cat.objects.values().any(|o| match o {
            SchemaObject::Module(m) => m
                .trigger
                .as_ref()
                .is_some_and(|t| t.table_object_id == table_id && pred(t)),
            _ => false,
        });
        found
    }

    /// OBJECTPROPERTY / OBJECTPROPERTYEX value, or NULL.
    fn object_property(&self, id: i64, prop: &str, ex: bool) -> SqlResult<Value> {
        let Some(o) = self.object_by_id(id)? else {
            return Ok(Value::Null);
        };
        let p = prop.to_ascii_lowercase();
        let module = match &o {
            SchemaObject::Module(m) => Some(m.kind),
            _ => None,
        };
        let table = match &o {
            SchemaObject::Table(t) => Some(t.clone()),
            _ => None,
        };
        let tflag = |f: &dyn Fn(&TableDef) -> bool| match &table {
            Some(t) => flag(f(t)),
            None => Value::Null,
        };
        let v = match p.as_str() {
            "basetype" if ex => return Ok(Value::NVarChar(o.type_code().to_string())),
            "schemaid" => Value::Int(
                self.current_db()?
                    .cat
                    .read()
                    .schema(o.schema())
                    .map(|s| s.schema_id)
                    .unwrap_or(1),
            ),
            "ownerid" => Value::Int(1),
            "isusertable" | "istable" => flag(table.is_some()),
            "isview" => flag(matches!(o, SchemaObject::View(_))),
            "isprocedure" => flag(module == Some(ModuleKind::Procedure)),
            "isscalarfunction" => flag(module == Some(ModuleKind::ScalarFunction)),
            "istablefunction" => flag(matches!(
                module,
                Some(ModuleKind::TableFunction | ModuleKind::InlineTableFunction)
            )),
            "isinlinefunction" => flag(module == Some(ModuleKind::InlineTableFunction)),
            "istrigger" => flag(module == Some(ModuleKind::Trigger)),
            "isexecuted" => flag(matches!(
                module,
                Some(
                    ModuleKind::Procedure
                        | ModuleKind::ScalarFunction
                        | ModuleKind::TableFunction
                        | ModuleKind::InlineTableFunction
                        | ModuleKind::Trigger
                )
            )),
            "execisinserttrigger"
            | "execisupdatetrigger"
            | "execisdeletetrigger"
            | "execisaftertrigger"
            | "execisinsteadoftrigger"
            | "execistriggerdisabled" => match &o {
                SchemaObject::Module(m) => {
                    flag(m.trigger.as_ref().is_some_and(|t| match p.as_str() {
                        "execisinserttrigger" => t.on_insert,
                        "execisupdatetrigger" => t.on_update,
                        "execisdeletetrigger" => t.on_delete,
                        "execisaftertrigger" => !t.instead_of,
                        "execisinsteadoftrigger" => t.instead_of,
                        _ => t.disabled,
                    }))
                }
                _ => flag(false),
            },
            "isconstraint" | "isprimarykey" | "isforeignkey" | "ischeckcnst" | "isdefaultcnst"
            | "isuniquecnst" | "isrule" | "isdefault" | "isqueue" | "isreplproc"
            | "isextendedproc" | "issystemtable" => flag(false),
            "ismsshipped" => flag(crate::bootstrap::is_ms_shipped(&o)),
            "isschemabound" => flag(false),
            "isdeterministic" => {
                if module.is_some_and(|k| k != ModuleKind::Procedure && k != ModuleKind::Trigger)
                    || matches!(o, SchemaObject::View(_))
                {
                    flag(false)
                } else {
                    Value::Null
                }
            }
            "execisansinullson" | "execisquotedidenton" => {
                if module.is_some() {
                    flag(true)
                } else {
                    Value::Null
                }
            }
            "isansinullson" | "isquotedidenton" => flag(true),
            "isencrypted" => flag(false),
            "isindexed" => flag(table.as_ref().is_some_and(|t| !t.indexes.is_empty())),
            "isindexable" => flag(table.is_some()),
            "tablehasidentity" => tflag(&|t| t.identity().is_some()),
            "tablehasprimarykey" => tflag(&|t| t.indexes.iter().any(|i| i.primary_key)),
            "tablehasclustindex" => tflag(&|t| t.indexes.iter().any(|i| i.clustered)),
            "tablehasnonclustindex" => tflag(&|t| t.indexes.iter().any(|i| !i.clustered)),
            "tablehasindex" => tflag(&|t| !t.indexes.is_empty()),
            "tablehasuniquecnst" => tflag(&|t| t.indexes.iter().any(|i| i.unique_constraint)),
            "tablehasforeignkey" => tflag(&|t| !t.foreign_keys.is_empty()),
            "tablehascheckcnst" => tflag(&|t| !t.checks.is_empty()),
            "tablehasdefaultcnst" => tflag(&|t| t.columns.iter().any(|c| c.default.is_some())),
            "tablehastimestamp" | "tablehastextimage" | "tablehasvardecimalstorageformat" => {
                tflag(&|_| false)
            }
            "tablehasrowguidcol" => tflag(&|t| t.columns.iter().any(|c| c.rowguidcol)),
            "tablehasactivefulltextindex" | "tablefulltextbackgroundupdateindexon" => {
                tflag(&|_| false)
            }
            "tableisfake" => tflag(&|_| false),
            "tablehasinserttrigger"
            | "tablehasupdatetrigger"
            | "tablehasdeletetrigger"
            | "hasinserttrigger"
            | "hasupdatetrigger"
            | "hasdeletetrigger"
            | "hasafterttrigger"
            | "hasaftertrigger"
            | "hasinsteadoftrigger" => match &table {
                Some(t) => {
                    let id = t.object_id;
                    let has = match p.trim_start_matches("table") {
                        "hasinserttrigger" => self.has_trigger(id, |t| t.on_insert),
                        "hasupdatetrigger" => self.has_trigger(id, |t| t.on_update),
                        "hasdeletetrigger" => self.has_trigger(id, |t| t.on_delete),
                        "hasinsteadoftrigger" => self.has_trigger(id, |t| t.instead_of),
                        _ => self.has_trigger(id, |t| !t.instead_of),
                    };
                    flag(has)
                }
                None => Value::Null,
            },
            _ => Value::Null,
        };
        Ok(if ex {
            match v {
                Value::Null => Value::Null,
                Value::Int(n) => Value::NVarChar(n.to_string()),
                other => other,
            }
        } else {
            v
        })
    }

    /// INDEXPROPERTY(object_id, index_name, property).
    fn index_property(&self, id: i64, index: &str, prop: &str) -> SqlResult<Value> {
        let Some(SchemaObject::Table(t)) = self.object_by_id(id)? else {
            return Ok(Value::Null);
        };
        let Some(ix) = t.indexes.iter().find(|i| name_eq(&i.name, index)) else {
            return Ok(Value::Null);
        };
        Ok(match prop.to_ascii_lowercase().as_str() {
            "indexid" => Value::Int(ix.index_id),
            "isclustered" => flag(ix.clustered),
            "isunique" => flag(ix.unique),
            "indexfillfactor" => Value::Int(ix.fill_factor as i32),
            "iscolumnstore" => flag(ix.kind == catalog::IndexKind::ColumnStore),
            "isstatistics"
            | "isautostatistics"
            | "ishypothetical"
            | "isfulltextkey"
            | "ispadindex"
            | "ispagelockdisallowed"
            | "isrowlockdisallowed"
            | "isdisabled" => flag(false),
            "isoptimizedforsequentialkey" => flag(ix.optimize_for_sequential_key),
            "indexdepth" => Value::Int(1),
            _ => Value::Null,
        })
    }

    /// Functions of this module; `Ok(None)` if `name` (upper case) is not one of them.
    pub(crate) fn system_function(
        &mut self,
        name: &str,
        args: &[Value],
    ) -> SqlResult<Option<Value>> {
        let a0 = args.first();
        Ok(Some(match name {
            "OBJECTPROPERTY" | "OBJECTPROPERTYEX" => {
                let (Some(id), Some(p)) = (int_arg(a0)?, args.get(1).and_then(text)) else {
                    return Ok(Some(Value::Null));
                };
                self.object_property(id, &p, name == "OBJECTPROPERTYEX")?
            }
            "FILEGROUP_NAME" => match int_arg(a0)? {
                Some(id) => crate::filegroups::filegroup_name(self, id),
                None => Value::Null,
            },
            "FILEGROUP_ID" => match a0.and_then(text) {
                Some(n) => crate::filegroups::filegroup_id(self, &n),
                None => Value::Null,
            },
            "STATS_DATE" => {
                crate::statistics::stats_date(self, int_arg(a0)?, int_arg(args.get(1))?)?
            }
            "INDEXPROPERTY" => {
                let (Some(id), Some(ix), Some(p)) = (
                    int_arg(a0)?,
                    args.get(1).and_then(text),
                    args.get(2).and_then(text),
                ) else {
                    return Ok(Some(Value::Null));
                };
                self.index_property(id, &ix, &p)?
            }
            "TYPE_ID" => {
                let Some(n) = a0.and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let q = crate::ddl::qualified_from_text(&n);
                match (q.schema.is_none())
                    .then(|| system_type_id(&q.name))
                    .flatten()
                {
                    Some(id) => Value::Int(id),
                    None => {
                        let (db, schema) = self.resolve_parts(&q);
                        match self
                            .engine()
                            .database(&db)
                            .and_then(|h| h.cat.read().user_type(&schema, &q.name))
                        {
                            Some(t) => Value::Int(t.user_type_id),
                            None => Value::Null,
                        }
                    }
                }
            }
            "TYPE_NAME" => {
                // user_type_id → name: a system type (sysname is 256, not nvarchar's 231),
                // else a user-defined type of the current database
                let Some(id) = int_arg(a0)? else {
                    return Ok(Some(Value::Null));
                };
                let system = crate::sysviews::SYSTEM_TYPES
                    .iter()
                    .find(|(n, tid)| i64::from(system_type_id(n).unwrap_or(*tid)) == id)
                    .map(|(n, _)| n.to_string());
                let name = match system {
                    Some(n) => Some(n),
                    None => {
                        let h = self.current_db()?;
                        let cat = h.cat.read();
                        cat.types
                            .iter()
                            .find(|t| i64::from(t.user_type_id) == id)
                            .map(|t| t.name.clone())
                    }
                };
                name.map(Value::NVarChar).unwrap_or(Value::Null)
            }
            "COL_NAME" => {
                let (Some(id), Some(col)) = (int_arg(a0)?, int_arg(args.get(1))?) else {
                    return Ok(Some(Value::Null));
                };
                match self.object_by_id(id)? {
                    Some(SchemaObject::Table(t)) => usize::try_from(col - 1)
                        .ok()
                        .and_then(|i| t.columns.get(i))
                        .map(|c| Value::NVarChar(c.name.clone()))
                        .unwrap_or(Value::Null),
                    _ => Value::Null,
                }
            }
            "COL_LENGTH" => {
                let (Some(tn), Some(cn)) = (a0.and_then(text), args.get(1).and_then(text)) else {
                    return Ok(Some(Value::Null));
                };
                match self.table_by_name(&tn)? {
                    Some(t) => match t.column_index(&cn) {
                        Some(i) => {
                            let (_, len, _, _) =
                                crate::sysviews::type_info(&t.columns[i].data_type);
                            Value::SmallInt(len as i16)
                        }
                        None => Value::Null,
                    },
                    None => Value::Null,
                }
            }
            "OBJECT_SCHEMA_NAME" => {
                let Some(id) = int_arg(a0)? else {
                    return Ok(Some(Value::Null));
                };
                match self.object_by_id(id)? {
                    Some(o) => Value::NVarChar(o.schema().to_string()),
                    None => Value::Null,
                }
            }
            "IDENT_SEED" | "IDENT_INCR" => {
                let Some(tn) = a0.and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                match self.table_by_name(&tn)?.and_then(|t| t.identity()) {
                    Some((_, spec)) => Value::Decimal {
                        mantissa: if name == "IDENT_SEED" {
                            spec.seed as i128
                        } else {
                            spec.increment as i128
                        },
                        scale: 0,
                    },
                    None => Value::Null,
                }
            }
            // USER_ID, SUSER_ID, IS_SRVROLEMEMBER, HAS_PERMS_BY_NAME ...: security/views.rs
            // full-text search is not installed
            "FULLTEXTSERVICEPROPERTY" => Value::Int(0),
            "SESSIONPROPERTY" => {
                let Some(p) = a0.and_then(text) else {
                    return Ok(Some(Value::Null));
                };
                let o = &self.options;
                let v = match p.to_ascii_uppercase().as_str() {
                    "ANSI_NULLS" => Some(o.ansi_nulls),
                    "ANSI_WARNINGS" => Some(o.ansi_warnings),
                    "ANSI_PADDING" => Some(o.ansi_padding),
                    "ARITHABORT" => Some(o.arithabort),
                    "CONCAT_NULL_YIELDS_NULL" => Some(o.concat_null_yields_null),
                    "QUOTED_IDENTIFIER" => Some(o.quoted_identifier),
                    "NUMERIC_ROUNDABORT" => Some(false),
                    _ => None,
                };
                match v {
                    Some(b) => Value::NVarChar(if b { "1" } else { "0" }.into()),
                    None => Value::Null,
                }
            }
            "CONTEXT_INFO" => Value::Null,
            _ => return Ok(None),
        }))
    }
}

/// Text of a DBCC argument: a string literal or a bare word.
fn dbcc_arg_text(e: &parser::ast::Expr) -> Option<String> {
    use parser::ast::{Expr, Literal};
    match e {
        Expr::Literal(Literal::String { value, .. }) => Some(value.clone()),
        Expr::Column(n) => Some(
            n.parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join("."),
        ),
        _ => None,
    }
}

/// `DBCC SQLPERF('sys.dm_os_wait_stats', CLEAR)`: resets the wait statistics. (`LOGSPACE`,
/// which returns a result set, is not supported yet.)
pub(crate) fn dbcc_sqlperf(args: &[parser::ast::Expr]) -> SqlResult<()> {
    let texts: Vec<String> = args.iter().filter_map(dbcc_arg_text).collect();
    let first = texts
        .first()
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    let clear = texts
        .get(1)
        .is_some_and(|s| s.eq_ignore_ascii_case("CLEAR"));
    match first.as_str() {
        "sys.dm_os_wait_stats" | "sys.dm_os_latch_stats" | "waitstats" if clear => {
            common::waits::clear();
            Ok(())
        }
        // No spin statistics are kept (sys.dm_os_spinlock_stats is always empty).
        "sys.dm_os_spinlock_stats" if clear => Ok(()),
        _ => Err(common::SqlError::unsupported(format!(
            "DBCC SQLPERF({})",
            texts.join(", ")
        ))),
    }
}
