//! Every showplan XML latchkey produces validates against SQL Server's showplan schema
//! (`../shared/reference/showplanxml-1.6.xsd`, copied as `tests/showplanxml-1.6.xsd`): the
//! estimated and actual plans of a set of queries using every operator kind the optimizer
//! plans, and every ShowPlanXML document in the golden tests' expected outputs.
//!
//! Validation runs `xmllint --noout --schema` (Debian package `libxml2-utils`; CI installs
//! it); without xmllint the test fails saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

const SETUP: &str = "
CREATE TABLE sx (id int PRIMARY KEY, k int, v varchar(20), d decimal(10,2))
CREATE INDEX ix_k ON sx (k)
CREATE TABLE hx (a int, b nvarchar(30))
CREATE INDEX ix_a ON hx (a)
INSERT INTO sx VALUES (1, 10, 'a', 1.5), (2, 20, 'b', 2.5), (3, 30, 'c', 3.5), (4, 20, 'd', 4.5)
INSERT INTO hx VALUES (1, N'x'), (2, N'y'), (20, N'z')
GO
";

/// One query per operator kind (and the shapes around them); each runs in its own batch.
const QUERIES: &[&str] = &[
    "SELECT 1 AS one",
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(n, s)",
    "SELECT name FROM sys.objects WHERE name = 'sx'",
    "SELECT a, b FROM hx WHERE b = N'y'",
    "SELECT v FROM sx WHERE v = 'b'",
    "SELECT v FROM sx WHERE id = 2",
    "SELECT v FROM sx WHERE id > 1 AND id <= 3",
    "SELECT id, v FROM sx WHERE k = 20",
    "SELECT b FROM hx WHERE a = 2",
    "SELECT id, d * 2 + 1 AS x, CASE WHEN k > 15 THEN 'big' ELSE 'small' END AS c FROM sx",
    // batch mode: EstimatedExecutionMode / ActualExecutionMode="Batch" and Batches
    "SELECT k, SUM(d), COUNT(*) FROM sx WHERE d > 1 GROUP BY k OPTION (USE HINT ('ALLOW_BATCH_MODE'))",
    "SELECT s.id, h.b FROM sx s JOIN hx h ON s.k = h.a",
    "SELECT s.id, h.b FROM sx s JOIN hx h ON s.k = h.a OPTION (LOOP JOIN)",
    "SELECT s.id, h.b FROM sx s JOIN hx h ON s.k < h.a",
    "SELECT s.id, h.b FROM sx s JOIN hx h ON s.id = h.a OPTION (MERGE JOIN)",
    "SELECT s.id, h.b FROM sx s LEFT JOIN hx h ON s.k = h.a AND h.b <> N'q'",
    "SELECT id FROM sx s WHERE EXISTS (SELECT 1 FROM hx h WHERE h.a = s.k)",
    "SELECT id FROM sx s WHERE s.k NOT IN (SELECT a FROM hx WHERE a IS NOT NULL)",
    "SELECT id, (SELECT MAX(a) FROM hx WHERE hx.a <= sx.k) AS m FROM sx",
    "SELECT v FROM sx ORDER BY v DESC",
    "SELECT TOP 2 v FROM sx ORDER BY d",
    "SELECT TOP 2 v FROM sx",
    // a row goal: the full estimate as InternalInfo/@EstimateRowsWithoutRowGoal
    "SELECT TOP 1 id FROM sx s WHERE EXISTS (SELECT 1 FROM hx h WHERE h.a = s.k)",
    "SELECT v FROM sx ORDER BY id OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
    "SELECT DISTINCT k FROM sx",
    "SELECT k, COUNT(*) AS n, SUM(d) AS s FROM sx GROUP BY k",
    "SELECT k, COUNT(*) AS n FROM sx GROUP BY k OPTION (ORDER GROUP)",
    "SELECT COUNT(*) FROM sx",
    "SELECT COUNT(DISTINCT k) FROM sx",
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id) AS rn FROM sx",
    "SELECT id FROM sx UNION ALL SELECT a FROM hx",
    "SELECT id FROM sx UNION SELECT a FROM hx",
    "SELECT k FROM sx EXCEPT SELECT a FROM hx",
    "SELECT k FROM sx INTERSECT SELECT a FROM hx",
    "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r",
    "SELECT value FROM STRING_SPLIT('a,b,c', ',')",
    "SELECT [key], value FROM OPENJSON('{\"a\":1}')",
    "SELECT id FROM sx WHERE v LIKE 'a%' OR k IN (10, 30) OR d IS NULL",
    "SELECT id FROM sx WHERE NOT (k = 20) AND -k < 0 AND CAST(k AS bigint) > 1",
    "INSERT INTO hx VALUES (5, N'e')",
    "INSERT INTO sx SELECT id + 10, k, v, d FROM sx",
    "UPDATE sx SET v = 'z' WHERE k = 20",
    "DELETE FROM hx WHERE a = 1",
    "SELECT * INTO sx_copy FROM sx",
    "TRUNCATE TABLE hx",
    "DECLARE @n int = 1",
];

/// Physical operators the queries above must show (so a query that stops exercising its
/// operator is noticed).
const EXPECTED_OPS: &[&str] = &[
    "Constant Scan",
    "Table Scan",
    "Clustered Index Scan",
    "Clustered Index Seek",
    "Index Seek",
    "Key Lookup",
    "RID Lookup",
    "Nested Loops",
    "Hash Match",
    "Merge Join",
    "Compute Scalar",
    "Sort",
    "Top",
    "Stream Aggregate",
    "Sequence Project",
    "Segment",
    "Concatenation",
    "Index Spool",
    "Table Spool",
    "Table-valued function",
    "Clustered Index Insert",
    "Clustered Index Update",
    "Table Delete",
    "Table Insert",
];

fn run_script(data: &Path, script: &str) -> String {
    let tmp = data.join("script.sql");
    std::fs::write(&tmp, script).expect("write script");
    let out = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .arg("--data")
        .arg(data)
        .arg("--format")
        .arg("jsonl")
        .arg("-i")
        .arg(&tmp)
        .output()
        .expect("run latchkey");
    assert!(
        out.status.success(),
        "latchkey failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The values of every `Microsoft SQL Server 2005 XML Showplan` column in jsonl output.
fn xml_documents(jsonl: &str) -> Vec<String> {
    let mut docs = Vec::new();
    for line in jsonl.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["type"] != "resultset" {
            continue;
        }
        let Some(cols) = v["columns"].as_array() else {
            continue;
        };
        let Some(ix) = cols
            .iter()
            .position(|c| c["name"] == "Microsoft SQL Server 2005 XML Showplan")
        else {
            continue;
        };
        for r in v["rows"].as_array().into_iter().flatten() {
            if let Some(s) = r[ix].as_str() {
                docs.push(s.to_string());
            }
        }
    }
    docs
}

fn errors_of(jsonl: &str) -> Vec<String> {
    jsonl
        .lines()
        .filter(|l| l.contains("\"type\":\"error\""))
        .map(str::to_string)
        .collect()
}

fn xsd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/showplanxml-1.6.xsd")
}

/// Validates documents with xmllint; panics with every validation error.
fn validate(docs: &[(String, String)]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files = Vec::new();
    for (i, (_, d)) in docs.iter().enumerate() {
        let p = dir.path().join(format!("plan{i}.xml"));
        std::fs::write(&p, d).expect("write plan");
        files.push(p);
    }
    let out = match Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd())
        .args(&files)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!(
            "xmllint is needed to validate showplan XML ({e}): install it \
             (apt-get install libxml2-utils); CI installs it in .ci/run"
        ),
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut report = String::new();
        for (i, (origin, _)) in docs.iter().enumerate() {
            let name = format!("plan{i}.xml");
            let lines: Vec<&str> = stderr
                .lines()
                .filter(|l| l.contains(&name) && !l.ends_with("validates"))
                .collect();
            if !lines.is_empty() {
                report.push_str(&format!("--- {origin}\n{}\n", lines.join("\n")));
            }
        }
        panic!("showplan XML does not validate against the XSD:\n{report}{stderr}");
    }
}

#[test]
fn estimated_and_actual_plans_validate_against_the_schema() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut script = String::from(SETUP);
    script.push_str("SET SHOWPLAN_XML ON\nGO\n");
    for q in QUERIES {
        script.push_str(q);
        script.push_str("\nGO\n");
    }
    script.push_str("SET SHOWPLAN_XML OFF\nGO\nSET STATISTICS XML ON\nGO\n");
    // actual plans: everything but the DML (their effects would change the later queries)
    let actual: Vec<&&str> = QUERIES
        .iter()
        .filter(|q| q.starts_with("SELECT") || q.starts_with("WITH"))
        .filter(|q| !q.contains(" INTO "))
        .collect();
    for q in &actual {
        script.push_str(q);
        script.push_str("\nGO\n");
    }
    let out = run_script(data.path(), &script);
    assert!(errors_of(&out).is_empty(), "errors: {:?}", errors_of(&out));
    let docs = xml_documents(&out);
    assert_eq!(
        docs.len(),
        QUERIES.len() + actual.len(),
        "one XML plan per statement"
    );
    let origins: Vec<String> = QUERIES
        .iter()
        .map(|q| format!("estimated: {q}"))
        .chain(actual.iter().map(|q| format!("actual: {q}")))
        .collect();
    for op in EXPECTED_OPS {
        assert!(
            docs.iter()
                .any(|d| d.contains(&format!("PhysicalOp=\"{op}\""))),
            "no plan shows {op}"
        );
    }
    assert!(
        docs.iter()
            .any(|d| d.contains("<InternalInfo EstimateRowsWithoutRowGoal=\"")),
        "no plan shows a row goal's full estimate"
    );
    for d in &docs[QUERIES.len()..] {
        assert!(d.contains("<RunTimeCountersPerThread"), "actual plan: {d}");
    }
    assert!(
        docs[QUERIES.len()..]
            .iter()
            .any(|d| d.contains("ActualExecutionMode=\"Batch\" Batches=\"1\"")),
        "no actual plan ran in batch mode"
    );
    validate(&origins.into_iter().zip(docs).collect::<Vec<_>>());
}

fn collect_outs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_outs(&p, out);
        } else if p.extension().is_some_and(|e| e == "out") {
            out.push(p);
        }
    }
}

#[test]
fn golden_outputs_showplan_xml_validates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sql");
    let mut outs = Vec::new();
    collect_outs(&root, &mut outs);
    outs.sort();
    let mut docs = Vec::new();
    for p in outs {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let mut rest = text.as_str();
        while let Some(start) = rest.find("<ShowPlanXML") {
            let tail = &rest[start..];
            let Some(end) = tail.find("</ShowPlanXML>") else {
                break;
            };
            let doc = &tail[..end + "</ShowPlanXML>".len()];
            docs.push((p.display().to_string(), doc.to_string()));
            rest = &tail[end..];
        }
    }
    assert!(
        !docs.is_empty(),
        "the golden tests show no XML plan (tests/sql/queries/showplan_xml.sql)"
    );
    validate(&docs);
}
