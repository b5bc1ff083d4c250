//! Constant folding at execution start (`exec::fold_constants`, run by `exec::execute` for a
//! SELECT): row-independent subexpressions become literals once per execution; ones whose
//! evaluation fails stay, so their error comes only when a row evaluates them.

mod common;

use common::Env;

fn folded_plan(env: &mut Env, sql: &str) -> String {
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &*env).expect("bind");
    let mut phys = optimizer::optimize(bound, &*env).expect("optimize");
    if let plan::Statement::Select { input, .. } = &mut phys {
        *input = exec::fold_constants(input, env);
    }
    optimizer::explain(&phys)
}

fn setup() -> Env {
    let mut env = Env::new();
    env.run("CREATE TABLE f (id int PRIMARY KEY, d date, q int)")
        .expect("create");
    env.run("CREATE TABLE e (id int PRIMARY KEY, q int)")
        .expect("create");
    env.run(
        "INSERT INTO f VALUES (1, '1994-06-01', 5), (2, '1995-06-01', 5), (3, '1994-02-01', 30)",
    )
    .expect("insert");
    env
}

#[test]
fn date_arithmetic_folds_to_literals() {
    let mut env = setup();
    let sql = "SELECT id FROM f WHERE d >= CAST('1994-01-01' AS date) \
               AND d < DATEADD(year, 1, CAST('1994-01-01' AS date)) AND q < 10 + 14";
    let unfolded = env.explain(sql);
    assert!(unfolded.contains("dateadd"), "{unfolded}");
    let text = folded_plan(&mut env, sql);
    assert!(
        !text.contains("dateadd") && !text.contains("CONVERT") && !text.contains("(10)+(14)"),
        "{text}"
    );
    assert!(text.contains("[f].[q]<(24)"), "{text}");
    assert_eq!(env.q(sql), vec!["1"]);
}

#[test]
fn failing_constant_stays_and_errors_only_when_evaluated() {
    let mut env = setup();
    let text = folded_plan(&mut env, "SELECT id FROM f WHERE q > 1 / 0");
    assert!(text.contains("(1)/(0)"), "{text}");
    // no row evaluates it: no error
    assert!(env.q("SELECT id FROM e WHERE q > 1 / 0").is_empty());
    assert_eq!(env.err("SELECT id FROM f WHERE q > 1 / 0").number, 8134);
}

#[test]
fn volatile_calls_are_not_folded() {
    let mut env = setup();
    let text = folded_plan(
        &mut env,
        "SELECT id FROM f WHERE RAND() < 2 AND NEWID() IS NOT NULL",
    );
    assert!(
        text.contains("rand()") && text.contains("newid()"),
        "{text}"
    );
}

#[test]
fn constants_fold_inside_a_parallel_zone() {
    // the workers run the folded copy: an unfolded CAST per row made TPC-H Q6 slower at DOP 2
    // than at DOP 1
    let mut env = setup();
    let sql = "SELECT SUM(q) FROM f WHERE d >= CAST('1994-01-01' AS date)";
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &env).expect("bind");
    let options = optimizer::Options {
        max_dop: 2,
        cost_threshold: 0.0,
        ..Default::default()
    };
    let mut phys = optimizer::optimize_with(bound, &env, &options).expect("optimize");
    let before = optimizer::explain(&phys);
    assert!(
        before.contains("Parallelism") && before.contains("CONVERT"),
        "{before}"
    );
    if let plan::Statement::Select { input, .. } = &mut phys {
        *input = exec::fold_constants(input, &mut env);
    }
    let after = optimizer::explain(&phys);
    assert!(!after.contains("CONVERT"), "{after}");
    assert!(after.contains("Parallelism"), "{after}");
}
