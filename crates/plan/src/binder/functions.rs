//! Built-in scalar functions: name → evaluation id + result type.

use common::{SqlError, SqlResult};
use parser::ast;
use types::DataType;

use super::{Binder, ExprCtx};
use crate::scalar::*;
use crate::typing;

fn str_type_of(t: &DataType) -> DataType {
    if t.is_unicode() {
        DataType::NVarChar(t.char_length().or(Some(4000)))
    } else if t.is_string() {
        DataType::VarChar(t.char_length().or(Some(8000)))
    } else {
        DataType::VarChar(Some(8000))
    }
}

impl Binder<'_> {
    pub(crate) fn bind_function(
        &self,
        f: &ast::FunctionCall,
        ctx: &mut ExprCtx,
    ) -> SqlResult<ScalarExpr> {
        let name = f.name.name_str().to_ascii_uppercase();
        if f.name.parts.len() > 1 {
            // user-defined (schema-qualified) function: resolved by the engine at run time
            let mut args = Vec::new();
            for a in &f.args {
                args.push(self.bind_expr(a, ctx)?);
            }
            let qn = super::qualified_name(&f.name);
            let t = match self.env.resolve_module(&qn)? {
                // a table-valued function is not a scalar (4121, as for an unknown name)
                Some(m) if !super::tvf::is_table_function(&m) => {
                    m.returns.clone().unwrap_or(DataType::Int)
                }
                _ => {
                    return Err(SqlError::custom(
                        4121,
                        16,
                        1,
                        format!("Cannot find either column \"{}\" or the user-defined function or aggregate \"{}\", or the name is ambiguous.", f.name.parts[0].value, f.name.parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join(".")),
                    ))
                }
            };
            let full = f
                .name
                .parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            return Ok(ScalarExpr::new(
                ScalarKind::Function {
                    func: ScalarFunc::Named,
                    name: full,
                    args,
                },
                t,
            ));
        }
        // COALESCE / ISNULL whose first argument is a non-NULL constant is that constant
        // (SQL Server simplifies it while binding: the other arguments are never evaluated,
        // nor checked against GROUP BY)
        if matches!(name.as_str(), "COALESCE" | "ISNULL") && f.args.len() >= 2 {
            let first = self.bind_expr(&f.args[0], ctx)?;
            if matches!(&first.kind, ScalarKind::Literal(v) if !v.is_null()) {
                let mut t = first.data_type.clone();
                if name == "COALESCE" {
                    for a in &f.args[1..] {
                        if let Ok(b) = self.bind_expr(a, ctx) {
                            t = typing::unify(&t, &b.data_type);
                        }
                    }
                }
                return Ok(super::convert_to(first, &t));
            }
        }
        // date-part keyword arguments stay as text literals
        let datepart_first = matches!(
            name.as_str(),
            "DATEADD"
                | "DATEDIFF"
                | "DATEDIFF_BIG"
                | "DATEPART"
                | "DATENAME"
                | "DATETRUNC"
                | "DATE_BUCKET"
        );
        let mut args = Vec::new();
        for (i, a) in f.args.iter().enumerate() {
            // `UPDATE(col)` in a trigger: the column name, checked by the engine.
            if i == 0 && name == "UPDATE" {
                if let ast::Expr::Column(n) = a {
                    args.push(ScalarExpr::literal(
                        types::Value::NVarChar(n.name_str().to_string()),
                        DataType::NVarChar(Some(128)),
                    ));
                    continue;
                }
            }
            if i == 1 && name == "ISJSON" {
                args.push(super::for_clause::json_type_constraint(a)?);
                continue;
            }
            if i == 0 && datepart_first {
                if let ast::Expr::Column(n) = a {
                    args.push(ScalarExpr::literal(
                        types::Value::VarChar(n.name_str().to_ascii_lowercase()),
                        DataType::VarChar(Some(30)),
                    ));
                    continue;
                }
            }
            args.push(self.bind_expr(a, ctx)?);
        }
        let n = args.len();
        let t0 = args
            .first()
            .map(|a| a.data_type.clone())
            .unwrap_or(DataType::Int);
        let arity = |lo: usize, hi: usize| -> SqlResult<()> {
            if n < lo || n > hi {
                return Err(SqlError::new(174, &[&name.to_lowercase(), &lo]));
            }
            Ok(())
        };
        use ScalarFunc as F;
        const SPECIAL: &[&str] = &[
            "ISNULL",
            "COALESCE",
            "NULLIF",
            "IIF",
            "CHOOSE",
            "OBJECT_ID",
            "OBJECT_NAME",
            "DB_NAME",
            "DB_ID",
            "SCHEMA_NAME",
            "USER_NAME",
            "SUSER_SNAME",
            "SUSER_NAME",
            "HOST_NAME",
            "APP_NAME",
            "SCOPE_IDENTITY",
            "IDENT_CURRENT",
            "SERVERPROPERTY",
            "DATABASEPROPERTYEX",
            "COLUMNPROPERTY",
            "TYPE_NAME",
            "ERROR_NUMBER",
            "ERROR_MESSAGE",
            "ERROR_SEVERITY",
            "ERROR_STATE",
            "ERROR_LINE",
            "ERROR_PROCEDURE",
            "XACT_STATE",
            "IS_SRVROLEMEMBER",
            "IS_MEMBER",
            "INDEXPROPERTY",
            "STATS_DATE",
            "SESSIONPROPERTY",
            "ROWCOUNT_BIG",
            "USER_ID",
            "SUSER_ID",
            "SUSER_SID",
            "PWDCOMPARE",
            "PWDENCRYPT",
            "LOGINPROPERTY",
            "OBJECTPROPERTY",
            "OBJECTPROPERTYEX",
            "DATABASE_PRINCIPAL_ID",
            "HAS_PERMS_BY_NAME",
            "CONTEXT_INFO",
            "FULLTEXTSERVICEPROPERTY",
            "APPLOCK_MODE",
            "APPLOCK_TEST",
            "SCHEMA_ID",
            "TYPE_ID",
            "COL_NAME",
            "COL_LENGTH",
            "OBJECT_SCHEMA_NAME",
            "ORIGINAL_LOGIN",
            "OBJECT_DEFINITION",
            "CONNECTIONPROPERTY",
            "IDENT_SEED",
            "IDENT_INCR",
            "CURRENT_TRANSACTION_ID",
            "FILEGROUP_NAME",
            "FILEGROUP_ID",
        ];
        if !SPECIAL.contains(&name.as_str()) {
            let arg_types: Vec<DataType> = args.iter().map(|a| a.data_type.clone()).collect();
            match types::functions::function_result_type(&name, &arg_types) {
                Ok(t) => {
                    let mut args = args;
                    let name = if name == "JSON_MODIFY" {
                        super::for_clause::json_modify_name(&args).to_string()
                    } else {
                        name
                    };
                    if matches!(name.as_str(), "DATEPART" | "DATENAME") && reads_datefirst(&args) {
                        // weekday and week numbers follow SET DATEFIRST (types::functions)
                        args.push(self.system_variable("DATEFIRST"));
                    }
                    return Ok(ScalarExpr::new(
                        ScalarKind::Function {
                            func: F::Builtin,
                            name,
                            args,
                        },
                        t,
                    ));
                }
                Err(e) if e.number != 195 => return Err(e),
                Err(_) => {}
            }
        }
        let (func, t) = match name.as_str() {
            "ABS" => {
                arity(1, 1)?;
                (F::Abs, t0.clone())
            }
            "CEILING" => {
                arity(1, 1)?;
                (F::Ceiling, ceil_type(&t0))
            }
            "FLOOR" => {
                arity(1, 1)?;
                (F::Floor, ceil_type(&t0))
            }
            "ROUND" => {
                arity(2, 3)?;
                (F::Round, round_type(&t0))
            }
            "POWER" => {
                arity(2, 2)?;
                (
                    F::Power,
                    if t0.is_integer() {
                        t0.clone()
                    } else {
                        DataType::Float
                    },
                )
            }
            "SQRT" => {
                arity(1, 1)?;
                (F::Sqrt, DataType::Float)
            }
            "SQUARE" => {
                arity(1, 1)?;
                (F::Square, DataType::Float)
            }
            "EXP" => (F::Exp, DataType::Float),
            "LOG" => (F::Log, DataType::Float),
            "LOG10" => (F::Log10, DataType::Float),
            "SIN" => (F::Sin, DataType::Float),
            "COS" => (F::Cos, DataType::Float),
            "TAN" => (F::Tan, DataType::Float),
            "ATAN" => (F::Atan, DataType::Float),
            "SIGN" => {
                arity(1, 1)?;
                (
                    F::Sign,
                    if t0.is_integer() {
                        DataType::Int
                    } else {
                        t0.clone()
                    },
                )
            }
            "PI" => (F::Pi, DataType::Float),
            "RAND" => (F::Rand, DataType::Float),
            "LEN" => {
                arity(1, 1)?;
                (
                    F::Len,
                    if matches!(
                        t0,
                        DataType::VarChar(None)
                            | DataType::NVarChar(None)
                            | DataType::VarBinary(None)
                    ) {
                        DataType::BigInt
                    } else {
                        DataType::Int
                    },
                )
            }
            "DATALENGTH" => {
                arity(1, 1)?;
                (F::DataLength, DataType::Int)
            }
            "UPPER" => {
                arity(1, 1)?;
                (F::Upper, str_type_of(&t0))
            }
            "LOWER" => {
                arity(1, 1)?;
                (F::Lower, str_type_of(&t0))
            }
            "LTRIM" => (F::LTrim, str_type_of(&t0)),
            "RTRIM" => (F::RTrim, str_type_of(&t0)),
            "TRIM" => (F::Trim, str_type_of(&t0)),
            "REVERSE" => (F::Reverse, str_type_of(&t0)),
            "LEFT" => {
                arity(2, 2)?;
                (F::Left, str_type_of(&t0))
            }
            "RIGHT" => {
                arity(2, 2)?;
                (F::Right, str_type_of(&t0))
            }
            "SUBSTRING" => {
                arity(3, 3)?;
                (F::Substring, str_type_of(&t0))
            }
            "REPLACE" => {
                arity(3, 3)?;
                (
                    F::Replace,
                    if t0.is_unicode() {
                        DataType::NVarChar(Some(4000))
                    } else {
                        DataType::VarChar(Some(8000))
                    },
                )
            }
            "REPLICATE" => {
                arity(2, 2)?;
                (
                    F::Replicate,
                    if t0.is_unicode() {
                        DataType::NVarChar(Some(4000))
                    } else {
                        DataType::VarChar(Some(8000))
                    },
                )
            }
            "SPACE" => (F::Space, DataType::VarChar(Some(8000))),
            "CHARINDEX" => {
                arity(2, 3)?;
                (F::CharIndex, DataType::Int)
            }
            "PATINDEX" => (F::PatIndex, DataType::Int),
            "CONCAT" => {
                let uni = args.iter().any(|a| a.data_type.is_unicode());
                (
                    F::Concat,
                    if uni {
                        DataType::NVarChar(Some(4000))
                    } else {
                        DataType::VarChar(Some(8000))
                    },
                )
            }
            "CONCAT_WS" => (F::ConcatWs, DataType::VarChar(Some(8000))),
            "STUFF" => (F::Stuff, str_type_of(&t0)),
            "ASCII" => (F::Ascii, DataType::Int),
            "UNICODE" => (F::Unicode, DataType::Int),
            "CHAR" => (F::Char, DataType::Char(1)),
            "NCHAR" => (F::NChar, DataType::NChar(1)),
            "STR" => (F::Str, DataType::VarChar(Some(10))),
            "QUOTENAME" => (F::QuoteName, DataType::NVarChar(Some(258))),
            "FORMAT" => (F::Format, DataType::NVarChar(Some(4000))),
            "ISNULL" => {
                arity(2, 2)?;
                let t = if t0 == DataType::Null {
                    args[1].data_type.clone()
                } else {
                    t0.clone()
                };
                (F::IsNull, t)
            }
            "COALESCE" => {
                if n < 1 {
                    return Err(SqlError::custom(
                        189,
                        15,
                        1,
                        "The coalesce function requires 1 argument(s).",
                    ));
                }
                let mut t = DataType::Null;
                for a in &args {
                    t = typing::unify(&t, &a.data_type);
                }
                (F::Coalesce, t)
            }
            "NULLIF" => {
                arity(2, 2)?;
                (F::NullIf, t0.clone())
            }
            "IIF" => {
                arity(3, 3)?;
                (
                    F::Iif,
                    typing::unify(&args[1].data_type, &args[2].data_type),
                )
            }
            "CHOOSE" => {
                let mut t = DataType::Null;
                for a in &args[1.min(n)..] {
                    t = typing::unify(&t, &a.data_type);
                }
                (F::Choose, t)
            }
            "GETDATE" | "CURRENT_TIMESTAMP" => (F::GetDate, DataType::DateTime),
            "SYSDATETIME" => (F::SysDateTime, DataType::DateTime2(7)),
            "GETUTCDATE" => (F::GetUtcDate, DataType::DateTime),
            "DATEADD" => (
                F::DateAdd,
                args.get(2)
                    .map(|a| {
                        if a.data_type.is_string() {
                            DataType::DateTime
                        } else {
                            a.data_type.clone()
                        }
                    })
                    .unwrap_or(DataType::DateTime),
            ),
            "DATEDIFF" => (F::DateDiff, DataType::Int),
            "DATEDIFF_BIG" => (F::Named, DataType::BigInt),
            "DATEPART" => (F::DatePart, DataType::Int),
            "DATENAME" => (F::DateName, DataType::NVarChar(Some(30))),
            "YEAR" => (F::Year, DataType::Int),
            "MONTH" => (F::Month, DataType::Int),
            "DAY" => (F::Day, DataType::Int),
            "EOMONTH" => (F::EoMonth, DataType::Date),
            "DATEFROMPARTS" => (F::DateFromParts, DataType::Date),
            "ISNUMERIC" => (F::IsNumeric, DataType::Int),
            "ISDATE" => (F::IsDate, DataType::Int),
            "NEWID" => (F::NewId, DataType::UniqueIdentifier),
            "OBJECT_ID" => (F::ObjectId, DataType::Int),
            "OBJECT_NAME" => (F::ObjectName, DataType::NVarChar(Some(128))),
            "DB_NAME" => (F::DbName, DataType::NVarChar(Some(128))),
            "DB_ID" => (F::DbId, DataType::SmallInt),
            "SCHEMA_NAME" => (F::SchemaName, DataType::NVarChar(Some(128))),
            "USER_NAME" => (F::UserName, DataType::NVarChar(Some(128))),
            "SUSER_SNAME" | "SUSER_NAME" => (F::SuserSname, DataType::NVarChar(Some(128))),
            "HOST_NAME" => (F::HostName, DataType::NVarChar(Some(128))),
            "APP_NAME" => (F::AppName, DataType::NVarChar(Some(128))),
            "SCOPE_IDENTITY" => (
                F::ScopeIdentity,
                DataType::Numeric {
                    precision: 38,
                    scale: 0,
                },
            ),
            "IDENT_CURRENT" => (
                F::Named,
                DataType::Numeric {
                    precision: 38,
                    scale: 0,
                },
            ),
            "SERVERPROPERTY" => (F::ServerProperty, DataType::NVarChar(Some(128))),
            "DATABASEPROPERTYEX" => (F::DatabasePropertyEx, DataType::NVarChar(Some(128))),
            "COLUMNPROPERTY" => (F::ColumnProperty, DataType::Int),
            "TYPE_NAME" => (F::TypeName, DataType::NVarChar(Some(128))),
            "ERROR_NUMBER" => (F::ErrorNumber, DataType::Int),
            "ERROR_MESSAGE" => (F::ErrorMessage, DataType::NVarChar(Some(4000))),
            "ERROR_SEVERITY" => (F::ErrorSeverity, DataType::Int),
            "ERROR_STATE" => (F::ErrorState, DataType::Int),
            "ERROR_LINE" => (F::ErrorLine, DataType::Int),
            "ERROR_PROCEDURE" => (F::ErrorProcedure, DataType::NVarChar(Some(128))),
            // session / catalog functions evaluated by the engine (ExecEnv::call_function)
            "XACT_STATE" => (F::Named, DataType::SmallInt),
            "IS_SRVROLEMEMBER"
            | "IS_MEMBER"
            | "INDEXPROPERTY"
            | "USER_ID"
            | "SUSER_ID"
            | "OBJECTPROPERTY"
            | "DATABASE_PRINCIPAL_ID"
            | "HAS_PERMS_BY_NAME"
            | "FULLTEXTSERVICEPROPERTY"
            | "APPLOCK_TEST"
            | "SCHEMA_ID"
            | "TYPE_ID" => (F::Named, DataType::Int),
            "ROWCOUNT_BIG" => (F::Named, DataType::BigInt),
            "FILEGROUP_NAME" => (F::Named, DataType::NVarChar(Some(128))),
            "FILEGROUP_ID" => (F::Named, DataType::Int),
            "STATS_DATE" => (F::Named, DataType::DateTime),
            "COL_LENGTH" => (F::Named, DataType::SmallInt),
            "IDENT_SEED" | "IDENT_INCR" => (
                F::Named,
                DataType::Numeric {
                    precision: 38,
                    scale: 0,
                },
            ),
            "CURRENT_TRANSACTION_ID" => (F::Named, DataType::BigInt),
            "SUSER_SID" => (F::Named, DataType::VarBinary(Some(85))),
            "PWDCOMPARE" => (F::Named, DataType::Int),
            "PWDENCRYPT" => (F::Named, DataType::VarBinary(Some(256))),
            "LOGINPROPERTY" => (F::Named, DataType::NVarChar(Some(256))),
            "CONTEXT_INFO" => (F::Named, DataType::VarBinary(Some(128))),
            "SESSIONPROPERTY" | "OBJECTPROPERTYEX" | "CONNECTIONPROPERTY" => {
                (F::Named, DataType::NVarChar(Some(128)))
            }
            "FORMATMESSAGE" => (F::Named, DataType::NVarChar(Some(2047))),
            "APPLOCK_MODE" => (F::Named, DataType::NVarChar(Some(32))),
            "COL_NAME" | "OBJECT_SCHEMA_NAME" | "ORIGINAL_LOGIN" => {
                (F::Named, DataType::NVarChar(Some(128)))
            }
            "OBJECT_DEFINITION" => (F::Named, DataType::NVarChar(None)),
            // trigger functions (answered by the engine's trigger context)
            "UPDATE" => {
                arity(1, 1)?;
                (F::Named, DataType::Bit)
            }
            "TRIGGER_NESTLEVEL" => (F::Named, DataType::Int),
            "COLUMNS_UPDATED" => {
                arity(0, 0)?;
                (F::Named, DataType::VarBinary(Some(8000)))
            }
            _ => {
                // user-defined function in the default schema?
                let qn = catalog::QualifiedName::bare(name.clone());
                match self.env.resolve_module(&qn)? {
                    Some(m) => (F::Named, m.returns.clone().unwrap_or(DataType::Int)),
                    None => {
                        return Err(SqlError::custom(
                            195,
                            15,
                            1,
                            format!(
                                "'{}' is not a recognized built-in function name.",
                                f.name.name_str()
                            ),
                        ))
                    }
                }
            }
        };
        let is_update = name == "UPDATE";
        let call = ScalarExpr::new(ScalarKind::Function { func, name, args }, t);
        if is_update {
            // `UPDATE(col)` is a search condition: `call = 1`
            let one = ScalarExpr::literal(types::Value::Bit(true), DataType::Bit);
            return Ok(ScalarExpr::new(
                ScalarKind::Compare(crate::scalar::CmpOp::Eq, Box::new(call), Box::new(one)),
                DataType::Bit,
            ));
        }
        Ok(call)
    }
}

fn ceil_type(t: &DataType) -> DataType {
    match t {
        DataType::Decimal { precision, .. } | DataType::Numeric { precision, .. } => {
            DataType::Decimal {
                precision: *precision,
                scale: 0,
            }
        }
        DataType::Real => DataType::Float,
        DataType::Bit | DataType::Null => DataType::Int,
        other => other.clone(),
    }
}

fn round_type(t: &DataType) -> DataType {
    match t {
        DataType::Decimal { precision, scale } | DataType::Numeric { precision, scale } => {
            DataType::Decimal {
                precision: (*precision + 1).min(38),
                scale: *scale,
            }
        }
        DataType::Real => DataType::Float,
        DataType::Bit | DataType::Null => DataType::Int,
        other => other.clone(),
    }
}

/// Whether a DATEPART / DATENAME call depends on SET DATEFIRST: only week and weekday
/// numbers do (`types::functions::datepart_value`). Any other literal part gets no `@@DATEFIRST` argument, so the call stays a pure expression a
/// parallel worker may evaluate (TPC-H Q7, Q8, Q9's `DATEPART(year, ...)`); a part that is
/// not a literal keeps it.
fn reads_datefirst(args: &[ScalarExpr]) -> bool {
    let part = args
        .first()
        .and_then(|a| a.as_literal())
        .and_then(|v| v.as_str())
        .map(types::functions::DatePart::parse);
    !matches!(part, Some(Ok(p)) if !matches!(p, types::functions::DatePart::Week | types::functions::DatePart::Weekday))
}
