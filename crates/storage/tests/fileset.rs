//! Changing the file set of an open database (storage README "Changing the file set"):
//! ADD FILE is used by proportional fill at once and survives a reopen; REMOVE FILE of an
//! empty file (any id but 1) leaves a gap that reopens; a non-empty file is Msg 5042; and a
//! child process SIGKILLed while it adds files, removes them and commits rows always leaves a
//! database that opens with every committed row and the file set of the last completed change.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use storage::*;

fn cfg() -> StorageConfig {
    StorageConfig {
        buffer_pool_bytes: 64 * 8192,
        ..Default::default()
    }
}

fn rows(db: &Database, h: ObjId) -> BTreeSet<Vec<u8>> {
    let mut out = BTreeSet::new();
    let mut s = db.heap(h).unwrap().scan().unwrap();
    let mut b = RowBatch::new();
    while s.next_batch(&mut b).unwrap() {
        for i in 0..b.len() {
            assert!(out.insert(b.record(i).to_vec()), "duplicate row");
        }
    }
    out
}

fn row(t: u64, i: u64) -> Vec<u8> {
    let mut v = format!("row{t}:{i}:").into_bytes();
    v.resize(900, b'x');
    v
}

fn heap_id(db: &Database) -> ObjId {
    let cat = db.catalog_btree().unwrap();
    let v = cat.get(b"hp").unwrap().unwrap();
    ObjId(u64::from_le_bytes(v.try_into().unwrap()))
}

fn new_db(dir: &std::path::Path) -> ObjId {
    let db = Database::open(dir, cfg()).unwrap();
    let mut tx = db.begin().unwrap();
    let h = db.create_heap(&mut tx).unwrap();
    let cat = db.catalog_btree().unwrap();
    cat.insert(&mut tx, b"hp", &h.0.to_le_bytes()).unwrap();
    tx.commit().unwrap();
    h
}

fn insert(db: &Database, h: ObjId, t: u64, n: u64) {
    let heap = db.heap(h).unwrap();
    let mut tx = db.begin().unwrap();
    for i in 0..n {
        heap.insert(&mut tx, &row(t, i)).unwrap();
    }
    tx.commit().unwrap();
}

#[test]
fn added_files_take_extents_at_once_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let h = new_db(dir.path());
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        insert(&db, h, 0, 50);
        assert_eq!(db.add_data_file(1 << 20).unwrap(), 2);
        assert_eq!(db.add_data_file(1 << 20).unwrap(), 3);
        assert_eq!(db.add_data_file(0).unwrap(), 4);
        assert_eq!(db.data_file_ids(), vec![1, 2, 3, 4]);
        insert(&db, h, 1, 2000); // 8 rows a page: 250 pages, ~32 extents
        let got: Vec<u64> = (1..=4)
            .map(|id| db.data_file_used_extents(id).unwrap())
            .collect();
        // the new 1 MB files have most of the free space: each gets a share at once; the
        // smallest file (2 extents) fills up too
        assert!(
            got[1] >= 5 && got[2] >= 5 && got[3] >= 1,
            "extents per file {got:?}"
        );
        assert!(db.check().unwrap().is_empty());
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.data_file_ids(), vec![1, 2, 3, 4]);
    assert_eq!(rows(&db, h).len(), 2050);
    assert!(db.check().unwrap().is_empty(), "{:?}", db.check());
}

#[test]
fn remove_file_needs_an_empty_file_and_leaves_a_gap() {
    let dir = tempfile::tempdir().unwrap();
    let h = new_db(dir.path());
    {
        let db = Database::open(dir.path(), cfg()).unwrap();
        let two = db.add_data_file(1 << 20).unwrap();
        insert(&db, h, 0, 200);
        assert!(db.data_file_used_extents(two).unwrap() > 0);
        let e = db.remove_data_file(two, "f2").unwrap_err();
        assert_eq!(e.number, 5042);
        assert!(
            e.message.contains("'f2' cannot be removed"),
            "{}",
            e.message
        );
        assert_eq!(db.remove_data_file(1, "p").unwrap_err().number, 5020);
        assert_eq!(db.remove_data_file(9, "x").unwrap_err().number, 5009);
        // a file that was refused is still used
        insert(&db, h, 1, 200);
        let three = db.add_data_file(1 << 20).unwrap();
        assert_eq!(three, 3);
        // empty: proportional fill gave it nothing yet
        db.remove_data_file(three, "f3").unwrap();
        assert!(!dir.path().join("data3.mdf").exists());
        assert_eq!(db.data_file_ids(), vec![1, 2]);
        // ids of files removed since the open are not reused in this process
        assert_eq!(db.add_data_file(1 << 20).unwrap(), 4);
        insert(&db, h, 2, 400);
        assert!(db.data_file_used_extents(4).unwrap() > 0);
        assert!(db.check().unwrap().is_empty());
    }
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.data_file_ids(), vec![1, 2, 4]);
    assert_eq!(rows(&db, h).len(), 800);
    assert!(db.check().unwrap().is_empty());
    // removing a middle file: all of file 2's rows deleted is not enough (extents stay with
    // the heap until it is dropped); a new object on a new file, dropped, empties that file
    let five = db.add_data_file(1 << 20).unwrap();
    assert_eq!(five, 5);
    db.remove_data_file(5, "f5").unwrap();
    drop(db);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.data_file_ids(), vec![1, 2, 4]);
    // after a reopen the highest id is free again
    assert_eq!(db.add_data_file(0).unwrap(), 5);
}

#[test]
fn a_dropped_object_frees_the_file_for_removal() {
    let dir = tempfile::tempdir().unwrap();
    new_db(dir.path());
    let db = Database::open(dir.path(), cfg()).unwrap();
    let two = db.add_data_file(8 << 20).unwrap();
    let mut tx = db.begin().unwrap();
    let t = db.create_heap(&mut tx).unwrap();
    tx.commit().unwrap();
    insert(&db, t, 0, 300);
    assert!(db.data_file_used_extents(two).unwrap() > 0);
    let mut tx = db.begin().unwrap();
    db.drop_object(&mut tx, t).unwrap();
    // dropped but not committed: its extents are still in use
    assert_eq!(db.remove_data_file(two, "f2").unwrap_err().number, 5042);
    tx.commit().unwrap();
    db.remove_data_file(two, "f2").unwrap();
    assert_eq!(db.data_file_ids(), vec![1]);
    assert!(db.check().unwrap().is_empty());
    drop(db);
    let db = Database::open(dir.path(), cfg()).unwrap();
    assert_eq!(db.data_file_ids(), vec![1]);
    assert!(db.check().unwrap().is_empty());
}

/// The filegroup the crash test's child puts file `id` in (storage README "Filegroups"): odd
/// ids in filegroup 2, even ones in PRIMARY; each open must find it in the file's header.
fn filegroup_of(id: u16) -> u16 {
    1 + id % 2
}

/// Child: adds files, commits rows into them, adds and removes empty files, until killed.
/// Lines: "a" (an add starts), "A id" (added), "C t" (txn t committed; "B t" before it),
/// "X id" (a remove of id starts), "Y id" (removed).
fn child(dir: &str, start: u64) {
    let db = Database::open(std::path::Path::new(dir), cfg()).unwrap();
    let h = heap_id(&db);
    let mut out = std::io::stdout();
    let mut say = |s: String| {
        writeln!(out, "{s}").unwrap();
        out.flush().unwrap();
    };
    let mut t = start;
    loop {
        match t % 3 {
            0 if db.data_file_count() < 24 => {
                say("a".into());
                let space = filegroup_of(db.next_data_file_id().unwrap());
                let id = db.add_data_file_to(256 << 10, space).unwrap();
                say(format!("A {id}"));
            }
            2 => {
                say("a".into());
                let space = filegroup_of(db.next_data_file_id().unwrap());
                let id = db.add_data_file_to(128 << 10, space).unwrap();
                say(format!("A {id}"));
                say(format!("X {id}"));
                db.remove_data_file(id, "x").unwrap();
                say(format!("Y {id}"));
            }
            _ => {
                say(format!("B {t}"));
                insert(&db, h, t, 1 + t % 40);
                say(format!("C {t}"));
            }
        }
        if t.is_multiple_of(5) {
            db.checkpoint().unwrap();
        }
        t += 1;
    }
}

#[test]
fn crash_while_changing_the_file_set() {
    if let Ok(v) = std::env::var("LATCHKEY_FILESET_CHILD") {
        let (dir, start) = v.split_once('|').unwrap();
        child(dir, start.parse().unwrap());
        return;
    }
    let kills: u64 = std::env::var("LATCHKEY_CRASH_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(25);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap().to_string();
    let h = new_db(dir.path());
    let exe = std::env::current_exe().unwrap();
    let mut expect_rows = BTreeSet::new();
    let mut files: BTreeSet<u16> = [1].into();
    let mut next_t = 1u64;
    let mut seed = 7u64;
    let (mut adds, mut removes, mut commits) = (0, 0, 0);
    for kill in 0..kills {
        let mut c = Command::new(&exe)
            .args([
                "crash_while_changing_the_file_set",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LATCHKEY_FILESET_CHILD", format!("{path}|{next_t}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis(150 + (seed >> 33) % 300));
        c.kill().unwrap();
        c.wait().unwrap();
        let out = BufReader::new(c.stdout.take().unwrap());
        let (mut txn_in_doubt, mut add_in_doubt, mut remove_in_doubt) = (None, false, None);
        for line in out.lines() {
            let line = line.unwrap();
            // the harness prints "test ... " without a newline: use the last tokens
            let toks: Vec<&str> = line.split_whitespace().collect();
            let (tag, arg) = match toks.as_slice() {
                [.., "a"] => ("a", 0),
                [.., tag, n] => match n.parse::<u64>() {
                    Ok(n) => (*tag, n),
                    Err(_) => continue,
                },
                _ => continue,
            };
            match tag {
                "a" => add_in_doubt = true,
                "A" => {
                    add_in_doubt = false;
                    files.insert(arg as u16);
                    adds += 1;
                }
                "X" => remove_in_doubt = Some(arg as u16),
                "Y" => {
                    remove_in_doubt = None;
                    files.remove(&(arg as u16));
                    removes += 1;
                }
                "B" => txn_in_doubt = Some(arg),
                "C" => {
                    for i in 0..1 + arg % 40 {
                        expect_rows.insert(row(arg, i));
                    }
                    txn_in_doubt = None;
                    commits += 1;
                    next_t = arg + 1;
                }
                _ => {}
            }
        }
        let db = Database::open(dir.path(), cfg())
            .unwrap_or_else(|e| panic!("kill {kill}: the database does not open: {e}"));
        let got: BTreeSet<u16> = db.data_file_ids().into_iter().collect();
        let extra: Vec<u16> = got.difference(&files).copied().collect();
        let missing: Vec<u16> = files.difference(&got).copied().collect();
        assert!(
            extra.is_empty() || (add_in_doubt && extra.len() == 1),
            "kill {kill}: files {got:?}, expected {files:?} (add in doubt: {add_in_doubt})"
        );
        assert!(
            missing.is_empty() || (missing.len() == 1 && Some(missing[0]) == remove_in_doubt),
            "kill {kill}: files {got:?}, expected {files:?} (remove in doubt: {remove_in_doubt:?})"
        );
        for (id, space) in db.data_file_spaces() {
            let want = if id == 1 { 1 } else { filegroup_of(id) };
            assert_eq!(space, want, "kill {kill}: file {id} lost its filegroup");
        }
        files = got;
        let r = rows(&db, h);
        if r != expect_rows {
            let t =
                txn_in_doubt.unwrap_or_else(|| panic!("kill {kill}: rows differ, no txn in doubt"));
            let mut with = expect_rows.clone();
            for i in 0..1 + t % 40 {
                with.insert(row(t, i));
            }
            assert_eq!(
                r, with,
                "kill {kill}: txn {t} only partly present or rows lost"
            );
            expect_rows = with;
        }
        // restart past whatever the child had started (its step numbers pick the action)
        next_t = next_t.max(txn_in_doubt.map_or(0, |t| t + 1)) + 1;
        let errs = db.check().unwrap();
        assert!(errs.is_empty(), "kill {kill}: check errors {errs:?}");
    }
    eprintln!(
        "file-set crash test: {kills} kills, {adds} adds, {removes} removes, {commits} commits"
    );
    assert!(adds > kills / 2 && removes > kills / 4 && commits > kills / 2);
}
