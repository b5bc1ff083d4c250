//! INSERT, UPDATE, DELETE, MERGE and EXEC.

use super::query::assign_op;
use super::Parser;
use crate::ast::*;
use crate::lexer::Tok;
use common::SqlResult;

impl<'a> Parser<'a> {
    fn parse_dml_target(&mut self) -> SqlResult<DmlTarget> {
        if self.at(Tok::Variable) {
            return Ok(DmlTarget::Variable(self.parse_variable()?));
        }
        Ok(DmlTarget::Table(self.parse_object_name()?))
    }

    fn parse_opt_output(&mut self) -> SqlResult<Option<OutputClause>> {
        if !self.eat_kw("OUTPUT") {
            return Ok(None);
        }
        let items = self.parse_select_items()?;
        let into = if self.eat_kw("INTO") {
            let target = self.parse_dml_target()?;
            let cols = if self.at(Tok::LParen) {
                self.parse_paren_ident_list()?
            } else {
                Vec::new()
            };
            Some((target, cols))
        } else {
            None
        };
        Ok(Some(OutputClause { items, into }))
    }

    fn parse_dml_top(&mut self) -> SqlResult<Option<Top>> {
        if self.kw("TOP") && !self.at_n(1, Tok::LParen) {
            return Err(self.error_at(self.pos + 1));
        }
        self.parse_top()
    }

    pub(crate) fn parse_insert(&mut self, with: Vec<Cte>) -> SqlResult<Insert> {
        self.expect_kw("INSERT")?;
        let top = self.parse_dml_top()?;
        self.eat_kw("INTO");
        let target = self.parse_dml_target()?;
        let hints = self.parse_opt_table_hints()?;
        let columns = if self.at(Tok::LParen) && !self.at_query_start_paren() {
            self.parse_paren_ident_list()?
        } else {
            Vec::new()
        };
        let output = self.parse_opt_output()?;
        let source = if self.eat_kw("VALUES") {
            InsertSource::Values(self.parse_values_rows()?)
        } else if self.kw("DEFAULT") && self.kw_at(1, "VALUES") {
            self.pos += 2;
            InsertSource::DefaultValues
        } else if self.kw("EXEC") || self.kw("EXECUTE") {
            self.pos += 1;
            InsertSource::Exec(Box::new(self.parse_exec_body()?))
        } else if self.at_query_start() {
            InsertSource::Query(Box::new(self.parse_query(true)?))
        } else {
            return Err(self.error_here());
        };
        Ok(Insert {
            with,
            top,
            target,
            hints,
            columns,
            output,
            source,
        })
    }

    fn at_query_start_paren(&self) -> bool {
        self.at(Tok::LParen) && self.at_query_start()
    }

    fn parse_set_items(&mut self) -> SqlResult<Vec<SetItem>> {
        let mut items = Vec::new();
        loop {
            if self.at(Tok::Variable) {
                let name = self.parse_variable()?;
                let op = assign_op(self.peek().kind).ok_or_else(|| self.error_here())?;
                self.pos += 1;
                // @v = col = expr
                if op == AssignOp::Assign
                    && matches!(self.peek().kind, Tok::Word | Tok::QuotedIdent)
                {
                    let save = self.pos;
                    if let Ok(column) = self.parse_object_name() {
                        if self.eat(Tok::Eq) {
                            let value = self.parse_expr()?;
                            items.push(SetItem::VariableColumn {
                                variable: name,
                                column,
                                value,
                            });
                            if !self.eat(Tok::Comma) {
                                return Ok(items);
                            }
                            continue;
                        }
                    }
                    self.pos = save;
                }
                let value = self.parse_expr()?;
                items.push(SetItem::Variable { name, op, value });
            } else {
                let column = self.parse_object_name()?;
                let op = assign_op(self.peek().kind).ok_or_else(|| self.error_here())?;
                self.pos += 1;
                let value = self.parse_expr()?;
                items.push(SetItem::Column { column, op, value });
            }
            if !self.eat(Tok::Comma) {
                return Ok(items);
            }
        }
    }

    fn parse_where_or_current_of(&mut self) -> SqlResult<(Option<Expr>, Option<CursorRef>)> {
        if !self.eat_kw("WHERE") {
            return Ok((None, None));
        }
        if self.kw("CURRENT") && self.kw_at(1, "OF") {
            self.pos += 2;
            return Ok((None, Some(self.parse_cursor_ref()?)));
        }
        Ok((Some(self.parse_expr()?), None))
    }

    fn parse_opt_option(&mut self) -> SqlResult<Vec<QueryHint>> {
        if self.kw("OPTION") {
            self.parse_query_hints()
        } else {
            Ok(Vec::new())
        }
    }

    pub(crate) fn parse_update(&mut self, with: Vec<Cte>) -> SqlResult<Update> {
        self.expect_kw("UPDATE")?;
        let top = self.parse_dml_top()?;
        let target = self.parse_dml_target()?;
        let hints = self.parse_opt_table_hints()?;
        self.expect_kw("SET")?;
        let set = self.parse_set_items()?;
        let output = self.parse_opt_output()?;
        let from = if self.eat_kw("FROM") {
            self.parse_from_list()?
        } else {
            Vec::new()
        };
        let (selection, current_of) = self.parse_where_or_current_of()?;
        let options = self.parse_opt_option()?;
        Ok(Update {
            with,
            top,
            target,
            hints,
            set,
            output,
            from,
            selection,
            current_of,
            options,
        })
    }

    pub(crate) fn parse_delete(&mut self, with: Vec<Cte>) -> SqlResult<Delete> {
        self.expect_kw("DELETE")?;
        let top = self.parse_dml_top()?;
        self.eat_kw("FROM");
        let target = self.parse_dml_target()?;
        let hints = self.parse_opt_table_hints()?;
        let output = self.parse_opt_output()?;
        let from = if self.eat_kw("FROM") {
            self.parse_from_list()?
        } else {
            Vec::new()
        };
        let (selection, current_of) = self.parse_where_or_current_of()?;
        let options = self.parse_opt_option()?;
        Ok(Delete {
            with,
            top,
            target,
            hints,
            output,
            from,
            selection,
            current_of,
            options,
        })
    }

    pub(crate) fn parse_merge(&mut self, with: Vec<Cte>) -> SqlResult<Merge> {
        self.expect_kw("MERGE")?;
        let top = self.parse_dml_top()?;
        self.eat_kw("INTO");
        let target = self.parse_object_name()?;
        let hints = self.parse_opt_table_hints()?;
        let target_alias = if self.kw("USING") {
            None
        } else {
            self.parse_opt_alias(false)?
        };
        self.expect_kw("USING")?;
        let source = self.parse_table_ref()?;
        self.expect_kw("ON")?;
        let on = self.parse_expr()?;
        let mut clauses = Vec::new();
        while self.eat_kw("WHEN") {
            let kind = if self.eat_kw("MATCHED") {
                MergeMatch::Matched
            } else {
                self.expect_kw("NOT")?;
                self.expect_kw("MATCHED")?;
                if self.eat_kw("BY") {
                    if self.eat_kw("SOURCE") {
                        MergeMatch::NotMatchedBySource
                    } else {
                        self.expect_kw("TARGET")?;
                        MergeMatch::NotMatchedByTarget
                    }
                } else {
                    MergeMatch::NotMatchedByTarget
                }
            };
            let condition = if self.eat_kw("AND") {
                Some(self.parse_expr()?)
            } else {
                None
            };
            self.expect_kw("THEN")?;
            let action = if self.eat_kw("UPDATE") {
                self.expect_kw("SET")?;
                MergeAction::Update(self.parse_set_items()?)
            } else if self.eat_kw("DELETE") {
                MergeAction::Delete
            } else {
                self.expect_kw("INSERT")?;
                let columns = if self.at(Tok::LParen) {
                    self.parse_paren_ident_list()?
                } else {
                    Vec::new()
                };
                if self.kw("DEFAULT") && self.kw_at(1, "VALUES") {
                    self.pos += 2;
                    MergeAction::Insert {
                        columns,
                        values: None,
                    }
                } else {
                    self.expect_kw("VALUES")?;
                    self.expect(Tok::LParen)?;
                    let values = self.parse_expr_list()?;
                    self.expect(Tok::RParen)?;
                    MergeAction::Insert {
                        columns,
                        values: Some(values),
                    }
                }
            };
            clauses.push(MergeClause {
                kind,
                condition,
                action,
            });
        }
        if clauses.is_empty() {
            return Err(self.error_here());
        }
        let output = self.parse_opt_output()?;
        let options = self.parse_opt_option()?;
        Ok(Merge {
            with,
            top,
            target,
            target_alias,
            hints,
            source,
            on,
            clauses,
            output,
            options,
        })
    }

    /// After `EXEC`/`EXECUTE`.
    pub(crate) fn parse_exec_body(&mut self) -> SqlResult<Exec> {
        if self.at(Tok::LParen) {
            self.pos += 1;
            let sql = self.parse_expr()?;
            self.expect(Tok::RParen)?;
            let at = if self.eat_kw("AT") {
                Some(self.parse_ident()?)
            } else {
                None
            };
            return Ok(Exec::Sql { sql, at });
        }
        let mut return_status = None;
        if self.at(Tok::Variable) && self.at_n(1, Tok::Eq) {
            return_status = Some(self.parse_variable()?);
            self.pos += 1;
        }
        self.parse_exec_module_call(return_status)
    }

    /// `module [args] [WITH RECOMPILE]` — module is a name or a variable.
    pub(crate) fn parse_exec_module_call(
        &mut self,
        return_status: Option<String>,
    ) -> SqlResult<Exec> {
        let module = if self.at(Tok::Variable) {
            ExecModule::Variable(self.parse_variable()?)
        } else {
            ExecModule::Name(self.parse_object_name()?)
        };
        let mut args = Vec::new();
        if self.at_exec_arg_start() {
            loop {
                let name = if self.at(Tok::Variable) && self.at_n(1, Tok::Eq) {
                    let n = self.parse_variable()?;
                    self.pos += 1;
                    Some(n)
                } else {
                    None
                };
                let value = self.parse_expr()?;
                let output = self.eat_kw("OUTPUT") || self.eat_kw("OUT");
                args.push(ExecArg {
                    name,
                    value,
                    output,
                });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let recompile = if self.kw("WITH") && self.kw_at(1, "RECOMPILE") {
            self.pos += 2;
            true
        } else {
            false
        };
        Ok(Exec::Module {
            return_status,
            module,
            args,
            recompile,
        })
    }

    fn at_exec_arg_start(&self) -> bool {
        let t = self.peek();
        match t.kind {
            Tok::Word => {
                let w = self.text(t);
                if w.eq_ignore_ascii_case("DEFAULT") || w.eq_ignore_ascii_case("NULL") {
                    return true;
                }
                !t.reserved && !w.eq_ignore_ascii_case("THROW") && !self.at_n(1, Tok::Colon)
            }
            Tok::LParen => false,
            _ => self.at_expr_start(),
        }
    }
}
