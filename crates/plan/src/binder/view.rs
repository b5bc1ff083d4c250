//! CREATE / ALTER VIEW validation: SQL Server binds a view's query when the view is created
//! (views have no deferred name resolution), so a missing table (208), column (207), an
//! ORDER BY without TOP (1033) or a badly named result column fail the CREATE and no view is
//! stored.

use common::{SqlError, SqlResult};
use parser::ast;

use super::{Binder, Scope};

/// Binds `cv`'s query and checks its result column names; returns the column names the view
/// will expose.
pub fn check_view_definition(
    cv: &ast::CreateView,
    env: &dyn super::BindEnv,
) -> SqlResult<Vec<String>> {
    let view = cv
        .name
        .parts
        .last()
        .map(|p| p.value.clone())
        .unwrap_or_default();
    super::check_nested_order_by(&cv.query)?;
    let b = Binder::new(env);
    b.push_level(Scope::default(), true);
    let r = b.bind_query(&cv.query);
    b.pop_level();
    let (_, names) = r?;
    let names = if cv.columns.is_empty() {
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() {
                return Err(SqlError::new(4511, &[&(i as i64 + 1)]));
            }
        }
        names
    } else {
        if cv.columns.len() < names.len() {
            return Err(SqlError::new(8158, &[&view]));
        }
        if cv.columns.len() > names.len() {
            return Err(SqlError::new(4502, &[&view]));
        }
        cv.columns.iter().map(|c| c.value.clone()).collect()
    };
    for (i, n) in names.iter().enumerate() {
        if names[..i].iter().any(|m| catalog::name_eq(m, n)) {
            return Err(SqlError::new(4506, &[n, &view]));
        }
    }
    Ok(names)
}
