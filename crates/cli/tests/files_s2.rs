//! Several data files per database through the `latchkey` binary (issue 12):
//!
//! * S2 (seeds): a database with 4 data files, a table filled, 5 ms injected read latency
//!   (`--io-latency-ms 5`), a cold scan in a fresh process: sys.dm_io_virtual_file_stats shows
//!   the reads spread over the 4 files and the stall of the injected latency.
//! * A process SIGKILLed while it loads a database with files placed outside the data
//!   directory: the next start finds the files (catalog in master, log replayed), every
//!   committed row, and a clean DBCC CHECKDB.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_latchkey")
}

fn run(data: &Path, extra: &[&str], sql: &str) -> Output {
    Command::new(bin())
        .arg("--data")
        .arg(data)
        .args(extra)
        .arg("--format")
        .arg("jsonl")
        .arg("-Q")
        .arg(sql)
        .output()
        .expect("run latchkey")
}

fn stdout_ok(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success() && !out.contains("\"type\":\"error\""),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// Every integer value of column `key` in the result sets of the jsonl output, in order.
fn ints(out: &str, key: &str) -> Vec<i64> {
    let mut v = Vec::new();
    for line in out.lines() {
        let Ok(j) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(cols) = j["columns"].as_array() else {
            continue;
        };
        let Some(at) = cols.iter().position(|c| c["name"] == key) else {
            continue;
        };
        for r in j["rows"].as_array().into_iter().flatten() {
            if let Some(n) = r[at].as_i64() {
                v.push(n);
            }
        }
    }
    v
}

const CREATE_S2: &str = "CREATE DATABASE s2 ON PRIMARY \
    (NAME = s2_1, FILENAME = 's2_1.mdf', SIZE = 4MB), \
    (NAME = s2_2, FILENAME = 's2_2.ndf', SIZE = 4MB), \
    (NAME = s2_3, FILENAME = 's2_3.ndf', SIZE = 4MB), \
    (NAME = s2_4, FILENAME = 's2_4.ndf', SIZE = 4MB) \
    LOG ON (NAME = s2_log, FILENAME = 's2.ldf')";

#[test]
fn s2_four_files_cold_scan_spreads_reads_with_latency() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    stdout_ok(&run(
        data,
        &[],
        &format!(
            "{CREATE_S2}\nGO\nUSE s2;\nCREATE TABLE dbo.t (id int PRIMARY KEY, pad char(1000) NOT NULL);\n\
             INSERT INTO dbo.t SELECT value, 'x' FROM GENERATE_SERIES(1, 20000);"
        ),
    ));
    // a fresh process: the buffer pool is cold. The counters are diffed around the scan (the
    // reads of the database's open, recovery included, come before the setting applies).
    let t = Instant::now();
    let out = stdout_ok(&run(
        data,
        &["--io-latency-ms", "5"],
        "SET NOCOUNT ON; USE s2;\n\
         SELECT file_id, num_of_reads AS r0, num_of_bytes_read AS b0, io_stall_read_ms AS s0 \
         INTO #opened FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL);\n\
         SELECT COUNT(*) AS n FROM dbo.t WHERE pad <> '';\n\
         SELECT f.file_id, f.num_of_reads - o.r0 AS num_of_reads, \
                f.num_of_bytes_read - o.b0 AS num_of_bytes_read, \
                f.io_stall_read_ms - o.s0 AS io_stall_read_ms \
         FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS f \
         JOIN #opened AS o ON o.file_id = f.file_id WHERE f.file_id <> 2 ORDER BY f.file_id;\n\
         SELECT value_in_use AS latency FROM sys.configurations WHERE configuration_id = 90001;",
    ));
    let elapsed = t.elapsed();
    assert_eq!(ints(&out, "n"), vec![20000], "{out}");
    assert_eq!(ints(&out, "file_id"), vec![1, 3, 4, 5], "{out}");
    assert_eq!(ints(&out, "latency"), vec![5], "{out}");
    let reads = ints(&out, "num_of_reads");
    let bytes = ints(&out, "num_of_bytes_read");
    let stall = ints(&out, "io_stall_read_ms");
    let total: i64 = bytes.iter().sum();
    eprintln!(
        "S2: cold scan of 20,000 rows over 4 files with 5 ms read latency in {elapsed:?}: \
         reads {reads:?}, bytes {bytes:?}, stall ms {stall:?}"
    );
    for (i, ((&r, &b), &s)) in reads.iter().zip(&bytes).zip(&stall).enumerate() {
        assert!(r > 0, "file {i} read: {out}");
        // the table's extents are spread evenly: each file holds 15-35 % of what was read
        assert!(
            b * 100 >= total * 15 && b * 100 <= total * 35,
            "file {i}: {b} of {total}"
        );
        assert!(
            s >= 5 * r * 9 / 10,
            "file {i}: {r} reads stalled only {s} ms"
        );
    }
    // the same scan without latency: the stall is the injected latency, not the disk
    let out = stdout_ok(&run(
        data,
        &[],
        "SET NOCOUNT ON; USE s2; SELECT COUNT(*) AS n FROM dbo.t WHERE pad <> '';\n\
         SELECT io_stall_read_ms FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL);",
    ));
    let no_latency: i64 = ints(&out, "io_stall_read_ms").iter().sum();
    assert!(
        no_latency < stall.iter().sum::<i64>(),
        "{no_latency} vs {stall:?}"
    );
}

#[test]
fn sigkill_during_load_keeps_files_and_committed_rows() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let o = outside.display();
    stdout_ok(&run(
        &data,
        &[],
        &format!(
            "CREATE DATABASE k ON (NAME = k1, FILENAME = '{o}/k1.mdf'), \
             (NAME = k2, FILENAME = '{o}/k2.ndf', FILEGROWTH = 10%), \
             (NAME = k3, FILENAME = 'k3.ndf') LOG ON (NAME = klog, FILENAME = '{o}/k.ldf')\n\
             GO\nUSE k; CREATE TABLE dbo.t (id int PRIMARY KEY, pad char(500) NOT NULL);\n\
             INSERT INTO dbo.t SELECT value, 'c' FROM GENERATE_SERIES(1, 1000);"
        ),
    ));
    // a load of committed batches of 100 rows, killed while it runs
    let mut child = Command::new(bin())
        .arg("--data")
        .arg(&data)
        .arg("-Q")
        .arg(
            "SET NOCOUNT ON; USE k; DECLARE @i int = 1001;\n\
             WHILE @i < 1000000 BEGIN\n\
               INSERT INTO dbo.t SELECT value, 'l' FROM GENERATE_SERIES(@i, @i + 99);\n\
               SET @i += 100;\n\
             END",
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) on our own child's pid; no memory is involved
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    child.wait().unwrap();
    let out = stdout_ok(&run(
        &data,
        &[],
        "SET NOCOUNT ON; USE k;\n\
         SELECT COUNT(*) AS n, SUM(CASE WHEN id <= 1000 THEN 1 ELSE 0 END) AS first, \
                MAX(id) AS max_id, COUNT(*) % 100 AS partial FROM dbo.t;\n\
         SELECT file_id FROM sys.database_files ORDER BY file_id;\n\
         DBCC CHECKDB WITH NO_INFOMSGS;",
    ));
    assert_eq!(ints(&out, "first"), vec![1000], "{out}");
    assert_eq!(ints(&out, "partial"), vec![0], "whole batches only: {out}");
    let n = ints(&out, "n")[0];
    eprintln!("rows after the SIGKILL: {n}");
    assert!(n > 1000 && n < 1_000_000, "killed during the load: {n}");
    assert_eq!(ints(&out, "max_id"), vec![n], "{out}");
    assert_eq!(ints(&out, "file_id"), vec![1, 2, 3, 4], "{out}");
    for f in ["k1.mdf", "k2.ndf", "k.ldf"] {
        assert!(
            outside.join(f).is_file(),
            "{f} is outside the data directory"
        );
    }
    // DROP DATABASE removes the files it created elsewhere
    stdout_ok(&run(&data, &[], "DROP DATABASE k"));
    for f in ["k1.mdf", "k2.ndf", "k.ldf"] {
        assert!(!outside.join(f).exists(), "{f} removed with the database");
    }
}

/// ALTER DATABASE ADD FILE / REMOVE FILE in a loop with committed inserts, SIGKILLed at three
/// points: each restart opens the database with whole batches, a clean DBCC CHECKDB, a file
/// list (sys.database_files) whose files all exist, holding the files kept by completed
/// changes (at most one more: the change in flight), and files can be added and removed again.
#[test]
fn sigkill_during_add_and_remove_file_keeps_a_consistent_file_set() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let outside = dir.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let o = outside.display();
    stdout_ok(&run(
        &data,
        &[],
        "CREATE DATABASE k\nGO\nUSE k; CREATE TABLE dbo.t (id int PRIMARY KEY, pad char(2000) NOT NULL);\n\
         INSERT INTO dbo.t SELECT value, 'c' FROM GENERATE_SERIES(1, 100);",
    ));
    let (mut start, mut rows, mut kept) = (1i64, 100i64, Vec::new());
    for (round, ms) in [1500u64, 2200, 3000].into_iter().enumerate() {
        // file a<i> is added, and removed again unless i is a multiple of 5 (then it keeps
        // the rows inserted after it); each iteration commits rows 100*i+1 .. 100*i+100. At
        // most 70 iterations a round: file ids are not reused, and three unbounded rounds on
        // an idle machine ran past the 255 a database can hold (ADD FILE then fails)
        let end = start + 70;
        let script = format!(
            "SET NOCOUNT ON; USE k; DECLARE @i int = {start}; DECLARE @s nvarchar(400);\n\
             WHILE @i < {end} BEGIN\n\
               SET @s = N'ALTER DATABASE k ADD FILE (NAME = a' + CAST(@i AS nvarchar(10)) \
                 + N', FILENAME = ''{o}/a' + CAST(@i AS nvarchar(10)) + N'.ndf'', SIZE = 256KB)';\n\
               EXEC (@s);\n\
               IF @i % 5 <> 0 BEGIN\n\
                 SET @s = N'ALTER DATABASE k REMOVE FILE a' + CAST(@i AS nvarchar(10));\n\
                 EXEC (@s);\n\
               END\n\
               INSERT INTO dbo.t SELECT value, 'l' FROM GENERATE_SERIES(@i * 100 + 1, @i * 100 + 100);\n\
               SET @i += 1;\n\
             END"
        );
        let mut child = Command::new(bin())
            .arg("--data")
            .arg(&data)
            .arg("-Q")
            .arg(&script)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        // SAFETY: kill(2) on our own child's pid; no memory is involved
        unsafe {
            libc::kill(child.id() as i32, libc::SIGKILL);
        }
        child.wait().unwrap();
        let out = stdout_ok(&run(
            &data,
            &[],
            "SET NOCOUNT ON; USE k;\n\
             SELECT COUNT(*) AS n, MAX(id) AS max_id, COUNT(*) % 100 AS partial FROM dbo.t;\n\
             SELECT file_id AS fid, CAST(SUBSTRING(name, 2, 10) AS int) AS added \
             FROM sys.database_files WHERE name LIKE 'a%' ORDER BY file_id;\n\
             DBCC CHECKDB WITH NO_INFOMSGS;",
        ));
        assert_eq!(ints(&out, "partial"), vec![0], "round {round}: {out}");
        let n = ints(&out, "n")[0];
        let max_id = ints(&out, "max_id")[0];
        let last = max_id / 100 - 1; // the last iteration whose rows committed
        assert!(last >= start, "round {round}: nothing ran ({out})");
        rows += 100 * (last - start + 1);
        assert_eq!(
            n, rows,
            "round {round}: committed batches lost or extra ({out})"
        );
        let added = ints(&out, "added");
        // kept files: those of earlier rounds, every multiple of 5 of this round's completed
        // iterations; the one in flight (last + 1) may be there or not, whatever its number
        let mut expected = kept.clone();
        expected.extend((start..=last).filter(|i| i % 5 == 0));
        if added.len() == expected.len() + 1 {
            expected.push(last + 1);
        }
        assert_eq!(added, expected, "round {round}: {out}");
        kept = added.clone();
        let paths = stdout_ok(&run(
            &data,
            &[],
            "SET NOCOUNT ON; USE k; SELECT physical_name FROM sys.database_files WHERE type = 0;",
        ));
        for line in paths.lines().filter(|l| l.contains("\"rows\"")) {
            let j: serde_json::Value = serde_json::from_str(line).unwrap();
            for r in j["rows"].as_array().unwrap() {
                let p = r[0].as_str().unwrap();
                assert!(
                    Path::new(p).is_file(),
                    "round {round}: {p} is listed but missing"
                );
            }
        }
        eprintln!(
            "round {round}: killed after {ms} ms at iteration {}: {n} rows, {} added files kept",
            last + 1,
            added.len()
        );
        start = last + 2;
    }
    // the database still takes and gives back files; DROP DATABASE in the same process
    // deletes the files placed elsewhere, those added since the start (y) included
    assert!(outside.join(format!("a{}.ndf", kept[0])).is_file());
    stdout_ok(&run(
        &data,
        &[],
        &format!(
            "USE k; ALTER DATABASE k ADD FILE (NAME = z, FILENAME = '{o}/z.ndf');\n\
             ALTER DATABASE k REMOVE FILE z;\n\
             ALTER DATABASE k ADD FILE (NAME = y, FILENAME = '{o}/y.ndf');\n\
             USE master; DROP DATABASE k;"
        ),
    ));
    assert!(!outside.join("z.ndf").exists());
    assert!(!outside.join("y.ndf").exists(), "y.ndf left behind");
    for i in &kept {
        assert!(
            !outside.join(format!("a{i}.ndf")).exists(),
            "a{i}.ndf left behind"
        );
    }
}
