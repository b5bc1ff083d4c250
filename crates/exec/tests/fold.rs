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

/// The explain text of every subquery plan in `e`'s tree.
fn subquery_plans_of_expr(e: &plan::ScalarExpr, out: &mut Vec<String>) {
    use plan::ScalarKind;
    let sq = match &e.kind {
        ScalarKind::ScalarSubquery(s) | ScalarKind::Exists(s) => Some(s),
        ScalarKind::InSubquery { subquery, .. } | ScalarKind::Quantified { subquery, .. } => {
            Some(subquery)
        }
        _ => None,
    };
    if let Some(plan::SubqueryPlan::Physical(p)) = sq.map(|s| &s.plan) {
        out.push(optimizer::explain_op(p));
    }
    for c in e.children() {
        subquery_plans_of_expr(c, out);
    }
}

fn subquery_plans(op: &plan::PhysOp, out: &mut Vec<String>) {
    use plan::PhysKind;
    match &op.kind {
        PhysKind::Filter { predicate, .. } => subquery_plans_of_expr(predicate, out),
        PhysKind::ComputeScalar { exprs, .. } => {
            exprs.iter().for_each(|e| subquery_plans_of_expr(e, out))
        }
        PhysKind::TableScan { predicate, .. }
        | PhysKind::ClusteredIndexScan { predicate, .. }
        | PhysKind::NestedLoops { predicate, .. } => predicate
            .iter()
            .for_each(|e| subquery_plans_of_expr(e, out)),
        _ => {}
    }
    for c in op.children() {
        subquery_plans(c, out);
    }
}

#[test]
fn constants_fold_inside_subquery_plans() {
    // TPC-H Q15: the MAX over its view re-parsed CAST('1996-01-01' AS date) for every row
    let mut env = setup();
    let sql = "SELECT id FROM f WHERE q = (SELECT MAX(q) FROM f \
               WHERE d >= CAST('1994-01-01' AS date) AND d < DATEADD(year, 1, CAST('1994-01-01' AS date)))";
    let stmts = parser::parse_batch(sql).expect("parse");
    let bound = plan::bind_statement(&stmts[0], &env).expect("bind");
    let mut phys = optimizer::optimize(bound, &env).expect("optimize");
    let plan::Statement::Select { input, .. } = &mut phys else {
        panic!("a SELECT plan")
    };
    let mut before = Vec::new();
    subquery_plans(input, &mut before);
    assert!(
        before.iter().any(|p| p.contains("CONVERT") && p.contains("dateadd")),
        "the query must keep a subquery plan with the casts for this test to mean anything: {before:?}"
    );
    *input = exec::fold_constants(input, &mut env);
    let mut after = Vec::new();
    subquery_plans(input, &mut after);
    assert_eq!(after.len(), before.len(), "{after:?}");
    assert!(
        after
            .iter()
            .all(|p| !p.contains("CONVERT") && !p.contains("dateadd")),
        "{after:?}"
    );
    // the same rows as without folding: q = 5 is the max among 1994 rows (ids 1 and 3 are 1994)
    assert_eq!(env.q(sql), vec!["3"]);
}

#[test]
fn correlated_subquery_keeps_its_outer_reference_when_folded() {
    let mut env = setup();
    let sql = "SELECT id FROM f WHERE EXISTS (SELECT 1 FROM e WHERE e.q = f.q + (2 - 2) \
               AND e.id > CAST('0' AS int)) ORDER BY id";
    env.run("INSERT INTO e VALUES (1, 5), (2, 31)")
        .expect("insert");
    assert_eq!(env.q(sql), vec!["1", "2"]);
}
