//! A panic in a parallel worker (its own test binary: the injection hook is process-wide) is
//! contained as any panic of a request: the other workers stop, the panic resumes on the
//! session's thread, the request fails with Msg 8630, its transaction is rolled back, and the
//! session goes on.

use std::sync::Arc;

use engine::{CollectSink, Engine, EngineConfig, Session};
use types::Value;

fn run(s: &mut Session, sql: &str) -> CollectSink {
    let mut sink = CollectSink::default();
    s.execute_batch(sql, &mut sink);
    sink
}

#[test]
fn a_panic_in_a_worker_fails_only_that_request() {
    let d = std::env::temp_dir().join(format!("latchkey-parallel-panic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let e: Arc<Engine> = Engine::open(&d, EngineConfig::default()).expect("open engine");
    let mut s = Session::new(e);
    let setup = run(
        &mut s,
        "EXEC sp_configure 'show advanced options', 1; RECONFIGURE;
         EXEC sp_configure 'cost threshold for parallelism', 0; RECONFIGURE;
         CREATE TABLE t (a int, b int);
         INSERT INTO t SELECT TOP (20000) n % 10, n
         FROM (SELECT ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS n
               FROM master..spt_values x CROSS JOIN master..spt_values y) g;",
    );
    assert!(setup.errors().is_empty(), "{:?}", setup.errors());
    let q = "SELECT a, SUM(b) FROM t GROUP BY a OPTION (MAXDOP 2)";
    let expected = run(&mut s, q).result_sets().first().map(|r| r.len());
    assert_eq!(expected, Some(10));
    run(&mut s, "BEGIN TRAN; INSERT INTO t VALUES (99, 1);");
    exec::parallel::inject_worker_panic_for_tests();
    let out = run(&mut s, q);
    let errs = out.errors();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].number, 8630);
    assert!(
        errs[0].message.contains("panic injected"),
        "{}",
        errs[0].message
    );
    // rolled back, and the session goes on
    let after = run(&mut s, "SELECT @@TRANCOUNT, COUNT(*) FROM t WHERE a = 99");
    assert_eq!(
        after.result_sets()[0][0],
        vec![Value::Int(0), Value::Int(0)]
    );
    let again = run(&mut s, q);
    assert_eq!(again.result_sets().first().map(|r| r.len()), Some(10));
    // the same inside a repartitioned aggregate (many groups: producers, consumers, gather)
    let q = "SELECT b, COUNT(*) FROM t GROUP BY b OPTION (MAXDOP 2)";
    run(&mut s, "SET SHOWPLAN_TEXT ON");
    let plan = format!("{:?}", run(&mut s, q).result_sets());
    run(&mut s, "SET SHOWPLAN_TEXT OFF");
    assert!(plan.contains("Repartition Streams"), "{plan}");
    exec::parallel::inject_worker_panic_for_tests();
    let errs = run(&mut s, q)
        .errors()
        .iter()
        .map(|e| e.number)
        .collect::<Vec<_>>();
    assert_eq!(errs, vec![8630]);
    let again = run(&mut s, q);
    assert_eq!(again.result_sets().first().map(|r| r.len()), Some(20000));
    drop(s);
    let _ = std::fs::remove_dir_all(d);
}
