//! SHOWPLAN_TEXT-style rendering of physical plans.

use plan::*;
use types::Value;

/// Renders one operator tree (a subquery's plan, say) as [`explain`] renders a SELECT's.
pub fn explain_op(op: &PhysOp) -> String {
    let mut out = String::new();
    node(op, 0, &mut out);
    out
}

/// Renders the plan tree, one operator per line:
/// `  |--Clustered Index Seek(OBJECT:([db].[dbo].[t].[PK_t]), SEEK:([t].[id]=(1)) ORDERED FORWARD)`.
pub fn explain(plan: &PhysicalPlan) -> String {
    let mut out = String::new();
    match plan {
        Statement::Select { input, .. } => node(input, 0, &mut out),
        Statement::Insert { table, source, .. } => {
            line(
                0,
                &format!("Clustered Index Insert(OBJECT:({}))", obj(table)),
                &mut out,
            );
            node(source, 1, &mut out);
        }
        Statement::Update { table, input, .. } => {
            line(
                0,
                &format!("Clustered Index Update(OBJECT:({}))", obj(table)),
                &mut out,
            );
            node(input, 1, &mut out);
        }
        Statement::Delete { table, input, .. } => {
            line(
                0,
                &format!("Clustered Index Delete(OBJECT:({}))", obj(table)),
                &mut out,
            );
            node(input, 1, &mut out);
        }
        Statement::Truncate { table } => line(
            0,
            &format!("Truncate Table(OBJECT:({}))", obj(table)),
            &mut out,
        ),
        Statement::SelectInto { target, source } => {
            line(
                0,
                &format!("Table Insert(OBJECT:([{}]))", target.name),
                &mut out,
            );
            node(source, 1, &mut out);
        }
    }
    out
}

fn line(depth: usize, text: &str, out: &mut String) {
    out.push_str(&" ".repeat(2 + 5 * depth));
    out.push_str("|--");
    out.push_str(text);
    out.push('\n');
}

/// (database, schema, table) of a table.
pub(crate) fn obj_parts(t: &catalog::TableDef) -> (String, String, String) {
    (t.database.clone(), t.schema.clone(), t.name.clone())
}

/// Name of index `ix` of the source's table (`?` when out of range).
pub(crate) fn index_name(src: &TableSource, ix: usize) -> String {
    src.table
        .indexes
        .get(ix)
        .map(|i| i.name.clone())
        .unwrap_or_else(|| "?".into())
}

pub(crate) fn obj(t: &catalog::TableDef) -> String {
    format!("[{}].[{}].[{}]", t.database, t.schema, t.name)
}

fn index_obj(src: &TableSource, ix: usize) -> String {
    let t = &src.table;
    let name = t.indexes.get(ix).map(|i| i.name.as_str()).unwrap_or("?");
    if src.alias.is_empty() || catalog::name_eq(&src.alias, &t.name) {
        format!("{}.[{}]", obj(t), name)
    } else {
        format!("{}.[{}] AS [{}]", obj(t), name, src.alias)
    }
}

pub(crate) fn names_of(cols: &[ColumnMeta]) -> Vec<String> {
    cols.iter()
        .enumerate()
        .map(|(i, c)| {
            if c.name.is_empty() {
                format!("[Expr{}]", 1000 + i)
            } else {
                format!("[{}]", c.name)
            }
        })
        .collect()
}

pub(crate) fn table_names(src: &TableSource) -> Vec<String> {
    let a = if src.alias.is_empty() {
        &src.table.name
    } else {
        &src.alias
    };
    let mut v: Vec<String> = src
        .table
        .columns
        .iter()
        .map(|c| format!("[{}].[{}]", a, c.name))
        .collect();
    v.push("[Bmk]".into());
    v
}

fn lit(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Char(s) | Value::VarChar(s) => format!("'{s}'"),
        Value::NChar(s) | Value::NVarChar(s) => format!("N'{s}'"),
        Value::Int(i) => i.to_string(),
        Value::BigInt(i) => i.to_string(),
        Value::SmallInt(i) => i.to_string(),
        Value::TinyInt(i) => i.to_string(),
        Value::Bit(b) => (*b as u8).to_string(),
        Value::Decimal { mantissa, scale } => types::decimal::to_string(*mantissa, *scale),
        Value::Float(f) => format!("{f:e}"),
        other => format!("{other:?}"),
    }
}

/// Renders an expression with column names from `names`.
pub(crate) fn expr(e: &ScalarExpr, names: &[String]) -> String {
    common::stack::grow(|| expr_unguarded(e, names))
}

fn expr_unguarded(e: &ScalarExpr, names: &[String]) -> String {
    let r = |x: &ScalarExpr| expr(x, names);
    match &e.kind {
        ScalarKind::Literal(v) => format!("({})", lit(v)),
        ScalarKind::Column(i) => names
            .get(*i)
            .cloned()
            .unwrap_or_else(|| format!("[Col{i}]")),
        ScalarKind::Param(s) => format!("[@p{s}]"),
        ScalarKind::Variable(v) => format!("[{v}]"),
        ScalarKind::Unary(UnaryOp::Neg, a) => format!("-{}", r(a)),
        ScalarKind::Unary(UnaryOp::BitNot, a) => format!("~{}", r(a)),
        ScalarKind::Binary(op, a, b) => {
            let s = match op {
                BinaryOp::Add | BinaryOp::Concat => "+",
                BinaryOp::Sub => "-",
                BinaryOp::Mul => "*",
                BinaryOp::Div => "/",
                BinaryOp::Mod => "%",
                BinaryOp::BitAnd => "&",
                BinaryOp::BitOr => "|",
                BinaryOp::BitXor => "^",
            };
            format!("{}{}{}", r(a), s, r(b))
        }
        ScalarKind::Compare(op, a, b) => format!("{}{}{}", r(a), op.symbol(), r(b)),
        ScalarKind::And(v) => v.iter().map(r).collect::<Vec<_>>().join(" AND "),
        ScalarKind::Or(v) => format!("({})", v.iter().map(r).collect::<Vec<_>>().join(" OR ")),
        ScalarKind::Not(a) => format!("NOT ({})", r(a)),
        ScalarKind::IsNull(a) => format!("{} IS NULL", r(a)),
        ScalarKind::Like {
            expr: x, pattern, ..
        } => format!("{} like {}", r(x), r(pattern)),
        ScalarKind::InList { expr: x, list } => {
            format!(
                "{} IN ({})",
                r(x),
                list.iter().map(r).collect::<Vec<_>>().join(", ")
            )
        }
        ScalarKind::Case { whens, else_ } => {
            let mut s = String::from("CASE");
            for (w, t) in whens {
                s.push_str(&format!(" WHEN {} THEN {}", r(w), r(t)));
            }
            if let Some(e) = else_ {
                s.push_str(&format!(" ELSE {}", r(e)));
            }
            s.push_str(" END");
            s
        }
        ScalarKind::Cast {
            expr: x, implicit, ..
        } => {
            if *implicit {
                format!("CONVERT_IMPLICIT({},{})", type_text(&e.data_type), r(x))
            } else {
                format!("CONVERT({},{})", type_text(&e.data_type), r(x))
            }
        }
        ScalarKind::Function { name, args, .. } => {
            format!(
                "{}({})",
                name.to_lowercase(),
                args.iter().map(r).collect::<Vec<_>>().join(",")
            )
        }
        ScalarKind::ScalarSubquery(_) => "[Subquery]".into(),
        ScalarKind::Exists(_) => "EXISTS([Subquery])".into(),
        ScalarKind::InSubquery { expr: x, .. } => format!("{} IN ([Subquery])", r(x)),
        ScalarKind::Quantified {
            expr: x,
            op,
            quantifier,
            ..
        } => {
            format!("{} {} {:?}([Subquery])", r(x), op.symbol(), quantifier)
        }
    }
}

fn type_text(t: &types::DataType) -> String {
    use types::DataType as D;
    match t {
        D::VarChar(Some(n)) | D::NVarChar(Some(n)) | D::Char(n) | D::NChar(n) => {
            format!("{}({n})", t.sql_name())
        }
        D::VarChar(None) | D::NVarChar(None) => format!("{}(max)", t.sql_name()),
        D::Decimal { precision, scale } | D::Numeric { precision, scale } => {
            format!("{}({precision},{scale})", t.sql_name())
        }
        _ => t.sql_name().to_string(),
    }
}

fn keys_text(keys: &[SortKey], names: &[String]) -> String {
    keys.iter()
        .map(|k| {
            format!(
                "{} {}",
                expr(&k.expr, names),
                if k.desc { "DESC" } else { "ASC" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn node(op: &PhysOp, depth: usize, out: &mut String) {
    let start = out.len();
    common::stack::grow(|| node_unguarded(op, depth, out));
    // a batch-mode operator's line ends with `Batch mode` (once: a node the text plan shows
    // no line for, e.g. a Compute Scalar folded into the line below, leaves that line's mark)
    if op.exec_mode == plan::ExecMode::Batch {
        if let Some(nl) = out[start..].find('\n') {
            if !out[start..start + nl].ends_with(" Batch mode") {
                out.insert_str(start + nl, " Batch mode");
            }
        }
    }
}

fn node_unguarded(op: &PhysOp, depth: usize, out: &mut String) {
    let child_names = |i: usize| -> Vec<String> {
        op.children()
            .get(i)
            .map(|c| names_of(&c.columns))
            .unwrap_or_default()
    };
    match &op.kind {
        PhysKind::ConstantScan { rows } => {
            if rows.len() <= 1 && rows.first().is_none_or(|r| r.is_empty()) {
                line(depth, "Constant Scan", out)
            } else {
                let vals: Vec<String> = rows
                    .iter()
                    .map(|r| {
                        format!(
                            "({})",
                            r.iter().map(|e| expr(e, &[])).collect::<Vec<_>>().join(",")
                        )
                    })
                    .collect();
                line(
                    depth,
                    &format!("Constant Scan(VALUES:({}))", vals.join(",")),
                    out,
                )
            }
        }
        PhysKind::VirtualScan { table } => line(
            depth,
            &format!("Table Scan(OBJECT:([{}].[{}]))", table.schema, table.name),
            out,
        ),
        PhysKind::TableScan { source, predicate } => {
            let mut s = format!("Table Scan(OBJECT:({}", obj(&source.table));
            if !source.alias.is_empty() && !catalog::name_eq(&source.alias, &source.table.name) {
                s.push_str(&format!(" AS [{}]", source.alias));
            }
            s.push(')');
            if let Some(p) = predicate {
                s.push_str(&format!(", WHERE:({})", expr(p, &table_names(source))));
            }
            s.push(')');
            line(depth, &s, out)
        }
        PhysKind::ClusteredIndexScan {
            source,
            predicate,
            ordered,
            backward,
        } => {
            let ci = match source.table.storage {
                catalog::TableStorage::Clustered { index } => index,
                _ => 0,
            };
            let mut s = format!("Clustered Index Scan(OBJECT:({})", index_obj(source, ci));
            if let Some(p) = predicate {
                s.push_str(&format!(", WHERE:({})", expr(p, &table_names(source))));
            }
            if *ordered {
                s.push_str(if *backward {
                    " ORDERED BACKWARD"
                } else {
                    " ORDERED FORWARD"
                });
            }
            s.push(')');
            line(depth, &s, out)
        }
        PhysKind::IndexSeek {
            source,
            index,
            range,
            predicate,
            backward,
        } => {
            let names = table_names(source);
            let ix = &source.table.indexes[*index];
            let mut seek = Vec::new();
            for (k, v) in range.eq.iter().enumerate() {
                let col = names.get(ix.key_columns[k].0).cloned().unwrap_or_default();
                seek.push(format!("{}={}", col, expr(v, &names)));
            }
            let next = ix
                .key_columns
                .get(range.eq.len())
                .map(|c| names.get(c.0).cloned().unwrap_or_default())
                .unwrap_or_default();
            if let Some((v, inc)) = &range.lower {
                seek.push(format!(
                    "{}{}{}",
                    next,
                    if *inc { ">=" } else { ">" },
                    expr(v, &names)
                ));
            }
            if let Some((v, inc)) = &range.upper {
                seek.push(format!(
                    "{}{}{}",
                    next,
                    if *inc { "<=" } else { "<" },
                    expr(v, &names)
                ));
            }
            let kind = if ix.clustered {
                "Clustered Index Seek"
            } else {
                "Index Seek"
            };
            let mut s = format!(
                "{}(OBJECT:({}), SEEK:({}) ORDERED {}",
                kind,
                index_obj(source, *index),
                seek.join(" AND "),
                if *backward { "BACKWARD" } else { "FORWARD" }
            );
            if let Some(p) = predicate {
                s.push_str(&format!(", WHERE:({})", expr(p, &names)));
            }
            s.push(')');
            if ix.clustered || source.covered_by(*index) {
                line(depth, &s, out)
            } else {
                let lookup = match source.table.storage {
                    catalog::TableStorage::Heap(_) => format!("RID Lookup(OBJECT:({}), SEEK:([Bmk1000]=[Bmk1000]) LOOKUP ORDERED FORWARD)", obj(&source.table)),
                    catalog::TableStorage::Clustered { index } => format!(
                        "Key Lookup(OBJECT:({}), SEEK:([PK]=[PK]) LOOKUP ORDERED FORWARD)",
                        index_obj(source, index)
                    ),
                };
                line(
                    depth,
                    "Nested Loops(Inner Join, OUTER REFERENCES:([Bmk1000]))",
                    out,
                );
                line(depth + 1, &s, out);
                line(depth + 1, &lookup, out);
            }
        }
        PhysKind::Filter { predicate, .. } => line(
            depth,
            &format!("Filter(WHERE:({}))", expr(predicate, &child_names(0))),
            out,
        ),
        PhysKind::ComputeScalar { exprs, .. } => {
            let names = child_names(0);
            let defs: Vec<String> = exprs
                .iter()
                .enumerate()
                .filter(|(_, e)| e.as_column().is_none())
                .map(|(i, e)| format!("[Expr{}]={}", 1000 + i, expr(e, &names)))
                .collect();
            if defs.is_empty() {
                // pure projection: SQL Server shows no operator; keep the child only
                for c in op.children() {
                    node(c, depth, out);
                }
                return;
            }
            line(
                depth,
                &format!("Compute Scalar(DEFINE:({}))", defs.join(", ")),
                out,
            )
        }
        PhysKind::NestedLoops {
            kind,
            predicate,
            params,
            ..
        } => {
            let mut s = format!("Nested Loops({}", kind.showplan());
            if !params.is_empty() {
                let names = child_names(0);
                s.push_str(&format!(
                    ", OUTER REFERENCES:({})",
                    params
                        .iter()
                        .map(|(_, e)| expr(e, &names))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some(p) = predicate {
                let mut names = child_names(0);
                names.extend(child_names(1));
                s.push_str(&format!(", WHERE:({})", expr(p, &names)));
            }
            s.push(')');
            line(depth, &s, out)
        }
        PhysKind::HashJoin {
            kind,
            left_keys,
            right_keys,
            residual,
            ..
        } => {
            let ln = child_names(0);
            let rn = child_names(1);
            let mut s = format!(
                "Hash Match({}, HASH:({})=({})",
                kind.hash_match_showplan(),
                right_keys
                    .iter()
                    .map(|e| expr(e, &rn))
                    .collect::<Vec<_>>()
                    .join(", "),
                left_keys
                    .iter()
                    .map(|e| expr(e, &ln))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if let Some(p) = residual {
                let mut names = ln.clone();
                names.extend(rn);
                s.push_str(&format!(", RESIDUAL:({})", expr(p, &names)));
            }
            s.push(')');
            line(depth, &s, out);
            // SQL Server lists the build input first
            let ch = op.children();
            node(ch[1], depth + 1, out);
            node(ch[0], depth + 1, out);
            return;
        }
        PhysKind::MergeJoin {
            kind,
            left_keys,
            right_keys,
            residual,
            ..
        } => {
            let ln = child_names(0);
            let rn = child_names(1);
            let mut s = format!(
                "Merge Join({}, MERGE:({})=({})",
                kind.showplan(),
                left_keys
                    .iter()
                    .map(|e| expr(e, &ln))
                    .collect::<Vec<_>>()
                    .join(", "),
                right_keys
                    .iter()
                    .map(|e| expr(e, &rn))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if let Some(p) = residual {
                let mut names = ln.clone();
                names.extend(rn);
                s.push_str(&format!(", RESIDUAL:({})", expr(p, &names)));
            }
            s.push(')');
            line(depth, &s, out)
        }
        PhysKind::Sort {
            keys,
            top,
            distinct,
            ..
        } => {
            let names = child_names(0);
            let s = match top {
                Some(t) => format!(
                    "Sort(TOP {}, ORDER BY:({}))",
                    expr(t, &[]),
                    keys_text(keys, &names)
                ),
                None if *distinct => {
                    format!("Sort(DISTINCT ORDER BY:({}))", keys_text(keys, &names))
                }
                None => format!("Sort(ORDER BY:({}))", keys_text(keys, &names)),
            };
            line(depth, &s, out)
        }
        PhysKind::HashAggregate { group_by, aggs, .. } => {
            let names = child_names(0);
            let mut s = String::from("Hash Match(Aggregate");
            if !group_by.is_empty() {
                s.push_str(&format!(
                    ", HASH:({})",
                    group_by
                        .iter()
                        .map(|e| expr(e, &names))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            s.push_str(&format!(
                ", DEFINE:({}))",
                aggs_text(aggs, &names, group_by.len())
            ));
            line(depth, &s, out)
        }
        PhysKind::StreamAggregate { group_by, aggs, .. } => {
            let names = child_names(0);
            let mut s = String::from("Stream Aggregate(");
            if !group_by.is_empty() {
                s.push_str(&format!(
                    "GROUP BY:({}) ",
                    group_by
                        .iter()
                        .map(|e| expr(e, &names))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            s.push_str(&format!(
                "DEFINE:({}))",
                aggs_text(aggs, &names, group_by.len())
            ));
            line(depth, &s, out)
        }
        PhysKind::Top { spec, .. } => {
            let mut s = String::from("Top(");
            if let Some(o) = &spec.offset {
                s.push_str(&format!("OFFSET EXPRESSION:({}),", expr(o, &[])));
            }
            if let Some(c) = &spec.count {
                s.push_str(&format!("TOP EXPRESSION:({})", expr(c, &[])));
            }
            if spec.percent {
                s.push_str(" PERCENT");
            }
            if !spec.with_ties.is_empty() {
                s.push_str(" WITH TIES");
            }
            s.push(')');
            line(depth, &s, out)
        }
        PhysKind::Window { calls, .. } => {
            line(
                depth,
                &format!(
                    "Sequence Project(DEFINE:({} window function(s)))",
                    calls.len()
                ),
                out,
            );
            line(depth + 1, "Segment", out);
            for c in op.children() {
                node(c, depth + 2, out);
            }
            return;
        }
        PhysKind::Concatenation { .. } => line(depth, "Concatenation", out),
        PhysKind::HashSetOp { kind, .. } => {
            let k = match kind {
                SetOpKind::Except => "Left Anti Semi Join",
                _ => "Left Semi Join",
            };
            line(depth, &format!("Hash Match({k})"), out)
        }
        PhysKind::HashDistinct { .. } => line(depth, "Hash Match(Aggregate)", out),
        PhysKind::RecursiveCte { .. } => line(depth, "Index Spool(WITH STACK)", out),
        PhysKind::WorkTableScan { .. } => line(depth, "Table Spool(WITH STACK)", out),
        PhysKind::TableSpool { .. } => line(depth, "Table Spool", out),
        PhysKind::TableFunction { func, .. } => line(depth, &func.showplan(), out),
        PhysKind::Parallelism { .. } => line(depth, "Parallelism(Gather Streams)", out),
        PhysKind::Repartition { input, keys, .. } => {
            // the keys read the zone's rows, below the partial aggregate
            let names = input
                .children()
                .first()
                .map(|z| names_of(&z.columns))
                .unwrap_or_default();
            let cols = keys
                .iter()
                .map(|e| expr(e, &names))
                .collect::<Vec<_>>()
                .join(", ");
            line(
                depth,
                &format!(
                    "Parallelism(Repartition Streams, Hash Partitioning, PARTITION COLUMNS:({cols}))"
                ),
                out,
            )
        }
        PhysKind::PartialAggregate { group_by, aggs, .. } => {
            let names = child_names(0);
            let s = agg_text(group_by, aggs, &names, group_by.is_empty(), true);
            line(depth, &s, out)
        }
        PhysKind::GlobalAggregate {
            input,
            group_by,
            aggs,
            stream,
        } => {
            // the expressions read the zone's rows: below the exchange and the partial aggregate
            let rows = input
                .children()
                .first()
                .and_then(|p| p.children().first().copied());
            let names = rows.map(|r| names_of(&r.columns)).unwrap_or_default();
            let s = agg_text(group_by, aggs, &names, *stream, false);
            line(depth, &s, out)
        }
    }
    for c in op.children() {
        node(c, depth + 1, out);
    }
}

/// The line of either half of a local-then-global aggregate.
fn agg_text(
    group_by: &[ScalarExpr],
    aggs: &[AggCall],
    names: &[String],
    stream: bool,
    partial: bool,
) -> String {
    let keys = group_by
        .iter()
        .map(|e| expr(e, names))
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = String::from(if stream {
        "Stream Aggregate("
    } else {
        "Hash Match("
    });
    match (partial, stream) {
        (true, _) => s.push_str("Partial Aggregate, "),
        (false, false) => s.push_str("Aggregate, "),
        (false, true) => {}
    }
    if !group_by.is_empty() {
        s.push_str(&format!(
            "{}:({keys}), ",
            if stream { "GROUP BY" } else { "HASH" }
        ));
    }
    s.push_str(&format!(
        "DEFINE:({}))",
        aggs_text(aggs, names, group_by.len())
    ));
    s
}

fn aggs_text(aggs: &[AggCall], names: &[String], base: usize) -> String {
    aggs.iter()
        .enumerate()
        .map(|(i, a)| {
            let arg = if a.args.is_empty() {
                "*".to_string()
            } else {
                a.args
                    .iter()
                    .map(|e| expr(e, names))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            format!(
                "[Expr{}]={}({}{})",
                1000 + base + i,
                a.func.name(),
                if a.distinct { "DISTINCT " } else { "" },
                arg
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
