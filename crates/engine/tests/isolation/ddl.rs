//! Another session's DDL becomes visible at its commit (SQL Server: the DDL holds Sch-M on
//! the table to the end of its transaction, and a compile takes Sch-S on every table it
//! names, NOLOCK included): a query naming a table being created, altered or dropped waits,
//! then sees what was committed, or what the rollback left.

use super::{setup, Outcome};

fn column_count(o: &Outcome) -> usize {
    assert!(o.errors.is_empty(), "unexpected errors {:?}", o.errors);
    o.rows.first().map_or(0, |r| r.len())
}

#[test]
fn a_query_waits_for_an_uncommitted_create_table() {
    let (_d, _e, a, b) = setup("ddl-create");
    a.run("BEGIN TRAN; CREATE TABLE n (x int); INSERT n VALUES (1)")
        .ok();
    b.blocks("SELECT COUNT(*) FROM n");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().int(), 1);
    a.run("BEGIN TRAN; CREATE TABLE n2 (x int)").ok();
    b.blocks("SELECT COUNT(*) FROM n2");
    a.run("ROLLBACK").ok();
    assert_eq!(
        b.finish().error(),
        208,
        "rolled back: the table never existed"
    );
}

#[test]
fn a_query_waits_for_an_uncommitted_drop_table() {
    let (_d, _e, a, b) = setup("ddl-drop");
    a.run("BEGIN TRAN; DROP TABLE t").ok();
    // not 208 at once: the drop may still roll back
    b.blocks("SELECT COUNT(*) FROM t");
    a.run("ROLLBACK").ok();
    assert_eq!(b.finish().int(), 2);
    a.run("BEGIN TRAN; DROP TABLE t").ok();
    b.blocks("SELECT COUNT(*) FROM t");
    a.run("COMMIT").ok();
    assert_eq!(b.finish().error(), 208);
}

#[test]
fn a_query_waits_for_an_uncommitted_alter_table_nolock_included() {
    let (_d, _e, a, b) = setup("ddl-alter");
    a.run("BEGIN TRAN; ALTER TABLE t ADD c int NULL").ok();
    b.blocks("SELECT * FROM t WITH (NOLOCK)");
    a.run("ROLLBACK").ok();
    assert_eq!(column_count(&b.finish()), 2, "the rollback's definition");
    a.run("BEGIN TRAN; ALTER TABLE t ADD c int NULL").ok();
    b.blocks("SELECT * FROM t");
    a.run("COMMIT").ok();
    assert_eq!(column_count(&b.finish()), 3, "the committed definition");
}
