//! `Display` for the AST: prints T-SQL that parses back to the same tree (line numbers, spans and
//! module `text` aside). Output is compact, one statement per line, each terminated by `;`.

use crate::ast::*;
use std::fmt::{self, Display, Formatter, Write};

/// Items joined by a separator.
struct Sep<'a, T>(&'a [T], &'static str);

impl<T: Display> Display for Sep<'_, T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, x) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(self.1)?;
            }
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

fn comma<T>(v: &[T]) -> Sep<'_, T> {
    Sep(v, ", ")
}

fn is_word_chars(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' || c == '#' || c == '$' => {}
        _ => return false,
    }
    s.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '#' || c == '@' || c == '$')
}

fn write_bracketed(f: &mut Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('[')?;
    f.write_str(&s.replace(']', "]]"))?;
    f.write_char(']')
}

fn write_string(f: &mut Formatter<'_>, s: &str, national: bool) -> fmt::Result {
    if national {
        f.write_char('N')?;
    }
    f.write_char('\'')?;
    f.write_str(&s.replace('\'', "''"))?;
    f.write_char('\'')
}

impl Display for Ident {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // Unquoted reserved words only come from the parser as function names (`LEFT(`), so
        // they are printed bare; anything that would not lex as one word is bracketed.
        if self.quoted || !is_word_chars(&self.value) {
            write_bracketed(f, &self.value)
        } else {
            f.write_str(&self.value)
        }
    }
}

impl Display for ObjectName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            if !p.value.is_empty() || p.quoted {
                write!(f, "{p}")?;
            }
        }
        Ok(())
    }
}

impl Display for DataTypeName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(s) = &self.schema {
            write!(f, "{s}.")?;
        }
        if is_word_chars(&self.name) && !self.name.contains(['#', '@', '$']) {
            f.write_str(&self.name)?;
        } else {
            write_bracketed(f, &self.name)?;
        }
        if !self.params.is_empty() {
            write!(f, "({})", comma(&self.params))?;
        }
        Ok(())
    }
}

impl Display for TypeParam {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TypeParam::Number(n) => write!(f, "{n}"),
            TypeParam::Max => f.write_str("MAX"),
        }
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Integer(s) | Literal::Decimal(s) | Literal::Float(s) => f.write_str(s),
            Literal::Money(s) => write!(f, "${s}"),
            Literal::String { value, national } => write_string(f, value, *national),
            Literal::Binary(b) => {
                f.write_str("0x")?;
                for x in b {
                    write!(f, "{x:02X}")?;
                }
                Ok(())
            }
            Literal::Null => f.write_str("NULL"),
        }
    }
}

impl BinaryOp {
    /// The operator's T-SQL spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::NotLt => "!<",
            BinaryOp::NotGt => "!>",
            BinaryOp::And => "AND",
            BinaryOp::Or => "OR",
        }
    }
}

impl AssignOp {
    /// `=`, `+=`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            AssignOp::Assign => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Mod => "%=",
            AssignOp::BitAnd => "&=",
            AssignOp::BitOr => "|=",
            AssignOp::BitXor => "^=",
        }
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Literal(l) => write!(f, "{l}"),
            Expr::Variable(v) => f.write_str(v),
            Expr::SystemVariable(v) => write!(f, "@@{v}"),
            Expr::Column(n) => write!(f, "{n}"),
            Expr::Unary { op, expr } => match op {
                UnaryOp::Not => write!(f, "NOT {expr}"),
                UnaryOp::Minus => write!(f, "- {expr}"),
                UnaryOp::Plus => write!(f, "+ {expr}"),
                UnaryOp::BitNot => write!(f, "~ {expr}"),
            },
            Expr::Binary { op, left, right } => write!(f, "{left} {} {right}", op.as_str()),
            Expr::Nested(e) => write!(f, "({e})"),
            Expr::IsNull { expr, negated } => {
                write!(f, "{expr} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => write!(
                f,
                "{expr} {}BETWEEN {low} AND {high}",
                if *negated { "NOT " } else { "" }
            ),
            Expr::InList {
                expr,
                negated,
                list,
            } => write!(
                f,
                "{expr} {}IN ({})",
                if *negated { "NOT " } else { "" },
                comma(list)
            ),
            Expr::InSubquery {
                expr,
                negated,
                query,
            } => write!(
                f,
                "{expr} {}IN ({query})",
                if *negated { "NOT " } else { "" }
            ),
            Expr::Like {
                expr,
                negated,
                pattern,
                escape,
            } => {
                write!(
                    f,
                    "{expr} {}LIKE {pattern}",
                    if *negated { "NOT " } else { "" }
                )?;
                if let Some(e) = escape {
                    write!(f, " ESCAPE {e}")?;
                }
                Ok(())
            }
            Expr::Exists(q) => write!(f, "EXISTS ({q})"),
            Expr::Subquery(q) => write!(f, "({q})"),
            Expr::Quantified {
                left,
                op,
                quantifier,
                query,
            } => {
                let q = match quantifier {
                    Quantifier::All => "ALL",
                    Quantifier::Any => "ANY",
                    Quantifier::Some => "SOME",
                };
                write!(f, "{left} {} {q} ({query})", op.as_str())
            }
            Expr::Case {
                operand,
                when_then,
                else_result,
            } => {
                f.write_str("CASE")?;
                if let Some(o) = operand {
                    write!(f, " {o}")?;
                }
                for (w, t) in when_then {
                    write!(f, " WHEN {w} THEN {t}")?;
                }
                if let Some(e) = else_result {
                    write!(f, " ELSE {e}")?;
                }
                f.write_str(" END")
            }
            Expr::Cast {
                expr,
                data_type,
                try_cast,
            } => write!(
                f,
                "{}CAST({expr} AS {data_type})",
                if *try_cast { "TRY_" } else { "" }
            ),
            Expr::Convert {
                data_type,
                expr,
                style,
                try_convert,
            } => {
                write!(
                    f,
                    "{}CONVERT({data_type}, {expr}",
                    if *try_convert { "TRY_" } else { "" }
                )?;
                if let Some(s) = style {
                    write!(f, ", {s}")?;
                }
                f.write_char(')')
            }
            Expr::Function(fc) => write!(f, "{fc}"),
            Expr::NextValueFor(n) => write!(f, "NEXT VALUE FOR {n}"),
            Expr::Collate { expr, collation } => write!(f, "{expr} COLLATE {collation}"),
            Expr::Niladic(n) => f.write_str(n),
            Expr::Default => f.write_str("DEFAULT"),
            Expr::IdentityFunction {
                data_type,
                seed_increment,
            } => {
                write!(f, "IDENTITY({data_type}")?;
                if let Some((s, i)) = seed_increment {
                    write!(f, ", {s}, {i}")?;
                }
                f.write_char(')')
            }
        }
    }
}

impl Display for FunctionCall {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        if self.star {
            f.write_char('*')?;
        } else {
            if self.distinct {
                f.write_str("DISTINCT ")?;
            }
            write!(f, "{}", comma(&self.args))?;
        }
        f.write_char(')')?;
        if !self.within_group.is_empty() {
            write!(f, " WITHIN GROUP (ORDER BY {})", comma(&self.within_group))?;
        }
        if let Some(w) = &self.over {
            write!(f, " OVER ({w})")?;
        }
        Ok(())
    }
}

impl Display for WindowSpec {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if !self.partition_by.is_empty() {
            write!(f, "PARTITION BY {}", comma(&self.partition_by))?;
            sep = " ";
        }
        if !self.order_by.is_empty() {
            write!(f, "{sep}ORDER BY {}", comma(&self.order_by))?;
            sep = " ";
        }
        if let Some(fr) = &self.frame {
            let u = match fr.units {
                FrameUnits::Rows => "ROWS",
                FrameUnits::Range => "RANGE",
            };
            match &fr.end {
                Some(e) => write!(f, "{sep}{u} BETWEEN {} AND {e}", fr.start)?,
                None => write!(f, "{sep}{u} {}", fr.start)?,
            }
        }
        Ok(())
    }
}

impl Display for FrameBound {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            FrameBound::UnboundedPreceding => f.write_str("UNBOUNDED PRECEDING"),
            FrameBound::Preceding(e) => write!(f, "{e} PRECEDING"),
            FrameBound::CurrentRow => f.write_str("CURRENT ROW"),
            FrameBound::Following(e) => write!(f, "{e} FOLLOWING"),
            FrameBound::UnboundedFollowing => f.write_str("UNBOUNDED FOLLOWING"),
        }
    }
}

impl Display for OrderByItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)?;
        if self.desc {
            f.write_str(" DESC")?;
        }
        Ok(())
    }
}

// ----- queries --------------------------------------------------------------------------------

impl Display for Cte {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if !self.columns.is_empty() {
            write!(f, " ({})", comma(&self.columns))?;
        }
        write!(f, " AS ({})", self.query)
    }
}

fn write_with(f: &mut Formatter<'_>, with: &[Cte]) -> fmt::Result {
    if !with.is_empty() {
        write!(f, "WITH {} ", comma(with))?;
    }
    Ok(())
}

impl Display for Query {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_with(f, &self.with)?;
        write!(f, "{}", self.body)?;
        if !self.order_by.is_empty() {
            write!(f, " ORDER BY {}", comma(&self.order_by))?;
        }
        if let Some(o) = &self.offset {
            write!(f, " OFFSET {} ROWS", o.offset)?;
            if let Some(n) = &o.fetch {
                write!(f, " FETCH NEXT {n} ROWS ONLY")?;
            }
        }
        if let Some(fc) = &self.for_clause {
            write!(f, " {fc}")?;
        }
        write_options(f, &self.options)
    }
}

fn quoted_name(name: &str) -> String {
    format!("('{}')", name.replace('\'', "''"))
}

impl Display for ForClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ForClause::Browse => write!(f, "FOR BROWSE"),
            ForClause::Json(j) => {
                let mode = match j.mode {
                    ForJsonMode::Auto => "AUTO",
                    ForJsonMode::Path => "PATH",
                };
                write!(f, "FOR JSON {mode}")?;
                if let Some(r) = &j.root {
                    write!(f, ", ROOT{}", quoted_name(r))?;
                }
                if j.include_null_values {
                    write!(f, ", INCLUDE_NULL_VALUES")?;
                }
                if j.without_array_wrapper {
                    write!(f, ", WITHOUT_ARRAY_WRAPPER")?;
                }
                Ok(())
            }
            ForClause::Xml(x) => {
                write!(f, "FOR XML ")?;
                match &x.mode {
                    ForXmlMode::Raw(n) => {
                        write!(f, "RAW")?;
                        if let Some(n) = n {
                            write!(f, "{}", quoted_name(n))?;
                        }
                    }
                    ForXmlMode::Auto => write!(f, "AUTO")?,
                    ForXmlMode::Path(n) => {
                        write!(f, "PATH")?;
                        if let Some(n) = n {
                            write!(f, "{}", quoted_name(n))?;
                        }
                    }
                    ForXmlMode::Explicit => write!(f, "EXPLICIT")?,
                }
                if x.binary_base64 {
                    write!(f, ", BINARY BASE64")?;
                }
                if x.type_directive {
                    write!(f, ", TYPE")?;
                }
                if let Some(r) = &x.root {
                    write!(f, ", ROOT{}", quoted_name(r))?;
                }
                match x.elements {
                    Some(XmlElements::Absent) => write!(f, ", ELEMENTS")?,
                    Some(XmlElements::XsiNil) => write!(f, ", ELEMENTS XSINIL")?,
                    None => {}
                }
                for u in &x.unsupported {
                    write!(f, ", {u}")?;
                }
                Ok(())
            }
        }
    }
}

fn write_options(f: &mut Formatter<'_>, o: &[QueryHint]) -> fmt::Result {
    if !o.is_empty() {
        write!(f, " OPTION ({})", comma(o))?;
    }
    Ok(())
}

impl Display for QueryBody {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            QueryBody::Select(s) => write!(f, "{s}"),
            QueryBody::SetOp {
                op,
                all,
                left,
                right,
            } => {
                let o = match op {
                    SetOperator::Union => "UNION",
                    SetOperator::Except => "EXCEPT",
                    SetOperator::Intersect => "INTERSECT",
                };
                write!(f, "{left} {o}{} {right}", if *all { " ALL" } else { "" })
            }
            QueryBody::Parenthesized(q) => write!(f, "({q})"),
        }
    }
}

impl Display for Top {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if matches!(self.quantity, Expr::Subquery(_)) {
            // `TOP (SELECT ...)`: the subquery prints its own parentheses
            write!(f, "TOP {}", self.quantity)?;
        } else {
            write!(f, "TOP ({})", self.quantity)?;
        }
        if self.percent {
            f.write_str(" PERCENT")?;
        }
        if self.with_ties {
            f.write_str(" WITH TIES")?;
        }
        Ok(())
    }
}

impl Display for Select {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("SELECT ")?;
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        if let Some(t) = &self.top {
            write!(f, "{t} ")?;
        }
        write!(f, "{}", comma(&self.items))?;
        if let Some(i) = &self.into {
            write!(f, " INTO {i}")?;
        }
        if !self.from.is_empty() {
            write!(f, " FROM {}", comma(&self.from))?;
        }
        if let Some(w) = &self.selection {
            write!(f, " WHERE {w}")?;
        }
        if !self.group_by.is_empty() {
            write!(f, " GROUP BY {}", comma(&self.group_by))?;
        }
        if let Some(h) = &self.having {
            write!(f, " HAVING {h}")?;
        }
        Ok(())
    }
}

impl Display for SelectItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SelectItem::Expr { expr, alias } => {
                write!(f, "{expr}")?;
                if let Some(a) = alias {
                    write!(f, " AS {a}")?;
                }
                Ok(())
            }
            SelectItem::Wildcard => f.write_char('*'),
            SelectItem::QualifiedWildcard(n) => write!(f, "{n}.*"),
            SelectItem::Assign { variable, op, expr } => {
                write!(f, "{variable} {} {expr}", op.as_str())
            }
        }
    }
}

struct ExprList<'a>(&'a [Expr]);
impl Display for ExprList<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.0.len() == 1 {
            write!(f, "{}", self.0[0])
        } else {
            write!(f, "({})", comma(self.0))
        }
    }
}

impl Display for GroupByItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            GroupByItem::Expr(e) => write!(f, "{e}"),
            GroupByItem::Rollup(v) | GroupByItem::Cube(v) => {
                f.write_str(if matches!(self, GroupByItem::Rollup(_)) {
                    "ROLLUP ("
                } else {
                    "CUBE ("
                })?;
                for (i, l) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", ExprList(l))?;
                }
                f.write_char(')')
            }
            GroupByItem::GroupingSets(v) => write!(f, "GROUPING SETS ({})", comma(v)),
            GroupByItem::Set(v) => write!(f, "({})", comma(v)),
        }
    }
}

impl Display for IndexTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            IndexTarget::Id(n) => write!(f, "{n}"),
            IndexTarget::Name(n) => write!(f, "{n}"),
        }
    }
}

impl Display for TableHint {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let s = match self {
            TableHint::NoLock => "NOLOCK",
            TableHint::ReadUncommitted => "READUNCOMMITTED",
            TableHint::ReadCommitted => "READCOMMITTED",
            TableHint::ReadCommittedLock => "READCOMMITTEDLOCK",
            TableHint::RepeatableRead => "REPEATABLEREAD",
            TableHint::Serializable => "SERIALIZABLE",
            TableHint::HoldLock => "HOLDLOCK",
            TableHint::UpdLock => "UPDLOCK",
            TableHint::XLock => "XLOCK",
            TableHint::TabLock => "TABLOCK",
            TableHint::TabLockX => "TABLOCKX",
            TableHint::PagLock => "PAGLOCK",
            TableHint::RowLock => "ROWLOCK",
            TableHint::NoWait => "NOWAIT",
            TableHint::ReadPast => "READPAST",
            TableHint::Snapshot => "SNAPSHOT",
            TableHint::NoExpand => "NOEXPAND",
            TableHint::ForceScan => "FORCESCAN",
            TableHint::ForceSeek => "FORCESEEK",
            TableHint::KeepIdentity => "KEEPIDENTITY",
            TableHint::KeepDefaults => "KEEPDEFAULTS",
            TableHint::IgnoreConstraints => "IGNORE_CONSTRAINTS",
            TableHint::IgnoreTriggers => "IGNORE_TRIGGERS",
            TableHint::Index(v) => return write!(f, "INDEX({})", comma(v)),
            TableHint::Other(s) => s,
        };
        f.write_str(s)
    }
}

fn write_hints(f: &mut Formatter<'_>, hints: &[TableHint]) -> fmt::Result {
    if !hints.is_empty() {
        write!(f, " WITH ({})", comma(hints))?;
    }
    Ok(())
}

fn write_alias_cols(f: &mut Formatter<'_>, alias: &Option<Ident>, cols: &[Ident]) -> fmt::Result {
    if let Some(a) = alias {
        write!(f, " AS {a}")?;
    }
    if !cols.is_empty() {
        write!(f, " ({})", comma(cols))?;
    }
    Ok(())
}

struct Rows<'a>(&'a [Vec<Expr>]);
impl Display for Rows<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, r) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "({})", comma(r))?;
        }
        Ok(())
    }
}

impl Display for TableRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TableRef::Table { name, alias, hints } => {
                write!(f, "{name}")?;
                if let Some(a) = alias {
                    write!(f, " AS {a}")?;
                }
                write_hints(f, hints)
            }
            TableRef::Variable { name, alias } => {
                f.write_str(name)?;
                if let Some(a) = alias {
                    write!(f, " AS {a}")?;
                }
                Ok(())
            }
            TableRef::Derived {
                query,
                alias,
                columns,
            } => {
                write!(f, "({query})")?;
                write_alias_cols(f, alias, columns)
            }
            TableRef::Values {
                rows,
                alias,
                columns,
            } => {
                write!(f, "(VALUES {})", Rows(rows))?;
                write_alias_cols(f, alias, columns)
            }
            TableRef::Function {
                name,
                args,
                alias,
                columns,
                schema,
            } => {
                write!(f, "{name}({})", comma(args))?;
                if !schema.is_empty() {
                    f.write_str(" WITH (")?;
                    for (i, c) in schema.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{} {}", c.name, c.data_type)?;
                        if let Some(p) = &c.path {
                            write!(f, " '{}'", p.replace('\'', "''"))?;
                        }
                        if c.as_json {
                            f.write_str(" AS JSON")?;
                        }
                    }
                    f.write_str(")")?;
                }
                write_alias_cols(f, alias, columns)
            }
            TableRef::OpenRowset(o) => {
                f.write_str("OPENROWSET(")?;
                match &o.source {
                    OpenRowsetSource::Bulk {
                        file,
                        options,
                        schema,
                    } => {
                        f.write_str("BULK ")?;
                        write_string(f, file, false)?;
                        for opt in options {
                            f.write_str(if opt.name == "UNIQUE" { " " } else { ", " })?;
                            write_bulk_option(f, opt)?;
                        }
                        f.write_str(")")?;
                        if !schema.is_empty() {
                            f.write_str(" WITH (")?;
                            for (i, c) in schema.iter().enumerate() {
                                if i > 0 {
                                    f.write_str(", ")?;
                                }
                                write!(f, "{} {}", c.name, c.data_type)?;
                                if let Some(n) = c.ordinal {
                                    write!(f, " {n}")?;
                                }
                                if let Some(p) = &c.path {
                                    f.write_str(" ")?;
                                    write_string(f, p, false)?;
                                }
                            }
                            f.write_str(")")?;
                        }
                    }
                    OpenRowsetSource::Provider { provider, rest } => {
                        write_string(f, provider, false)?;
                        write!(f, ", {rest})")?;
                    }
                }
                write_alias_cols(f, &o.alias, &o.columns)
            }
            TableRef::Join {
                left,
                right,
                kind,
                hint,
                on,
            } => {
                let k = match kind {
                    JoinKind::Inner => "INNER",
                    JoinKind::LeftOuter => "LEFT OUTER",
                    JoinKind::RightOuter => "RIGHT OUTER",
                    JoinKind::FullOuter => "FULL OUTER",
                    JoinKind::Cross => "CROSS",
                    JoinKind::CrossApply => return write!(f, "{left} CROSS APPLY {right}"),
                    JoinKind::OuterApply => return write!(f, "{left} OUTER APPLY {right}"),
                };
                write!(f, "{left} {k} ")?;
                if let Some(h) = hint {
                    f.write_str(match h {
                        JoinHint::Hash => "HASH ",
                        JoinHint::Loop => "LOOP ",
                        JoinHint::Merge => "MERGE ",
                        JoinHint::Remote => "REMOTE ",
                    })?;
                }
                write!(f, "JOIN {right}")?;
                if let Some(c) = on {
                    write!(f, " ON {c}")?;
                }
                Ok(())
            }
            TableRef::Nested(t) => write!(f, "({t})"),
            TableRef::Pivot {
                source,
                aggregate,
                pivot_column,
                values,
                alias,
            } => write!(
                f,
                "{source} PIVOT ({aggregate} FOR {pivot_column} IN ({})) AS {alias}",
                comma(values)
            ),
            TableRef::Unpivot {
                source,
                value_column,
                name_column,
                columns,
                alias,
            } => write!(
                f,
                "{source} UNPIVOT ({value_column} FOR {name_column} IN ({})) AS {alias}",
                comma(columns)
            ),
        }
    }
}

impl Display for QueryHint {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            QueryHint::MaxDop(n) => write!(f, "MAXDOP {n}"),
            QueryHint::Recompile => f.write_str("RECOMPILE"),
            QueryHint::HashJoin => f.write_str("HASH JOIN"),
            QueryHint::LoopJoin => f.write_str("LOOP JOIN"),
            QueryHint::MergeJoin => f.write_str("MERGE JOIN"),
            QueryHint::HashGroup => f.write_str("HASH GROUP"),
            QueryHint::OrderGroup => f.write_str("ORDER GROUP"),
            QueryHint::ConcatUnion => f.write_str("CONCAT UNION"),
            QueryHint::HashUnion => f.write_str("HASH UNION"),
            QueryHint::MergeUnion => f.write_str("MERGE UNION"),
            QueryHint::ForceOrder => f.write_str("FORCE ORDER"),
            QueryHint::NoPerformanceSpool => f.write_str("NO_PERFORMANCE_SPOOL"),
            QueryHint::KeepPlan => f.write_str("KEEP PLAN"),
            QueryHint::KeepFixedPlan => f.write_str("KEEPFIXED PLAN"),
            QueryHint::ExpandViews => f.write_str("EXPAND VIEWS"),
            QueryHint::RobustPlan => f.write_str("ROBUST PLAN"),
            QueryHint::IgnoreNonclusteredColumnstoreIndex => {
                f.write_str("IGNORE_NONCLUSTERED_COLUMNSTORE_INDEX")
            }
            QueryHint::Fast(n) => write!(f, "FAST {n}"),
            QueryHint::MaxRecursion(n) => write!(f, "MAXRECURSION {n}"),
            QueryHint::MinGrantPercent(p) => write!(f, "MIN_GRANT_PERCENT = {p}"),
            QueryHint::MaxGrantPercent(p) => write!(f, "MAX_GRANT_PERCENT = {p}"),
            QueryHint::OptimizeFor(v) => {
                f.write_str("OPTIMIZE FOR (")?;
                for (i, (n, e)) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match e {
                        Some(e) => write!(f, "{n} = {e}")?,
                        None => write!(f, "{n} UNKNOWN")?,
                    }
                }
                f.write_char(')')
            }
            QueryHint::OptimizeForUnknown => f.write_str("OPTIMIZE FOR UNKNOWN"),
            QueryHint::UseHint(v) => {
                f.write_str("USE HINT (")?;
                for (i, s) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_string(f, s, false)?;
                }
                f.write_char(')')
            }
            QueryHint::QueryTraceOn(n) => write!(f, "QUERYTRACEON {n}"),
            QueryHint::QueryRuleOff(n) => write!(f, "QUERYRULEOFF {}", Ident::new(n.clone())),
            QueryHint::Other(s) => f.write_str(s),
        }
    }
}

// ----- DML ----------------------------------------------------------------------------------

impl Display for DmlTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DmlTarget::Table(n) => write!(f, "{n}"),
            DmlTarget::Variable(v) => f.write_str(v),
        }
    }
}

impl Display for OutputClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, " OUTPUT {}", comma(&self.items))?;
        if let Some((t, cols)) = &self.into {
            write!(f, " INTO {t}")?;
            if !cols.is_empty() {
                write!(f, " ({})", comma(cols))?;
            }
        }
        Ok(())
    }
}

fn write_top(f: &mut Formatter<'_>, top: &Option<Top>) -> fmt::Result {
    if let Some(t) = top {
        write!(f, " {t}")?;
    }
    Ok(())
}

fn write_output(f: &mut Formatter<'_>, o: &Option<OutputClause>) -> fmt::Result {
    if let Some(o) = o {
        write!(f, "{o}")?;
    }
    Ok(())
}

impl Display for Insert {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_with(f, &self.with)?;
        f.write_str("INSERT")?;
        write_top(f, &self.top)?;
        write!(f, " INTO {}", self.target)?;
        write_hints(f, &self.hints)?;
        if !self.columns.is_empty() {
            write!(f, " ({})", comma(&self.columns))?;
        }
        write_output(f, &self.output)?;
        match &self.source {
            InsertSource::Values(rows) => write!(f, " VALUES {}", Rows(rows)),
            InsertSource::Query(q) => write!(f, " {q}"),
            InsertSource::Exec(e) => write!(f, " {e}"),
            InsertSource::DefaultValues => f.write_str(" DEFAULT VALUES"),
        }
    }
}

impl Display for SetItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SetItem::Column { column, op, value } => write!(f, "{column} {} {value}", op.as_str()),
            SetItem::Variable { name, op, value } => write!(f, "{name} {} {value}", op.as_str()),
            SetItem::VariableColumn {
                variable,
                column,
                value,
            } => write!(f, "{variable} = {column} = {value}"),
        }
    }
}

impl Display for CursorRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.global {
            f.write_str("GLOBAL ")?;
        }
        if self.name.value.starts_with('@') && !self.name.quoted {
            f.write_str(&self.name.value)
        } else {
            write!(f, "{}", self.name)
        }
    }
}

fn write_from_where(
    f: &mut Formatter<'_>,
    from: &[TableRef],
    selection: &Option<Expr>,
    current_of: &Option<CursorRef>,
    options: &[QueryHint],
) -> fmt::Result {
    if !from.is_empty() {
        write!(f, " FROM {}", comma(from))?;
    }
    if let Some(w) = selection {
        write!(f, " WHERE {w}")?;
    }
    if let Some(c) = current_of {
        write!(f, " WHERE CURRENT OF {c}")?;
    }
    write_options(f, options)
}

impl Display for Update {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_with(f, &self.with)?;
        f.write_str("UPDATE")?;
        write_top(f, &self.top)?;
        write!(f, " {}", self.target)?;
        write_hints(f, &self.hints)?;
        write!(f, " SET {}", comma(&self.set))?;
        write_output(f, &self.output)?;
        write_from_where(
            f,
            &self.from,
            &self.selection,
            &self.current_of,
            &self.options,
        )
    }
}

impl Display for Delete {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_with(f, &self.with)?;
        f.write_str("DELETE")?;
        write_top(f, &self.top)?;
        write!(f, " FROM {}", self.target)?;
        write_hints(f, &self.hints)?;
        write_output(f, &self.output)?;
        write_from_where(
            f,
            &self.from,
            &self.selection,
            &self.current_of,
            &self.options,
        )
    }
}

impl Display for Merge {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_with(f, &self.with)?;
        f.write_str("MERGE")?;
        write_top(f, &self.top)?;
        write!(f, " INTO {}", self.target)?;
        write_hints(f, &self.hints)?;
        if let Some(a) = &self.target_alias {
            write!(f, " AS {a}")?;
        }
        write!(f, " USING {} ON {}", self.source, self.on)?;
        for c in &self.clauses {
            f.write_str(match c.kind {
                MergeMatch::Matched => " WHEN MATCHED",
                MergeMatch::NotMatchedByTarget => " WHEN NOT MATCHED BY TARGET",
                MergeMatch::NotMatchedBySource => " WHEN NOT MATCHED BY SOURCE",
            })?;
            if let Some(e) = &c.condition {
                write!(f, " AND {e}")?;
            }
            f.write_str(" THEN ")?;
            match &c.action {
                MergeAction::Update(s) => write!(f, "UPDATE SET {}", comma(s))?,
                MergeAction::Delete => f.write_str("DELETE")?,
                MergeAction::Insert { columns, values } => {
                    f.write_str("INSERT")?;
                    if !columns.is_empty() {
                        write!(f, " ({})", comma(columns))?;
                    }
                    match values {
                        Some(v) => write!(f, " VALUES ({})", comma(v))?,
                        None => f.write_str(" DEFAULT VALUES")?,
                    }
                }
            }
        }
        write_output(f, &self.output)?;
        write_options(f, &self.options)
    }
}

impl Display for Exec {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Exec::Sql { sql, at } => {
                write!(f, "EXEC ({sql})")?;
                if let Some(a) = at {
                    write!(f, " AT {a}")?;
                }
                Ok(())
            }
            Exec::Module {
                return_status,
                module,
                args,
                recompile,
            } => {
                f.write_str("EXEC ")?;
                if let Some(r) = return_status {
                    write!(f, "{r} = ")?;
                }
                match module {
                    ExecModule::Name(n) => write!(f, "{n}")?,
                    ExecModule::Variable(v) => f.write_str(v)?,
                }
                for (i, a) in args.iter().enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    if let Some(n) = &a.name {
                        write!(f, "{n} = ")?;
                    }
                    write!(f, "{}", a.value)?;
                    if a.output {
                        f.write_str(" OUTPUT")?;
                    }
                }
                if *recompile {
                    f.write_str(" WITH RECOMPILE")?;
                }
                Ok(())
            }
        }
    }
}

// ----- DDL ----------------------------------------------------------------------------------

impl Display for OptionValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::On => f.write_str("ON"),
            OptionValue::Off => f.write_str("OFF"),
            OptionValue::Number(s) => f.write_str(s),
            OptionValue::String(s) => write_string(f, s, false),
            OptionValue::Word(s) => {
                if s.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                    || s.chars().all(|c| c.is_alphanumeric() || c == '_')
                {
                    f.write_str(s)
                } else {
                    write_bracketed(f, s)
                }
            }
        }
    }
}

impl Display for OptionSetting {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(v) = &self.value {
            write!(f, " = {v}")?;
        }
        if !self.nested.is_empty() {
            write!(f, " ({})", comma(&self.nested))?;
        }
        Ok(())
    }
}

fn write_with_options(f: &mut Formatter<'_>, o: &[OptionSetting]) -> fmt::Result {
    if !o.is_empty() {
        write!(f, " WITH ({})", comma(o))?;
    }
    Ok(())
}

impl Display for StorageTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            StorageTarget::Filegroup(g) => {
                if !g.quoted
                    && (g.value.eq_ignore_ascii_case("PRIMARY")
                        || g.value.eq_ignore_ascii_case("DEFAULT"))
                {
                    write!(f, " ON {}", g.value)
                } else {
                    write!(f, " ON {g}")
                }
            }
            StorageTarget::PartitionScheme { scheme, column } => {
                write!(f, " ON {scheme}({column})")
            }
        }
    }
}

fn write_on(f: &mut Formatter<'_>, on: &Option<StorageTarget>) -> fmt::Result {
    if let Some(o) = on {
        write!(f, "{o}")?;
    }
    Ok(())
}

impl Display for IndexColumn {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.name, if self.desc { " DESC" } else { "" })
    }
}

fn clustered_str(c: Option<bool>) -> &'static str {
    match c {
        Some(true) => " CLUSTERED",
        Some(false) => " NONCLUSTERED",
        None => "",
    }
}

/// Index body shared by CREATE INDEX and inline INDEX.
fn write_index_tail(f: &mut Formatter<'_>, d: &IndexDefinition) -> fmt::Result {
    if !d.columns.is_empty() {
        write!(f, " ({})", comma(&d.columns))?;
    }
    if !d.include.is_empty() {
        write!(f, " INCLUDE ({})", comma(&d.include))?;
    }
    if let Some(w) = &d.filter {
        write!(f, " WHERE {w}")?;
    }
    write_with_options(f, &d.with_options)?;
    write_on(f, &d.on)
}

struct InlineIndex<'a>(&'a IndexDefinition);
impl Display for InlineIndex<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let d = self.0;
        write!(f, "INDEX {}", d.name)?;
        if d.unique {
            f.write_str(" UNIQUE")?;
        }
        f.write_str(clustered_str(d.clustered))?;
        if d.columnstore {
            f.write_str(" COLUMNSTORE")?;
        }
        write_index_tail(f, d)
    }
}

impl Display for ReferentialAction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReferentialAction::NoAction => "NO ACTION",
            ReferentialAction::Cascade => "CASCADE",
            ReferentialAction::SetNull => "SET NULL",
            ReferentialAction::SetDefault => "SET DEFAULT",
        })
    }
}

impl Display for ForeignKeyRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "REFERENCES {}", self.table)?;
        if !self.columns.is_empty() {
            write!(f, " ({})", comma(&self.columns))?;
        }
        if let Some(a) = &self.on_delete {
            write!(f, " ON DELETE {a}")?;
        }
        if let Some(a) = &self.on_update {
            write!(f, " ON UPDATE {a}")?;
        }
        Ok(())
    }
}

fn write_constraint_name(f: &mut Formatter<'_>, n: &Option<Ident>) -> fmt::Result {
    if let Some(n) = n {
        write!(f, "CONSTRAINT {n} ")?;
    }
    Ok(())
}

impl Display for ColumnDefinition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(e) = &self.computed {
            write!(f, " AS {e}")?;
            if self.persisted {
                f.write_str(" PERSISTED")?;
            }
        }
        if let Some(t) = &self.data_type {
            write!(f, " {t}")?;
        }
        if self.sparse {
            f.write_str(" SPARSE")?;
        }
        if let Some(c) = &self.collation {
            write!(f, " COLLATE {c}")?;
        }
        if let Some((s, i)) = self.identity {
            write!(f, " IDENTITY({s}, {i})")?;
        }
        if self.rowguidcol {
            f.write_str(" ROWGUIDCOL")?;
        }
        match self.nullable {
            Some(true) => f.write_str(" NULL")?,
            Some(false) => f.write_str(" NOT NULL")?,
            None => {}
        }
        if let Some(d) = &self.default {
            f.write_char(' ')?;
            write_constraint_name(f, &d.name)?;
            write!(f, "DEFAULT {}", d.expr)?;
        }
        for c in &self.constraints {
            f.write_char(' ')?;
            write_constraint_name(f, &c.name)?;
            match &c.kind {
                ColumnConstraintKind::PrimaryKey {
                    clustered,
                    with_options,
                    on,
                }
                | ColumnConstraintKind::Unique {
                    clustered,
                    with_options,
                    on,
                } => {
                    f.write_str(
                        if matches!(c.kind, ColumnConstraintKind::PrimaryKey { .. }) {
                            "PRIMARY KEY"
                        } else {
                            "UNIQUE"
                        },
                    )?;
                    f.write_str(clustered_str(*clustered))?;
                    write_with_options(f, with_options)?;
                    write_on(f, on)?;
                }
                ColumnConstraintKind::Check(e) => write!(f, "CHECK ({e})")?,
                ColumnConstraintKind::References(r) => write!(f, "{r}")?,
            }
        }
        Ok(())
    }
}

impl Display for TableConstraint {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_constraint_name(f, &self.name)?;
        match &self.kind {
            TableConstraintKind::PrimaryKey {
                clustered,
                columns,
                with_options,
                on,
            }
            | TableConstraintKind::Unique {
                clustered,
                columns,
                with_options,
                on,
            } => {
                f.write_str(
                    if matches!(self.kind, TableConstraintKind::PrimaryKey { .. }) {
                        "PRIMARY KEY"
                    } else {
                        "UNIQUE"
                    },
                )?;
                f.write_str(clustered_str(*clustered))?;
                write!(f, " ({})", comma(columns))?;
                write_with_options(f, with_options)?;
                write_on(f, on)
            }
            TableConstraintKind::Check(e) => write!(f, "CHECK ({e})"),
            TableConstraintKind::ForeignKey {
                columns,
                references,
            } => write!(f, "FOREIGN KEY ({}) {references}", comma(columns)),
            TableConstraintKind::Default { expr, column } => {
                write!(f, "DEFAULT {expr} FOR {column}")
            }
        }
    }
}

impl Display for TableElement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TableElement::Column(c) => write!(f, "{c}"),
            TableElement::Constraint(c) => write!(f, "{c}"),
            TableElement::Index(i) => write!(f, "{}", InlineIndex(i)),
        }
    }
}

impl Display for TableDefinition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        let mut first = true;
        let mut sep = |f: &mut Formatter<'_>| {
            if first {
                first = false;
                Ok(())
            } else {
                f.write_str(", ")
            }
        };
        for c in &self.columns {
            sep(f)?;
            write!(f, "{c}")?;
        }
        for c in &self.constraints {
            sep(f)?;
            write!(f, "{c}")?;
        }
        for i in &self.indexes {
            sep(f)?;
            write!(f, "{}", InlineIndex(i))?;
        }
        f.write_char(')')
    }
}

impl Display for ObjectType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ObjectType::Table => "TABLE",
            ObjectType::View => "VIEW",
            ObjectType::Procedure => "PROCEDURE",
            ObjectType::Function => "FUNCTION",
            ObjectType::Trigger => "TRIGGER",
            ObjectType::Sequence => "SEQUENCE",
            ObjectType::Schema => "SCHEMA",
            ObjectType::Database => "DATABASE",
            ObjectType::Type => "TYPE",
            ObjectType::Synonym => "SYNONYM",
            ObjectType::PartitionFunction => "PARTITION FUNCTION",
            ObjectType::PartitionScheme => "PARTITION SCHEME",
            ObjectType::Statistics => "STATISTICS",
        })
    }
}

impl Display for StatisticsOption {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            StatisticsOption::FullScan => f.write_str("FULLSCAN"),
            StatisticsOption::Sample { value, percent } => write!(
                f,
                "SAMPLE {value} {}",
                if *percent { "PERCENT" } else { "ROWS" }
            ),
            StatisticsOption::NoRecompute => f.write_str("NORECOMPUTE"),
            StatisticsOption::Incremental(on) => {
                write!(f, "INCREMENTAL = {}", if *on { "ON" } else { "OFF" })
            }
            StatisticsOption::Other(o) => write!(f, "{o}"),
        }
    }
}

fn write_stats_options(f: &mut Formatter<'_>, o: &[StatisticsOption]) -> fmt::Result {
    if !o.is_empty() {
        write!(f, " WITH {}", comma(o))?;
    }
    Ok(())
}

impl Display for SequenceOption {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SequenceOption::StartWith(e) => write!(f, "START WITH {e}"),
            SequenceOption::IncrementBy(e) => write!(f, "INCREMENT BY {e}"),
            SequenceOption::MinValue(Some(e)) => write!(f, "MINVALUE {e}"),
            SequenceOption::MinValue(None) => f.write_str("NO MINVALUE"),
            SequenceOption::MaxValue(Some(e)) => write!(f, "MAXVALUE {e}"),
            SequenceOption::MaxValue(None) => f.write_str("NO MAXVALUE"),
            SequenceOption::Cycle(true) => f.write_str("CYCLE"),
            SequenceOption::Cycle(false) => f.write_str("NO CYCLE"),
            SequenceOption::Cache(Some(Some(e))) => write!(f, "CACHE {e}"),
            SequenceOption::Cache(Some(None)) => f.write_str("CACHE"),
            SequenceOption::Cache(None) => f.write_str("NO CACHE"),
            SequenceOption::Restart(Some(e)) => write!(f, "RESTART WITH {e}"),
            SequenceOption::Restart(None) => f.write_str("RESTART"),
        }
    }
}

impl Display for CreateSequence {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(t) = &self.data_type {
            write!(f, " AS {t}")?;
        }
        for o in &self.options {
            write!(f, " {o}")?;
        }
        Ok(())
    }
}

fn mode_str(m: CreateMode) -> &'static str {
    match m {
        CreateMode::Create => "CREATE",
        CreateMode::Alter => "ALTER",
        CreateMode::CreateOrAlter => "CREATE OR ALTER",
    }
}

impl Display for ProcParam {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name, self.data_type)?;
        if let Some(d) = &self.default {
            write!(f, " = {d}")?;
        }
        if self.output {
            f.write_str(" OUTPUT")?;
        }
        if self.readonly {
            f.write_str(" READONLY")?;
        }
        Ok(())
    }
}

fn write_module_options(f: &mut Formatter<'_>, o: &[String]) -> fmt::Result {
    if !o.is_empty() {
        write!(f, " WITH {}", comma(o))?;
    }
    Ok(())
}

/// Statements of a body, each followed by `;` and a newline.
struct Body<'a>(&'a [Statement]);
impl Display for Body<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for s in self.0 {
            writeln!(f, "{s};")?;
        }
        Ok(())
    }
}

fn write_file_specs(f: &mut Formatter<'_>, v: &[FileSpec]) -> fmt::Result {
    for (i, spec) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "({})", comma(spec))?;
    }
    Ok(())
}

fn write_cursor_options(f: &mut Formatter<'_>, o: &CursorOptions) -> fmt::Result {
    if let Some(s) = o.scope {
        f.write_str(match s {
            CursorScope::Local => " LOCAL",
            CursorScope::Global => " GLOBAL",
        })?;
    }
    if let Some(s) = o.scroll {
        f.write_str(match s {
            CursorScroll::ForwardOnly => " FORWARD_ONLY",
            CursorScroll::Scroll => " SCROLL",
        })?;
    }
    if let Some(k) = o.kind {
        f.write_str(match k {
            CursorKind::Static => " STATIC",
            CursorKind::Keyset => " KEYSET",
            CursorKind::Dynamic => " DYNAMIC",
            CursorKind::FastForward => " FAST_FORWARD",
        })?;
    }
    if let Some(c) = o.concurrency {
        f.write_str(match c {
            CursorConcurrency::ReadOnly => " READ_ONLY",
            CursorConcurrency::ScrollLocks => " SCROLL_LOCKS",
            CursorConcurrency::Optimistic => " OPTIMISTIC",
        })?;
    }
    if o.type_warning {
        f.write_str(" TYPE_WARNING")?;
    }
    Ok(())
}

fn opt_name(f: &mut Formatter<'_>, n: &Option<String>) -> fmt::Result {
    if let Some(n) = n {
        if n.starts_with('@') {
            write!(f, " {n}")?;
        } else {
            write!(f, " {}", Ident::new(n.clone()))?;
        }
    }
    Ok(())
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)
    }
}

impl Display for StatementKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use StatementKind as S;
        match self {
            S::Select(q) => write!(f, "{q}"),
            S::Insert(i) => write!(f, "{i}"),
            S::Update(u) => write!(f, "{u}"),
            S::Delete(d) => write!(f, "{d}"),
            S::Merge(m) => write!(f, "{m}"),
            S::Truncate(n) => write!(f, "TRUNCATE TABLE {n}"),
            S::CreateTable(t) => {
                write!(f, "CREATE TABLE {} {}", t.name, t.definition)?;
                write_on(f, &t.on)?;
                if let Some(g) = &t.textimage_on {
                    write!(f, " TEXTIMAGE_ON {g}")?;
                }
                write_with_options(f, &t.with_options)
            }
            S::AlterTable(a) => {
                write!(f, "ALTER TABLE {} ", a.name)?;
                match a.with_check {
                    Some(true) => f.write_str("WITH CHECK ")?,
                    Some(false) => f.write_str("WITH NOCHECK ")?,
                    None => {}
                }
                match &a.action {
                    AlterTableAction::Add(v) => write!(f, "ADD {}", comma(v)),
                    AlterTableAction::DropColumns { if_exists, names } => write!(
                        f,
                        "DROP COLUMN {}{}",
                        if *if_exists { "IF EXISTS " } else { "" },
                        comma(names)
                    ),
                    AlterTableAction::DropConstraints { if_exists, names } => write!(
                        f,
                        "DROP CONSTRAINT {}{}",
                        if *if_exists { "IF EXISTS " } else { "" },
                        comma(names)
                    ),
                    AlterTableAction::AlterColumn {
                        name,
                        data_type,
                        collation,
                        nullable,
                    } => {
                        write!(f, "ALTER COLUMN {name} {data_type}")?;
                        if let Some(c) = collation {
                            write!(f, " COLLATE {c}")?;
                        }
                        match nullable {
                            Some(true) => f.write_str(" NULL"),
                            Some(false) => f.write_str(" NOT NULL"),
                            None => Ok(()),
                        }
                    }
                    AlterTableAction::CheckConstraints { enable, names } => {
                        write!(
                            f,
                            "{} CONSTRAINT ",
                            if *enable { "CHECK" } else { "NOCHECK" }
                        )?;
                        if names.is_empty() {
                            f.write_str("ALL")
                        } else {
                            write!(f, "{}", comma(names))
                        }
                    }
                    AlterTableAction::Set(o) => write!(f, "SET ({})", comma(o)),
                    AlterTableAction::Rebuild(o) => {
                        f.write_str("REBUILD")?;
                        write_with_options(f, o)
                    }
                }
            }
            S::Drop {
                object_type,
                if_exists,
                names,
            } => write!(
                f,
                "DROP {object_type} {}{}",
                if *if_exists { "IF EXISTS " } else { "" },
                comma(names)
            ),
            S::DropIndex { if_exists, targets } => {
                write!(
                    f,
                    "DROP INDEX {}",
                    if *if_exists { "IF EXISTS " } else { "" }
                )?;
                for (i, t) in targets.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} ON {}", t.index, t.table)?;
                }
                Ok(())
            }
            S::CreateIndex(c) => {
                let d = &c.index;
                f.write_str("CREATE")?;
                if d.unique {
                    f.write_str(" UNIQUE")?;
                }
                f.write_str(clustered_str(d.clustered))?;
                if d.columnstore {
                    f.write_str(" COLUMNSTORE")?;
                }
                write!(f, " INDEX {} ON {}", d.name, c.table)?;
                write_index_tail(f, d)
            }
            S::AlterIndex(a) => {
                f.write_str("ALTER INDEX ")?;
                match &a.name {
                    Some(n) => write!(f, "{n}")?,
                    None => f.write_str("ALL")?,
                }
                write!(f, " ON {} ", a.table)?;
                match &a.action {
                    AlterIndexAction::Rebuild { partition, options }
                    | AlterIndexAction::Reorganize { partition, options } => {
                        f.write_str(if matches!(a.action, AlterIndexAction::Rebuild { .. }) {
                            "REBUILD"
                        } else {
                            "REORGANIZE"
                        })?;
                        if let Some(p) = partition {
                            write!(f, " PARTITION = {p}")?;
                        }
                        write_with_options(f, options)
                    }
                    AlterIndexAction::Disable => f.write_str("DISABLE"),
                    AlterIndexAction::Set(o) => write!(f, "SET ({})", comma(o)),
                }
            }
            S::CreateStatistics(s) => {
                write!(
                    f,
                    "CREATE STATISTICS {} ON {} ({})",
                    s.name,
                    s.table,
                    comma(&s.columns)
                )?;
                if let Some(w) = &s.filter {
                    write!(f, " WHERE {w}")?;
                }
                write_stats_options(f, &s.options)
            }
            S::UpdateStatistics(s) => {
                write!(f, "UPDATE STATISTICS {}", s.table)?;
                if !s.names.is_empty() {
                    write!(f, " ({})", comma(&s.names))?;
                }
                write_stats_options(f, &s.options)
            }
            S::CreatePartitionFunction(p) => write!(
                f,
                "CREATE PARTITION FUNCTION {} ({}) AS RANGE {} FOR VALUES ({})",
                p.name,
                p.input_type,
                if p.range_right { "RIGHT" } else { "LEFT" },
                comma(&p.boundaries)
            ),
            S::CreatePartitionScheme(p) => write!(
                f,
                "CREATE PARTITION SCHEME {} AS PARTITION {}{} TO ({})",
                p.name,
                p.function,
                if p.all { " ALL" } else { "" },
                comma(&p.filegroups)
            ),
            S::CreateSequence(s) => write!(f, "CREATE SEQUENCE {s}"),
            S::AlterSequence(s) => write!(f, "ALTER SEQUENCE {s}"),
            S::CreateType(t) => {
                write!(f, "CREATE TYPE {}", t.name)?;
                if let Some(b) = &t.base {
                    write!(f, " FROM {b}")?;
                    match t.nullable {
                        Some(true) => f.write_str(" NULL")?,
                        Some(false) => f.write_str(" NOT NULL")?,
                        None => {}
                    }
                }
                if let Some(d) = &t.table {
                    write!(f, " AS TABLE {d}")?;
                }
                Ok(())
            }
            S::CreateView(v) => {
                write!(f, "{} VIEW {}", mode_str(v.mode), v.name)?;
                if !v.columns.is_empty() {
                    write!(f, " ({})", comma(&v.columns))?;
                }
                write_module_options(f, &v.options)?;
                write!(f, " AS {}", v.query)?;
                if v.with_check_option {
                    f.write_str(" WITH CHECK OPTION")?;
                }
                Ok(())
            }
            S::CreateProcedure(p) => {
                write!(f, "{} PROCEDURE {}", mode_str(p.mode), p.name)?;
                if !p.params.is_empty() {
                    write!(f, " {}", comma(&p.params))?;
                }
                write_module_options(f, &p.options)?;
                write!(f, " AS\n{}", Body(&p.body))
            }
            S::CreateFunction(c) => {
                write!(
                    f,
                    "{} FUNCTION {} ({}) RETURNS ",
                    mode_str(c.mode),
                    c.name,
                    comma(&c.params)
                )?;
                match &c.body {
                    FunctionBody::Scalar { returns, body } => {
                        write!(f, "{returns}")?;
                        write_module_options(f, &c.options)?;
                        write!(f, " AS BEGIN\n{}END", Body(body))
                    }
                    FunctionBody::InlineTable { query } => {
                        f.write_str("TABLE")?;
                        write_module_options(f, &c.options)?;
                        write!(f, " AS RETURN {query}")
                    }
                    FunctionBody::MultiStatement {
                        variable,
                        table,
                        body,
                    } => {
                        write!(f, "{variable} TABLE {table}")?;
                        write_module_options(f, &c.options)?;
                        write!(f, " AS BEGIN\n{}END", Body(body))
                    }
                }
            }
            S::CreateTrigger(t) => {
                write!(
                    f,
                    "{} TRIGGER {} ON {} {} ",
                    mode_str(t.mode),
                    t.name,
                    t.table,
                    match t.timing {
                        TriggerTiming::After => "AFTER",
                        TriggerTiming::InsteadOf => "INSTEAD OF",
                    }
                )?;
                for (i, e) in t.events.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(match e {
                        TriggerEvent::Insert => "INSERT",
                        TriggerEvent::Update => "UPDATE",
                        TriggerEvent::Delete => "DELETE",
                    })?;
                }
                write!(f, " AS\n{}", Body(&t.body))
            }
            S::CreateSchema {
                name,
                authorization,
            } => {
                write!(f, "CREATE SCHEMA {name}")?;
                if let Some(a) = authorization {
                    write!(f, " AUTHORIZATION {a}")?;
                }
                Ok(())
            }
            S::CreateDatabase(d) => {
                write!(f, "CREATE DATABASE {}", d.name)?;
                if !d.files.is_empty() {
                    f.write_str(" ON ")?;
                    write_file_specs(f, &d.files)?;
                }
                if !d.log_files.is_empty() {
                    f.write_str(" LOG ON ")?;
                    write_file_specs(f, &d.log_files)?;
                }
                if let Some(c) = &d.collation {
                    write!(f, " COLLATE {c}")?;
                }
                Ok(())
            }
            S::AlterDatabase(a) => {
                f.write_str("ALTER DATABASE ")?;
                match &a.name {
                    Some(n) => write!(f, "{n}")?,
                    None => f.write_str("CURRENT")?,
                }
                match &a.action {
                    AlterDatabaseAction::AddFile {
                        log,
                        files,
                        filegroup,
                    } => {
                        write!(f, " ADD {}FILE ", if *log { "LOG " } else { "" })?;
                        write_file_specs(f, files)?;
                        if let Some(g) = filegroup {
                            write!(f, " TO FILEGROUP {g}")?;
                        }
                        Ok(())
                    }
                    AlterDatabaseAction::ModifyFile(s) => {
                        write!(f, " MODIFY FILE ({})", comma(s))
                    }
                    AlterDatabaseAction::AddFilegroup(g) => write!(f, " ADD FILEGROUP {g}"),
                    AlterDatabaseAction::RemoveFile(n) => write!(f, " REMOVE FILE {n}"),
                    AlterDatabaseAction::RemoveFilegroup(g) => write!(f, " REMOVE FILEGROUP {g}"),
                    AlterDatabaseAction::ModifyFilegroup {
                        name,
                        property,
                        new_name,
                    } => {
                        write!(f, " MODIFY FILEGROUP {name} {property}")?;
                        if let Some(n) = new_name {
                            write!(f, " = {n}")?;
                        }
                        Ok(())
                    }
                    AlterDatabaseAction::Set {
                        options,
                        termination,
                    } => {
                        write!(f, " SET {}", comma(options))?;
                        if let Some(t) = termination {
                            write!(f, " WITH {t}")?;
                        }
                        Ok(())
                    }
                    AlterDatabaseAction::Collate(c) => write!(f, " COLLATE {c}"),
                    AlterDatabaseAction::ModifyName(n) => write!(f, " MODIFY NAME = {n}"),
                }
            }
            S::AlterDatabaseScopedConfiguration(c) => {
                f.write_str("ALTER DATABASE SCOPED CONFIGURATION ")?;
                match &**c {
                    ScopedConfiguration::Set {
                        for_secondary,
                        option,
                    } => {
                        if *for_secondary {
                            f.write_str("FOR SECONDARY ")?;
                        }
                        write!(f, "SET {option}")
                    }
                    ScopedConfiguration::ClearProcedureCache(None) => {
                        f.write_str("CLEAR PROCEDURE_CACHE")
                    }
                    ScopedConfiguration::ClearProcedureCache(Some(h)) => {
                        write!(f, "CLEAR PROCEDURE_CACHE {h}")
                    }
                }
            }
            S::Use(n) => write!(f, "USE {n}"),
            S::Declare(items) => {
                f.write_str("DECLARE ")?;
                for (i, d) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match d {
                        DeclareItem::Scalar {
                            name,
                            data_type,
                            value,
                        } => {
                            write!(f, "{name} {data_type}")?;
                            if let Some(v) = value {
                                write!(f, " = {v}")?;
                            }
                        }
                        DeclareItem::Table { name, definition } => {
                            write!(f, "{name} TABLE {definition}")?;
                        }
                    }
                }
                Ok(())
            }
            S::DeclareCursor(c) => {
                write!(f, "DECLARE {} ", c.name)?;
                if c.options.insensitive {
                    f.write_str("INSENSITIVE ")?;
                }
                f.write_str("CURSOR")?;
                write_cursor_options(f, &c.options)?;
                write!(f, " FOR {}", c.query)?;
                if let Some(cols) = &c.for_update {
                    f.write_str(" FOR UPDATE")?;
                    if !cols.is_empty() {
                        write!(f, " OF {}", comma(cols))?;
                    }
                }
                Ok(())
            }
            S::Open(c) => write!(f, "OPEN {c}"),
            S::Close(c) => write!(f, "CLOSE {c}"),
            S::Deallocate(c) => write!(f, "DEALLOCATE {c}"),
            S::Fetch(x) => {
                f.write_str("FETCH ")?;
                match &x.direction {
                    FetchDirection::Next => f.write_str("NEXT")?,
                    FetchDirection::Prior => f.write_str("PRIOR")?,
                    FetchDirection::First => f.write_str("FIRST")?,
                    FetchDirection::Last => f.write_str("LAST")?,
                    FetchDirection::Absolute(e) => write!(f, "ABSOLUTE {e}")?,
                    FetchDirection::Relative(e) => write!(f, "RELATIVE {e}")?,
                }
                write!(f, " FROM {}", x.cursor)?;
                if !x.into.is_empty() {
                    write!(f, " INTO {}", comma(&x.into))?;
                }
                Ok(())
            }
            S::SetVariable { name, op, value } => write!(f, "SET {name} {} {value}", op.as_str()),
            S::SetCursorVariable {
                name,
                options,
                query,
            } => {
                write!(f, "SET {name} = CURSOR")?;
                write_cursor_options(f, options)?;
                write!(f, " FOR {query}")
            }
            S::SetOption(o) => match o {
                SetOption::OnOff { options, on } => write!(
                    f,
                    "SET {} {}",
                    comma(options),
                    if *on { "ON" } else { "OFF" }
                ),
                SetOption::IdentityInsert { table, on } => write!(
                    f,
                    "SET IDENTITY_INSERT {table} {}",
                    if *on { "ON" } else { "OFF" }
                ),
                SetOption::TransactionIsolation(l) => write!(
                    f,
                    "SET TRANSACTION ISOLATION LEVEL {}",
                    match l {
                        IsolationLevel::ReadUncommitted => "READ UNCOMMITTED",
                        IsolationLevel::ReadCommitted => "READ COMMITTED",
                        IsolationLevel::RepeatableRead => "REPEATABLE READ",
                        IsolationLevel::Snapshot => "SNAPSHOT",
                        IsolationLevel::Serializable => "SERIALIZABLE",
                    }
                ),
                SetOption::Value { option, value } => write!(f, "SET {option} {value}"),
            },
            S::If {
                condition,
                then_stmt,
                else_stmt,
            } => {
                write!(f, "IF {condition}\n{then_stmt}")?;
                if let Some(e) = else_stmt {
                    write!(f, "\nELSE\n{e}")?;
                }
                Ok(())
            }
            S::While { condition, body } => write!(f, "WHILE {condition}\n{body}"),
            S::Block(b) => write!(f, "BEGIN\n{}END", Body(b)),
            S::TryCatch {
                try_block,
                catch_block,
            } => write!(
                f,
                "BEGIN TRY\n{}END TRY\nBEGIN CATCH\n{}END CATCH",
                Body(try_block),
                Body(catch_block)
            ),
            S::Break => f.write_str("BREAK"),
            S::Continue => f.write_str("CONTINUE"),
            S::Return(e) => {
                f.write_str("RETURN")?;
                if let Some(e) = e {
                    write!(f, " {e}")?;
                }
                Ok(())
            }
            S::Goto(l) => write!(f, "GOTO {l}"),
            S::Label(l) => write!(f, "{l}:"),
            S::WaitFor { delay, value } => write!(
                f,
                "WAITFOR {} {value}",
                if *delay { "DELAY" } else { "TIME" }
            ),
            S::Print(e) => write!(f, "PRINT {e}"),
            S::RaisError(r) => {
                write!(f, "RAISERROR({}, {}, {}", r.message, r.severity, r.state)?;
                for a in &r.args {
                    write!(f, ", {a}")?;
                }
                f.write_char(')')?;
                if !r.options.is_empty() {
                    f.write_str(" WITH ")?;
                    for (i, o) in r.options.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        f.write_str(match o {
                            RaisErrorOption::Log => "LOG",
                            RaisErrorOption::NoWait => "NOWAIT",
                            RaisErrorOption::SetError => "SETERROR",
                        })?;
                    }
                }
                Ok(())
            }
            S::Throw(t) => match t {
                Some(b) => write!(f, "THROW {}, {}, {}", b.0, b.1, b.2),
                None => f.write_str("THROW"),
            },
            S::BeginTransaction { name } => {
                f.write_str("BEGIN TRANSACTION")?;
                opt_name(f, name)
            }
            S::Commit { name } => {
                f.write_str("COMMIT TRANSACTION")?;
                opt_name(f, name)
            }
            S::Rollback { name } => {
                f.write_str("ROLLBACK TRANSACTION")?;
                opt_name(f, name)
            }
            S::SaveTransaction { name } => {
                f.write_str("SAVE TRANSACTION")?;
                opt_name(f, &Some(name.clone()))
            }
            S::Exec(e) => write!(f, "{e}"),
            S::Checkpoint(e) => {
                f.write_str("CHECKPOINT")?;
                if let Some(e) = e {
                    write!(f, " {e}")?;
                }
                Ok(())
            }
            S::Dbcc(d) => {
                write!(f, "DBCC {}", d.command)?;
                if !d.args.is_empty() {
                    write!(f, "({})", comma(&d.args))?;
                }
                if !d.options.is_empty() {
                    write!(f, " WITH {}", comma(&d.options))?;
                }
                Ok(())
            }
            S::BulkInsert(b) => {
                write!(f, "BULK INSERT {} FROM ", b.table)?;
                write_string(f, &b.file, false)?;
                if b.options.is_empty() {
                    return Ok(());
                }
                f.write_str(" WITH (")?;
                for (i, o) in b.options.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_bulk_option(f, o)?;
                }
                f.write_str(")")
            }
            S::CreateExternal(c) => {
                write!(f, "CREATE EXTERNAL {} {}", external_kind(c.kind), c.name)?;
                if !c.columns.is_empty() {
                    f.write_str(" (")?;
                    for (i, (n, t, nullable)) in c.columns.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{n} {t}")?;
                        if !nullable {
                            f.write_str(" NOT NULL")?;
                        }
                    }
                    f.write_str(")")?;
                }
                f.write_str(" WITH (")?;
                for (i, (n, v)) in c.options.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{n} = {v}")?;
                }
                f.write_str(")")?;
                if let Some(q) = &c.query {
                    write!(f, " AS {q}")?;
                }
                Ok(())
            }
            S::DropExternal { kind, name } => {
                write!(f, "DROP EXTERNAL {} {name}", external_kind(*kind))
            }
            S::Unsupported { text, .. } | S::Security { text, .. } => f.write_str(text),
        }
    }
}

/// Prints statements as a batch (each terminated by `;`).
pub fn print_batch(stmts: &[Statement]) -> String {
    Body(stmts).to_string()
}

/// One BULK INSERT / OPENROWSET(BULK) option as written.
fn write_bulk_option(f: &mut fmt::Formatter<'_>, o: &BulkOption) -> fmt::Result {
    f.write_str(&o.name)?;
    match &o.value {
        BulkOptionValue::None => {}
        BulkOptionValue::Str(s) => {
            f.write_str(" = ")?;
            write_string(f, s, false)?;
        }
        BulkOptionValue::Int(n) => write!(f, " = {n}")?,
        BulkOptionValue::Bool(b) => f.write_str(if *b { " = TRUE" } else { " = FALSE" })?,
        BulkOptionValue::Order(cols) => {
            f.write_str(" (")?;
            for (k, (c, desc)) in cols.iter().enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{c}{}", if *desc { " DESC" } else { " ASC" })?;
            }
            f.write_str(")")?;
        }
    }
    Ok(())
}

fn external_kind(k: ExternalKind) -> &'static str {
    match k {
        ExternalKind::DataSource => "DATA SOURCE",
        ExternalKind::FileFormat => "FILE FORMAT",
        ExternalKind::Table => "TABLE",
    }
}
