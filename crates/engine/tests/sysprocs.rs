//! System procedures whose output holds values a golden file cannot (creation times, file
//! paths, several sessions): sp_help of one object, sp_helpdb, sp_who with two sessions.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Event, Session};
use types::Value;

struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("latchkey-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// (column names, rows) of every result set; panics on an error.
fn run(s: &mut Session, sql: &str) -> Vec<(Vec<String>, Vec<Vec<Value>>)> {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink.events
        .into_iter()
        .filter_map(|e| match e {
            Event::ResultSet { columns, rows, .. } => {
                Some((columns.into_iter().map(|c| c.name).collect(), rows))
            }
            _ => None,
        })
        .collect()
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        other => engine::render::value_text(other, &types::DataType::NVarChar(None))
            .unwrap_or_default()
            .trim_end()
            .to_string(),
    }
}

fn open(tag: &str) -> (TempDir, Arc<Engine>) {
    let dir = TempDir::new(tag);
    let e = Engine::open(&dir.0, EngineConfig::default()).expect("open engine");
    (dir, e)
}

#[test]
fn sp_help_of_a_table_has_sql_servers_result_sets() {
    let (_dir, e) = open("sp-help");
    let mut s = Session::new(e);
    run(
        &mut s,
        "CREATE TABLE dbo.parent (id INT NOT NULL CONSTRAINT pk_parent PRIMARY KEY);
         CREATE TABLE dbo.child (cid INT IDENTITY(10, 5) NOT NULL CONSTRAINT pk_child PRIMARY KEY,
             pid INT NOT NULL CONSTRAINT fk_child_parent REFERENCES dbo.parent (id),
             code NCHAR(4) NULL);",
    );
    let sets = run(&mut s, "EXEC sp_help 'dbo.child'");
    let names: Vec<&str> = sets.iter().map(|(c, _)| c[0].as_str()).collect();
    assert_eq!(
        names,
        [
            "Name",
            "Column_name",
            "Identity",
            "RowGuidCol",
            "Data_located_on_filegroup",
            "index_name",
            "constraint_type"
        ]
    );
    assert_eq!(sets[0].0, ["Name", "Owner", "Type", "Created_datetime"]);
    let first: Vec<String> = sets[0].1[0][..3].iter().map(text).collect();
    assert_eq!(first, ["child", "dbo", "user table"]);
    assert!(
        matches!(sets[0].1[0][3], Value::DateTime { .. }),
        "{:?}",
        sets[0].1[0][3]
    );
    let cols: Vec<Vec<String>> = sets[1]
        .1
        .iter()
        .map(|r| r.iter().map(text).collect())
        .collect();
    assert_eq!(
        cols[2],
        [
            "code",
            "nchar",
            "no",
            "8",
            "",
            "",
            "yes",
            "no",
            "yes",
            "SQL_Latin1_General_CP1_CI_AS"
        ]
    );
    let ident: Vec<String> = sets[2].1[0].iter().map(text).collect();
    assert_eq!(ident, ["cid", "10", "5", "0"]);
    // the referenced table lists who references it
    let sets = run(&mut s, "EXEC sp_help parent");
    let last = sets.last().expect("result sets");
    assert_eq!(last.0, ["Table is referenced by foreign key"]);
    assert_eq!(text(&last.1[0][0]), "master.dbo.child: fk_child_parent");
    // a view: no filegroup or index sets; a procedure: its parameters
    run(
        &mut s,
        "EXEC ('CREATE VIEW dbo.v AS SELECT cid FROM dbo.child')",
    );
    let sets = run(&mut s, "EXEC sp_help 'v'");
    assert_eq!(sets.len(), 4);
    assert_eq!(text(&sets[0].1[0][2]), "view");
    run(
        &mut s,
        "EXEC ('CREATE PROCEDURE dbo.p @a INT, @b VARCHAR(9) OUTPUT AS RETURN 0')",
    );
    let sets = run(&mut s, "EXEC sp_help 'p'");
    assert_eq!(sets[1].0[0], "Parameter_name");
    let params: Vec<String> = sets[1].1.iter().map(|r| text(&r[0])).collect();
    assert_eq!(params, ["@a", "@b"]);
}

#[test]
fn sp_helpdb_lists_databases_and_files() {
    let (_dir, e) = open("sp-helpdb");
    let mut s = Session::new(e);
    run(&mut s, "CREATE DATABASE shop");
    let sets = run(&mut s, "EXEC sp_helpdb");
    assert_eq!(
        sets[0].0,
        [
            "name",
            "db_size",
            "owner",
            "dbid",
            "created",
            "status",
            "compatibility_level"
        ]
    );
    let names: Vec<String> = sets[0].1.iter().map(|r| text(&r[0])).collect();
    assert_eq!(names, ["master", "shop", "tempdb"]);
    let sets = run(&mut s, "EXEC sp_helpdb @dbname = 'shop'");
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[1].0[..3], ["name", "fileid", "filename"]);
    assert!(sets[1].1.iter().any(|r| text(&r[7]) == "data only"));
    assert!(text(&sets[0].1[0][1]).ends_with(" MB"));
}

#[test]
fn sp_who_lists_every_open_session() {
    let (_dir, e) = open("sp-who");
    let mut a = Session::new(e.clone());
    let mut b = Session::new(e.clone());
    run(&mut b, "CREATE DATABASE other");
    run(&mut b, "USE other");
    let sets = run(&mut a, "EXEC sp_who");
    assert_eq!(
        sets[0].0,
        [
            "spid",
            "ecid",
            "status",
            "loginame",
            "hostname",
            "blk",
            "dbname",
            "cmd",
            "request_id"
        ]
    );
    let rows: Vec<(String, String, String)> = sets[0]
        .1
        .iter()
        .map(|r| (text(&r[0]), text(&r[2]), text(&r[6])))
        .collect();
    let (sa, sb) = (a.spid().to_string(), b.spid().to_string());
    assert_eq!(
        rows,
        [
            (sa.clone(), "runnable".to_string(), "master".to_string()),
            (sb.clone(), "sleeping".to_string(), "other".to_string()),
        ]
    );
    let sets = run(&mut a, &format!("EXEC sp_who2 '{sb}'"));
    assert_eq!(sets[0].1.len(), 1);
    assert_eq!(sets[0].0[0], "SPID");
    drop(b);
    let sets = run(&mut a, "EXEC sp_who");
    assert_eq!(sets[0].1.len(), 1);
}
