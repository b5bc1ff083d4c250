//! Queries: WITH, SELECT, set operations, table sources, table and query hints.

use super::Parser;
use crate::ast::*;
use crate::lexer::{self, Tok};
use common::SqlResult;

impl<'a> Parser<'a> {
    /// A statement-level query (may carry `OPTION (...)`).
    pub(crate) fn parse_query_stmt(&mut self) -> SqlResult<Query> {
        self.parse_query(true)
    }

    /// `WITH ...` followed by SELECT / INSERT / UPDATE / DELETE / MERGE.
    pub(crate) fn parse_with_statement(&mut self) -> SqlResult<StatementKind> {
        let with = self.parse_with()?;
        let w = self.word_upper();
        match w.as_str() {
            "INSERT" => Ok(StatementKind::Insert(Box::new(self.parse_insert(with)?))),
            "UPDATE" => Ok(StatementKind::Update(Box::new(self.parse_update(with)?))),
            "DELETE" => Ok(StatementKind::Delete(Box::new(self.parse_delete(with)?))),
            "MERGE" => Ok(StatementKind::Merge(Box::new(self.parse_merge(with)?))),
            _ => {
                let mut q = self.parse_query_after_with(true)?;
                q.with = with;
                Ok(StatementKind::Select(Box::new(q)))
            }
        }
    }

    /// `WITH name [(cols)] AS (query), ...` (current token is WITH).
    pub(crate) fn parse_with(&mut self) -> SqlResult<Vec<Cte>> {
        self.expect_kw("WITH")?;
        let mut ctes = Vec::new();
        loop {
            let name = self.parse_ident()?;
            let columns = if self.at(Tok::LParen) {
                self.parse_paren_ident_list()?
            } else {
                Vec::new()
            };
            self.expect_kw("AS")?;
            self.expect(Tok::LParen)?;
            let query = self.parse_query(false)?;
            self.expect(Tok::RParen)?;
            ctes.push(Cte {
                name,
                columns,
                query,
            });
            if !self.eat(Tok::Comma) {
                return Ok(ctes);
            }
        }
    }

    pub(crate) fn parse_query(&mut self, allow_option: bool) -> SqlResult<Query> {
        self.enter()?;
        let r = (|| {
            let with = if self.kw("WITH") {
                self.parse_with()?
            } else {
                Vec::new()
            };
            let mut q = self.parse_query_after_with(allow_option)?;
            q.with = with;
            Ok(q)
        })();
        self.leave();
        r
    }

    fn parse_query_after_with(&mut self, allow_option: bool) -> SqlResult<Query> {
        let body = self.parse_set_expr(0)?;
        let mut q = Query {
            with: Vec::new(),
            body,
            order_by: Vec::new(),
            offset: None,
            options: Vec::new(),
            for_clause: None,
        };
        if self.kw("ORDER") {
            self.pos += 1;
            self.expect_kw("BY")?;
            q.order_by = self.parse_order_by_items()?;
            if self.kw("OFFSET") {
                self.pos += 1;
                let offset = self.parse_expr()?;
                if !(self.eat_kw("ROWS") || self.eat_kw("ROW")) {
                    return Err(self.error_here());
                }
                let fetch = if self.eat_kw("FETCH") {
                    if !(self.eat_kw("NEXT") || self.eat_kw("FIRST")) {
                        return Err(self.error_here());
                    }
                    let n = self.parse_expr()?;
                    if !(self.eat_kw("ROWS") || self.eat_kw("ROW")) {
                        return Err(self.error_here());
                    }
                    self.expect_kw("ONLY")?;
                    Some(n)
                } else {
                    None
                };
                q.offset = Some(OffsetFetch { offset, fetch });
            }
        }
        q.for_clause = self.parse_for_clause()?;
        if allow_option && self.kw("OPTION") {
            q.options = self.parse_query_hints()?;
        }
        Ok(q)
    }

    fn parse_set_expr(&mut self, min: u8) -> SqlResult<QueryBody> {
        let mut left = self.parse_query_primary()?;
        let mut chain = 0u32;
        loop {
            let (op, prec) = if self.kw("UNION") {
                (SetOperator::Union, 1)
            } else if self.kw("EXCEPT") {
                (SetOperator::Except, 1)
            } else if self.kw("INTERSECT") {
                (SetOperator::Intersect, 2)
            } else {
                break;
            };
            if prec < min {
                break;
            }
            chain += 1;
            self.check_chain(chain)?;
            self.pos += 1;
            let all = self.eat_kw("ALL");
            let right = self.parse_set_expr(prec + 1)?;
            left = QueryBody::SetOp {
                op,
                all,
                left: Box::new(left),
                right: Box::new(right),
            };
        }
        Ok(left)
    }

    fn parse_query_primary(&mut self) -> SqlResult<QueryBody> {
        if self.at(Tok::LParen) {
            self.pos += 1;
            let q = self.parse_query(false)?;
            self.expect(Tok::RParen)?;
            return Ok(QueryBody::Parenthesized(Box::new(q)));
        }
        if !self.kw("SELECT") {
            return Err(self.error_here());
        }
        Ok(QueryBody::Select(Box::new(self.parse_select()?)))
    }

    pub(crate) fn parse_top(&mut self) -> SqlResult<Option<Top>> {
        if !self.eat_kw("TOP") {
            return Ok(None);
        }
        let quantity = if self.at(Tok::LParen) && self.at_query_start() {
            // `TOP (SELECT ...)`: a scalar subquery as the row count
            self.parse_expr_bp(8)?
        } else if self.at(Tok::LParen) {
            self.pos += 1;
            let e = self.parse_expr()?;
            self.expect(Tok::RParen)?;
            e
        } else {
            let t = self.peek();
            match t.kind {
                Tok::Integer | Tok::Decimal | Tok::Float | Tok::Variable => {
                    self.parse_expr_bp(8)?
                }
                _ => return Err(self.error_here()),
            }
        };
        let percent = self.eat_kw("PERCENT");
        let with_ties = if self.kw("WITH") && self.kw_at(1, "TIES") {
            self.pos += 2;
            true
        } else {
            false
        };
        Ok(Some(Top {
            quantity,
            percent,
            with_ties,
        }))
    }

    fn parse_select(&mut self) -> SqlResult<Select> {
        self.expect_kw("SELECT")?;
        let distinct = if self.eat_kw("DISTINCT") {
            true
        } else {
            self.eat_kw("ALL");
            false
        };
        let top = self.parse_top()?;
        let items = self.parse_select_items()?;
        let into = if self.eat_kw("INTO") {
            Some(self.parse_object_name()?)
        } else {
            None
        };
        let from = if self.eat_kw("FROM") {
            self.parse_from_list()?
        } else {
            Vec::new()
        };
        let selection = if self.eat_kw("WHERE") {
            Some(self.parse_expr()?)
        } else {
            None
        };
        let mut group_by = Vec::new();
        if self.kw("GROUP") {
            self.pos += 1;
            self.expect_kw("BY")?;
            loop {
                group_by.push(self.parse_group_by_item()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let having = if self.eat_kw("HAVING") {
            Some(self.parse_expr()?)
        } else {
            None
        };
        Ok(Select {
            distinct,
            top,
            items,
            into,
            from,
            selection,
            group_by,
            having,
        })
    }

    fn parse_group_by_item(&mut self) -> SqlResult<GroupByItem> {
        if (self.kw("ROLLUP") || self.kw("CUBE")) && self.at_n(1, Tok::LParen) {
            let rollup = self.kw("ROLLUP");
            self.pos += 2;
            let mut elems = Vec::new();
            loop {
                if self.at(Tok::LParen) && !self.at_query_start_after_paren() {
                    self.pos += 1;
                    let list = self.parse_expr_list()?;
                    self.expect(Tok::RParen)?;
                    elems.push(list);
                } else {
                    elems.push(vec![self.parse_expr()?]);
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
            return Ok(if rollup {
                GroupByItem::Rollup(elems)
            } else {
                GroupByItem::Cube(elems)
            });
        }
        if self.kw("GROUPING") && self.kw_at(1, "SETS") {
            self.pos += 2;
            self.expect(Tok::LParen)?;
            let mut sets = Vec::new();
            loop {
                if self.at(Tok::LParen) {
                    self.pos += 1;
                    let list = if self.at(Tok::RParen) {
                        Vec::new()
                    } else {
                        self.parse_expr_list()?
                    };
                    self.expect(Tok::RParen)?;
                    sets.push(GroupByItem::Set(list));
                } else {
                    sets.push(self.parse_group_by_item()?);
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
            return Ok(GroupByItem::GroupingSets(sets));
        }
        Ok(GroupByItem::Expr(self.parse_expr()?))
    }

    fn at_query_start_after_paren(&self) -> bool {
        self.kw_at(1, "SELECT")
    }

    pub(crate) fn parse_select_items(&mut self) -> SqlResult<Vec<SelectItem>> {
        let mut items = Vec::new();
        loop {
            items.push(self.parse_select_item()?);
            if !self.eat(Tok::Comma) {
                return Ok(items);
            }
        }
    }

    fn parse_select_item(&mut self) -> SqlResult<SelectItem> {
        let t = self.peek();
        if self.eat(Tok::Star) {
            return Ok(SelectItem::Wildcard);
        }
        // @v = expr, @v += expr
        if t.kind == Tok::Variable {
            if let Some(op) = assign_op(self.peek_at(1).kind) {
                self.pos += 2;
                let expr = self.parse_scalar()?;
                return Ok(SelectItem::Assign {
                    variable: self.text(t).to_string(),
                    op,
                    expr,
                });
            }
        }
        // alias = expr
        let aliasable = match t.kind {
            Tok::Word => !t.reserved,
            Tok::QuotedIdent | Tok::String | Tok::NString => true,
            _ => false,
        };
        if aliasable && self.at_n(1, Tok::Eq) {
            let alias = self.parse_alias_token()?;
            self.pos += 1; // =
            let expr = self.parse_scalar()?;
            return Ok(SelectItem::Expr {
                expr,
                alias: Some(alias),
            });
        }
        // t.* / s.t.*
        if matches!(t.kind, Tok::Word | Tok::QuotedIdent) {
            let mut i = 1;
            while self.at_n(i, Tok::Dot)
                && matches!(self.peek_at(i + 1).kind, Tok::Word | Tok::QuotedIdent)
            {
                i += 2;
            }
            if self.at_n(i, Tok::Dot) && self.at_n(i + 1, Tok::Star) {
                let mut parts = vec![self.parse_ident()?];
                while self.at(Tok::Dot) && !self.at_n(1, Tok::Star) {
                    self.pos += 1;
                    parts.push(self.parse_ident()?);
                }
                self.expect(Tok::Dot)?;
                self.expect(Tok::Star)?;
                let name = ObjectName { parts };
                return Ok(SelectItem::QualifiedWildcard(name));
            }
        }
        let expr = self.parse_scalar()?;
        let alias = self.parse_opt_alias(true)?;
        Ok(SelectItem::Expr { expr, alias })
    }

    /// Alias from an identifier or string token.
    fn parse_alias_token(&mut self) -> SqlResult<Ident> {
        let t = self.peek();
        match t.kind {
            Tok::String | Tok::NString => {
                self.pos += 1;
                Ok(Ident {
                    value: lexer::string_value(self.src, &t),
                    quoted: true,
                })
            }
            _ => self.parse_ident(),
        }
    }

    /// `[AS] alias`; string aliases allowed for columns.
    pub(crate) fn parse_opt_alias(&mut self, allow_string: bool) -> SqlResult<Option<Ident>> {
        if self.eat_kw("AS") {
            if allow_string {
                return Ok(Some(self.parse_alias_token()?));
            }
            return Ok(Some(self.parse_ident()?));
        }
        let t = self.peek();
        match t.kind {
            Tok::Word if !t.reserved && !self.is_clause_word(t) => Ok(Some(self.parse_ident()?)),
            Tok::QuotedIdent => Ok(Some(self.parse_ident()?)),
            Tok::String | Tok::NString if allow_string => Ok(Some(self.parse_alias_token()?)),
            _ => Ok(None),
        }
    }

    /// Non-reserved words that cannot be aliases because they continue or end a clause.
    fn is_clause_word(&self, t: crate::lexer::Token) -> bool {
        let w = self.text(t);
        ["OFFSET", "THROW", "WINDOW"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
    }

    pub(crate) fn parse_from_list(&mut self) -> SqlResult<Vec<TableRef>> {
        let mut v = vec![self.parse_table_ref()?];
        while self.eat(Tok::Comma) {
            // a comma list binds to a left-deep join tree, bounded like a JOIN chain
            self.check_chain(v.len() as u32)?;
            v.push(self.parse_table_ref()?);
        }
        Ok(v)
    }

    /// A table source with its joins.
    pub(crate) fn parse_table_ref(&mut self) -> SqlResult<TableRef> {
        self.enter()?;
        let r = (|| {
            let left = self.parse_table_primary()?;
            self.parse_joins(left)
        })();
        self.leave();
        r
    }

    fn at_join_start(&self) -> bool {
        let w = self.word_upper();
        match w.as_str() {
            "JOIN" | "INNER" | "LEFT" | "RIGHT" | "FULL" => true,
            "CROSS" => self.kw_at(1, "JOIN") || self.kw_at(1, "APPLY"),
            "OUTER" => self.kw_at(1, "APPLY"),
            _ => false,
        }
    }

    fn parse_joins(&mut self, mut left: TableRef) -> SqlResult<TableRef> {
        let mut chain = 0u32;
        while self.at_join_start() {
            chain += 1;
            self.check_chain(chain)?;
            let w = self.word_upper();
            let kind;
            let mut hint = None;
            match w.as_str() {
                "CROSS" => {
                    self.pos += 1;
                    if self.eat_kw("APPLY") {
                        kind = JoinKind::CrossApply;
                    } else {
                        self.expect_kw("JOIN")?;
                        kind = JoinKind::Cross;
                    }
                }
                "OUTER" => {
                    self.pos += 2;
                    kind = JoinKind::OuterApply;
                }
                _ => {
                    kind = match w.as_str() {
                        "JOIN" => JoinKind::Inner,
                        "INNER" => {
                            self.pos += 1;
                            JoinKind::Inner
                        }
                        "LEFT" | "RIGHT" | "FULL" => {
                            self.pos += 1;
                            self.eat_kw("OUTER");
                            match w.as_str() {
                                "LEFT" => JoinKind::LeftOuter,
                                "RIGHT" => JoinKind::RightOuter,
                                _ => JoinKind::FullOuter,
                            }
                        }
                        _ => return Err(self.error_here()),
                    };
                    hint = match self.word_upper().as_str() {
                        "HASH" => Some(JoinHint::Hash),
                        "LOOP" => Some(JoinHint::Loop),
                        "MERGE" => Some(JoinHint::Merge),
                        "REMOTE" => Some(JoinHint::Remote),
                        _ => None,
                    };
                    if hint.is_some() {
                        self.pos += 1;
                    }
                    self.expect_kw("JOIN")?;
                }
            }
            let needs_on = !matches!(
                kind,
                JoinKind::Cross | JoinKind::CrossApply | JoinKind::OuterApply
            );
            let mut right = self.parse_table_primary()?;
            if needs_on && self.at_join_start() {
                // a JOIN b JOIN c ON .. ON ..
                right = self.parse_joins(right)?;
            }
            let on = if needs_on {
                self.expect_kw("ON")?;
                Some(self.parse_expr()?)
            } else {
                None
            };
            left = TableRef::Join {
                left: Box::new(left),
                right: Box::new(right),
                kind,
                hint,
                on,
            };
        }
        Ok(left)
    }

    fn parse_table_primary(&mut self) -> SqlResult<TableRef> {
        let source = self.parse_table_primary_base()?;
        self.parse_pivot_suffixes(source)
    }

    fn parse_table_primary_base(&mut self) -> SqlResult<TableRef> {
        let t = self.peek();
        match t.kind {
            Tok::LParen => {
                let mut i = 1;
                while self.at_n(i, Tok::LParen) {
                    i += 1;
                }
                if self.kw_at(i, "SELECT") || self.kw_at(1, "WITH") {
                    self.pos += 1;
                    let q = self.parse_query(false)?;
                    self.expect(Tok::RParen)?;
                    let alias = self.parse_opt_alias(false)?;
                    let columns = self.parse_opt_column_aliases()?;
                    return Ok(TableRef::Derived {
                        query: Box::new(q),
                        alias,
                        columns,
                    });
                }
                if self.kw_at(1, "VALUES") {
                    self.pos += 2;
                    let rows = self.parse_values_rows()?;
                    self.expect(Tok::RParen)?;
                    let alias = self.parse_opt_alias(false)?;
                    let columns = self.parse_opt_column_aliases()?;
                    return Ok(TableRef::Values {
                        rows,
                        alias,
                        columns,
                    });
                }
                self.pos += 1;
                let inner = self.parse_table_ref()?;
                self.expect(Tok::RParen)?;
                Ok(TableRef::Nested(Box::new(inner)))
            }
            Tok::Variable => {
                self.pos += 1;
                let alias = self.parse_opt_alias(false)?;
                Ok(TableRef::Variable {
                    name: self.text(t).to_string(),
                    alias,
                })
            }
            _ if self.kw("OPENROWSET") && self.at_n(1, Tok::LParen) => self.parse_openrowset(),
            _ => {
                let name = self.parse_object_name()?;
                if self.at_legacy_hint_list() {
                    // deprecated `t (NOLOCK)` form: same hints as `t WITH (NOLOCK)`
                    self.pos += 1;
                    let mut hints = Vec::new();
                    loop {
                        hints.push(self.parse_table_hint()?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RParen)?;
                    let alias = self.parse_opt_alias(false)?;
                    return Ok(TableRef::Table { name, alias, hints });
                }
                if self.at(Tok::LParen) {
                    self.pos += 1;
                    let args = if self.at(Tok::RParen) {
                        Vec::new()
                    } else {
                        self.parse_expr_list()?
                    };
                    self.expect(Tok::RParen)?;
                    // OPENJSON(...) WITH (col type ['path'] [AS JSON], ...)
                    let mut schema = Vec::new();
                    if self.kw("WITH") && self.at_n(1, Tok::LParen) {
                        self.pos += 2;
                        loop {
                            let name = self.parse_ident()?;
                            let data_type = self.parse_data_type()?;
                            let path = if matches!(self.peek().kind, Tok::String | Tok::NString) {
                                Some(self.parse_string_lit()?)
                            } else {
                                None
                            };
                            let as_json = if self.kw("AS") && self.kw_at(1, "JSON") {
                                self.pos += 2;
                                true
                            } else {
                                false
                            };
                            schema.push(OpenJsonColumnDef {
                                name,
                                data_type,
                                path,
                                as_json,
                            });
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                        self.expect(Tok::RParen)?;
                    }
                    let alias = self.parse_opt_alias(false)?;
                    let columns = self.parse_opt_column_aliases()?;
                    return Ok(TableRef::Function {
                        name,
                        args,
                        alias,
                        columns,
                        schema,
                    });
                }
                let alias = self.parse_opt_alias(false)?;
                let hints = self.parse_opt_table_hints()?;
                Ok(TableRef::Table { name, alias, hints })
            }
        }
    }

    /// `(NOLOCK)`, `(TABLOCK, HOLDLOCK)`, `(INDEX(1))` right after a table name.
    fn at_legacy_hint_list(&self) -> bool {
        if !self.at(Tok::LParen) {
            return false;
        }
        let w = self.peek_at(1);
        if w.kind != Tok::Word {
            return false;
        }
        let known = [
            "NOLOCK",
            "READUNCOMMITTED",
            "READCOMMITTED",
            "REPEATABLEREAD",
            "SERIALIZABLE",
            "HOLDLOCK",
            "UPDLOCK",
            "XLOCK",
            "TABLOCK",
            "TABLOCKX",
            "PAGLOCK",
            "ROWLOCK",
            "READPAST",
            "NOWAIT",
            "INDEX",
            "FORCESEEK",
            "FORCESCAN",
            "NOEXPAND",
        ];
        let text = self.text(w);
        if !known.iter().any(|k| text.eq_ignore_ascii_case(k)) {
            return false;
        }
        if text.eq_ignore_ascii_case("INDEX") {
            return self.at_n(2, Tok::LParen) || self.at_n(2, Tok::Eq);
        }
        self.at_n(2, Tok::RParen) || self.at_n(2, Tok::Comma)
    }

    pub(crate) fn parse_opt_column_aliases(&mut self) -> SqlResult<Vec<Ident>> {
        if self.at(Tok::LParen) {
            self.parse_paren_ident_list()
        } else {
            Ok(Vec::new())
        }
    }

    /// `(a, b), (c, d)` after VALUES.
    pub(crate) fn parse_values_rows(&mut self) -> SqlResult<Vec<Vec<Expr>>> {
        let mut rows = Vec::new();
        loop {
            self.expect(Tok::LParen)?;
            let row = self.parse_expr_list()?;
            self.expect(Tok::RParen)?;
            rows.push(row);
            if !self.eat(Tok::Comma) {
                return Ok(rows);
            }
        }
    }

    /// `WITH (hint, ...)` if present.
    pub(crate) fn parse_opt_table_hints(&mut self) -> SqlResult<Vec<TableHint>> {
        if !(self.kw("WITH") && self.at_n(1, Tok::LParen)) {
            return Ok(Vec::new());
        }
        self.pos += 2;
        let mut hints = Vec::new();
        loop {
            hints.push(self.parse_table_hint()?);
            if self.eat(Tok::Comma) {
                continue;
            }
            if self.at(Tok::RParen) {
                self.pos += 1;
                return Ok(hints);
            }
            // hints may also be separated by spaces
            if self.peek().kind != Tok::Word {
                return Err(self.error_here());
            }
        }
    }

    fn parse_table_hint(&mut self) -> SqlResult<TableHint> {
        let t = self.peek();
        if t.kind != Tok::Word {
            return Err(self.error_here());
        }
        let w = self.word_upper();
        self.pos += 1;
        Ok(match w.as_str() {
            "NOLOCK" => TableHint::NoLock,
            "READUNCOMMITTED" => TableHint::ReadUncommitted,
            "READCOMMITTED" => TableHint::ReadCommitted,
            "READCOMMITTEDLOCK" => TableHint::ReadCommittedLock,
            "REPEATABLEREAD" => TableHint::RepeatableRead,
            "SERIALIZABLE" => TableHint::Serializable,
            "HOLDLOCK" => TableHint::HoldLock,
            "UPDLOCK" => TableHint::UpdLock,
            "XLOCK" => TableHint::XLock,
            "TABLOCK" => TableHint::TabLock,
            "TABLOCKX" => TableHint::TabLockX,
            "PAGLOCK" => TableHint::PagLock,
            "ROWLOCK" => TableHint::RowLock,
            "NOWAIT" => TableHint::NoWait,
            "READPAST" => TableHint::ReadPast,
            "SNAPSHOT" => TableHint::Snapshot,
            "NOEXPAND" => TableHint::NoExpand,
            "FORCESCAN" => TableHint::ForceScan,
            "FORCESEEK" => TableHint::ForceSeek,
            "KEEPIDENTITY" => TableHint::KeepIdentity,
            "KEEPDEFAULTS" => TableHint::KeepDefaults,
            "IGNORE_CONSTRAINTS" => TableHint::IgnoreConstraints,
            "IGNORE_TRIGGERS" => TableHint::IgnoreTriggers,
            "INDEX" => {
                let mut targets = Vec::new();
                if self.eat(Tok::Eq) {
                    targets.push(self.parse_index_target()?);
                } else {
                    self.expect(Tok::LParen)?;
                    loop {
                        targets.push(self.parse_index_target()?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(Tok::RParen)?;
                }
                TableHint::Index(targets)
            }
            _ => TableHint::Other(self.text(t).to_ascii_uppercase()),
        })
    }

    fn parse_index_target(&mut self) -> SqlResult<IndexTarget> {
        if self.at(Tok::Integer) {
            return Ok(IndexTarget::Id(self.parse_u32()?));
        }
        Ok(IndexTarget::Name(self.parse_ident()?))
    }

    /// `OPTION (hint, ...)` (current token is OPTION).
    pub(crate) fn parse_query_hints(&mut self) -> SqlResult<Vec<QueryHint>> {
        self.expect_kw("OPTION")?;
        self.expect(Tok::LParen)?;
        let mut hints = Vec::new();
        loop {
            hints.push(self.parse_query_hint()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        Ok(hints)
    }

    fn parse_percent_value(&mut self) -> SqlResult<f64> {
        self.expect(Tok::Eq)?;
        let t = self.peek();
        if matches!(t.kind, Tok::Integer | Tok::Decimal) {
            if let Ok(v) = self.text(t).parse::<f64>() {
                self.pos += 1;
                return Ok(v);
            }
        }
        Err(self.error_here())
    }

    fn parse_query_hint(&mut self) -> SqlResult<QueryHint> {
        let start = self.peek();
        if start.kind != Tok::Word {
            return Err(self.error_here());
        }
        let w = self.word_upper();
        let w2 = {
            let n = self.peek_at(1);
            if n.kind == Tok::Word {
                self.text(n).to_ascii_uppercase()
            } else {
                String::new()
            }
        };
        let two = |h: QueryHint, p: &mut Self| {
            p.pos += 2;
            Ok(h)
        };
        match (w.as_str(), w2.as_str()) {
            ("HASH", "JOIN") => return two(QueryHint::HashJoin, self),
            ("LOOP", "JOIN") => return two(QueryHint::LoopJoin, self),
            ("MERGE", "JOIN") => return two(QueryHint::MergeJoin, self),
            ("HASH", "GROUP") => return two(QueryHint::HashGroup, self),
            ("ORDER", "GROUP") => return two(QueryHint::OrderGroup, self),
            ("CONCAT", "UNION") => return two(QueryHint::ConcatUnion, self),
            ("HASH", "UNION") => return two(QueryHint::HashUnion, self),
            ("MERGE", "UNION") => return two(QueryHint::MergeUnion, self),
            ("FORCE", "ORDER") => return two(QueryHint::ForceOrder, self),
            ("KEEP", "PLAN") => return two(QueryHint::KeepPlan, self),
            ("KEEPFIXED", "PLAN") => return two(QueryHint::KeepFixedPlan, self),
            ("EXPAND", "VIEWS") => return two(QueryHint::ExpandViews, self),
            ("ROBUST", "PLAN") => return two(QueryHint::RobustPlan, self),
            _ => {}
        }
        self.pos += 1;
        match w.as_str() {
            "MAXDOP" => Ok(QueryHint::MaxDop(self.parse_u32()?)),
            "RECOMPILE" => Ok(QueryHint::Recompile),
            "NO_PERFORMANCE_SPOOL" => Ok(QueryHint::NoPerformanceSpool),
            "IGNORE_NONCLUSTERED_COLUMNSTORE_INDEX" => {
                Ok(QueryHint::IgnoreNonclusteredColumnstoreIndex)
            }
            "FAST" => Ok(QueryHint::Fast(self.parse_u32()?)),
            "MAXRECURSION" => Ok(QueryHint::MaxRecursion(self.parse_u32()?)),
            "QUERYTRACEON" => Ok(QueryHint::QueryTraceOn(self.parse_u32()?)),
            "QUERYRULEOFF" => Ok(QueryHint::QueryRuleOff(self.parse_ident()?.value)),
            "MIN_GRANT_PERCENT" => Ok(QueryHint::MinGrantPercent(self.parse_percent_value()?)),
            "MAX_GRANT_PERCENT" => Ok(QueryHint::MaxGrantPercent(self.parse_percent_value()?)),
            "USE" => {
                self.expect_kw("HINT")?;
                self.expect(Tok::LParen)?;
                let mut v = vec![self.parse_string_lit()?];
                while self.eat(Tok::Comma) {
                    v.push(self.parse_string_lit()?);
                }
                self.expect(Tok::RParen)?;
                Ok(QueryHint::UseHint(v))
            }
            "OPTIMIZE" => {
                self.expect_kw("FOR")?;
                if self.eat_kw("UNKNOWN") {
                    return Ok(QueryHint::OptimizeForUnknown);
                }
                self.expect(Tok::LParen)?;
                let mut v = Vec::new();
                loop {
                    let var = self.parse_variable()?;
                    if self.eat_kw("UNKNOWN") {
                        v.push((var, None));
                    } else {
                        self.expect(Tok::Eq)?;
                        v.push((var, Some(self.parse_expr()?)));
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                self.expect(Tok::RParen)?;
                Ok(QueryHint::OptimizeFor(v))
            }
            _ => {
                // Unknown hint: keep its text up to the next top-level `,` or `)`.
                let mut depth = 0i32;
                while !self.at(Tok::Eof) {
                    match self.peek().kind {
                        Tok::LParen => depth += 1,
                        Tok::RParen if depth == 0 => break,
                        Tok::RParen => depth -= 1,
                        Tok::Comma if depth == 0 => break,
                        _ => {}
                    }
                    self.pos += 1;
                }
                Ok(QueryHint::Other(
                    self.src[start.start as usize..self.prev_end() as usize].to_string(),
                ))
            }
        }
    }
}

pub(crate) fn assign_op(k: Tok) -> Option<AssignOp> {
    Some(match k {
        Tok::Eq => AssignOp::Assign,
        Tok::PlusEq => AssignOp::Add,
        Tok::MinusEq => AssignOp::Sub,
        Tok::StarEq => AssignOp::Mul,
        Tok::SlashEq => AssignOp::Div,
        Tok::PercentEq => AssignOp::Mod,
        Tok::AmpEq => AssignOp::BitAnd,
        Tok::PipeEq => AssignOp::BitOr,
        Tok::CaretEq => AssignOp::BitXor,
        _ => return None,
    })
}
