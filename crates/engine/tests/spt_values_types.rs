//! `master.dbo.spt_values` carries SQL Server 2019's other row types besides 'P'
//! (engine/src/bootstrap.rs names the source), and a master created before they existed gets
//! them at its next start.

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink
}

/// A temporary directory removed on drop.
struct Dir(std::path::PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!("latchkey-spt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Dir(dir)
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

fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    let out = run(s, sql);
    let sets = out.result_sets();
    sets.last()
        .map(|r| r.iter().map(|row| row.iter().map(text).collect()).collect())
        .unwrap_or_default()
}

/// Rows per type in SQL Server 2019's table (the source's counts).
const COUNTS: &[(&str, i64)] = &[
    ("A", 12),
    ("B", 4),
    ("D", 18),
    ("D2", 17),
    ("DBR", 9),
    ("DC", 6),
    ("E", 4),
    ("EOB", 97),
    ("EOD", 106),
    ("F", 3),
    ("F_U", 3),
    ("G", 2),
    ("I", 12),
    ("J", 19),
    ("K", 4),
    ("L", 23),
    ("LNG", 32),
    ("LO", 7),
    ("LR", 13),
    ("LS", 6),
    ("O", 9),
    ("O9T", 31),
    ("P", 2048),
    ("R", 3),
    ("SFL", 5),
    ("SOP", 16),
    ("SRV", 16),
    ("T", 19),
    ("V", 8),
];

fn check_contents(s: &mut Session) {
    let got = rows(
        s,
        "SELECT RTRIM(type), COUNT_BIG(*) FROM master.dbo.spt_values GROUP BY type ORDER BY RTRIM(type)",
    );
    let want: Vec<Vec<String>> = COUNTS
        .iter()
        .map(|(t, n)| vec![t.to_string(), n.to_string()])
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        rows(s, "SELECT COUNT(*) FROM master..spt_values"),
        vec![vec!["2552".to_string()]]
    );
    // lock modes, as sp_lock decodes them
    assert_eq!(
        rows(
            s,
            "SELECT number, name FROM master..spt_values WHERE type = 'L' AND number IN (0, 4, 9, 22) ORDER BY number"
        ),
        vec![
            vec!["0".to_string(), "LOCK TYPES".to_string()],
            vec!["4".to_string(), "S".to_string()],
            vec!["9".to_string(), "IX".to_string()],
            vec!["22".to_string(), "RangeX-X".to_string()],
        ]
    );
    // @@OPTIONS bits (SOP) and the sysobjects.type decode (O9T) old scripts join to
    assert_eq!(
        rows(
            s,
            "SELECT name, status FROM master..spt_values WHERE type = 'SOP' AND number = 16384"
        ),
        vec![vec!["xact_abort".to_string(), "1".to_string()]]
    );
    assert_eq!(
        rows(
            s,
            "SELECT name FROM master..spt_values WHERE type = 'O9T' AND name LIKE 'U %'"
        ),
        vec![vec!["U : user table".to_string()]]
    );
    assert_eq!(
        rows(
            s,
            "SELECT name, low FROM master..spt_values WHERE type = 'DBR' AND number = 16384"
        ),
        vec![vec!["DB Owners".to_string(), "-1".to_string()]]
    );
    // the 'P' rows are unchanged
    assert_eq!(
        rows(
            s,
            "SELECT number, low, high, status FROM master..spt_values WHERE type = 'P' AND number = 2047"
        ),
        vec![vec![
            "2047".to_string(),
            "256".to_string(),
            "128".to_string(),
            "0".to_string()
        ]]
    );
    assert_eq!(
        rows(
            s,
            "SELECT is_ms_shipped FROM master.sys.tables WHERE name = 'spt_values'"
        ),
        vec![vec!["1".to_string()]]
    );
}

#[test]
fn spt_values_has_sql_server_row_types() {
    let dir = temp_dir("types");
    let e = Engine::open(&dir.0, EngineConfig::default()).unwrap();
    let mut s = Session::new(e);
    check_contents(&mut s);
}

#[test]
fn old_master_gets_the_other_rows_at_next_start_once() {
    let dir = temp_dir("upgrade");
    {
        let e = Engine::open(&dir.0, EngineConfig::default()).unwrap();
        let mut s = Session::new(e);
        // a master bootstrapped before the other types existed held only the 'P' rows
        run(&mut s, "DELETE master.dbo.spt_values WHERE type <> 'P'");
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM master..spt_values"),
            vec![vec!["2048".to_string()]]
        );
    }
    for _ in 0..2 {
        // the first restart upgrades; the second finds the rows and adds none
        let e = Engine::open(&dir.0, EngineConfig::default()).unwrap();
        let mut s = Session::new(e);
        check_contents(&mut s);
    }
}
