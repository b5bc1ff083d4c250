//! External data sources, file formats and tables live in the database's catalog: they survive
//! a restart, a rolled-back CREATE leaves nothing, DROP checks what uses them, and the
//! sys.external_* views (and sys.objects / sys.tables / sys.columns) list them (engine
//! external.rs, external_views.rs; catalog external.rs).

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

/// A temporary directory removed on drop.
struct Dir(std::path::PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!("latchkey-ext-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Dir(dir)
}

fn exec(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let out = exec(s, sql);
    assert!(out.errors().is_empty(), "{sql}: {:?}", out.errors());
    out
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

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

fn errors(out: &CollectSink) -> Vec<(i32, String)> {
    out.errors()
        .iter()
        .map(|e| (e.number, e.message.clone()))
        .collect()
}

fn session(dir: &Dir) -> Session {
    let e = Engine::open(&dir.0.join("data"), EngineConfig::default()).unwrap();
    Session::new(e)
}

fn setup(s: &mut Session, files: &std::path::Path) {
    run(s, "CREATE DATABASE lake");
    run(
        s,
        &format!(
            "USE lake;
             CREATE TABLE dbo.src (id int NOT NULL, name nvarchar(20) NULL);
             INSERT dbo.src VALUES (1, N'one'), (2, N'two'), (3, NULL);
             CREATE EXTERNAL DATA SOURCE files WITH (LOCATION = '{}');
             CREATE EXTERNAL FILE FORMAT pq WITH (FORMAT_TYPE = PARQUET);
             CREATE EXTERNAL TABLE dbo.src_export
               WITH (LOCATION = 'export/src/', DATA_SOURCE = files, FILE_FORMAT = pq)
               AS SELECT id, name FROM dbo.src;
             CREATE EXTERNAL TABLE dbo.declared (id int NOT NULL, name nvarchar(20) NULL)
               WITH (LOCATION = 'export/src/', DATA_SOURCE = files, FILE_FORMAT = pq);",
            files.display()
        ),
    );
}

#[test]
fn external_objects_survive_a_restart() {
    let dir = temp_dir("restart");
    let files = dir.0.join("files");
    {
        let mut s = session(&dir);
        setup(&mut s, &files);
    }
    let mut s = session(&dir);
    run(&mut s, "USE lake");
    assert_eq!(
        rows(&mut s, "SELECT id, name FROM dbo.src_export ORDER BY id"),
        vec![row(&["1", "one"]), row(&["2", "two"]), row(&["3", "NULL"])]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM declared WHERE name IS NOT NULL"
        ),
        vec![row(&["2"])]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT data_source_id, name, location, type_desc, type, pushdown FROM sys.external_data_sources"
        ),
        vec![row(&[
            "65536",
            "files",
            &files.display().to_string(),
            "NONE",
            "6",
            "ON"
        ])]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT file_format_id, name, format_type, data_compression FROM sys.external_file_formats"
        ),
        vec![row(&["65536", "pq", "PARQUET", "NULL"])]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT t.name, t.type, t.type_desc, t.data_source_id, t.file_format_id, t.location, t.max_column_id_used
             FROM sys.external_tables t ORDER BY t.name"
        ),
        vec![
            row(&["declared", "U", "USER_TABLE", "65536", "65536", "export/src/", "2"]),
            row(&["src_export", "U", "USER_TABLE", "65536", "65536", "export/src/", "2"]),
        ]
    );
    // SQL Server lists external tables among the user tables, flagged is_external
    assert_eq!(
        rows(
            &mut s,
            "SELECT name, type, is_external FROM sys.tables ORDER BY name"
        ),
        vec![
            row(&["declared", "U", "1"]),
            row(&["src", "U", "0"]),
            row(&["src_export", "U", "1"]),
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT c.name, c.column_id, c.system_type_id, c.max_length
             FROM sys.columns c JOIN sys.objects o ON o.object_id = c.object_id
             WHERE o.name = 'src_export' ORDER BY c.column_id"
        ),
        vec![
            row(&["id", "1", "56", "4"]),
            row(&["name", "2", "231", "40"])
        ]
    );
    // declared nullability is recorded (CETAS columns are nullable)
    assert_eq!(
        rows(
            &mut s,
            "SELECT o.name, c.name, c.is_nullable FROM sys.columns c JOIN sys.objects o ON o.object_id = c.object_id
             WHERE o.name IN ('declared', 'src_export') ORDER BY o.name, c.column_id"
        ),
        vec![
            row(&["declared", "id", "0"]),
            row(&["declared", "name", "1"]),
            row(&["src_export", "id", "1"]),
            row(&["src_export", "name", "1"]),
        ]
    );
    // scripts test for them with OBJECT_ID before dropping
    assert_eq!(
        rows(
            &mut s,
            "SELECT CASE WHEN OBJECT_ID('dbo.src_export') = t.object_id THEN 1 ELSE 0 END,
                    CASE WHEN OBJECT_ID('lake.dbo.src_export', 'U') = t.object_id THEN 1 ELSE 0 END,
                    OBJECT_ID('src_export', 'V'), OBJECT_ID('nosuch')
             FROM sys.external_tables t WHERE t.name = 'src_export'"
        ),
        vec![row(&["1", "1", "NULL", "NULL"])]
    );
    // the names are taken: a table of the same name is Msg 2714
    let out = exec(&mut s, "CREATE TABLE dbo.src_export (a int)");
    assert_eq!(errors(&out)[0].0, 2714);
    let out = exec(
        &mut s,
        "CREATE EXTERNAL DATA SOURCE files WITH (LOCATION = '/tmp')",
    );
    assert_eq!(errors(&out)[0].0, 2714);
}

#[test]
fn a_rolled_back_create_leaves_nothing() {
    let dir = temp_dir("rollback");
    let files = dir.0.join("files");
    {
        let mut s = session(&dir);
        run(&mut s, "CREATE DATABASE lake");
        run(
            &mut s,
            &format!(
                "USE lake;
                 BEGIN TRAN;
                 CREATE EXTERNAL DATA SOURCE files WITH (LOCATION = '{}');
                 CREATE EXTERNAL FILE FORMAT pq WITH (FORMAT_TYPE = PARQUET);
                 CREATE EXTERNAL TABLE dbo.t (a int)
                   WITH (LOCATION = 't/', DATA_SOURCE = files, FILE_FORMAT = pq);",
                files.display()
            ),
        );
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM sys.external_tables"),
            vec![row(&["1"])]
        );
        run(&mut s, "ROLLBACK");
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM sys.external_data_sources"),
            vec![row(&["0"])]
        );
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM sys.external_file_formats"),
            vec![row(&["0"])]
        );
        assert_eq!(
            rows(&mut s, "SELECT COUNT(*) FROM sys.tables"),
            vec![row(&["0"])]
        );
        let out = exec(&mut s, "SELECT * FROM dbo.t");
        assert_eq!(errors(&out)[0].0, 208);
        // a committed one stays
        run(
            &mut s,
            &format!(
                "BEGIN TRAN; CREATE EXTERNAL DATA SOURCE kept WITH (LOCATION = '{}'); COMMIT",
                files.display()
            ),
        );
    }
    let mut s = session(&dir);
    run(&mut s, "USE lake");
    assert_eq!(
        rows(&mut s, "SELECT name FROM sys.external_data_sources"),
        vec![row(&["kept"])]
    );
}

#[test]
fn drop_checks_dependencies_and_persists() {
    let dir = temp_dir("drop");
    let files = dir.0.join("files");
    {
        let mut s = session(&dir);
        setup(&mut s, &files);
        let out = exec(&mut s, "DROP EXTERNAL DATA SOURCE files");
        assert_eq!(
            errors(&out),
            vec![(
                3729,
                "Cannot DROP EXTERNAL DATA SOURCE 'files' because it is being referenced by object 'src_export'.".to_string()
            )]
        );
        let out = exec(&mut s, "DROP EXTERNAL FILE FORMAT pq");
        assert_eq!(errors(&out)[0].0, 3729);
        run(&mut s, "DROP EXTERNAL TABLE dbo.declared");
        run(&mut s, "DROP EXTERNAL TABLE src_export");
        let out = exec(&mut s, "DROP EXTERNAL TABLE src_export");
        assert_eq!(
            errors(&out),
            vec![(
                3701,
                "Cannot drop the external table 'src_export', because it does not exist or you do not have permission.".to_string()
            )]
        );
        // a DROP rolled back keeps the object
        run(&mut s, "BEGIN TRAN; DROP EXTERNAL FILE FORMAT pq; ROLLBACK");
        assert_eq!(
            rows(&mut s, "SELECT name FROM sys.external_file_formats"),
            vec![row(&["pq"])]
        );
        run(
            &mut s,
            "DROP EXTERNAL FILE FORMAT pq; DROP EXTERNAL DATA SOURCE files",
        );
        // the files stay, as in SQL Server
        assert!(files.join("export/src/part-00000.parquet").exists());
    }
    let mut s = session(&dir);
    run(&mut s, "USE lake");
    for view in [
        "sys.external_data_sources",
        "sys.external_file_formats",
        "sys.external_tables",
    ] {
        assert_eq!(
            rows(&mut s, &format!("SELECT COUNT(*) FROM {view}")),
            vec![row(&["0"])],
            "{view}"
        );
    }
    assert_eq!(
        rows(&mut s, "SELECT name FROM sys.tables"),
        vec![row(&["src"])]
    );
}
