//! `CREATE EXTERNAL DATA SOURCE | FILE FORMAT | TABLE` (SQL Server 2022's CETAS) and
//! `DROP EXTERNAL ...`. Options are kept as written; the engine validates them.

use super::Parser;
use crate::ast::{CreateExternal, ExternalKind, StatementKind};
use crate::lexer::Tok;
use common::SqlResult;

impl<'a> Parser<'a> {
    /// `DATA SOURCE` | `FILE FORMAT` | `TABLE`.
    pub(crate) fn parse_external_kind(&mut self) -> SqlResult<ExternalKind> {
        if self.eat_kw("TABLE") {
            return Ok(ExternalKind::Table);
        }
        if self.kw("DATA") && self.kw_at(1, "SOURCE") {
            self.pos += 2;
            return Ok(ExternalKind::DataSource);
        }
        if self.kw("FILE") && self.kw_at(1, "FORMAT") {
            self.pos += 2;
            return Ok(ExternalKind::FileFormat);
        }
        Err(self.error_here())
    }

    /// After `CREATE EXTERNAL`.
    pub(crate) fn parse_create_external(&mut self) -> SqlResult<StatementKind> {
        let kind = self.parse_external_kind()?;
        let name = self.parse_object_name()?;
        let mut columns = Vec::new();
        if kind == ExternalKind::Table && self.at(Tok::LParen) {
            self.pos += 1;
            loop {
                let c = self.parse_ident()?;
                let t = self.parse_data_type()?;
                // recorded for sys.columns; the reader does not enforce it
                let mut nullable = true;
                if !self.eat_kw("NULL") && self.kw("NOT") && self.kw_at(1, "NULL") {
                    self.pos += 2;
                    nullable = false;
                }
                columns.push((c, t, nullable));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
        }
        self.expect_kw("WITH")?;
        self.expect(Tok::LParen)?;
        let mut options = Vec::new();
        loop {
            let n = self.parse_any_word()?.value.to_ascii_uppercase();
            self.expect(Tok::Eq)?;
            options.push((n, self.parse_expr()?));
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        let query = if kind == ExternalKind::Table && self.eat_kw("AS") {
            Some(self.parse_query(false)?)
        } else {
            None
        };
        Ok(StatementKind::CreateExternal(Box::new(CreateExternal {
            kind,
            name,
            columns,
            options,
            query,
        })))
    }
}
