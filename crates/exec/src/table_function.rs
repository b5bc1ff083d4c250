//! Table Valued Function: the leaf for `STRING_SPLIT`, `GENERATE_SERIES`, `OPENJSON` and
//! multi-statement user functions. Arguments are evaluated when the operator opens (inside an
//! apply they read the parameter slots of the current outer row); the rows are computed then
//! and returned one by one. User functions are run by the engine
//! ([`crate::ExecEnv::call_table_function`]).

use common::{SqlError, SqlResult};
use plan::{ColumnMeta, OpenJsonColumn, ScalarExpr, TableFunc};
use types::{DataType, Value};

use crate::context::ExecCtx;
use crate::eval::eval;
use crate::operator::Operator;

pub struct TableFunctionScan<'p> {
    func: &'p TableFunc,
    args: &'p [ScalarExpr],
    columns: &'p [ColumnMeta],
    rows: Vec<Vec<Value>>,
    pos: usize,
    /// Opened but not computed yet: the rows are computed by the first `next`, so a runtime
    /// error comes after the result's metadata (as SQL Server streams it).
    pending: bool,
    /// Arguments of the last computed call: a re-open with the same values (inner side of a
    /// join, an apply whose outer rows repeat) reuses the rows instead of re-running the
    /// function, the way SQL Server materializes a multi-statement function's table once.
    last_args: Option<Vec<Value>>,
    /// GENERATE_SERIES streams its values (a long series is never materialized).
    series: Option<Series>,
    series_row: Vec<Value>,
    /// OPENROWSET(BULK ...) streams the rows of its file (into `series_row`).
    bulk: Option<Box<dyn crate::BulkRowReader>>,
}

impl<'p> TableFunctionScan<'p> {
    pub fn new(func: &'p TableFunc, args: &'p [ScalarExpr], columns: &'p [ColumnMeta]) -> Self {
        TableFunctionScan {
            func,
            args,
            columns,
            rows: Vec::new(),
            pos: 0,
            pending: false,
            last_args: None,
            series: None,
            series_row: Vec::new(),
            bulk: None,
        }
    }
}

impl Operator for TableFunctionScan<'_> {
    fn open(&mut self, _ctx: &mut ExecCtx) -> SqlResult<()> {
        self.pos = 0;
        self.pending = true;
        self.series = None;
        self.bulk = None;
        self.series_row.clear();
        Ok(())
    }

    fn next(&mut self, ctx: &mut ExecCtx) -> SqlResult<bool> {
        ctx.check_cancel()?;
        if self.pending {
            self.pending = false;
            let mut vals = Vec::with_capacity(self.args.len());
            for a in self.args {
                vals.push(eval(a, &[], ctx)?);
            }
            if let TableFunc::GenerateSeries = self.func {
                let t = self
                    .columns
                    .first()
                    .map(|c| c.data_type.clone())
                    .unwrap_or(DataType::Int);
                self.series = Series::new(&vals, t)?;
                self.rows.clear();
                self.last_args = None;
                return self.next(ctx);
            }
            if let TableFunc::BulkRowset(spec) = self.func {
                self.bulk = Some(ctx.env.open_bulk_rowset(spec, self.columns)?);
                self.rows.clear();
                self.last_args = None;
                return self.next(ctx);
            }
            if self.last_args.as_ref() != Some(&vals) {
                self.last_args = None;
                self.rows = compute_rows(self.func, &vals, self.columns, ctx)?;
                self.last_args = Some(vals);
            }
        }
        if let Some(b) = &mut self.bulk {
            return Ok(match b.next_row(&mut ctx.messages)? {
                Some(r) => {
                    self.series_row = r;
                    true
                }
                None => {
                    self.bulk = None;
                    self.series_row.clear();
                    false
                }
            });
        }
        if let Some(s) = &mut self.series {
            return Ok(match s.next_value()? {
                Some(v) => {
                    self.series_row.clear();
                    self.series_row.push(v);
                    true
                }
                None => {
                    self.series = None;
                    self.series_row.clear();
                    false
                }
            });
        }
        if self.pos < self.rows.len() {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn row(&self) -> &[Value] {
        if !self.series_row.is_empty() {
            return &self.series_row;
        }
        match self.pos.checked_sub(1).and_then(|i| self.rows.get(i)) {
            Some(r) => r,
            None => &[],
        }
    }
}

/// All rows of one call with evaluated arguments.
pub fn compute_rows(
    func: &TableFunc,
    args: &[Value],
    columns: &[ColumnMeta],
    ctx: &mut ExecCtx,
) -> SqlResult<Vec<Vec<Value>>> {
    match func {
        TableFunc::StringSplit { ordinal } => {
            let vt = columns
                .first()
                .map(|c| c.data_type.clone())
                .unwrap_or(DataType::NVarChar(None));
            string_split(args, &vt, *ordinal)
        }
        TableFunc::GenerateSeries => {
            let t = columns
                .first()
                .map(|c| c.data_type.clone())
                .unwrap_or(DataType::Int);
            let mut rows = Vec::new();
            if let Some(mut s) = Series::new(args, t)? {
                while let Some(v) = s.next_value()? {
                    rows.push(vec![v]);
                }
            }
            Ok(rows)
        }
        TableFunc::OpenJson { with } => open_json(args, with.as_deref()),
        TableFunc::ClientRows => Ok(crate::for_clause::client_rows(args.first())),
        TableFunc::User {
            database,
            object_id,
            ..
        } => ctx.env.call_table_function(database, *object_id, args),
        TableFunc::BulkRowset(spec) => {
            let mut reader = ctx.env.open_bulk_rowset(spec, columns)?;
            let mut rows = Vec::new();
            while let Some(r) = reader.next_row(&mut ctx.messages)? {
                rows.push(r);
            }
            Ok(rows)
        }
    }
}

fn text_of(v: &Value) -> Option<&str> {
    v.as_str()
}

fn string_value(s: String, t: &DataType) -> Value {
    if t.is_unicode() {
        Value::NVarChar(s)
    } else {
        Value::VarChar(s)
    }
}

/// `STRING_SPLIT(string, separator [, enable_ordinal])`.
fn string_split(args: &[Value], vt: &DataType, ordinal: bool) -> SqlResult<Vec<Vec<Value>>> {
    let sep_err = || {
        SqlError::custom(
            214,
            16,
            1,
            "Procedure expects parameter 'separator' of type 'nchar(1)/nvarchar(1)'.",
        )
    };
    let sep = match args.get(1) {
        Some(v) => match text_of(v) {
            Some(s) => {
                let mut it = s.chars();
                match (it.next(), it.next()) {
                    (Some(c), None) => c,
                    _ => return Err(sep_err()),
                }
            }
            None => return Err(sep_err()),
        },
        None => return Err(sep_err()),
    };
    let Some(input) = args.first().and_then(text_of) else {
        return Ok(Vec::new());
    };
    Ok(input
        .split(sep)
        .enumerate()
        .map(|(i, part)| {
            let mut r = vec![string_value(part.to_string(), vt)];
            if ordinal {
                r.push(Value::BigInt(i as i64 + 1));
            }
            r
        })
        .collect())
}

/// `GENERATE_SERIES(start, stop [, step])` over integer or decimal values of type `t` (the
/// binder converted every argument to it), as scaled integers.
pub(crate) struct Series {
    cur: i128,
    stop: i128,
    step: i128,
    scale: u8,
    t: DataType,
    done: bool,
}

impl Series {
    /// None when an argument is NULL (no rows).
    fn new(args: &[Value], t: DataType) -> SqlResult<Option<Series>> {
        let num = |v: &Value| -> Option<(i128, u8)> {
            match v {
                Value::Null => None,
                Value::Decimal { mantissa, scale } => Some((*mantissa, *scale)),
                other => other.as_i64().map(|i| (i as i128, 0)),
            }
        };
        let (Some((start, scale)), Some((stop, _))) =
            (args.first().and_then(num), args.get(1).and_then(num))
        else {
            return Ok(None);
        };
        let step = match args.get(2) {
            Some(v) => match num(v) {
                Some((s, _)) => s,
                None => return Ok(None),
            },
            None => {
                let one = 10i128.pow(u32::from(scale));
                if start <= stop {
                    one
                } else {
                    -one
                }
            }
        };
        if step == 0 {
            return Err(SqlError::custom(
                4199,
                16,
                1,
                "Argument value 0 is invalid for argument 3 of generate_series function.",
            ));
        }
        Ok(Some(Series {
            cur: start,
            stop,
            step,
            scale,
            t,
            done: false,
        }))
    }

    fn next_value(&mut self) -> SqlResult<Option<Value>> {
        let (cur, stop, step) = (self.cur, self.stop, self.step);
        if self.done || (step > 0 && cur > stop) || (step < 0 && cur < stop) {
            return Ok(None);
        }
        let t = &self.t;
        let v = match t {
            DataType::Decimal { .. } | DataType::Numeric { .. } => Value::Decimal {
                mantissa: cur,
                scale: self.scale,
            },
            DataType::TinyInt => Value::TinyInt(u8::try_from(cur).map_err(|_| overflow(t))?),
            DataType::SmallInt => Value::SmallInt(i16::try_from(cur).map_err(|_| overflow(t))?),
            DataType::Int => Value::Int(i32::try_from(cur).map_err(|_| overflow(t))?),
            _ => Value::BigInt(i64::try_from(cur).map_err(|_| overflow(t))?),
        };
        match cur.checked_add(step) {
            Some(c) => self.cur = c,
            None => self.done = true,
        }
        Ok(Some(v))
    }
}

#[cfg(test)]
fn generate_series(args: &[Value], t: &DataType) -> SqlResult<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    if let Some(mut s) = Series::new(args, t.clone())? {
        while let Some(v) = s.next_value()? {
            rows.push(vec![v]);
        }
    }
    Ok(rows)
}

fn overflow(t: &DataType) -> SqlError {
    SqlError::new(8115, &[&"expression", &t.sql_name()])
}

// ---- OPENJSON ---------------------------------------------------------------------------

/// OPENJSON reads its document with the JSON functions' reader (`types::json`), which keeps
/// the byte span of every node (nested objects and arrays come back as written).
pub(crate) use types::json::JsonTree as Json;

/// Parses a whole JSON document (Msg 13609 state 4, OPENJSON's).
pub(crate) fn parse_json(text: &str) -> SqlResult<Json> {
    types::json::parse_tree(text, 4)
}

/// Navigates a `$.a.b[0]` path (lax: a missing step gives None). `strict` errors instead.
type Found<'j> = Option<(&'j Json, (usize, usize))>;

fn json_path<'j>(
    root: &'j Json,
    root_span: (usize, usize),
    path: &str,
) -> SqlResult<(Found<'j>, bool)> {
    let (strict, steps) = types::json::parse_path_steps(path)?;
    let mut cur = Some((root, root_span));
    for step in &steps {
        cur = match (step, cur) {
            (types::json::Step::Member(key), Some((Json::Object(m), _))) => m
                .iter()
                .find(|(k, _, _)| k == key)
                .map(|(_, v, sp)| (v, *sp)),
            (types::json::Step::Index(i), Some((Json::Array(a), _))) => {
                a.get(*i).map(|(v, sp)| (v, *sp))
            }
            _ => None,
        };
    }
    Ok((cur, strict))
}

fn json_type(v: &Json) -> i32 {
    match v {
        Json::Null => 0,
        Json::Str(_) => 1,
        Json::Number(_) => 2,
        Json::Bool(_) => 3,
        Json::Array(_) => 4,
        Json::Object(_) => 5,
    }
}

fn json_scalar_text(v: &Json, text: &str, span: (usize, usize)) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::NVarChar(if *b { "true" } else { "false" }.into()),
        Json::Number(n) => Value::NVarChar(n.clone()),
        Json::Str(s) => Value::NVarChar(s.clone()),
        Json::Array(_) | Json::Object(_) => {
            Value::NVarChar(text.get(span.0..span.1).unwrap_or("").to_string())
        }
    }
}

/// `OPENJSON(json [, path]) [WITH (...)]`: the default schema (key, value, type), or one row
/// per array element (the object itself for an object) with the schema's columns.
fn open_json(args: &[Value], with: Option<&[OpenJsonColumn]>) -> SqlResult<Vec<Vec<Value>>> {
    let Some(text) = args.first().and_then(text_of) else {
        return Ok(Vec::new());
    };
    let root = parse_json(text)?;
    let root_span = (text.len() - text.trim_start().len(), text.trim_end().len());
    let target = match args.get(1) {
        Some(Value::Null) | None => Some((&root, root_span)),
        Some(p) => {
            let path = text_of(p).unwrap_or("$");
            let (found, strict) = json_path(&root, root_span, path)?;
            if found.is_none() && strict {
                return Err(SqlError::custom(
                    13608,
                    16,
                    2,
                    "Property cannot be found on the specified JSON path.",
                ));
            }
            found
        }
    };
    let Some((target, target_span)) = target else {
        return Ok(Vec::new());
    };
    let lax_scalar = !matches!(target, Json::Array(_) | Json::Object(_))
        && !args
            .get(1)
            .and_then(text_of)
            .is_some_and(|p| p.trim_start().starts_with("strict"));
    if lax_scalar {
        // lax mode: a scalar at the path opens as an empty set
        return Ok(Vec::new());
    }
    // spans are relative to `text` for every node
    let mut rows = Vec::new();
    if let Some(cols) = with {
        match target {
            Json::Array(a) => {
                for (v, sp) in a {
                    rows.push(json_schema_row(v, *sp, text, cols)?);
                }
            }
            Json::Object(_) => rows.push(json_schema_row(target, target_span, text, cols)?),
            _ => {
                return Err(SqlError::custom(
                    13611,
                    16,
                    1,
                    "Value referenced by JSON path is not an array or object and cannot be opened with OPENJSON.",
                ))
            }
        }
        return Ok(rows);
    }
    match target {
        Json::Object(m) => {
            for (k, v, span) in m {
                rows.push(vec![
                    Value::NVarChar(k.clone()),
                    json_scalar_text(v, text, *span),
                    Value::Int(json_type(v)),
                ]);
            }
        }
        Json::Array(a) => {
            for (i, (v, span)) in a.iter().enumerate() {
                rows.push(vec![
                    Value::NVarChar(i.to_string()),
                    json_scalar_text(v, text, *span),
                    Value::Int(json_type(v)),
                ]);
            }
        }
        _ => {
            return Err(SqlError::custom(
                13611,
                16,
                1,
                "Value referenced by JSON path is not an array or object and cannot be opened with OPENJSON.",
            ))
        }
    }
    Ok(rows)
}

/// One row of `OPENJSON ... WITH (...)` for the element `v`.
fn json_schema_row(
    v: &Json,
    span: (usize, usize),
    text: &str,
    cols: &[OpenJsonColumn],
) -> SqlResult<Vec<Value>> {
    let mut row = Vec::with_capacity(cols.len());
    for c in cols {
        let (found, strict) = json_path(v, span, &c.path)?;
        let val = match found {
            None if strict => {
                return Err(SqlError::custom(
                    13608,
                    16,
                    2,
                    "Property cannot be found on the specified JSON path.",
                ))
            }
            None | Some((Json::Null, _)) => Value::Null,
            Some((Json::Array(_) | Json::Object(_), sp)) => {
                if c.as_json {
                    Value::NVarChar(text.get(sp.0..sp.1).unwrap_or("").to_string())
                } else {
                    Value::Null
                }
            }
            Some(_) if c.as_json => Value::Null,
            Some((Json::Bool(b), _)) => {
                if c.data_type.is_string() {
                    crate::valops::cast(
                        &Value::NVarChar(if *b { "true" } else { "false" }.into()),
                        &c.data_type,
                    )?
                } else {
                    crate::valops::cast(&Value::Int(i32::from(*b)), &c.data_type)?
                }
            }
            Some((Json::Number(n), _)) => {
                crate::valops::cast(&Value::NVarChar(n.clone()), &c.data_type)?
            }
            Some((Json::Str(st), _)) => {
                crate::valops::cast(&Value::NVarChar(st.clone()), &c.data_type)?
            }
        };
        row.push(val);
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_basic_and_ordinal() {
        let r = string_split(
            &[Value::VarChar("a,,b".into()), Value::VarChar(",".into())],
            &DataType::VarChar(Some(4)),
            true,
        )
        .unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[1][0], Value::VarChar(String::new()));
        assert_eq!(r[2][1], Value::BigInt(3));
        assert!(string_split(
            &[Value::VarChar("a".into()), Value::VarChar("ab".into())],
            &DataType::VarChar(Some(1)),
            false
        )
        .is_err());
        assert!(string_split(
            &[Value::Null, Value::VarChar(",".into())],
            &DataType::VarChar(Some(1)),
            false
        )
        .unwrap()
        .is_empty());
    }

    #[test]
    fn series_directions() {
        let r = generate_series(&[Value::Int(5), Value::Int(1)], &DataType::Int).unwrap();
        assert_eq!(r.len(), 5);
        assert_eq!(r[4][0], Value::Int(1));
        let r = generate_series(
            &[Value::Int(1), Value::Int(10), Value::Int(-1)],
            &DataType::Int,
        )
        .unwrap();
        assert!(r.is_empty());
        assert!(generate_series(
            &[Value::Int(1), Value::Int(2), Value::Int(0)],
            &DataType::Int
        )
        .is_err());
        let d = |m| Value::Decimal {
            mantissa: m,
            scale: 1,
        };
        let r = generate_series(&[d(0), d(10), d(5)], &DataType::decimal(2, 1)).unwrap();
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn json_default_schema() {
        let rows = open_json(
            &[Value::NVarChar(
                r#"{"a": 1, "b": [1, {"x": "y"}], "c": "s\"q", "d": null, "e": true}"#.into(),
            )],
            None,
        )
        .unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[1][1], Value::NVarChar(r#"[1, {"x": "y"}]"#.into()));
        assert_eq!(rows[2][1], Value::NVarChar("s\"q".into()));
        assert_eq!(rows[3][2], Value::Int(0));
        let rows = open_json(
            &[
                Value::NVarChar(r#"{"a": {"b": [10, 20]}}"#.into()),
                Value::NVarChar("$.a.b".into()),
            ],
            None,
        )
        .unwrap();
        assert_eq!(rows[1][0], Value::NVarChar("1".into()));
        assert!(open_json(&[Value::NVarChar("{\"a\": }".into())], None).is_err());
        let cols = [
            OpenJsonColumn {
                name: "n".into(),
                data_type: DataType::Int,
                path: "$.n".into(),
                as_json: false,
            },
            OpenJsonColumn {
                name: "o".into(),
                data_type: DataType::NVarChar(None),
                path: "strict $.o".into(),
                as_json: true,
            },
        ];
        let rows = open_json(
            &[Value::NVarChar(
                r#"[{"n": 1, "o": {"k": [1, 2]}}, {"n": "2", "o": [ ]}]"#.into(),
            )],
            Some(&cols),
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0][0], Value::Int(1));
        assert_eq!(rows[0][1], Value::NVarChar(r#"{"k": [1, 2]}"#.into()));
        assert_eq!(rows[1][0], Value::Int(2));
        assert_eq!(rows[1][1], Value::NVarChar("[ ]".into()));
    }
}
