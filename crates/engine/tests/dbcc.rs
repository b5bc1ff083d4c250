//! DBCC CHECKTABLE / CHECKDB on a nonclustered index damaged on purpose through the storage
//! API (issue 8): a row whose index entry was deleted is Msg 8951 + 8955, an index entry
//! without a row is Msg 8952 + 8956, the summary counts them and names repair_rebuild; an
//! intact database reports no error.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};

fn open(tag: &str) -> (Arc<Engine>, Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-dbcc-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (e.clone(), Session::new(e), d)
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn messages(out: &CollectSink) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            engine::Event::Message(m) => Some(m.text.clone()),
            _ => None,
        })
        .collect()
}

fn error_numbers(out: &CollectSink) -> Vec<i32> {
    out.errors().iter().map(|e| e.number).collect()
}

/// The storage B-tree of index `index` of table `dbo.<table>` in master.
fn index_tree(e: &Engine, table: &str, index: &str) -> storage::BTree {
    let h = e.database("master").expect("master");
    let t = h.cat.read().table("dbo", table).expect("table");
    let ix = t.index_by_name(index).expect("index");
    h.store
        .btree(storage::ObjId(ix.storage_id))
        .expect("index b-tree")
}

/// Deletes the first entry of the B-tree and returns its key and value.
fn delete_first(e: &Engine, bt: &storage::BTree) -> (Vec<u8>, Vec<u8>) {
    let h = e.database("master").expect("master");
    let mut scan = bt
        .range(
            std::ops::Bound::Unbounded,
            std::ops::Bound::Unbounded,
            storage::ScanDirection::Forward,
        )
        .expect("scan");
    let mut batch = storage::RowBatch::new();
    scan.next_batch(&mut batch).expect("batch");
    assert!(!batch.is_empty(), "index has entries");
    let (k, v) = (batch.key(0).to_vec(), batch.record(0).to_vec());
    drop(scan);
    let mut txn = h.store.begin().expect("begin");
    assert!(bt.delete(&mut txn, &k).expect("delete"));
    txn.commit().expect("commit");
    (k, v)
}

#[test]
fn missing_and_extra_index_rows_are_reported() {
    let (e, mut s, dir) = open("nc");
    let out = run(
        &mut s,
        "CREATE TABLE t (id int PRIMARY KEY, v varchar(10));
         CREATE INDEX ix_v ON t (v);
         INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');
         CREATE TABLE h (a int, b int);
         CREATE UNIQUE INDEX ux_b ON h (b);
         INSERT INTO h VALUES (1, 10), (2, 20);",
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let clean = run(&mut s, "DBCC CHECKDB");
    assert!(clean.errors().is_empty(), "{:?}", clean.errors());
    assert!(messages(&clean).contains(
        &"CHECKDB found 0 allocation errors and 0 consistency errors in database 'master'."
            .to_string()
    ));

    // a row of t loses its entry in ix_v
    let bt = index_tree(&e, "t", "ix_v");
    let (key, value) = delete_first(&e, &bt);
    let out = run(&mut s, "DBCC CHECKTABLE ('dbo.t')");
    assert_eq!(error_numbers(&out), vec![8951, 8955], "{:?}", out.errors());
    let errs = out.errors();
    assert!(
        errs[0].message.starts_with("Table error: table 't' (ID ")
            && errs[0].message.contains(
                "Data row does not have a matching index row in the index 'ix_v' (ID 2)."
            ),
        "{}",
        errs[0].message
    );
    assert!(
        errs[1]
            .message
            .contains("identified by (id = 1) with index values 'v = 'a' and id = 1'."),
        "{}",
        errs[1].message
    );
    let msgs = messages(&out);
    assert!(
        msgs.contains(&"There are 3 rows in 2 pages for object \"dbo.t\".".to_string()),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| {
            m.starts_with(
        "CHECKTABLE found 0 allocation errors and 1 consistency errors in table 'dbo.t' (object ID "
    )
        }),
        "{msgs:?}"
    );
    assert!(msgs.contains(&"repair_rebuild is the minimum repair level for the errors found by DBCC CHECKTABLE (master.dbo.t).".to_string()), "{msgs:?}");

    // NOINDEX skips the comparison
    let out = run(&mut s, "DBCC CHECKTABLE ('dbo.t', NOINDEX)");
    assert!(out.errors().is_empty(), "{:?}", out.errors());

    // put it back, then add an entry pointing at no row
    let h = e.database("master").expect("master");
    let mut txn = h.store.begin().expect("begin");
    assert!(bt.insert(&mut txn, &key, &value).expect("insert"));
    txn.commit().expect("commit");
    assert!(run(&mut s, "DBCC CHECKTABLE ('dbo.t')").errors().is_empty());

    let hb = index_tree(&e, "h", "ux_b");
    let (k, mut v) = delete_first(&e, &hb);
    // same key, locator of a row that does not exist: one missing row and one extra entry
    let n = v.len();
    v[n - 1] ^= 0x7f;
    let mut txn = h.store.begin().expect("begin");
    assert!(hb.insert(&mut txn, &k, &v).expect("insert"));
    txn.commit().expect("commit");
    let out = run(&mut s, "DBCC CHECKDB WITH NO_INFOMSGS");
    let mut numbers = error_numbers(&out);
    numbers.sort_unstable();
    assert_eq!(numbers, vec![8951, 8952, 8955, 8956], "{:?}", out.errors());
    let detail = out
        .errors()
        .into_iter()
        .find(|e| e.number == 8955)
        .map(|e| e.message.clone())
        .unwrap_or_default();
    assert!(detail.starts_with("Data row (1:"), "{detail}");
    assert!(detail.contains("identified by (RID = (1:"), "{detail}");
    assert!(
        messages(&out).is_empty(),
        "NO_INFOMSGS: {:?}",
        messages(&out)
    );
    let out = run(&mut s, "DBCC CHECKDB; SELECT @@ERROR");
    let msgs = messages(&out);
    assert!(
        msgs.contains(
            &"CHECKDB found 0 allocation errors and 2 consistency errors in database 'master'."
                .to_string()
        ),
        "{msgs:?}"
    );
    drop(s);
    drop(e);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn table_whose_storage_is_gone_is_reported() {
    let (e, mut s, dir) = open("gone");
    let out = run(
        &mut s,
        "CREATE TABLE g (a int); INSERT INTO g VALUES (1); CREATE TABLE ok (b int);",
    );
    assert!(out.errors().is_empty(), "{:?}", out.errors());
    let h = e.database("master").expect("master");
    let t = h.cat.read().table("dbo", "g").expect("table");
    let catalog::TableStorage::Heap(id) = t.storage else {
        panic!("g is a heap");
    };
    let mut txn = h.store.begin().expect("begin");
    h.store
        .drop_object(&mut txn, storage::ObjId(id))
        .expect("drop heap");
    txn.commit().expect("commit");
    let out = run(&mut s, "DBCC CHECKDB");
    assert_eq!(error_numbers(&out), vec![8939], "{:?}", out.errors());
    assert!(
        out.errors()[0]
            .message
            .starts_with("Table error: table 'dbo.g' (ID "),
        "{}",
        out.errors()[0].message
    );
    let msgs = messages(&out);
    assert!(
        msgs.contains(
            &"CHECKDB found 0 allocation errors and 1 consistency errors in database 'master'."
                .to_string()
        ),
        "{msgs:?}"
    );
    assert!(msgs.contains(&"repair_allow_data_loss is the minimum repair level for the errors found by DBCC CHECKDB (master).".to_string()), "{msgs:?}");
    // the other table is still checked
    assert!(
        msgs.contains(&"There are 0 rows in 1 pages for object \"dbo.ok\".".to_string()),
        "{msgs:?}"
    );
    drop(s);
    drop(e);
    let _ = std::fs::remove_dir_all(&dir);
}
