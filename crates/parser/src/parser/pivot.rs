//! `PIVOT` and `UNPIVOT` table operators, which follow a table source in FROM.

use super::Parser;
use crate::ast::{Expr, TableRef};
use crate::lexer::Tok;
use common::SqlResult;

impl<'a> Parser<'a> {
    /// Wraps `source` in every `PIVOT (...) alias` / `UNPIVOT (...) alias` that follows it
    /// (they chain: `t PIVOT (...) p UNPIVOT (...) u`).
    pub(crate) fn parse_pivot_suffixes(&mut self, mut source: TableRef) -> SqlResult<TableRef> {
        let mut chain = 0u32;
        loop {
            let pivot = if self.kw("PIVOT") {
                true
            } else if self.kw("UNPIVOT") {
                false
            } else {
                return Ok(source);
            };
            chain += 1;
            self.check_chain(chain)?;
            self.pos += 1;
            self.expect(Tok::LParen)?;
            source = if pivot {
                // the aggregate is a plain `name(args)` call: OVER and the like are refused
                // by the binder's aggregate check like any other misuse
                let name = self.parse_object_name()?;
                if self.at(Tok::LParen) && self.at_n(1, Tok::Star) {
                    // COUNT(*) has no value column: SQL Server's Msg 102 near '*'
                    self.pos += 1;
                    return Err(self.error_here());
                }
                let call = match self.parse_call(name)? {
                    Expr::Function(f) => f,
                    _ => return Err(self.error_here()),
                };
                self.expect_kw("FOR")?;
                let pivot_column = self.parse_ident()?;
                self.expect_kw("IN")?;
                let values = self.parse_paren_ident_list()?;
                self.expect(Tok::RParen)?;
                self.eat_kw("AS");
                let alias = self.parse_ident()?;
                TableRef::Pivot {
                    source: Box::new(source),
                    aggregate: call,
                    pivot_column,
                    values,
                    alias,
                }
            } else {
                let value_column = self.parse_ident()?;
                self.expect_kw("FOR")?;
                let name_column = self.parse_ident()?;
                self.expect_kw("IN")?;
                let columns = self.parse_paren_ident_list()?;
                self.expect(Tok::RParen)?;
                self.eat_kw("AS");
                let alias = self.parse_ident()?;
                TableRef::Unpivot {
                    source: Box::new(source),
                    value_column,
                    name_column,
                    columns,
                    alias,
                }
            };
        }
    }
}
