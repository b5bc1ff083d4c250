//! Procedural statements: DECLARE, SET, IF, cursors, RAISERROR, DBCC.

use super::query::assign_op;
use super::Parser;
use crate::ast::*;
use crate::lexer::Tok;
use common::SqlResult;

impl<'a> Parser<'a> {
    pub(crate) fn parse_declare(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("DECLARE")?;
        if !self.at(Tok::Variable) {
            // cursor: DECLARE name [INSENSITIVE] [SCROLL] CURSOR ...
            let name = self.parse_ident()?;
            let mut options = CursorOptions::default();
            if self.eat_kw("INSENSITIVE") {
                options.insensitive = true;
            }
            if self.eat_kw("SCROLL") {
                options.scroll = Some(CursorScroll::Scroll);
            }
            self.expect_kw("CURSOR")?;
            self.parse_cursor_options(&mut options);
            self.expect_kw("FOR")?;
            let query = self.parse_query(true)?;
            let mut for_update = None;
            if self.kw("FOR") {
                self.pos += 1;
                if self.eat_kw("UPDATE") {
                    let cols = if self.eat_kw("OF") {
                        let mut v = vec![self.parse_ident()?];
                        while self.eat(Tok::Comma) {
                            v.push(self.parse_ident()?);
                        }
                        v
                    } else {
                        Vec::new()
                    };
                    for_update = Some(cols);
                } else {
                    self.expect_kw("READ")?;
                    self.expect_kw("ONLY")?;
                    options.concurrency = Some(CursorConcurrency::ReadOnly);
                }
            }
            return Ok(StatementKind::DeclareCursor(Box::new(DeclareCursor {
                name,
                options,
                query,
                for_update,
            })));
        }
        let mut items = Vec::new();
        loop {
            let name = self.parse_variable()?;
            self.eat_kw("AS");
            if self.eat_kw("TABLE") {
                let definition = self.parse_table_definition()?;
                items.push(DeclareItem::Table { name, definition });
            } else {
                let data_type = if self.kw("CURSOR") {
                    self.pos += 1;
                    DataTypeName {
                        name: "CURSOR".to_string(),
                        schema: None,
                        params: Vec::new(),
                    }
                } else {
                    self.parse_data_type()?
                };
                let value = if self.eat(Tok::Eq) {
                    Some(self.parse_expr()?)
                } else {
                    None
                };
                items.push(DeclareItem::Scalar {
                    name,
                    data_type,
                    value,
                });
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(StatementKind::Declare(items))
    }

    fn parse_cursor_options(&mut self, o: &mut CursorOptions) {
        loop {
            let w = self.word_upper();
            match w.as_str() {
                "LOCAL" => o.scope = Some(CursorScope::Local),
                "GLOBAL" => o.scope = Some(CursorScope::Global),
                "FORWARD_ONLY" => o.scroll = Some(CursorScroll::ForwardOnly),
                "SCROLL" => o.scroll = Some(CursorScroll::Scroll),
                "STATIC" => o.kind = Some(CursorKind::Static),
                "KEYSET" => o.kind = Some(CursorKind::Keyset),
                "DYNAMIC" => o.kind = Some(CursorKind::Dynamic),
                "FAST_FORWARD" => o.kind = Some(CursorKind::FastForward),
                "READ_ONLY" => o.concurrency = Some(CursorConcurrency::ReadOnly),
                "SCROLL_LOCKS" => o.concurrency = Some(CursorConcurrency::ScrollLocks),
                "OPTIMISTIC" => o.concurrency = Some(CursorConcurrency::Optimistic),
                "TYPE_WARNING" => o.type_warning = true,
                _ => return,
            }
            self.pos += 1;
        }
    }

    pub(crate) fn parse_cursor_ref(&mut self) -> SqlResult<CursorRef> {
        if self.at(Tok::Variable) {
            let v = self.parse_variable()?;
            return Ok(CursorRef {
                name: Ident::new(v),
                global: false,
            });
        }
        let global =
            if self.kw("GLOBAL") && (self.at_n(1, Tok::Word) || self.at_n(1, Tok::QuotedIdent)) {
                self.pos += 1;
                true
            } else {
                false
            };
        Ok(CursorRef {
            name: self.parse_ident()?,
            global,
        })
    }

    pub(crate) fn parse_fetch(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("FETCH")?;
        let w = self.word_upper();
        let mut direction = FetchDirection::Next;
        let mut explicit = true;
        match w.as_str() {
            "NEXT" => {
                self.pos += 1;
            }
            "PRIOR" => {
                self.pos += 1;
                direction = FetchDirection::Prior;
            }
            "FIRST" => {
                self.pos += 1;
                direction = FetchDirection::First;
            }
            "LAST" => {
                self.pos += 1;
                direction = FetchDirection::Last;
            }
            "ABSOLUTE" | "RELATIVE" => {
                self.pos += 1;
                let e = self.parse_expr_bp(5)?;
                direction = if w == "ABSOLUTE" {
                    FetchDirection::Absolute(e)
                } else {
                    FetchDirection::Relative(e)
                };
            }
            _ => explicit = false,
        }
        if explicit {
            self.expect_kw("FROM")?;
        } else {
            self.eat_kw("FROM");
        }
        let cursor = self.parse_cursor_ref()?;
        let mut into = Vec::new();
        if self.eat_kw("INTO") {
            into.push(self.parse_variable()?);
            while self.eat(Tok::Comma) {
                into.push(self.parse_variable()?);
            }
        }
        Ok(StatementKind::Fetch(Box::new(Fetch {
            direction,
            cursor,
            into,
        })))
    }

    pub(crate) fn parse_set(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("SET")?;
        if self.at(Tok::Variable) {
            let name = self.parse_variable()?;
            let op = assign_op(self.peek().kind).ok_or_else(|| self.error_here())?;
            self.pos += 1;
            if op == AssignOp::Assign && self.kw("CURSOR") {
                self.pos += 1;
                let mut options = CursorOptions::default();
                self.parse_cursor_options(&mut options);
                self.expect_kw("FOR")?;
                let query = self.parse_query(true)?;
                return Ok(StatementKind::SetCursorVariable {
                    name,
                    options,
                    query: Box::new(query),
                });
            }
            let value = self.parse_expr()?;
            return Ok(StatementKind::SetVariable { name, op, value });
        }
        let w = self.word_upper();
        match w.as_str() {
            "" => Err(self.error_here()),
            "IDENTITY_INSERT" => {
                self.pos += 1;
                let table = self.parse_object_name()?;
                let on = self.parse_on_off()?;
                Ok(StatementKind::SetOption(SetOption::IdentityInsert {
                    table,
                    on,
                }))
            }
            "TRANSACTION" => {
                self.pos += 1;
                self.expect_kw("ISOLATION")?;
                self.expect_kw("LEVEL")?;
                let level = if self.eat_kw("READ") {
                    if self.eat_kw("UNCOMMITTED") {
                        IsolationLevel::ReadUncommitted
                    } else {
                        self.expect_kw("COMMITTED")?;
                        IsolationLevel::ReadCommitted
                    }
                } else if self.eat_kw("REPEATABLE") {
                    self.expect_kw("READ")?;
                    IsolationLevel::RepeatableRead
                } else if self.eat_kw("SNAPSHOT") {
                    IsolationLevel::Snapshot
                } else {
                    self.expect_kw("SERIALIZABLE")?;
                    IsolationLevel::Serializable
                };
                Ok(StatementKind::SetOption(SetOption::TransactionIsolation(
                    level,
                )))
            }
            "ROWCOUNT"
            | "DATEFORMAT"
            | "LANGUAGE"
            | "DATEFIRST"
            | "LOCK_TIMEOUT"
            | "DEADLOCK_PRIORITY"
            | "TEXTSIZE"
            | "CONTEXT_INFO"
            | "QUERY_GOVERNOR_COST_LIMIT" => {
                self.pos += 1;
                let value = self.parse_expr()?;
                Ok(StatementKind::SetOption(SetOption::Value {
                    option: w.to_string(),
                    value,
                }))
            }
            _ => {
                let mut options = Vec::new();
                loop {
                    let w = self.word_upper();
                    if w.is_empty() {
                        return Err(self.error_here());
                    }
                    self.pos += 1;
                    if w == "STATISTICS" || w == "SHOWPLAN" {
                        let k = self.word_upper();
                        if k.is_empty() {
                            return Err(self.error_here());
                        }
                        self.pos += 1;
                        options.push(format!("{w} {k}"));
                        // SET STATISTICS IO, TIME ON
                        while self.at(Tok::Comma)
                            && !self.kw_at(1, "STATISTICS")
                            && !self.kw_at(1, "SHOWPLAN")
                        {
                            self.pos += 1;
                            let k = self.word_upper();
                            if k.is_empty() {
                                return Err(self.error_here());
                            }
                            self.pos += 1;
                            options.push(format!("{w} {k}"));
                        }
                    } else {
                        options.push(w.to_string());
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                let on = self.parse_on_off()?;
                Ok(StatementKind::SetOption(SetOption::OnOff { options, on }))
            }
        }
    }

    fn parse_on_off(&mut self) -> SqlResult<bool> {
        if self.eat_kw("ON") {
            Ok(true)
        } else if self.eat_kw("OFF") {
            Ok(false)
        } else {
            Err(self.error_here())
        }
    }

    pub(crate) fn parse_if(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("IF")?;
        let condition = self.parse_expr()?;
        let then_stmt = Box::new(self.parse_statement()?);
        let save = self.pos;
        while self.eat(Tok::Semicolon) {}
        let else_stmt = if self.eat_kw("ELSE") {
            Some(Box::new(self.parse_statement()?))
        } else {
            self.pos = save;
            None
        };
        Ok(StatementKind::If {
            condition,
            then_stmt,
            else_stmt,
        })
    }

    pub(crate) fn parse_raiserror(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("RAISERROR")?;
        self.expect(Tok::LParen)?;
        let message = self.parse_expr()?;
        self.expect(Tok::Comma)?;
        let severity = self.parse_expr()?;
        self.expect(Tok::Comma)?;
        let state = self.parse_expr()?;
        let mut args = Vec::new();
        while self.eat(Tok::Comma) {
            args.push(self.parse_expr()?);
        }
        self.expect(Tok::RParen)?;
        let mut options = Vec::new();
        if self.eat_kw("WITH") {
            loop {
                let w = self.word_upper();
                options.push(match w.as_str() {
                    "LOG" => RaisErrorOption::Log,
                    "NOWAIT" => RaisErrorOption::NoWait,
                    "SETERROR" => RaisErrorOption::SetError,
                    _ => return Err(self.error_here()),
                });
                self.pos += 1;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        Ok(StatementKind::RaisError(Box::new(RaisError {
            message,
            severity,
            state,
            args,
            options,
        })))
    }

    pub(crate) fn parse_dbcc(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("DBCC")?;
        let command = self.parse_any_word()?.value.to_ascii_uppercase();
        let mut args = Vec::new();
        if self.eat(Tok::LParen) {
            if !self.at(Tok::RParen) {
                args = self.parse_expr_list()?;
            }
            self.expect(Tok::RParen)?;
        }
        let mut options = Vec::new();
        if self.eat_kw("WITH") {
            loop {
                options.push(self.parse_any_word()?.value.to_ascii_uppercase());
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        Ok(StatementKind::Dbcc(Box::new(Dbcc {
            command,
            args,
            options,
        })))
    }
}
