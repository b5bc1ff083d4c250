//! `plan`: the binder (parser AST → typed logical algebra), the scalar expression IR and the
//! immutable physical operator definitions that exec runs.
//!
//! Important types: [`ScalarExpr`] (typed, positional, evaluation-ready expressions),
//! [`LogicalOp`] (binder output), [`PhysOp`] (optimizer output), [`Statement`] with the aliases
//! [`BoundStatement`] / [`PhysicalPlan`], and the [`BindEnv`] trait the engine implements.
//!
//! What does NOT belong here: choosing access paths or join algorithms (optimizer), running
//! anything (exec), catalog persistence (engine).

pub use catalog;

pub mod for_clause;
pub mod logical;
pub mod physical;
pub mod scalar;
pub mod table_function;

pub use logical::*;
pub use physical::*;
pub use scalar::*;
pub use table_function::{BulkFormat, BulkRowset, OpenJsonColumn, TableFunc};
pub mod typing;

mod binder;

pub use binder::expr_decl_type as decl_type;
pub use binder::{
    bind_bulk_target, bind_insert_target, bind_merge, bind_scalar, bind_statement,
    bind_table_expression, check_inline_function, check_view_definition, qualified_name, BindEnv,
};
