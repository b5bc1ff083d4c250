//! Recursive-descent T-SQL parser over the token vector produced by `lexer`.
//!
//! Submodules: `expr` (Pratt expression parser, data types), `query` (SELECT, table sources,
//! hints), `dml` (INSERT/UPDATE/DELETE/MERGE), `ddl` (CREATE/ALTER/DROP ...), `proc` (procedural
//! statements). Everything returns `SqlResult`; nothing panics on input.

mod bulk;
mod ddl;
mod dml;
mod expr;
mod external;
mod for_clause;
mod pivot;
mod proc;
mod query;
mod security;

use crate::ast::*;
use crate::lexer::{self, Tok, Token};
use common::{SqlError, SqlResult};

/// Maximum recursion depth (nested parentheses, subqueries, nested statements).
const MAX_DEPTH: u32 = 150;
/// Maximum length of an identifier, in characters (sysname).
const MAX_IDENT_CHARS: usize = 128;

/// Msg 103 for an identifier longer than 128 characters (SQL Server's lexer rule).
fn check_ident_length(value: &str, line: u32) -> SqlResult<()> {
    if value.chars().count() > MAX_IDENT_CHARS {
        let start: String = value.chars().take(MAX_IDENT_CHARS).collect();
        return Err(SqlError::new(103, &[&"identifier", &start, &MAX_IDENT_CHARS]).at_line(line));
    }
    Ok(())
}

/// Maximum number of binary operators chained in one expression (bounds the tree depth).
const MAX_CHAIN: u32 = 1000;

pub(crate) struct Parser<'a> {
    pub(crate) src: &'a str,
    pub(crate) toks: Vec<Token>,
    pub(crate) pos: usize,
    depth: u32,
    /// Column-level `INDEX ix` found while parsing a column definition, moved to the table's
    /// index list by the caller.
    pub(crate) pending_column_index: Option<IndexDefinition>,
    /// Token positions where a `(`-started query turned out to be part of a larger expression.
    pub(crate) not_query_at: std::collections::HashSet<usize>,
    /// Column-level `PRIMARY KEY (a)` / `FOREIGN KEY (a) REFERENCES ...` (with a column list),
    /// moved to the table's constraint list by the caller.
    pub(crate) pending_table_constraints: Vec<TableConstraint>,
}

/// An upper-cased keyword candidate held on the stack (keyword checks must not allocate).
#[derive(Clone, Copy)]
pub(crate) struct Upper {
    buf: [u8; Upper::CAP],
    len: u8,
}

impl Default for Upper {
    fn default() -> Upper {
        Upper {
            buf: [0; Upper::CAP],
            len: 0,
        }
    }
}

impl Upper {
    pub(crate) const CAP: usize = 48;

    fn new(s: &str) -> Upper {
        let b = s.as_bytes();
        let mut u = Upper::default();
        if b.len() > Self::CAP || !s.is_ascii() {
            return u;
        }
        for (i, c) in b.iter().enumerate() {
            u.buf[i] = c.to_ascii_uppercase();
        }
        u.len = b.len() as u8;
        u
    }

    pub(crate) fn as_str(&self) -> &str {
        // only ASCII bytes are stored (checked in `new`), so this never fails
        std::str::from_utf8(&self.buf[..self.len as usize]).unwrap_or("")
    }
}

impl std::ops::Deref for Upper {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<&str> for Upper {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for Upper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parse-time session settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// `SET QUOTED_IDENTIFIER`: OFF makes `"..."` a string literal.
    pub quoted_identifier: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            quoted_identifier: true,
        }
    }
}

/// Parses one batch (no `GO` inside) into statements, under the default settings
/// (`QUOTED_IDENTIFIER ON`).
pub fn parse_batch(text: &str) -> SqlResult<Vec<Statement>> {
    parse_batch_with(text, ParseOptions::default())
}

/// Parses one batch (no `GO` inside) into statements; `opts` is the setting the batch starts
/// with (a `SET QUOTED_IDENTIFIER` inside it switches the setting for the text after it).
pub fn parse_batch_with(text: &str, opts: ParseOptions) -> SqlResult<Vec<Statement>> {
    let mut p = Parser::new_with(text, opts)?;
    let mut out = Vec::new();
    loop {
        while p.eat(Tok::Semicolon) {}
        if p.at(Tok::Eof) {
            break;
        }
        let first = out.is_empty();
        let stmt = p.parse_statement_top(first)?;
        if !first {
            let module = match &stmt.kind {
                StatementKind::CreateView(v) => Some(mode_name(v.mode, "VIEW")),
                StatementKind::CreateProcedure(v) => Some(mode_name(v.mode, "PROCEDURE")),
                StatementKind::CreateFunction(v) => Some(mode_name(v.mode, "FUNCTION")),
                StatementKind::CreateTrigger(v) => Some(mode_name(v.mode, "TRIGGER")),
                _ => None,
            };
            if let Some(m) = module {
                return Err(SqlError::new(111, &[&m]).at_line(stmt.line));
            }
        }
        out.push(stmt);
    }
    Ok(out)
}

fn mode_name(mode: CreateMode, what: &str) -> String {
    match mode {
        CreateMode::Alter => format!("ALTER {what}"),
        _ => format!("CREATE {what}"),
    }
}

/// Parses a standalone expression (column defaults, computed columns, CHECK constraints).
pub fn parse_expression(text: &str) -> SqlResult<Expr> {
    let mut p = Parser::new(text)?;
    let e = p.parse_expr()?;
    if !p.at(Tok::Eof) {
        return Err(p.error_here());
    }
    Ok(e)
}

/// Parses a data type such as `varchar(max)` or `decimal(10, 2)`.
pub fn parse_data_type(text: &str) -> SqlResult<DataTypeName> {
    let mut p = Parser::new(text)?;
    let t = p.parse_data_type()?;
    if !p.at(Tok::Eof) {
        return Err(p.error_here());
    }
    Ok(t)
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> SqlResult<Parser<'a>> {
        Parser::new_with(src, ParseOptions::default())
    }

    pub(crate) fn new_with(src: &'a str, opts: ParseOptions) -> SqlResult<Parser<'a>> {
        Ok(Parser {
            src,
            toks: lexer::tokenize_with(src, opts.quoted_identifier)?,
            pos: 0,
            depth: 0,
            pending_column_index: None,
            not_query_at: std::collections::HashSet::new(),
            pending_table_constraints: Vec::new(),
        })
    }

    // ----- token access ---------------------------------------------------------------------

    #[inline]
    pub(crate) fn peek(&self) -> Token {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }
    #[inline]
    pub(crate) fn peek_at(&self, n: usize) -> Token {
        self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }
    #[inline]
    pub(crate) fn at(&self, k: Tok) -> bool {
        self.peek().kind == k
    }
    #[inline]
    pub(crate) fn at_n(&self, n: usize, k: Tok) -> bool {
        self.peek_at(n).kind == k
    }
    #[inline]
    pub(crate) fn advance(&mut self) -> Token {
        let t = self.peek();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }
    #[inline]
    pub(crate) fn text(&self, t: Token) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }
    pub(crate) fn eat(&mut self, k: Tok) -> bool {
        if self.at(k) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub(crate) fn expect(&mut self, k: Tok) -> SqlResult<Token> {
        if self.at(k) {
            Ok(self.advance())
        } else {
            Err(self.error_here())
        }
    }
    /// Is token `t` the word `kw` (case-insensitive)?
    #[inline]
    pub(crate) fn is_kw(&self, t: Token, kw: &str) -> bool {
        t.kind == Tok::Word && self.text(t).eq_ignore_ascii_case(kw)
    }
    #[inline]
    pub(crate) fn kw(&self, kw: &str) -> bool {
        self.is_kw(self.peek(), kw)
    }
    #[inline]
    pub(crate) fn kw_at(&self, n: usize, kw: &str) -> bool {
        self.is_kw(self.peek_at(n), kw)
    }
    pub(crate) fn eat_kw(&mut self, kw: &str) -> bool {
        if self.kw(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub(crate) fn expect_kw(&mut self, kw: &str) -> SqlResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.error_here())
        }
    }
    /// Upper-cased text of the current word (empty if not a word or longer than
    /// [`Upper::CAP`] bytes), without allocating.
    pub(crate) fn word_upper(&self) -> Upper {
        let t = self.peek();
        if t.kind == Tok::Word {
            Upper::new(self.text(t))
        } else {
            Upper::default()
        }
    }
    /// End offset of the previous token.
    pub(crate) fn prev_end(&self) -> u32 {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].end
        }
    }

    // ----- errors -----------------------------------------------------------------------------

    /// Syntax error at the current token (Msg 102 / 156), or at the last token at end of input.
    pub(crate) fn error_here(&self) -> SqlError {
        self.error_at(self.pos)
    }

    pub(crate) fn error_at(&self, i: usize) -> SqlError {
        let i = i.min(self.toks.len() - 1);
        let mut t = self.toks[i];
        if t.kind == Tok::Eof {
            if i == 0 {
                return SqlError::syntax_near("").at_line(t.line);
            }
            t = self.toks[i - 1];
        }
        let raw = self.text(t);
        let e = match t.kind {
            Tok::Word if t.reserved => SqlError::syntax_near_keyword(raw),
            Tok::String | Tok::NString => SqlError::syntax_near(&lexer::string_value(self.src, &t)),
            Tok::QuotedIdent => SqlError::syntax_near(&lexer::quoted_ident_value(self.src, &t)),
            _ => SqlError::syntax_near(raw),
        };
        e.at_line(t.line)
    }

    pub(crate) fn enter(&mut self) -> SqlResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SqlError::new(191, &[]).at_line(self.peek().line));
        }
        Ok(())
    }
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
    pub(crate) fn check_chain(&self, n: u32) -> SqlResult<()> {
        if n > MAX_CHAIN {
            return Err(SqlError::new(191, &[]).at_line(self.peek().line));
        }
        Ok(())
    }

    // ----- identifiers and names --------------------------------------------------------------

    /// An identifier: non-reserved word or quoted identifier.
    pub(crate) fn parse_ident(&mut self) -> SqlResult<Ident> {
        let t = self.peek();
        let id = match t.kind {
            Tok::Word if !t.reserved => Ident::new(self.text(t)),
            Tok::QuotedIdent => Ident {
                value: lexer::quoted_ident_value(self.src, &t),
                quoted: true,
            },
            _ => return Err(self.error_here()),
        };
        check_ident_length(&id.value, t.line)?;
        self.pos += 1;
        Ok(id)
    }

    /// An identifier where reserved words are also accepted (option names, DBCC commands).
    pub(crate) fn parse_any_word(&mut self) -> SqlResult<Ident> {
        let t = self.peek();
        if t.kind == Tok::Word {
            self.pos += 1;
            Ok(Ident::new(self.text(t)))
        } else {
            self.parse_ident()
        }
    }

    pub(crate) fn at_ident(&self) -> bool {
        let t = self.peek();
        match t.kind {
            Tok::Word => !t.reserved,
            Tok::QuotedIdent => true,
            _ => false,
        }
    }

    /// `a`, `a.b`, `a.b.c.d`, `a..c` (empty middle parts).
    pub(crate) fn parse_object_name(&mut self) -> SqlResult<ObjectName> {
        // `..t`, `.dbo.p`: leading parts may be omitted (server/database default)
        let mut parts = Vec::new();
        while self.at(Tok::Dot) && parts.len() < 3 {
            self.pos += 1;
            parts.push(Ident::new(""));
        }
        parts.push(self.parse_ident()?);
        while self.at(Tok::Dot) {
            if parts.len() >= 4 {
                return Err(self.error_here());
            }
            self.pos += 1;
            if self.at(Tok::Dot) {
                parts.push(Ident::new(""));
                continue;
            }
            parts.push(self.parse_ident()?);
        }
        if parts
            .last()
            .is_some_and(|p| p.value.is_empty() && !p.quoted)
        {
            return Err(self.error_here());
        }
        Ok(ObjectName { parts })
    }

    /// `(a, b, c)` identifier list.
    pub(crate) fn parse_paren_ident_list(&mut self) -> SqlResult<Vec<Ident>> {
        self.expect(Tok::LParen)?;
        let mut v = vec![self.parse_ident()?];
        while self.eat(Tok::Comma) {
            v.push(self.parse_ident()?);
        }
        self.expect(Tok::RParen)?;
        Ok(v)
    }

    pub(crate) fn parse_variable(&mut self) -> SqlResult<String> {
        let t = self.expect(Tok::Variable)?;
        Ok(self.text(t).to_string())
    }

    pub(crate) fn parse_u32(&mut self) -> SqlResult<u32> {
        let t = self.peek();
        if t.kind == Tok::Integer {
            if let Ok(n) = self.text(t).parse::<u32>() {
                self.pos += 1;
                return Ok(n);
            }
        }
        Err(self.error_here())
    }

    pub(crate) fn parse_i64_signed(&mut self) -> SqlResult<i64> {
        let neg = if self.eat(Tok::Minus) {
            true
        } else {
            self.eat(Tok::Plus);
            false
        };
        let t = self.peek();
        if t.kind == Tok::Integer {
            if let Ok(n) = self.text(t).parse::<i64>() {
                self.pos += 1;
                return Ok(if neg { -n } else { n });
            }
        }
        Err(self.error_here())
    }

    pub(crate) fn parse_string_lit(&mut self) -> SqlResult<String> {
        let t = self.peek();
        if matches!(t.kind, Tok::String | Tok::NString) {
            self.pos += 1;
            Ok(lexer::string_value(self.src, &t))
        } else {
            Err(self.error_here())
        }
    }

    // ----- statements -------------------------------------------------------------------------

    fn parse_statement_top(&mut self, first_in_batch: bool) -> SqlResult<Statement> {
        // A batch whose first statement is a bare procedure name runs that procedure.
        if first_in_batch
            && self.at_ident()
            && !self.at_n(1, Tok::Colon)
            && !self.kw("THROW")
            && !self.kw("ENABLE")
            && !self.kw("DISABLE")
        {
            let start = self.peek();
            let exec = self.parse_exec_module_call(None)?;
            return Ok(Statement {
                line: start.line,
                span: Span {
                    start: start.start,
                    end: self.prev_end(),
                },
                kind: StatementKind::Exec(Box::new(exec)),
            });
        }
        self.parse_statement()
    }

    /// Parses one statement (without consuming a trailing `;`).
    pub(crate) fn parse_statement(&mut self) -> SqlResult<Statement> {
        self.enter()?;
        let start = self.peek();
        let r = self.parse_statement_kind();
        self.leave();
        let kind = r?;
        Ok(Statement {
            line: start.line,
            span: Span {
                start: start.start,
                end: self.prev_end(),
            },
            kind,
        })
    }

    /// Statements until `END` (not consumed) — the body of BEGIN...END / TRY / CATCH.
    pub(crate) fn parse_statements_until_end(&mut self) -> SqlResult<Vec<Statement>> {
        let mut out = Vec::new();
        loop {
            while self.eat(Tok::Semicolon) {}
            if self.kw("END") || self.at(Tok::Eof) {
                return Ok(out);
            }
            out.push(self.parse_statement()?);
        }
    }

    /// Statements until end of batch (procedure and trigger bodies).
    pub(crate) fn parse_statements_until_eof(&mut self) -> SqlResult<Vec<Statement>> {
        let mut out = Vec::new();
        loop {
            while self.eat(Tok::Semicolon) {}
            if self.at(Tok::Eof) {
                return Ok(out);
            }
            out.push(self.parse_statement()?);
        }
    }

    fn parse_statement_kind(&mut self) -> SqlResult<StatementKind> {
        let t = self.peek();
        match t.kind {
            Tok::LParen => return Ok(StatementKind::Select(Box::new(self.parse_query_stmt()?))),
            Tok::Word => {}
            Tok::QuotedIdent if self.at_n(1, Tok::Colon) => {
                let id = self.parse_ident()?;
                self.pos += 1;
                return Ok(StatementKind::Label(id));
            }
            _ => return Err(self.error_here()),
        }
        let w = self.word_upper();
        match w.as_str() {
            "SELECT" => Ok(StatementKind::Select(Box::new(self.parse_query_stmt()?))),
            "WITH" => self.parse_with_statement(),
            "INSERT" => Ok(StatementKind::Insert(Box::new(
                self.parse_insert(Vec::new())?,
            ))),
            "UPDATE" => {
                if self.kw_at(1, "STATISTICS") {
                    self.parse_update_statistics()
                } else {
                    Ok(StatementKind::Update(Box::new(
                        self.parse_update(Vec::new())?,
                    )))
                }
            }
            "DELETE" => Ok(StatementKind::Delete(Box::new(
                self.parse_delete(Vec::new())?,
            ))),
            "MERGE" => Ok(StatementKind::Merge(Box::new(
                self.parse_merge(Vec::new())?,
            ))),
            "TRUNCATE" => {
                self.pos += 1;
                self.expect_kw("TABLE")?;
                Ok(StatementKind::Truncate(self.parse_object_name()?))
            }
            "CREATE" => self.parse_create(),
            "ALTER" => self.parse_alter(),
            "DROP" => self.parse_drop(),
            "USE" => {
                self.pos += 1;
                Ok(StatementKind::Use(self.parse_ident()?))
            }
            "DECLARE" => self.parse_declare(),
            "SET" => self.parse_set(),
            "IF" => self.parse_if(),
            "WHILE" => {
                self.pos += 1;
                let condition = self.parse_expr()?;
                let body = Box::new(self.parse_statement()?);
                Ok(StatementKind::While { condition, body })
            }
            "BEGIN" => self.parse_begin(),
            "BREAK" => {
                self.pos += 1;
                Ok(StatementKind::Break)
            }
            "CONTINUE" => {
                self.pos += 1;
                Ok(StatementKind::Continue)
            }
            "RETURN" => {
                self.pos += 1;
                let e = if self.at_expr_start() {
                    Some(self.parse_expr()?)
                } else {
                    None
                };
                Ok(StatementKind::Return(e))
            }
            "GOTO" => {
                self.pos += 1;
                Ok(StatementKind::Goto(self.parse_ident()?))
            }
            "WAITFOR" => {
                self.pos += 1;
                let delay = if self.eat_kw("DELAY") {
                    true
                } else {
                    self.expect_kw("TIME")?;
                    false
                };
                Ok(StatementKind::WaitFor {
                    delay,
                    value: self.parse_expr()?,
                })
            }
            "PRINT" => {
                self.pos += 1;
                Ok(StatementKind::Print(self.parse_expr()?))
            }
            "RAISERROR" => self.parse_raiserror(),
            "THROW" => {
                self.pos += 1;
                if self.at_expr_start() {
                    let a = self.parse_expr()?;
                    self.expect(Tok::Comma)?;
                    let b = self.parse_expr()?;
                    self.expect(Tok::Comma)?;
                    let c = self.parse_expr()?;
                    Ok(StatementKind::Throw(Some(Box::new((a, b, c)))))
                } else {
                    Ok(StatementKind::Throw(None))
                }
            }
            "COMMIT" | "ROLLBACK" => {
                self.pos += 1;
                let _ = self.eat_kw("TRAN") || self.eat_kw("TRANSACTION") || self.eat_kw("WORK");
                let name = self.parse_opt_tran_name();
                if w == "COMMIT" {
                    if self.kw("WITH") && self.at_n(1, Tok::LParen) {
                        self.pos += 1;
                        let _ = self.parse_option_list()?;
                    }
                    Ok(StatementKind::Commit { name })
                } else {
                    Ok(StatementKind::Rollback { name })
                }
            }
            "SAVE" => {
                self.pos += 1;
                if !(self.eat_kw("TRAN") || self.eat_kw("TRANSACTION")) {
                    return Err(self.error_here());
                }
                match self.parse_opt_tran_name() {
                    Some(name) => Ok(StatementKind::SaveTransaction { name }),
                    None => Err(self.error_here()),
                }
            }
            "EXEC" | "EXECUTE" if self.kw_at(1, "AS") => {
                // EXECUTE AS LOGIN|USER = '...' (context switching): not modelled
                let first = self.peek();
                self.pos += 2;
                let w = self.word_upper();
                if !matches!(w.as_str(), "LOGIN" | "USER" | "CALLER" | "OWNER" | "SELF") {
                    return Err(self.error_here());
                }
                self.pos += 1;
                if self.eat(Tok::Eq) {
                    self.parse_string_lit()?;
                }
                let text = self.src[first.start as usize..self.prev_end() as usize].to_string();
                Ok(StatementKind::Unsupported {
                    keyword: "EXECUTE AS".to_string(),
                    text,
                })
            }
            "EXEC" | "EXECUTE" => {
                self.pos += 1;
                Ok(StatementKind::Exec(Box::new(self.parse_exec_body()?)))
            }
            "CHECKPOINT" => {
                self.pos += 1;
                let e = if matches!(self.peek().kind, Tok::Integer | Tok::Variable) {
                    Some(self.parse_expr()?)
                } else {
                    None
                };
                Ok(StatementKind::Checkpoint(e))
            }
            "DBCC" => self.parse_dbcc(),
            "OPEN" => {
                self.pos += 1;
                Ok(StatementKind::Open(self.parse_cursor_ref()?))
            }
            "CLOSE" => {
                self.pos += 1;
                Ok(StatementKind::Close(self.parse_cursor_ref()?))
            }
            "DEALLOCATE" => {
                self.pos += 1;
                Ok(StatementKind::Deallocate(self.parse_cursor_ref()?))
            }
            "FETCH" => self.parse_fetch(),
            "BULK" if self.kw_at(1, "INSERT") => self.parse_bulk_insert(),
            "GRANT" | "DENY" | "REVOKE" => self.parse_security_statement(),
            "RECONFIGURE" | "KILL" | "SHUTDOWN" | "BACKUP"
            | "RESTORE" | "BULK" | "REVERT" | "SETUSER" | "ENABLE" | "DISABLE" => {
                Ok(self.parse_unsupported())
            }
            _ => {
                if self.at_ident() && self.at_n(1, Tok::Colon) {
                    let id = self.parse_ident()?;
                    self.pos += 1;
                    return Ok(StatementKind::Label(id));
                }
                Err(self.error_here())
            }
        }
    }

    /// `BEGIN TRAN`, `BEGIN TRY ... END CATCH`, `BEGIN ... END`.
    fn parse_begin(&mut self) -> SqlResult<StatementKind> {
        self.pos += 1; // BEGIN
        if self.eat_kw("DISTRIBUTED") {
            if !(self.eat_kw("TRAN") || self.eat_kw("TRANSACTION")) {
                return Err(self.error_here());
            }
            let name = self.parse_opt_tran_name();
            return Ok(StatementKind::BeginTransaction { name });
        }
        if self.eat_kw("TRAN") || self.eat_kw("TRANSACTION") {
            let name = self.parse_opt_tran_name();
            if self.kw("WITH") && self.kw_at(1, "MARK") {
                self.pos += 2;
                if matches!(self.peek().kind, Tok::String | Tok::NString) {
                    self.pos += 1;
                }
            }
            return Ok(StatementKind::BeginTransaction { name });
        }
        if self.eat_kw("TRY") {
            let try_block = self.parse_statements_until_end()?;
            self.expect_kw("END")?;
            self.expect_kw("TRY")?;
            while self.eat(Tok::Semicolon) {}
            self.expect_kw("BEGIN")?;
            self.expect_kw("CATCH")?;
            let catch_block = self.parse_statements_until_end()?;
            self.expect_kw("END")?;
            self.expect_kw("CATCH")?;
            return Ok(StatementKind::TryCatch {
                try_block,
                catch_block,
            });
        }
        let body = self.parse_statements_until_end()?;
        self.expect_kw("END")?;
        Ok(StatementKind::Block(body))
    }

    fn parse_opt_tran_name(&mut self) -> Option<String> {
        let t = self.peek();
        match t.kind {
            Tok::Variable => {
                self.pos += 1;
                Some(self.text(t).to_string())
            }
            Tok::Word if !t.reserved && !self.kw("THROW") && !self.at_n(1, Tok::Colon) => {
                self.pos += 1;
                Some(self.text(t).to_string())
            }
            Tok::QuotedIdent => {
                self.pos += 1;
                Some(lexer::quoted_ident_value(self.src, &t))
            }
            _ => None,
        }
    }

    /// GRANT/DENY/...: swallow tokens to the next `;` or to a statement keyword on a later line.
    fn parse_unsupported(&mut self) -> StatementKind {
        let first = self.advance();
        let keyword = self.text(first).to_ascii_uppercase();
        let mut last_line = first.line;
        while !self.at(Tok::Eof) && !self.at(Tok::Semicolon) {
            let t = self.peek();
            if t.line > last_line && t.kind == Tok::Word {
                let w = self.word_upper();
                if matches!(
                    w.as_str(),
                    "SELECT"
                        | "INSERT"
                        | "UPDATE"
                        | "DELETE"
                        | "CREATE"
                        | "ALTER"
                        | "DROP"
                        | "EXEC"
                        | "EXECUTE"
                        | "GRANT"
                        | "DENY"
                        | "REVOKE"
                        | "SET"
                        | "DECLARE"
                        | "IF"
                        | "WHILE"
                        | "BEGIN"
                        | "END"
                        | "PRINT"
                        | "GO"
                        | "USE"
                        | "MERGE"
                ) {
                    break;
                }
            }
            last_line = t.line;
            self.pos += 1;
        }
        let text = self.src[first.start as usize..self.prev_end() as usize].to_string();
        StatementKind::Unsupported { keyword, text }
    }

    /// Can the current token start an expression (used for optional operands: RETURN, THROW)?
    pub(crate) fn at_expr_start(&self) -> bool {
        let t = self.peek();
        match t.kind {
            Tok::Integer
            | Tok::Decimal
            | Tok::Float
            | Tok::Money
            | Tok::String
            | Tok::NString
            | Tok::Binary
            | Tok::Variable
            | Tok::SysVariable
            | Tok::LParen
            | Tok::Minus
            | Tok::Plus
            | Tok::Tilde => true,
            Tok::Word => {
                let w = self.text(t);
                if t.reserved {
                    [
                        "NULL",
                        "CASE",
                        "CAST",
                        "CONVERT",
                        "TRY_CONVERT",
                        "COALESCE",
                        "NULLIF",
                        "LEFT",
                        "RIGHT",
                        "CURRENT_TIMESTAMP",
                        "CURRENT_USER",
                        "SESSION_USER",
                        "SYSTEM_USER",
                        "USER",
                        "EXISTS",
                        "NOT",
                    ]
                    .iter()
                    .any(|k| w.eq_ignore_ascii_case(k))
                } else {
                    !w.eq_ignore_ascii_case("THROW") && !self.at_n(1, Tok::Colon)
                }
            }
            Tok::QuotedIdent => true,
            _ => false,
        }
    }
}
