//! `OPENROWSET(BULK 'file', option [= value], ...) [WITH (...)] [AS] alias [(cols)]` in FROM.
//! The options are kept as written; the binder validates them for the format they name.

use super::Parser;
use crate::ast::{OpenRowsetColumnDef, TableRef};
use crate::lexer::Tok;
use common::SqlResult;

impl<'a> Parser<'a> {
    /// Current token is `OPENROWSET`, followed by `(`.
    pub(crate) fn parse_openrowset(&mut self) -> SqlResult<TableRef> {
        self.pos += 2;
        // the OLE DB form OPENROWSET('provider', ...) is not parsed: only the BULK form reads
        // files, and a provider string stays the syntax error it would be without a provider
        self.expect_kw("BULK")?;
        let file = self.parse_string_lit()?;
        let mut options = Vec::new();
        while self.eat(Tok::Comma) {
            let name = self.parse_any_word()?.value.to_ascii_uppercase();
            let value = if self.eat(Tok::Eq) {
                Some(self.parse_expr()?)
            } else {
                None
            };
            options.push((name, value));
        }
        self.expect(Tok::RParen)?;
        let mut schema = Vec::new();
        if self.kw("WITH") && self.at_n(1, Tok::LParen) {
            self.pos += 2;
            loop {
                let name = self.parse_ident()?;
                let data_type = self.parse_data_type()?;
                let collation = if self.eat_kw("COLLATE") {
                    Some(self.parse_ident()?.value)
                } else {
                    None
                };
                let t = self.peek();
                let locator = match t.kind {
                    Tok::String | Tok::NString => {
                        let s = self.parse_string_lit()?;
                        Some(format!("'{}'", s.replace('\'', "''")))
                    }
                    Tok::Integer => {
                        self.pos += 1;
                        Some(self.text(t).to_string())
                    }
                    _ => None,
                };
                schema.push(OpenRowsetColumnDef {
                    name,
                    data_type,
                    collation,
                    locator,
                });
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
        }
        let alias = self.parse_opt_alias(false)?;
        let columns = if self.at(Tok::LParen) {
            self.parse_paren_ident_list()?
        } else {
            Vec::new()
        };
        Ok(TableRef::OpenRowset {
            file,
            options,
            schema,
            alias,
            columns,
        })
    }
}
