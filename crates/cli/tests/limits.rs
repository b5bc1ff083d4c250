//! Every limit is an error, never a crash (issue 8, finding 6).
//!
//! Each shape runs in a child `latchkey` process, so a stack overflow or an aborted allocation
//! fails the test (signal / exit status) instead of killing the test harness. Sizes are the
//! ones that crashed before the fix and beyond (10,000).

use std::process::{Command, Output};

/// Runs `script` in a fresh data directory, under an optional address-space limit in KiB.
fn run(script: &str, vmem_kib: Option<u64>) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("script.sql");
    std::fs::write(&path, script).expect("write script");
    let bin = env!("CARGO_BIN_EXE_latchkey");
    let data = dir.path().join("data");
    let cmd = match vmem_kib {
        Some(kib) => format!(
            "ulimit -v {kib} && exec '{bin}' --data '{}' -i '{}'",
            data.display(),
            path.display()
        ),
        None => format!(
            "exec '{bin}' --data '{}' -i '{}'",
            data.display(),
            path.display()
        ),
    };
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .output()
        .expect("run latchkey");
    out
}

/// The process ended normally (no signal, no abort) and printed `expect` somewhere.
fn assert_clean(what: &str, out: &Output, expect: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some() && !stderr.contains("panicked"),
        "{what}: process died: {:?}\nstderr: {}",
        out.status,
        &stderr[..stderr.len().min(2000)]
    );
    assert!(
        stdout.contains(expect),
        "{what}: expected {expect:?} in output:\n{}\nstderr: {}",
        &stdout[..stdout.len().min(2000)],
        &stderr[..stderr.len().min(2000)]
    );
}

fn join_chain(n: usize) -> String {
    let mut s = String::from("SELECT COUNT(*) AS n FROM (SELECT 1 a) t0");
    for i in 1..n {
        s.push_str(&format!(" JOIN (SELECT 1 a) t{i} ON t{i}.a = t{}.a", i - 1));
    }
    s.push('\n');
    s
}

fn comma_list(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| format!("(SELECT 1 a) t{i}")).collect();
    format!("SELECT COUNT(*) AS n FROM {}\n", items.join(", "))
}

fn cte_chain(n: usize) -> String {
    let mut s = String::from("WITH c0 AS (SELECT 1 a)");
    for i in 1..n {
        s.push_str(&format!(", c{i} AS (SELECT a + 1 AS a FROM c{})", i - 1));
    }
    s.push_str(&format!(" SELECT a AS n FROM c{}\n", n - 1));
    s
}

/// `n` views, each selecting from the previous one through a join with a derived table.
fn view_chain(n: usize) -> String {
    let mut s = String::from("CREATE VIEW v0 AS SELECT 1 AS a\nGO\n");
    for i in 1..n {
        s.push_str(&format!(
            "CREATE VIEW v{i} AS SELECT x.a FROM v{} x JOIN (SELECT 1 AS b) y ON x.a = y.b\nGO\n",
            i - 1
        ));
    }
    s.push_str(&format!("SELECT a AS n FROM v{}\n", n - 1));
    s
}

#[test]
fn join_chains_bind_and_plan_without_stack_overflow() {
    for n in [256, 821, 1000] {
        assert_clean(
            &format!("join chain {n}"),
            &run(&join_chain(n), None),
            " 1\n",
        );
    }
    // beyond the parser's chain limit: Msg 191, not an abort
    assert_clean(
        "join chain 10000",
        &run(&join_chain(10_000), None),
        "Msg 191,",
    );
}

#[test]
fn comma_lists_bind_and_plan_without_stack_overflow() {
    for n in [820, 1000] {
        assert_clean(
            &format!("comma list {n}"),
            &run(&comma_list(n), None),
            " 1\n",
        );
    }
    assert_clean(
        "comma list 10000",
        &run(&comma_list(10_000), None),
        "Msg 191,",
    );
}

#[test]
fn cte_chains_bind_without_stack_overflow() {
    assert_clean("cte chain 682", &run(&cte_chain(682), None), " 682\n");
    assert_clean("cte chain 2000", &run(&cte_chain(2_000), None), " 2000\n");
}

#[test]
fn nested_views_stop_at_sql_servers_limit() {
    assert_clean("views 20", &run(&view_chain(20), None), "  1\n");
    // SQL Server: Msg 217, nesting level exceeded (limit 32)
    assert_clean("views 40", &run(&view_chain(40), None), "Msg 217,");
}

#[test]
fn deep_expressions_are_msg_191_or_a_result() {
    let parens = format!("SELECT {}1{} AS n\n", "(".repeat(100), ")".repeat(100));
    assert_clean("100 parentheses", &run(&parens, None), " 1\n");
    let parens = format!(
        "SELECT {}1{} AS n\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert_clean("10000 parentheses", &run(&parens, None), "Msg 191,");
    let plus = format!("SELECT {} AS n\n", vec!["1"; 1000].join("+"));
    assert_clean("1000 additions", &run(&plus, None), " 1000\n");
    let plus = format!("SELECT {} AS n\n", vec!["1"; 10_000].join("+"));
    assert_clean("10000 additions", &run(&plus, None), "Msg 191,");
    let nested = format!(
        "SELECT * FROM {}(SELECT 1 a) x{}\n",
        "(SELECT * FROM ".repeat(10_000),
        ") y".repeat(10_000)
    );
    assert_clean(
        "10000 nested derived tables",
        &run(&nested, None),
        "Msg 191,",
    );
}

/// Address-space limit for the LOB tests: well under what the unchecked code reached (800 GB
/// requested, 12 GB grown), above what the checked code needs (about 1.6 GB peak RSS).
const LOB_VMEM_KIB: u64 = 3_000_000;

#[test]
fn replicate_beyond_2gb_is_msg_7119_without_allocating() {
    let out = run(
        "SELECT LEN(REPLICATE(CAST(REPLICATE('y', 8000) AS varchar(max)) + 'z', 100000000))\n",
        Some(LOB_VMEM_KIB),
    );
    assert_clean("REPLICATE 800 GB", &out, "Msg 7119,");
}

#[test]
fn doubling_a_string_variable_stops_at_2gb_with_msg_7119() {
    let script = "DECLARE @s varchar(max) = 'x'\n\
        BEGIN TRY WHILE 1 = 1 SET @s = @s + @s END TRY\n\
        BEGIN CATCH SELECT ERROR_NUMBER() AS n END CATCH\n\
        SELECT DATALENGTH(@s) AS len\n";
    let out = run(script, Some(LOB_VMEM_KIB));
    assert_clean("doubling", &out, "7119\n");
    assert_clean("doubling", &out, "1073741824\n");
}

#[test]
fn allocation_failure_under_a_memory_limit_is_msg_701_not_an_abort() {
    // 1.5 GB is under the 2 GB cap but over the process's 1 GB address space
    let out = run(
        "SELECT LEN(REPLICATE(CAST('y' AS varchar(max)), 1500000000)) AS n\nGO\nSELECT 'alive' AS s\n",
        Some(1_000_000),
    );
    assert_clean("REPLICATE under rlimit", &out, "Msg 701,");
    assert_clean("REPLICATE under rlimit", &out, "alive");
}

/// Views that each join the previous one twice: 2^19 expansions at 20 levels.
fn doubling_views(n: usize) -> String {
    let mut s = String::from("CREATE VIEW v0 AS SELECT 1 AS a\nGO\n");
    for i in 1..n {
        s.push_str(&format!(
            "CREATE VIEW v{i} AS SELECT x.a FROM v{p} x JOIN v{p} y ON x.a = y.a\nGO\n",
            p = i - 1
        ));
    }
    s.push_str(&format!("SELECT COUNT(*) AS n FROM v{}\n", n - 1));
    s
}

#[test]
fn exponential_view_and_cte_expansion_is_msg_8623() {
    assert_clean("doubling views 8", &run(&doubling_views(8), None), " 1\n");
    assert_clean(
        "doubling views 20",
        &run(&doubling_views(20), None),
        "Msg 8623,",
    );
    let mut s = String::from("WITH c0 AS (SELECT 1 AS a)");
    for i in 1..20 {
        s.push_str(&format!(
            ", c{i} AS (SELECT x.a FROM c{p} x JOIN c{p} y ON x.a = y.a)",
            p = i - 1
        ));
    }
    s.push_str(" SELECT COUNT(*) AS n FROM c19\n");
    assert_clean("doubling CTEs 20", &run(&s, None), "Msg 8623,");
    assert_clean(
        "cte chain 10000",
        &run(&cte_chain(10_000), None),
        "Msg 8623,",
    );
}
