//! Random T-SQL over the fuzz schema: three tables with the same five columns
//! `(id int NOT NULL, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)`
//! stored three ways, each with a twin holding the same rows stored differently:
//!
//! | table | storage | twin | twin storage |
//! |---|---|---|---|
//! | `t1` | clustered PRIMARY KEY (id) | `h1` | heap + UNIQUE NONCLUSTERED (id) |
//! | `t2` | heap + NONCLUSTERED (a), (b, c) | `h2` | heap, no index |
//! | `t3` | clustered non-unique (b) + NONCLUSTERED (d) | `h3` | heap, no index |
//!
//! Statements are generated with `{t1}`/`{t2}`/`{t3}` placeholders; [`base`] and [`twin`]
//! substitute the names, so a query and its twin differ only in the storage they read.
//! Every relation (table, derived table, CTE) exposes the same five columns, which lets
//! derived tables, CTEs and set operations compose freely.

use super::Rng;

pub const TABLES: [&str; 3] = ["{t1}", "{t2}", "{t3}"];

/// DDL of the schema (base and twin tables).
pub const SCHEMA: &str = "
CREATE TABLE t1 (id int NOT NULL PRIMARY KEY CLUSTERED, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)
CREATE TABLE h1 (id int NOT NULL, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)
CREATE UNIQUE NONCLUSTERED INDEX h1_id ON h1 (id)
CREATE TABLE t2 (id int NOT NULL, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)
CREATE NONCLUSTERED INDEX t2_a ON t2 (a)
CREATE NONCLUSTERED INDEX t2_bc ON t2 (b, c)
CREATE TABLE h2 (id int NOT NULL, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)
CREATE TABLE t3 (id int NOT NULL, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)
CREATE CLUSTERED INDEX t3_b ON t3 (b)
CREATE NONCLUSTERED INDEX t3_d ON t3 (d)
CREATE TABLE h3 (id int NOT NULL, a int NULL, b varchar(20) NULL, c decimal(10,2) NULL, d datetime NULL)
";

/// The statement with base table names.
pub fn base(sql: &str) -> String {
    sql.replace("{t1}", "t1")
        .replace("{t2}", "t2")
        .replace("{t3}", "t3")
}

/// The statement against the twin tables (same rows, other storage).
pub fn twin(sql: &str) -> String {
    sql.replace("{t1}", "h1")
        .replace("{t2}", "h2")
        .replace("{t3}", "h3")
}

/// Strings chosen to exercise collation (case, trailing blanks), LIKE and empty values.
const STRINGS: &[&str] = &[
    "a", "A", "a ", "ab", "Ab", "abc", "b", "B ", "bc", "", " ", "x%y", "zz", "hello", "HELLO",
    "w_1", "quux", "a b",
];

const DATES: &[&str] = &[
    "2020-01-01",
    "2020-01-01 12:30:00",
    "2019-12-31 23:59:59.997",
    "2024-02-29",
    "1999-07-04",
    "2020-06-15 08:00:00",
];

pub fn lit_int(r: &mut Rng) -> String {
    match r.below(10) {
        0 => "NULL".into(),
        1 => r.range(-5, -1).to_string(),
        _ => r.range(0, 12).to_string(),
    }
}

pub fn lit_str(r: &mut Rng) -> String {
    if r.chance(8) {
        return "NULL".into();
    }
    format!("'{}'", r.pick(STRINGS))
}

pub fn lit_dec(r: &mut Rng) -> String {
    match r.below(8) {
        0 => "NULL".into(),
        1 => format!("-{}.{:02}", r.below(20), r.below(100)),
        _ => format!("{}.{:02}", r.below(20), r.below(100) / 25 * 25),
    }
}

pub fn lit_date(r: &mut Rng) -> String {
    if r.chance(8) {
        return "NULL".into();
    }
    format!("'{}'", r.pick(DATES))
}

/// One VALUES row `(id, a, b, c, d)`.
pub fn values_row(r: &mut Rng, id: i64) -> String {
    format!(
        "({id}, {}, {}, {}, {})",
        lit_int(r),
        lit_str(r),
        lit_dec(r),
        lit_date(r)
    )
}

/// Statements that give every base and twin table the same fresh `rows` rows.
pub fn reset_data(r: &mut Rng, rows: usize) -> String {
    let mut sql = String::new();
    for t in 1..=3 {
        let mut vals = Vec::new();
        let mut ids: Vec<i64> = (1..=(rows as i64 * 2)).collect();
        for _ in 0..rows {
            let i = r.below(ids.len() as u64) as usize;
            let id = ids.swap_remove(i);
            vals.push(values_row(r, id));
        }
        let vals = vals.join(", ");
        sql.push_str(&format!(
            "TRUNCATE TABLE t{t}\nTRUNCATE TABLE h{t}\nINSERT t{t} (id, a, b, c, d) VALUES {vals}\nINSERT h{t} (id, a, b, c, d) VALUES {vals}\n"
        ));
    }
    sql
}

/// The one spelling of all strings the default collation considers equal (case, trailing
/// blanks), for places where the engine picks one of several equal strings (MIN/MAX, GROUP BY).
fn canonical(e: &str) -> String {
    format!("UPPER(RTRIM({e}))")
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    Int,
    Str,
    Dec,
    Date,
}

const TYS: [Ty; 4] = [Ty::Int, Ty::Str, Ty::Dec, Ty::Date];

fn col_of(ty: Ty) -> &'static str {
    match ty {
        Ty::Int => "a",
        Ty::Str => "b",
        Ty::Dec => "c",
        Ty::Date => "d",
    }
}

/// Generation state: aliases in scope, depth budget, and what makes a result order- or
/// plan-dependent.
pub struct Gen<'r> {
    pub r: &'r mut Rng,
    /// Aliases visible to expressions (innermost last).
    scope: Vec<String>,
    next_alias: u32,
    /// Remaining nesting budget for subqueries / derived tables.
    depth: u32,
    /// Set when the query's result may legitimately differ between plans (TOP without a total
    /// order, ROW_NUMBER over ties, ...).
    pub nondeterministic: bool,
    /// CTE names defined for the current statement.
    ctes: Vec<String>,
}

impl<'r> Gen<'r> {
    pub fn new(r: &'r mut Rng) -> Self {
        Gen {
            r,
            scope: Vec::new(),
            next_alias: 0,
            depth: 3,
            nondeterministic: false,
            ctes: Vec::new(),
        }
    }

    fn alias(&mut self) -> String {
        self.next_alias += 1;
        format!("x{}", self.next_alias)
    }

    fn colref(&mut self, ty: Ty) -> Option<String> {
        if self.scope.is_empty() {
            return None;
        }
        // Mostly the innermost scope; sometimes an outer one (correlation).
        let n = self.scope.len();
        let i = if n > 1 && self.r.chance(25) {
            self.r.below(n as u64) as usize
        } else {
            n - 1
        };
        let col = if ty == Ty::Int && self.r.chance(35) {
            "id"
        } else {
            col_of(ty)
        };
        Some(format!("{}.{}", self.scope[i], col))
    }

    pub fn expr(&mut self, ty: Ty, d: u32) -> String {
        if d == 0 || self.r.chance(35) {
            if self.r.chance(75) {
                if let Some(c) = self.colref(ty) {
                    return c;
                }
            }
            return match ty {
                Ty::Int => lit_int(self.r),
                Ty::Str => lit_str(self.r),
                Ty::Dec => lit_dec(self.r),
                Ty::Date => lit_date(self.r),
            };
        }
        let d = d - 1;
        // Shared shapes.
        match self.r.below(12) {
            0 => {
                let p = self.pred(d);
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                return format!("CASE WHEN {p} THEN {a} ELSE {b} END");
            }
            1 => {
                let a = self.expr(ty, d);
                let b = self.expr(ty, d);
                let f = self.r.pick(&["COALESCE", "ISNULL"]);
                return format!("{f}({a}, {b})");
            }
            2 if self.depth > 0 && !self.scope.is_empty() => {
                return self.scalar_subquery(ty);
            }
            _ => {}
        }
        match ty {
            Ty::Int => match self.r.below(14) {
                0..=2 => {
                    let a = self.expr(Ty::Int, d);
                    let b = self.expr(Ty::Int, d);
                    let op = self.r.pick(&["+", "-", "*"]);
                    format!("({a} {op} {b})")
                }
                3 => {
                    let a = self.expr(Ty::Int, d);
                    let op = self.r.pick(&["/", "%"]);
                    format!("({a} {op} {})", self.r.range(1, 5))
                }
                4 => format!("ABS({})", self.expr(Ty::Int, d)),
                5 => format!("LEN({})", self.expr(Ty::Str, d)),
                6 => format!("CHARINDEX({}, {})", lit_str(self.r), self.expr(Ty::Str, d)),
                7 => {
                    let part = self.r.pick(&["year", "month", "day", "hour", "weekday"]);
                    format!("DATEPART({part}, {})", self.expr(Ty::Date, d))
                }
                8 => format!("CAST({} AS int)", self.expr(Ty::Dec, d)),
                9 => format!("SIGN({})", self.expr(Ty::Int, d)),
                10 => format!(
                    "NULLIF({}, {})",
                    self.expr(Ty::Int, d),
                    self.expr(Ty::Int, d)
                ),
                11 => format!(
                    "DATEDIFF(day, {}, {})",
                    self.expr(Ty::Date, d),
                    self.expr(Ty::Date, d)
                ),
                // `(-(...))`: a negative literal after `-` would start a `--` comment
                12 => format!("(-({}))", self.expr(Ty::Int, d)),
                _ => format!(
                    "IIF({}, {}, {})",
                    self.pred(d),
                    self.expr(Ty::Int, d),
                    self.expr(Ty::Int, d)
                ),
            },
            Ty::Str => match self.r.below(12) {
                0 => {
                    let f = self
                        .r
                        .pick(&["UPPER", "LOWER", "LTRIM", "RTRIM", "REVERSE"]);
                    format!("{f}({})", self.expr(Ty::Str, d))
                }
                1 => format!("LEFT({}, {})", self.expr(Ty::Str, d), self.r.range(0, 4)),
                2 => format!(
                    "SUBSTRING({}, {}, {})",
                    self.expr(Ty::Str, d),
                    self.r.range(0, 3),
                    self.r.range(0, 5)
                ),
                3 => format!("({} + {})", self.expr(Ty::Str, d), self.expr(Ty::Str, d)),
                4 => format!(
                    "REPLACE({}, {}, {})",
                    self.expr(Ty::Str, d),
                    lit_str(self.r),
                    lit_str(self.r)
                ),
                5 => format!(
                    "REPLICATE({}, {})",
                    self.expr(Ty::Str, d),
                    self.r.range(0, 3)
                ),
                6 => format!("CAST({} AS varchar(12))", self.expr(Ty::Int, d)),
                7 => format!(
                    "CONCAT({}, {})",
                    self.expr(Ty::Str, d),
                    self.expr(Ty::Int, d)
                ),
                8 => format!("CAST({} AS varchar(20))", self.expr(Ty::Dec, d)),
                9 => format!("RIGHT({}, {})", self.expr(Ty::Str, d), self.r.range(0, 4)),
                10 => format!("CONVERT(varchar(10), {}, 120)", self.expr(Ty::Date, d)),
                _ => format!("NULLIF({}, {})", self.expr(Ty::Str, d), lit_str(self.r)),
            },
            Ty::Dec => match self.r.below(6) {
                0 => format!("({} + {})", self.expr(Ty::Dec, d), self.expr(Ty::Dec, d)),
                1 => format!("({} * {})", self.expr(Ty::Dec, d), self.expr(Ty::Int, d)),
                2 => format!("ROUND({}, {})", self.expr(Ty::Dec, d), self.r.range(0, 2)),
                3 => format!("ABS({})", self.expr(Ty::Dec, d)),
                4 => format!("CAST({} AS decimal(10,2))", self.expr(Ty::Int, d)),
                _ => format!("FLOOR({})", self.expr(Ty::Dec, d)),
            },
            Ty::Date => match self.r.below(3) {
                0 => format!(
                    "DATEADD({}, {}, {})",
                    self.r.pick(&["day", "month", "hour"]),
                    self.r.range(-40, 40),
                    self.expr(Ty::Date, d)
                ),
                1 => format!("CAST({} AS datetime)", lit_date(self.r)),
                _ => format!("CAST(CAST({} AS date) AS datetime)", self.expr(Ty::Date, d)),
            },
        }
    }

    pub fn pred(&mut self, d: u32) -> String {
        let ty = *self.r.pick(&TYS);
        if d == 0 {
            return self.cmp(ty, 0);
        }
        let d1 = d - 1;
        match self.r.below(14) {
            0..=3 => self.cmp(ty, d1),
            4 => format!("({} AND {})", self.pred(d1), self.pred(d1)),
            5 => format!("({} OR {})", self.pred(d1), self.pred(d1)),
            6 => format!("NOT ({})", self.pred(d1)),
            7 => {
                let not = if self.r.chance(30) { "NOT " } else { "" };
                format!("{} IS {not}NULL", self.expr(ty, d1))
            }
            8 => format!(
                "{} BETWEEN {} AND {}",
                self.expr(ty, d1),
                self.expr(ty, d1),
                self.expr(ty, d1)
            ),
            9 => {
                let n = self.r.range(1, 4);
                let lits: Vec<String> = (0..n)
                    .map(|_| match ty {
                        Ty::Int => lit_int(self.r),
                        Ty::Str => lit_str(self.r),
                        Ty::Dec => lit_dec(self.r),
                        Ty::Date => lit_date(self.r),
                    })
                    .collect();
                let not = if self.r.chance(30) { "NOT " } else { "" };
                format!("{} {not}IN ({})", self.expr(ty, d1), lits.join(", "))
            }
            10 if self.depth > 0 => {
                let not = if self.r.chance(30) { "NOT " } else { "" };
                let e = self.expr(ty, d1);
                let sub = self.column_subquery(ty);
                format!("{e} {not}IN ({sub})")
            }
            11 if self.depth > 0 => {
                let not = if self.r.chance(30) { "NOT " } else { "" };
                let sub = self.exists_subquery();
                format!("{not}EXISTS ({sub})")
            }
            12 => {
                let pat = self
                    .r
                    .pick(&["a%", "%b", "_", "%", "a_", "[ab]%", "%x[%]y%", "h%o"]);
                let not = if self.r.chance(30) { "NOT " } else { "" };
                format!("{} {not}LIKE '{pat}'", self.expr(Ty::Str, d1))
            }
            _ => self.cmp(ty, d1),
        }
    }

    fn cmp(&mut self, ty: Ty, d: u32) -> String {
        let op = self.r.pick(&["=", "<>", "<", "<=", ">", ">=", "="]);
        let a = self.expr(ty, d);
        let b = self.expr(ty, d);
        format!("{a} {op} {b}")
    }

    /// A table reference (base table or CTE) with a fresh alias, pushed on the scope by the
    /// caller.
    fn table_ref(&mut self) -> (String, String) {
        let alias = self.alias();
        let name = if !self.ctes.is_empty() && self.r.chance(40) {
            self.r.pick(&self.ctes.clone()).clone()
        } else {
            self.r.pick(&TABLES).to_string()
        };
        (format!("{name} AS {alias}"), alias)
    }

    fn scalar_subquery(&mut self, ty: Ty) -> String {
        self.depth -= 1;
        let (t, a) = self.table_ref();
        self.scope.push(a.clone());
        let w = self.pred(1);
        let agg = match ty {
            Ty::Int => self.r.pick(&["MAX", "MIN", "COUNT", "SUM"]).to_string(),
            _ => self.r.pick(&["MAX", "MIN"]).to_string(),
        };
        let arg = if agg == "COUNT" && self.r.chance(50) {
            "*".to_string()
        } else if ty == Ty::Str {
            // Strings equal under the collation ('a', 'A', 'a ') differ once LEN, LIKE or +
            // sees them; which one MIN/MAX returns is the plan's choice, so aggregate a
            // canonical form.
            canonical(&self.expr(ty, 1))
        } else {
            self.expr(ty, 1)
        };
        self.scope.pop();
        self.depth += 1;
        format!("(SELECT {agg}({arg}) FROM {t} WHERE {w})")
    }

    fn column_subquery(&mut self, ty: Ty) -> String {
        self.depth -= 1;
        let (t, a) = self.table_ref();
        self.scope.push(a.clone());
        let e = self.expr(ty, 1);
        let w = self.pred(1);
        self.scope.pop();
        self.depth += 1;
        format!("SELECT {e} FROM {t} WHERE {w}")
    }

    fn exists_subquery(&mut self) -> String {
        self.depth -= 1;
        let (t, a) = self.table_ref();
        self.scope.push(a.clone());
        let w = self.pred(2);
        self.scope.pop();
        self.depth += 1;
        format!("SELECT 1 FROM {t} WHERE {w}")
    }

    /// A relation exposing (id, a, b, c, d): base table, CTE, or a derived table. Returns the
    /// FROM item; the alias is pushed on `self.scope`.
    fn relation(&mut self) -> String {
        if self.depth == 0 || self.r.chance(65) {
            let (t, a) = self.table_ref();
            self.scope.push(a);
            return t;
        }
        self.depth -= 1;
        let saved = std::mem::take(&mut self.scope);
        let body = self.relation_query();
        self.scope = saved;
        self.depth += 1;
        let alias = self.alias();
        self.scope.push(alias.clone());
        format!("({body}) AS {alias}")
    }

    /// A query whose result has the five standard columns (for derived tables, CTEs, set
    /// operations).
    pub fn relation_query(&mut self) -> String {
        match self.r.below(6) {
            0 => {
                // aggregate
                let saved = self.scope.len();
                let from = self.relation();
                let a = self.scope.last().cloned().unwrap_or_default();
                let g = *self.r.pick(&["a", "b", "c", "d"]);
                let (ia, ib, ic, id) = (
                    if g == "a" {
                        format!("{a}.a")
                    } else {
                        format!("COUNT({a}.a)")
                    },
                    if g == "b" {
                        canonical(&format!("{a}.b"))
                    } else {
                        format!("MAX({})", canonical(&format!("{a}.b")))
                    },
                    if g == "c" {
                        format!("{a}.c")
                    } else {
                        format!("SUM({a}.c)")
                    },
                    if g == "d" {
                        format!("{a}.d")
                    } else {
                        format!("MIN({a}.d)")
                    },
                );
                self.scope.truncate(saved);
                format!(
                    "SELECT MIN({a}.id) AS id, {ia} AS a, {ib} AS b, {ic} AS c, {id} AS d FROM {from} GROUP BY {a}.{g}"
                )
            }
            1 => {
                let l = self.relation_query_simple();
                let r = self.relation_query_simple();
                let op = self
                    .r
                    .pick(&["UNION ALL", "UNION", "EXCEPT", "INTERSECT", "UNION ALL"]);
                format!("{l} {op} {r}")
            }
            _ => self.relation_query_simple(),
        }
    }

    fn relation_query_simple(&mut self) -> String {
        let saved = self.scope.len();
        let from = self.relation();
        let a = self.scope.last().cloned().unwrap_or_default();
        let w = if self.r.chance(60) {
            format!(" WHERE {}", self.pred(2))
        } else {
            String::new()
        };
        let ia = if self.r.chance(30) {
            format!("{} AS a", self.expr(Ty::Int, 2))
        } else {
            format!("{a}.a")
        };
        let ib = if self.r.chance(30) {
            format!("CAST({} AS varchar(20)) AS b", self.expr(Ty::Str, 2))
        } else {
            format!("{a}.b")
        };
        self.scope.truncate(saved);
        format!("SELECT {a}.id, {ia}, {ib}, {a}.c, {a}.d FROM {from}{w}")
    }

    /// FROM clause of 1..=3 relations joined in random ways (aliases pushed on scope).
    pub fn gen_from_clause(&mut self) -> String {
        let mut from = self.relation();
        let n = self.r.below(3);
        for _ in 0..n {
            let left_aliases = self.scope.clone();
            let rel = self.relation();
            let ra = self.scope.last().cloned().unwrap_or_default();
            let kind = *self.r.pick(&[
                "INNER JOIN",
                "JOIN",
                "LEFT JOIN",
                "RIGHT JOIN",
                "FULL JOIN",
                "CROSS JOIN",
                "LEFT OUTER JOIN",
                "INNER JOIN",
            ]);
            if kind == "CROSS JOIN" {
                from = format!("{from} CROSS JOIN {rel}");
                continue;
            }
            // Mostly an equi-join on compatible columns, sometimes any predicate.
            let la = self.r.pick(&left_aliases).clone();
            let on = if self.r.chance(75) {
                let c = *self.r.pick(&["id", "a", "b", "c", "d", "a"]);
                let c2 = if c == "id" && self.r.chance(50) {
                    "a"
                } else {
                    c
                };
                let mut on = format!("{la}.{c} = {ra}.{c2}");
                if self.r.chance(30) {
                    on = format!("{on} AND {}", self.pred(1));
                }
                on
            } else {
                self.pred(2)
            };
            from = format!("{from} {kind} {rel} ON {on}");
        }
        from
    }
}

/// A generated top-level query with what the oracles need to know about it.
pub struct Query {
    /// Optional `WITH ...` prefix.
    pub with: String,
    pub select: String,
    pub from: String,
    pub where_: Option<String>,
    /// GROUP BY / HAVING / ORDER BY tail (already rendered).
    pub tail: String,
    /// The predicate for the TLP oracle (only for plain SELECT-FROM-WHERE shapes).
    pub tlp: Option<String>,
    /// Result order is part of the answer (ORDER BY over every output column).
    pub ordered: bool,
    pub nondeterministic: bool,
}

impl Query {
    pub fn sql(&self) -> String {
        let w = match &self.where_ {
            Some(p) => format!(" WHERE {p}"),
            None => String::new(),
        };
        format!(
            "{}{} FROM {}{}{}",
            self.with, self.select, self.from, w, self.tail
        )
    }

    /// The TLP partition queries: `WHERE p`, `WHERE NOT p`, `WHERE p IS UNKNOWN`, as one
    /// UNION ALL.
    pub fn tlp_sql(&self) -> Option<String> {
        let p = self.tlp.as_ref()?;
        let base = match &self.where_ {
            Some(w) => format!("({w}) AND "),
            None => String::new(),
        };
        let part = |cond: String| format!("{} FROM {} WHERE {base}{cond}", self.select, self.from);
        Some(format!(
            "{}{} UNION ALL {} UNION ALL {}",
            self.with,
            part(format!("({p})")),
            part(format!("NOT ({p})")),
            part(format!(
                "(CASE WHEN ({p}) THEN 0 WHEN NOT ({p}) THEN 0 ELSE 1 END) = 1"
            )),
        ))
    }
}

pub fn query(r: &mut Rng) -> Query {
    let mut g = Gen::new(r);
    let mut with = String::new();
    if g.r.chance(20) {
        let n = g.r.range(1, 2);
        let mut parts = Vec::new();
        for i in 0..n {
            let body = g.relation_query();
            let name = format!("cte{i}");
            parts.push(format!("{name} AS ({body})"));
            g.ctes.push(name);
        }
        with = format!("WITH {} ", parts.join(", "));
    }
    let from = g.gen_from_clause();
    let aliases = g.scope.clone();
    let where_ = if g.r.chance(60) {
        Some(g.pred(3))
    } else {
        None
    };
    let shape = g.r.below(10);
    let mut tail = String::new();
    let mut ordered = false;
    let mut tlp = None;
    let select;
    let ncols;
    if shape < 3 {
        // GROUP BY
        let a = g.r.pick(&aliases).clone();
        let gc = *g.r.pick(&["a", "b", "c", "d", "id"]);
        let mut items = vec![format!("{a}.{gc} AS k")];
        let n = g.r.range(1, 3);
        for i in 0..n {
            let ty = *g.r.pick(&TYS);
            let e = g.expr(ty, 1);
            let agg = match (ty, g.r.below(6)) {
                (_, 0) => "COUNT(*)".to_string(),
                (Ty::Int | Ty::Dec, 1) => format!("SUM({e})"),
                (Ty::Int, 2) => format!("AVG({e})"),
                (_, 3) => format!("COUNT(DISTINCT {e})"),
                (_, 4) => format!("MIN({e})"),
                _ => format!("MAX({e})"),
            };
            items.push(format!("{agg} AS v{i}"));
        }
        ncols = items.len();
        select = format!("SELECT {}", items.join(", "));
        tail = format!(" GROUP BY {a}.{gc}");
        if g.r.chance(30) {
            let e = g.expr(Ty::Int, 1);
            tail.push_str(&format!(
                " HAVING COUNT(*) > {} OR MAX({e}) IS NULL",
                g.r.range(0, 2)
            ));
        }
    } else {
        let mut items = Vec::new();
        let n = g.r.range(1, 4);
        let mut windowed = false;
        for i in 0..n {
            if g.r.chance(15) {
                windowed = true;
                let a = g.r.pick(&aliases).clone();
                let part = *g.r.pick(&["a", "b", "c", "d"]);
                let ord = *g.r.pick(&["a", "b", "c", "d", "id"]);
                let w = match g.r.below(6) {
                    0 => format!("SUM({a}.a) OVER (PARTITION BY {a}.{part})"),
                    1 => "COUNT(*) OVER ()".to_string(),
                    2 => format!("RANK() OVER (ORDER BY {a}.{ord})"),
                    3 => format!(
                        "DENSE_RANK() OVER (PARTITION BY {a}.{part} ORDER BY {a}.{ord} DESC)"
                    ),
                    4 => format!("MAX({a}.c) OVER (PARTITION BY {a}.{part})"),
                    _ => {
                        g.nondeterministic = true;
                        format!("ROW_NUMBER() OVER (PARTITION BY {a}.{part} ORDER BY {a}.{ord})")
                    }
                };
                items.push(format!("{w} AS v{i}"));
            } else {
                let ty = *g.r.pick(&TYS);
                items.push(format!("{} AS v{i}", g.expr(ty, 2)));
            }
        }
        ncols = items.len();
        let distinct = g.r.chance(15);
        let top = if g.r.chance(15) {
            format!("TOP ({}) ", g.r.range(0, 6))
        } else {
            String::new()
        };
        select = format!(
            "SELECT {}{top}{}",
            if distinct { "DISTINCT " } else { "" },
            items.join(", ")
        );
        if !distinct && top.is_empty() && !windowed && g.r.chance(50) {
            tlp = Some(g.pred(2));
        }
        if !top.is_empty() && !g.r.chance(60) {
            g.nondeterministic = true;
        }
        if !top.is_empty() && !g.nondeterministic || g.r.chance(20) {
            let cols: Vec<String> = (1..=ncols).map(|i| i.to_string()).collect();
            tail = format!(" ORDER BY {}", cols.join(", "));
            ordered = true;
        }
    }
    let _ = ncols;
    Query {
        with,
        select,
        from,
        where_,
        tail,
        tlp,
        ordered,
        nondeterministic: g.nondeterministic,
    }
}

/// A random DML statement against one base table (placeholders), deterministic in effect.
pub fn dml(r: &mut Rng, next_id: &mut i64) -> String {
    let t = *r.pick(&TABLES);
    let mut g = Gen::new(r);
    match g.r.below(7) {
        0 | 1 => {
            let n = g.r.range(1, 4);
            let rows: Vec<String> = (0..n)
                .map(|_| {
                    // Mostly fresh ids; sometimes a low one that may collide (2627/2601 on t1/h1).
                    let id = if g.r.chance(15) {
                        g.r.range(1, 40)
                    } else {
                        *next_id += 1;
                        *next_id
                    };
                    values_row(g.r, id)
                })
                .collect();
            format!("INSERT {t} (id, a, b, c, d) VALUES {}", rows.join(", "))
        }
        2 => {
            let src = *g.r.pick(&TABLES);
            g.scope.push("s".into());
            let p = g.pred(2);
            let e = g.expr(Ty::Str, 1);
            g.scope.pop();
            *next_id += 1000;
            format!(
                "INSERT {t} (id, a, b, c, d) SELECT s.id + {next_id}, s.a, CAST({e} AS varchar(20)), s.c, s.d FROM {src} AS s WHERE {p}"
            )
        }
        3 | 4 => {
            g.scope.push("u".into());
            let p = g.pred(2);
            let (col, ty) = *g.r.pick(&[
                ("a", Ty::Int),
                ("b", Ty::Str),
                ("c", Ty::Dec),
                ("d", Ty::Date),
            ]);
            let e = g.expr(ty, 2);
            g.scope.pop();
            let e = if ty == Ty::Str {
                format!("CAST({e} AS varchar(20))")
            } else {
                e
            };
            format!("UPDATE u SET {col} = {e} FROM {t} AS u WHERE {p}")
        }
        5 => {
            g.scope.push("x".into());
            let p = g.pred(2);
            g.scope.pop();
            format!("DELETE x FROM {t} AS x WHERE {p}")
        }
        _ => {
            // MERGE with all three WHEN kinds; duplicate source ids give Msg 8672 on both
            // twins alike.
            let src = *g.r.pick(&TABLES);
            g.scope.push("s".into());
            let p = g.pred(2);
            g.scope.pop();
            g.scope.push("tg".into());
            let m = g.pred(1);
            let e = g.expr(Ty::Int, 2);
            g.scope.pop();
            g.scope.push("tg".into());
            g.scope.push("src".into());
            let sv = g.expr(Ty::Str, 1);
            g.scope.truncate(0);
            *next_id += 1000;
            format!(
                "MERGE {t} AS tg USING (SELECT s.id, s.a, s.b FROM {src} AS s WHERE {p}) AS src ON tg.id = src.id \
                 WHEN MATCHED AND {m} THEN UPDATE SET a = {e}, b = CAST({sv} AS varchar(20)) \
                 WHEN NOT MATCHED THEN INSERT (id, a, b) VALUES (src.id + {next_id}, src.a, src.b) \
                 WHEN NOT MATCHED BY SOURCE AND tg.a > {} THEN DELETE;",
                g.r.range(0, 12)
            )
        }
    }
}
