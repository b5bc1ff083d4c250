//! SET STATISTICS IO: one `Table 'T'.` line per table the statement read, with that table's
//! own counters (heap or clustered index plus nonclustered indexes, LOB pages apart).

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};

fn session(tag: &str) -> (Session, std::path::PathBuf) {
    let d = std::env::temp_dir().join(format!("latchkey-statio-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    (Session::new(e), d)
}

fn run(s: &mut Session, sql: &str) -> Vec<String> {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    assert!(sink.errors().is_empty(), "{sql}: {:?}", sink.errors());
    sink.events
        .iter()
        .filter_map(|e| match e {
            engine::Event::Message(m) if m.text.starts_with("Table '") => Some(m.text.clone()),
            _ => None,
        })
        .collect()
}

/// (table, scan count, logical reads, lob logical reads) of a STATISTICS IO line.
fn parse(line: &str) -> (String, u64, u64, u64) {
    let name = line["Table '".len()..line.find("'.").unwrap()].to_string();
    let num = |label: &str| -> u64 {
        let at = line.find(&format!(" {label} ")).unwrap() + label.len() + 2;
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (
        name,
        num("Scan count"),
        num("logical reads"),
        num("lob logical reads"),
    )
}

#[test]
fn one_line_per_table_with_its_own_counters() {
    let (mut s, dir) = session("lines");
    run(
        &mut s,
        "SET NOCOUNT ON
         CREATE TABLE big (id int PRIMARY KEY, v varchar(max), w int)
         CREATE INDEX ix_w ON big(w)
         CREATE TABLE small (id int, x int)
         INSERT big SELECT number, REPLICATE(CAST('x' AS varchar(max)),
             CASE WHEN number % 50 = 0 THEN 9000 ELSE 10 END), number % 7
           FROM master.dbo.spt_values WHERE type = 'P'
         INSERT small SELECT number, number FROM master.dbo.spt_values
           WHERE type = 'P' AND number < 10",
    );
    let lines = run(&mut s, "SET STATISTICS IO ON\nSELECT COUNT(*) FROM small");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let (name, scans, logical, lob) = parse(&lines[0]);
    assert_eq!((name.as_str(), scans, lob), ("small", 1, 0));
    assert!(logical >= 1);
    assert!(lines[0].ends_with(
        "page server reads 0, read-ahead reads 0, page server read-ahead reads 0, lob logical reads 0, lob physical reads 0, lob page server reads 0, lob read-ahead reads 0, lob page server read-ahead reads 0."
    ), "{}", lines[0]);

    // a join reads both tables: two lines, each with its own page count
    let lines = run(
        &mut s,
        "SET STATISTICS IO ON\nSELECT SUM(LEN(big.v)) FROM big JOIN small ON big.id = small.id",
    );
    let got: Vec<_> = lines.iter().map(|l| parse(l)).collect();
    assert_eq!(got.len(), 2, "{lines:?}");
    assert_eq!(got[0].0, "big");
    assert_eq!(got[1].0, "small");
    assert!(got[1].2 >= 1 && got[1].2 < got[0].2 + got[1].2);

    // LOB pages of the rows that are read count as lob logical reads
    let lines = run(&mut s, "SET STATISTICS IO ON\nSELECT SUM(LEN(v)) FROM big");
    let (name, scans, logical, lob) = parse(&lines[0]);
    assert_eq!((name.as_str(), scans), ("big", 1));
    assert!(logical > 1 && lob >= 41, "{lines:?}"); // 41 LOB values of 2 pages each

    // one value of the primary key: SQL Server's "Scan count 0"; a range seek counts 1
    let lines = run(
        &mut s,
        "SET STATISTICS IO ON\nSELECT w FROM big WHERE id = 5",
    );
    let (name, scans, logical, _) = parse(&lines[0]);
    assert_eq!((name.as_str(), scans), ("big", 0), "{lines:?}");
    assert!(logical >= 1);
    let lines = run(
        &mut s,
        "SET STATISTICS IO ON\nSELECT w FROM big WHERE id BETWEEN 5 AND 9",
    );
    assert_eq!(parse(&lines[0]).1, 1, "{lines:?}");

    // off: no lines; a statement without tables: no lines
    assert!(run(&mut s, "SET STATISTICS IO OFF\nSELECT COUNT(*) FROM big").is_empty());
    assert!(run(&mut s, "SET STATISTICS IO ON\nSELECT 1").is_empty());
    drop(s);
    let _ = std::fs::remove_dir_all(dir);
}
