//! Planner rules tested by name over an in-test catalog (planning needs no storage).

use std::sync::Arc;

use catalog::{
    Catalog, ColumnDef, IndexDef, IndexKind, QualifiedName, TableDef, TableRef, TableStorage,
};
use common::SqlResult;
use types::DataType;

struct Cat(Arc<TableDef>);

impl Catalog for Cat {
    fn current_database(&self) -> String {
        "db".into()
    }
    fn current_schema(&self) -> String {
        "dbo".into()
    }
    fn resolve_table(&self, name: &QualifiedName) -> SqlResult<Option<TableRef>> {
        Ok(name
            .name
            .eq_ignore_ascii_case("t")
            .then(|| TableRef::Table(self.0.clone())))
    }
}

impl plan::BindEnv for Cat {
    fn variable_slot(&self, _: &str) -> Option<(usize, DataType)> {
        None
    }
}

fn cat() -> Cat {
    let ix = |id: i32, name: &str, clustered: bool, cols: Vec<(usize, bool)>| IndexDef {
        index_id: id,
        name: name.into(),
        unique: clustered,
        primary_key: clustered,
        unique_constraint: false,
        clustered,
        kind: IndexKind::RowStore,
        key_columns: cols,
        included: vec![],
        filter: None,
        storage_id: 7,
        ignore_dup_key: false,
        fill_factor: 0,
        optimize_for_sequential_key: false,
    };
    Cat(Arc::new(TableDef {
        object_id: 1,
        database: "db".into(),
        schema: "dbo".into(),
        name: "t".into(),
        columns: vec![
            ColumnDef::new("id", DataType::Int, false),
            ColumnDef::new("v", DataType::Int, true),
        ],
        indexes: vec![
            ix(1, "PK_t", true, vec![(0, false)]),
            ix(2, "ix_v", false, vec![(1, false)]),
        ],
        storage: TableStorage::Clustered { index: 0 },
        checks: vec![],
        foreign_keys: vec![],
        is_temp: false,
        create_date: String::new(),
    }))
}

fn plan_text(sql: &str, off: &[&str]) -> String {
    let c = cat();
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &c).expect("bind");
    let opts = optimizer::Options {
        disabled_rules: off.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let p = optimizer::optimize_with(bound, &c, &opts).expect("optimize");
    optimizer::explain(&p)
}

#[test]
fn registry_names_are_unique_and_known() {
    let names: Vec<&str> = optimizer::rules::RULES.iter().map(|r| r.name).collect();
    for (i, n) in names.iter().enumerate() {
        assert!(!names[i + 1..].contains(n), "duplicate rule {n}");
        assert!(optimizer::rules::is_rule(n));
    }
}

#[test]
fn sel_to_idx_seek_fires_and_can_be_disabled() {
    let x = plan_text("SELECT v FROM t WHERE id = 5", &[]);
    assert!(
        x.starts_with(
            "  |--Clustered Index Seek(OBJECT:([db].[dbo].[t].[PK_t]), SEEK:([t].[id]=(5))"
        ),
        "{x}"
    );
    let x = plan_text("SELECT v FROM t WHERE id = 5", &["SelToIdxSeek"]);
    assert!(
        x.contains("Clustered Index Scan") && !x.contains("Seek"),
        "{x}"
    );
    let x = plan_text("SELECT id FROM t WHERE v BETWEEN 1 AND 3", &[]);
    assert!(
        x.contains("Index Seek(OBJECT:([db].[dbo].[t].[ix_v])") && x.contains("Key Lookup"),
        "{x}"
    );
}

#[test]
fn ordered_scan_and_top_n_sort() {
    let x = plan_text("SELECT id FROM t ORDER BY id DESC", &[]);
    assert!(x.contains("ORDERED BACKWARD") && !x.contains("Sort"), "{x}");
    let x = plan_text("SELECT id FROM t ORDER BY id", &["SortToOrderedScan"]);
    assert!(x.contains("Sort(ORDER BY"), "{x}");
    let x = plan_text("SELECT TOP 3 v FROM t ORDER BY v", &[]);
    assert!(x.contains("Sort(TOP (3)"), "{x}");
}

#[test]
fn joins_and_hints() {
    let x = plan_text("SELECT a.id FROM t a JOIN t b ON a.v = b.v", &[]);
    assert!(x.contains("Hash Match(Inner Join"), "{x}");
    let x = plan_text(
        "SELECT a.id FROM t a JOIN t b ON a.v = b.id OPTION (LOOP JOIN)",
        &[],
    );
    assert!(
        x.contains("Nested Loops(Inner Join, OUTER REFERENCES")
            && x.contains("Clustered Index Seek"),
        "{x}"
    );
    let x = plan_text(
        "SELECT a.id FROM t a, t b WHERE a.v = b.v AND a.id > 3",
        &[],
    );
    // the seek on a is small, so b is probed through its index on v
    assert!(
        x.contains("SEEK:([a].[id]>(3))")
            && x.contains("Index Seek(OBJECT:([db].[dbo].[t].[ix_v] AS [b])"),
        "{x}"
    );
    let x = plan_text(
        "SELECT a.id FROM t a, t b WHERE a.v = b.v",
        &["PushSelectIntoJoin"],
    );
    assert!(x.contains("Filter") && x.contains("Nested Loops"), "{x}");
}

#[test]
fn exists_becomes_semi_join() {
    let x = plan_text(
        "SELECT id FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.v = a.id)",
        &[],
    );
    assert!(x.contains("Right Semi Join"), "{x}");
    let x = plan_text(
        "SELECT id FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.v = a.id)",
        &[],
    );
    assert!(x.contains("Right Anti Semi Join"), "{x}");
    let x = plan_text(
        "SELECT id FROM t a WHERE id IN (SELECT v FROM t b WHERE b.id > a.v)",
        &[],
    );
    assert!(x.contains("Right Semi Join"), "{x}");
    let x = plan_text(
        "SELECT id FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.v = a.id)",
        &["SubqueryToSemiJoin"],
    );
    assert!(
        x.contains("WHERE:(EXISTS([Subquery]))") && !x.contains("Semi"),
        "{x}"
    );
}

fn plan_with(sql: &str, opts: &optimizer::Options) -> SqlResult<String> {
    let c = cat();
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &c).expect("bind");
    Ok(optimizer::explain(&optimizer::optimize_with(
        bound, &c, opts,
    )?))
}

#[test]
fn group_hints_choose_stream_or_hash_aggregation() {
    let order = optimizer::Options {
        group: optimizer::GroupHints {
            order: true,
            hash: false,
        },
        ..Default::default()
    };
    let x = plan_with("SELECT v, COUNT(*) FROM t GROUP BY v", &order).expect("plan");
    assert!(
        x.contains("Stream Aggregate(GROUP BY") && x.contains("Sort(ORDER BY:([v] ASC))"),
        "{x}"
    );
    let x = plan_with("SELECT DISTINCT v FROM t", &order).expect("plan");
    assert!(x.contains("Sort(DISTINCT ORDER BY"), "{x}");
    let e = plan_with("SELECT v, COUNT(*) FROM t GROUP BY ROLLUP(v)", &order).unwrap_err();
    assert_eq!(e.number, 8622);
    let both = optimizer::Options {
        group: optimizer::GroupHints {
            order: true,
            hash: true,
        },
        ..Default::default()
    };
    let x = plan_with("SELECT v, COUNT(*) FROM t GROUP BY v", &both).expect("plan");
    assert!(x.contains("Hash Match(Aggregate"), "{x}");
}

#[test]
fn union_hints_without_concat_have_no_plan() {
    let hash = optimizer::Options {
        union: optimizer::UnionHints {
            hash: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let e = plan_with("SELECT v FROM t UNION SELECT id FROM t", &hash).unwrap_err();
    assert_eq!(e.number, 8622);
    let with_concat = optimizer::Options {
        union: optimizer::UnionHints {
            hash: true,
            concat: true,
            merge: false,
        },
        ..Default::default()
    };
    let x = plan_with("SELECT v FROM t UNION SELECT id FROM t", &with_concat).expect("plan");
    assert!(x.contains("Concatenation"), "{x}");
}

/// The `needed` columns of the first table access under the build (right) input of the first
/// semi join in `op`.
fn semi_join_right_needed(op: &plan::PhysOp) -> Option<Option<Vec<bool>>> {
    if let plan::PhysKind::HashJoin {
        right,
        kind: plan::JoinKind::LeftSemi,
        ..
    } = &op.kind
    {
        let mut cur: &plan::PhysOp = right;
        loop {
            match &cur.kind {
                plan::PhysKind::ClusteredIndexScan { source, .. }
                | plan::PhysKind::TableScan { source, .. } => return Some(source.needed.clone()),
                _ => cur = cur.children().first()?,
            }
        }
    }
    op.children().into_iter().find_map(semi_join_right_needed)
}

#[test]
fn prune_columns_reads_only_the_keys_of_a_semi_joins_right_input() {
    // EXISTS (SELECT * ...): the semi join outputs no right column, so its build input decodes
    // (and its hash table keeps) the join key alone — not every column of the table
    let c = cat();
    let sql = "SELECT id FROM t a WHERE EXISTS (SELECT * FROM t b WHERE b.id = a.v)";
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &c).expect("bind");
    let p = optimizer::optimize(bound, &c).expect("optimize");
    let plan::Statement::Select { input, .. } = &p else {
        panic!("not a select")
    };
    assert_eq!(
        semi_join_right_needed(input),
        Some(Some(vec![true, false])),
        "{}",
        optimizer::explain(&p)
    );
}
