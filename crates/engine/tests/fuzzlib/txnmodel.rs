//! The model of committed state for the transaction fuzzer (fuzz_txn.rs) and the generator of
//! operation sequences over it.
//!
//! Tables `tN (id int NOT NULL [PRIMARY KEY], v int NULL, s varchar(30) NULL, eK int NULL ...)`;
//! the model knows every table's columns, indexes and rows, so each generated statement is one
//! that must succeed, and its effect on the model is exact. A sequence is either one
//! autocommit statement or `BEGIN TRAN ... COMMIT | ROLLBACK` with savepoints in between.

use std::collections::BTreeMap;

use super::Rng;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cell {
    Null,
    Int(i64),
    Str(String),
}

impl Cell {
    pub fn sql(&self) -> String {
        match self {
            Cell::Null => "NULL".into(),
            Cell::Int(n) => n.to_string(),
            Cell::Str(s) => format!("'{s}'"),
        }
    }
    pub fn from_value(v: &types::Value) -> Cell {
        use types::Value as V;
        match v {
            V::Null => Cell::Null,
            V::TinyInt(n) => Cell::Int(*n as i64),
            V::SmallInt(n) => Cell::Int(*n as i64),
            V::Int(n) => Cell::Int(*n as i64),
            V::BigInt(n) => Cell::Int(*n),
            V::VarChar(s) | V::Char(s) | V::NVarChar(s) | V::NChar(s) => Cell::Str(s.clone()),
            other => Cell::Str(format!("{other:?}")),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    /// "int", "bigint" or "varchar(30)".
    pub ty: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    /// Clustered PRIMARY KEY on id (else a heap).
    pub pk: bool,
    /// Nonclustered indexes: name -> column.
    pub indexes: BTreeMap<String, String>,
    pub rows: Vec<Vec<Cell>>,
}

/// Committed state plus the counters that keep generated names and ids fresh.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Model {
    pub tables: BTreeMap<String, Table>,
    pub next_table: u64,
    pub next_id: i64,
    pub next_name: u64,
}

impl Model {
    /// A line-based text form (the parent hands the model to each child process this way).
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "M {} {} {}\n",
            self.next_table, self.next_id, self.next_name
        );
        for (name, t) in &self.tables {
            let cols: Vec<String> = t
                .columns
                .iter()
                .map(|c| format!("{}:{}", c.name, c.ty))
                .collect();
            s.push_str(&format!("T {name} {} {}\n", t.pk as u8, cols.join(",")));
            for (ix, col) in &t.indexes {
                s.push_str(&format!("I {ix} {col}\n"));
            }
            for r in &t.rows {
                let cells: Vec<String> = r
                    .iter()
                    .map(|c| match c {
                        Cell::Null => "N".to_string(),
                        Cell::Int(n) => format!("i{n}"),
                        Cell::Str(s) => format!("s{s}"),
                    })
                    .collect();
                s.push_str(&format!("R {}\n", cells.join("\u{1}")));
            }
        }
        s
    }

    pub fn from_text(text: &str) -> Model {
        let mut m = Model::default();
        let mut cur: Option<String> = None;
        for line in text.lines() {
            let (tag, rest) = line.split_at(1);
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match tag {
                "M" => {
                    let v: Vec<&str> = rest.split(' ').collect();
                    m.next_table = v[0].parse().unwrap();
                    m.next_id = v[1].parse().unwrap();
                    m.next_name = v[2].parse().unwrap();
                }
                "T" => {
                    let v: Vec<&str> = rest.splitn(3, ' ').collect();
                    let columns = v[2]
                        .split(',')
                        .map(|c| {
                            let (n, t) = c.split_once(':').unwrap();
                            Column {
                                name: n.into(),
                                ty: t.into(),
                            }
                        })
                        .collect();
                    m.tables.insert(
                        v[0].into(),
                        Table {
                            columns,
                            pk: v[1] == "1",
                            indexes: BTreeMap::new(),
                            rows: Vec::new(),
                        },
                    );
                    cur = Some(v[0].into());
                }
                "I" => {
                    let (ix, col) = rest.split_once(' ').unwrap();
                    let t = m.tables.get_mut(cur.as_ref().unwrap()).unwrap();
                    t.indexes.insert(ix.into(), col.into());
                }
                "R" => {
                    let t = m.tables.get_mut(cur.as_ref().unwrap()).unwrap();
                    let row = if rest.is_empty() && t.columns.is_empty() {
                        vec![]
                    } else {
                        rest.split('\u{1}')
                            .map(|c| match &c[..1] {
                                "N" => Cell::Null,
                                "i" => Cell::Int(c[1..].parse().unwrap()),
                                _ => Cell::Str(c[1..].to_string()),
                            })
                            .collect()
                    };
                    t.rows.push(row);
                }
                _ => {}
            }
        }
        m
    }
}

/// Generator switches.
#[derive(Clone, Copy, Debug)]
pub struct GenOptions {
    /// DDL after a SAVE TRAN in the same transaction (issue 8 finding 2: on main a rollback to
    /// the savepoint destroys the object; fixed on h/ddlundo).
    pub ddl_after_savepoint: bool,
}

/// One generated sequence: the statements (each its own batch) and the committed model after it.
pub struct Sequence {
    pub statements: Vec<String>,
    /// The model after the sequence commits (== the model before when it rolls back).
    pub after: Model,
    pub commits: bool,
}

const WORDS: &[&str] = &["a", "bb", "ccc", "Zed", "x y", "", "long-ish value"];

fn lit(r: &mut Rng, ty: &str) -> Cell {
    if r.chance(15) {
        return Cell::Null;
    }
    if ty.starts_with("varchar") {
        Cell::Str(r.pick(WORDS).to_string())
    } else {
        Cell::Int(r.range(-50, 50))
    }
}

/// How an UPDATE changes one cell.
type CellUpdate = Box<dyn Fn(&Cell) -> Cell>;

struct SeqGen<'a> {
    r: &'a mut Rng,
    m: Model,
    opts: GenOptions,
    out: Vec<String>,
}

impl SeqGen<'_> {
    fn name(&mut self, prefix: &str) -> String {
        self.m.next_name += 1;
        format!("{prefix}{}", self.m.next_name)
    }

    fn some_table(&mut self) -> Option<String> {
        if self.m.tables.is_empty() {
            return None;
        }
        let names: Vec<String> = self.m.tables.keys().cloned().collect();
        Some(self.r.pick(&names).clone())
    }

    fn dml(&mut self) {
        let Some(t) = self.some_table() else {
            return self.create_table();
        };
        let table = self.m.tables[&t].clone();
        match self.r.below(5) {
            0 | 1 => {
                let n = self.r.range(1, 6);
                let mut rows = Vec::new();
                let mut texts = Vec::new();
                for _ in 0..n {
                    self.m.next_id += 1;
                    let mut row = vec![Cell::Int(self.m.next_id)];
                    for c in &table.columns[1..] {
                        row.push(lit(self.r, &c.ty));
                    }
                    texts.push(format!(
                        "({})",
                        row.iter().map(Cell::sql).collect::<Vec<_>>().join(", ")
                    ));
                    rows.push(row);
                }
                let cols: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
                self.out.push(format!(
                    "INSERT {t} ({}) VALUES {}",
                    cols.join(", "),
                    texts.join(", ")
                ));
                self.m.tables.get_mut(&t).unwrap().rows.extend(rows);
            }
            2 => {
                // UPDATE an int or varchar column of the rows with id % m = k
                let (m, k) = (self.r.range(1, 4), self.r.range(0, 3));
                let k = k % m;
                let ci = self.r.range(1, table.columns.len() as i64 - 1) as usize;
                let col = table.columns[ci].clone();
                let tm = self.m.tables.get_mut(&t).unwrap();
                let (set, f): (String, CellUpdate) = if col.ty.starts_with("varchar") {
                    let w = WORDS[self.r.below(WORDS.len() as u64) as usize].to_string();
                    let w2 = w.clone();
                    (format!("'{w}'"), Box::new(move |_| Cell::Str(w2.clone())))
                } else {
                    let d = self.r.range(-3, 3);
                    (
                        format!("{} + ({d})", col.name),
                        Box::new(move |c| match c {
                            Cell::Int(n) => Cell::Int(n + d),
                            _ => Cell::Null,
                        }),
                    )
                };
                for row in &mut tm.rows {
                    if let Cell::Int(id) = row[0] {
                        if id % m == k {
                            row[ci] = f(&row[ci]);
                        }
                    }
                }
                self.out.push(format!(
                    "UPDATE {t} SET {} = {set} WHERE id % {m} = {k}",
                    col.name
                ));
            }
            3 => {
                let (m, k) = (self.r.range(2, 6), self.r.range(0, 5));
                let k = k % m;
                let tm = self.m.tables.get_mut(&t).unwrap();
                tm.rows
                    .retain(|row| !matches!(row[0], Cell::Int(id) if id % m == k));
                self.out.push(format!("DELETE {t} WHERE id % {m} = {k}"));
            }
            _ => {
                // Keep tables small: delete most rows once they grow.
                let tm = self.m.tables.get_mut(&t).unwrap();
                if tm.rows.len() > 60 {
                    tm.rows
                        .retain(|row| !matches!(row[0], Cell::Int(id) if id % 4 != 0));
                    self.out.push(format!("DELETE {t} WHERE id % 4 <> 0"));
                } else {
                    self.out.push(format!("UPDATE {t} SET id = id WHERE 1 = 0"));
                }
            }
        }
    }

    fn create_table(&mut self) {
        self.m.next_table += 1;
        let name = format!("t{}", self.m.next_table);
        let pk = self.r.chance(60);
        let mut columns = vec![
            Column {
                name: "id".into(),
                ty: "int".into(),
            },
            Column {
                name: "v".into(),
                ty: "int".into(),
            },
            Column {
                name: "s".into(),
                ty: "varchar(30)".into(),
            },
        ];
        if self.r.chance(30) {
            columns.push(Column {
                name: "w".into(),
                ty: "bigint".into(),
            });
        }
        let defs: Vec<String> = columns
            .iter()
            .map(|c| {
                if c.name == "id" {
                    format!("id int NOT NULL{}", if pk { " PRIMARY KEY" } else { "" })
                } else {
                    format!("{} {} NULL", c.name, c.ty)
                }
            })
            .collect();
        self.out
            .push(format!("CREATE TABLE {name} ({})", defs.join(", ")));
        self.m.tables.insert(
            name,
            Table {
                columns,
                pk,
                indexes: BTreeMap::new(),
                rows: Vec::new(),
            },
        );
    }

    fn ddl(&mut self) {
        if self.m.tables.len() < 2 || self.r.chance(10) {
            return self.create_table();
        }
        let t = self.some_table().unwrap();
        let table = self.m.tables[&t].clone();
        let indexed: Vec<String> = table.indexes.values().cloned().collect();
        match self.r.below(8) {
            0 if self.m.tables.len() > 2 => {
                self.out.push(format!("DROP TABLE {t}"));
                self.m.tables.remove(&t);
            }
            1 => {
                self.out.push(format!("TRUNCATE TABLE {t}"));
                self.m.tables.get_mut(&t).unwrap().rows.clear();
            }
            2 => {
                let c = self.name("e");
                self.out.push(format!("ALTER TABLE {t} ADD {c} int NULL"));
                let tm = self.m.tables.get_mut(&t).unwrap();
                tm.columns.push(Column {
                    name: c,
                    ty: "int".into(),
                });
                for row in &mut tm.rows {
                    row.push(Cell::Null);
                }
            }
            3 => {
                // DROP an added (or the w) column that no index uses.
                let cands: Vec<usize> = (3..table.columns.len())
                    .filter(|&i| !indexed.contains(&table.columns[i].name))
                    .collect();
                if cands.is_empty() {
                    return self.dml();
                }
                let i = *self.r.pick(&cands);
                self.out.push(format!(
                    "ALTER TABLE {t} DROP COLUMN {}",
                    table.columns[i].name
                ));
                let tm = self.m.tables.get_mut(&t).unwrap();
                tm.columns.remove(i);
                for row in &mut tm.rows {
                    row.remove(i);
                }
            }
            4 => {
                // widen an int column (not id, not indexed) to bigint
                let cands: Vec<usize> = (1..table.columns.len())
                    .filter(|&i| {
                        table.columns[i].ty == "int" && !indexed.contains(&table.columns[i].name)
                    })
                    .collect();
                if cands.is_empty() {
                    return self.dml();
                }
                let i = *self.r.pick(&cands);
                self.out.push(format!(
                    "ALTER TABLE {t} ALTER COLUMN {} bigint NULL",
                    table.columns[i].name
                ));
                self.m.tables.get_mut(&t).unwrap().columns[i].ty = "bigint".into();
            }
            5 | 6 => {
                let ci = self.r.range(1, table.columns.len() as i64 - 1) as usize;
                let col = table.columns[ci].name.clone();
                let ix = self.name("ix");
                self.out.push(format!("CREATE INDEX {ix} ON {t} ({col})"));
                self.m.tables.get_mut(&t).unwrap().indexes.insert(ix, col);
            }
            _ => {
                let Some(ix) = table.indexes.keys().next().cloned() else {
                    return self.dml();
                };
                self.out.push(format!("DROP INDEX {ix} ON {t}"));
                self.m.tables.get_mut(&t).unwrap().indexes.remove(&ix);
            }
        }
    }
}

/// Generates sequence `n` from the committed model `m`.
pub fn sequence(seed: u64, n: u64, m: &Model, opts: GenOptions) -> Sequence {
    let mut r = Rng::new(seed.wrapping_mul(0x1000_0000_01B3).wrapping_add(n));
    let mut g = SeqGen {
        r: &mut r,
        m: m.clone(),
        opts,
        out: Vec::new(),
    };
    if g.r.chance(25) {
        // one autocommit statement
        if g.r.chance(30) {
            g.ddl()
        } else {
            g.dml()
        }
        let after = g.m;
        return Sequence {
            statements: g.out,
            after,
            commits: true,
        };
    }
    let start = g.m.clone();
    g.out.push("BEGIN TRAN".into());
    // savepoints: (name, model at the savepoint)
    let mut saves: Vec<(String, Model)> = Vec::new();
    let ops = g.r.range(1, 9);
    for _ in 0..ops {
        match g.r.below(10) {
            0 => {
                let sp = g.name("sp");
                g.out.push(format!("SAVE TRAN {sp}"));
                saves.push((sp, g.m.clone()));
            }
            1 if !saves.is_empty() => {
                let i = g.r.below(saves.len() as u64) as usize;
                let (sp, snap) = saves[i].clone();
                g.out.push(format!("ROLLBACK TRAN {sp}"));
                // Later savepoints are gone; this one stays usable (SQL Server semantics).
                saves.truncate(i + 1);
                g.m = snap;
            }
            2 | 3 if saves.is_empty() || g.opts.ddl_after_savepoint => g.ddl(),
            _ => g.dml(),
        }
    }
    let commits = g.r.chance(75);
    g.out
        .push(if commits { "COMMIT" } else { "ROLLBACK" }.into());
    let after = if commits { g.m } else { start };
    Sequence {
        statements: g.out,
        after,
        commits,
    }
}
