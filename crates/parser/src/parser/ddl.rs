//! CREATE / ALTER / DROP and friends.

use super::Parser;
use crate::ast::*;
use crate::lexer::{self, Tok};
use common::SqlResult;

impl<'a> Parser<'a> {
    pub(crate) fn parse_create(&mut self) -> SqlResult<StatementKind> {
        let batch_start = 0usize;
        self.expect_kw("CREATE")?;
        let mut mode = CreateMode::Create;
        if self.kw("OR") && self.kw_at(1, "ALTER") {
            self.pos += 2;
            mode = CreateMode::CreateOrAlter;
        }
        let w = self.word_upper();
        match w.as_str() {
            "TABLE" if mode == CreateMode::Create => {
                self.pos += 1;
                self.parse_create_table()
            }
            "EXTERNAL" if mode == CreateMode::Create => {
                self.pos += 1;
                self.parse_create_external()
            }
            "UNIQUE" | "CLUSTERED" | "NONCLUSTERED" | "COLUMNSTORE" | "INDEX"
                if mode == CreateMode::Create =>
            {
                self.parse_create_index()
            }
            "STATISTICS" if mode == CreateMode::Create => {
                self.pos += 1;
                let name = self.parse_ident()?;
                self.expect_kw("ON")?;
                let table = self.parse_object_name()?;
                let columns = self.parse_paren_ident_list()?;
                let filter = if self.eat_kw("WHERE") {
                    Some(self.parse_expr()?)
                } else {
                    None
                };
                let options = self.parse_statistics_options()?;
                Ok(StatementKind::CreateStatistics(Box::new(
                    CreateStatistics {
                        name,
                        table,
                        columns,
                        filter,
                        options,
                    },
                )))
            }
            "PARTITION" if mode == CreateMode::Create => {
                self.pos += 1;
                if self.eat_kw("FUNCTION") {
                    let name = self.parse_ident()?;
                    self.expect(Tok::LParen)?;
                    let input_type = self.parse_data_type()?;
                    self.expect(Tok::RParen)?;
                    self.expect_kw("AS")?;
                    self.expect_kw("RANGE")?;
                    let range_right = if self.eat_kw("RIGHT") {
                        true
                    } else {
                        self.eat_kw("LEFT");
                        false
                    };
                    self.expect_kw("FOR")?;
                    self.expect_kw("VALUES")?;
                    self.expect(Tok::LParen)?;
                    let boundaries = if self.at(Tok::RParen) {
                        Vec::new()
                    } else {
                        self.parse_expr_list()?
                    };
                    self.expect(Tok::RParen)?;
                    Ok(StatementKind::CreatePartitionFunction(Box::new(
                        CreatePartitionFunction {
                            name,
                            input_type,
                            range_right,
                            boundaries,
                        },
                    )))
                } else {
                    self.expect_kw("SCHEME")?;
                    let name = self.parse_ident()?;
                    self.expect_kw("AS")?;
                    self.expect_kw("PARTITION")?;
                    let function = self.parse_ident()?;
                    let all = self.eat_kw("ALL");
                    self.expect_kw("TO")?;
                    let filegroups = self.parse_paren_ident_list()?;
                    Ok(StatementKind::CreatePartitionScheme(Box::new(
                        CreatePartitionScheme {
                            name,
                            function,
                            all,
                            filegroups,
                        },
                    )))
                }
            }
            "SEQUENCE" if mode == CreateMode::Create => {
                self.pos += 1;
                Ok(StatementKind::CreateSequence(Box::new(
                    self.parse_sequence_body()?,
                )))
            }
            "VIEW" => {
                self.pos += 1;
                self.parse_create_view(mode, batch_start)
            }
            "PROC" | "PROCEDURE" => {
                self.pos += 1;
                self.parse_create_procedure(mode, batch_start)
            }
            "FUNCTION" => {
                self.pos += 1;
                self.parse_create_function(mode, batch_start)
            }
            "TRIGGER" => {
                self.pos += 1;
                self.parse_create_trigger(mode, batch_start)
            }
            "SCHEMA" if mode == CreateMode::Create => {
                self.pos += 1;
                let name = self.parse_ident()?;
                let authorization = if self.eat_kw("AUTHORIZATION") {
                    Some(self.parse_ident()?)
                } else {
                    None
                };
                Ok(StatementKind::CreateSchema {
                    name,
                    authorization,
                })
            }
            "DATABASE" if mode == CreateMode::Create => {
                self.pos += 1;
                self.parse_create_database()
            }
            "TYPE" if mode == CreateMode::Create => {
                self.pos += 1;
                let name = self.parse_object_name()?;
                if self.eat_kw("FROM") {
                    let base = self.parse_data_type()?;
                    let nullable = if self.eat_kw("NULL") {
                        Some(true)
                    } else if self.kw("NOT") && self.kw_at(1, "NULL") {
                        self.pos += 2;
                        Some(false)
                    } else {
                        None
                    };
                    Ok(StatementKind::CreateType(Box::new(CreateType {
                        name,
                        base: Some(base),
                        nullable,
                        table: None,
                    })))
                } else if self.kw("AS") && self.kw_at(1, "TABLE") {
                    self.pos += 2;
                    let table = self.parse_table_definition()?;
                    Ok(StatementKind::CreateType(Box::new(CreateType {
                        name,
                        base: None,
                        nullable: None,
                        table: Some(table),
                    })))
                } else {
                    Err(self.error_here())
                }
            }
            "USER" | "LOGIN" | "ROLE" if mode == CreateMode::Create => {
                self.pos -= 1;
                self.parse_security_statement()
            }
            "SYNONYM" | "ASSEMBLY" | "FULLTEXT" | "XML" | "SPATIAL" | "CERTIFICATE" | "MASTER"
            | "CREDENTIAL" | "QUEUE" | "SERVICE" | "EVENT" | "AGGREGATE" | "RULE" | "DEFAULT"
                if mode == CreateMode::Create =>
            {
                self.pos -= 1;
                Ok(self.parse_unsupported_from_here())
            }
            _ => Err(self.error_here()),
        }
    }

    /// Swallows an unmodelled statement up to the next `;` (or the end of the batch).
    pub(crate) fn parse_unsupported_from_here(&mut self) -> StatementKind {
        let first = self.peek();
        let kw = self.text(first).to_ascii_uppercase();
        self.pos += 1;
        while !(self.at(Tok::Eof) || self.at(Tok::Semicolon)) {
            self.pos += 1;
        }
        StatementKind::Unsupported {
            keyword: kw,
            text: self.src[first.start as usize..self.prev_end() as usize].to_string(),
        }
    }

    fn parse_sequence_body(&mut self) -> SqlResult<CreateSequence> {
        let name = self.parse_object_name()?;
        let data_type = if self.eat_kw("AS") {
            Some(self.parse_data_type()?)
        } else {
            None
        };
        let mut options = Vec::new();
        loop {
            let w = self.word_upper();
            match w.as_str() {
                "START" => {
                    self.pos += 1;
                    self.expect_kw("WITH")?;
                    options.push(SequenceOption::StartWith(self.parse_expr()?));
                }
                "INCREMENT" => {
                    self.pos += 1;
                    self.expect_kw("BY")?;
                    options.push(SequenceOption::IncrementBy(self.parse_expr()?));
                }
                "RESTART" => {
                    self.pos += 1;
                    let v = if self.eat_kw("WITH") {
                        Some(self.parse_expr()?)
                    } else {
                        None
                    };
                    options.push(SequenceOption::Restart(v));
                }
                "MINVALUE" => {
                    self.pos += 1;
                    options.push(SequenceOption::MinValue(Some(self.parse_expr()?)));
                }
                "MAXVALUE" => {
                    self.pos += 1;
                    options.push(SequenceOption::MaxValue(Some(self.parse_expr()?)));
                }
                "CYCLE" => {
                    self.pos += 1;
                    options.push(SequenceOption::Cycle(true));
                }
                "CACHE" => {
                    self.pos += 1;
                    let v = if matches!(self.peek().kind, Tok::Integer) {
                        Some(self.parse_expr()?)
                    } else {
                        None
                    };
                    options.push(SequenceOption::Cache(Some(v)));
                }
                "NO" => {
                    self.pos += 1;
                    let w = self.word_upper();
                    self.pos += 1;
                    options.push(match w.as_str() {
                        "MINVALUE" => SequenceOption::MinValue(None),
                        "MAXVALUE" => SequenceOption::MaxValue(None),
                        "CYCLE" => SequenceOption::Cycle(false),
                        "CACHE" => SequenceOption::Cache(None),
                        _ => return Err(self.error_at(self.pos - 1)),
                    });
                }
                _ => break,
            }
        }
        Ok(CreateSequence {
            name,
            data_type,
            options,
        })
    }

    /// `( NAME [= value] [(nested)], ... )` — current token is `(`.
    pub(crate) fn parse_option_list(&mut self) -> SqlResult<Vec<OptionSetting>> {
        self.expect(Tok::LParen)?;
        let mut v = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_option_setting(true)?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        Ok(v)
    }

    /// One `NAME [= value] [(nested)]`. `bare_value`: a value may follow the name without `=`
    /// (`RECOVERY SIMPLE`, `QUERY_STORE CLEAR`).
    pub(crate) fn parse_option_setting(&mut self, bare_value: bool) -> SqlResult<OptionSetting> {
        if !self.at(Tok::Word) {
            return Err(self.error_here());
        }
        let name = self.parse_any_word()?.value.to_ascii_uppercase();
        let mut value = None;
        if self.eat(Tok::Eq) {
            value = Some(self.parse_option_value()?);
        } else if bare_value {
            let t = self.peek();
            let is_value = match t.kind {
                Tok::Word => !self.kw("WITH") && !self.kw("FOR"),
                Tok::Integer | Tok::Decimal | Tok::String | Tok::NString => true,
                _ => false,
            };
            if is_value && !self.at_n(1, Tok::Eq) {
                value = Some(self.parse_option_value()?);
            }
        }
        let nested = if self.at(Tok::LParen) {
            self.parse_option_list()?
        } else {
            Vec::new()
        };
        Ok(OptionSetting {
            name,
            value,
            nested,
        })
    }

    fn parse_option_value(&mut self) -> SqlResult<OptionValue> {
        let t = self.peek();
        match t.kind {
            Tok::Word if self.kw("ON") => {
                self.pos += 1;
                Ok(OptionValue::On)
            }
            Tok::Word if self.kw("OFF") => {
                self.pos += 1;
                Ok(OptionValue::Off)
            }
            Tok::Word | Tok::QuotedIdent => Ok(OptionValue::Word(self.parse_any_word()?.value)),
            Tok::String | Tok::NString => {
                self.pos += 1;
                Ok(OptionValue::String(lexer::string_value(self.src, &t)))
            }
            Tok::Integer | Tok::Decimal | Tok::Minus => {
                let neg = self.eat(Tok::Minus);
                let n = self.peek();
                if !matches!(n.kind, Tok::Integer | Tok::Decimal) {
                    return Err(self.error_here());
                }
                self.pos += 1;
                let mut s = String::new();
                if neg {
                    s.push('-');
                }
                s.push_str(self.text(n));
                // `10MB`, `10%`: a unit glued to the number makes a word
                let u = self.peek();
                if u.start == n.end && (u.kind == Tok::Word || u.kind == Tok::Percent) {
                    self.pos += 1;
                    s.push_str(self.text(u));
                    return Ok(OptionValue::Word(s));
                }
                Ok(OptionValue::Number(s))
            }
            _ => Err(self.error_here()),
        }
    }

    fn parse_opt_with_options(&mut self) -> SqlResult<Vec<OptionSetting>> {
        if self.kw("WITH") && self.at_n(1, Tok::LParen) {
            self.pos += 1;
            self.parse_option_list()
        } else {
            Ok(Vec::new())
        }
    }

    fn parse_statistics_options(&mut self) -> SqlResult<Vec<StatisticsOption>> {
        let mut v = Vec::new();
        if !self.eat_kw("WITH") {
            return Ok(v);
        }
        loop {
            let w = self.word_upper();
            match w.as_str() {
                "FULLSCAN" => {
                    self.pos += 1;
                    v.push(StatisticsOption::FullScan);
                }
                "NORECOMPUTE" => {
                    self.pos += 1;
                    v.push(StatisticsOption::NoRecompute);
                }
                "SAMPLE" => {
                    self.pos += 1;
                    let t = self.peek();
                    if !matches!(t.kind, Tok::Integer | Tok::Decimal) {
                        return Err(self.error_here());
                    }
                    self.pos += 1;
                    let percent = if self.eat_kw("PERCENT") {
                        true
                    } else {
                        self.expect_kw("ROWS")?;
                        false
                    };
                    v.push(StatisticsOption::Sample {
                        value: self.text(t).to_string(),
                        percent,
                    });
                }
                "INCREMENTAL" if self.at_n(1, Tok::Eq) => {
                    self.pos += 2;
                    let on = if self.eat_kw("ON") {
                        true
                    } else {
                        self.expect_kw("OFF")?;
                        false
                    };
                    v.push(StatisticsOption::Incremental(on));
                }
                _ => v.push(StatisticsOption::Other(self.parse_option_setting(false)?)),
            }
            if !self.eat(Tok::Comma) {
                return Ok(v);
            }
        }
    }

    pub(crate) fn parse_update_statistics(&mut self) -> SqlResult<StatementKind> {
        self.pos += 2; // UPDATE STATISTICS
        let table = self.parse_object_name()?;
        let names = if self.at(Tok::LParen) {
            self.parse_paren_ident_list()?
        } else if self.at_ident() {
            vec![self.parse_ident()?]
        } else {
            Vec::new()
        };
        let options = self.parse_statistics_options()?;
        Ok(StatementKind::UpdateStatistics(Box::new(
            UpdateStatistics {
                table,
                names,
                options,
            },
        )))
    }

    fn parse_opt_storage_target(&mut self) -> SqlResult<Option<StorageTarget>> {
        if !self.kw("ON") {
            return Ok(None);
        }
        self.pos += 1;
        let t = self.peek();
        // [PRIMARY], "default", PRIMARY (reserved word written bare)
        let name = if t.kind == Tok::Word && t.reserved {
            if !(self.kw("PRIMARY") || self.kw("DEFAULT")) {
                return Err(self.error_here());
            }
            self.pos += 1;
            Ident::new(self.text(t))
        } else {
            self.parse_ident()?
        };
        if self.at(Tok::LParen) {
            self.pos += 1;
            let column = self.parse_ident()?;
            self.expect(Tok::RParen)?;
            return Ok(Some(StorageTarget::PartitionScheme {
                scheme: name,
                column,
            }));
        }
        Ok(Some(StorageTarget::Filegroup(name)))
    }

    fn parse_index_columns(&mut self) -> SqlResult<Vec<IndexColumn>> {
        self.expect(Tok::LParen)?;
        let mut v = Vec::new();
        loop {
            let name = self.parse_ident()?;
            let desc = if self.eat_kw("DESC") {
                true
            } else {
                self.eat_kw("ASC");
                false
            };
            v.push(IndexColumn { name, desc });
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        Ok(v)
    }

    fn parse_clustered(&mut self) -> Option<bool> {
        if self.eat_kw("CLUSTERED") {
            Some(true)
        } else if self.eat_kw("NONCLUSTERED") {
            Some(false)
        } else {
            None
        }
    }

    /// Index body after its name: `[(cols)] [INCLUDE (..)] [WHERE ..] [WITH (..)] [ON ..]`.
    fn parse_index_tail(&mut self, def: &mut IndexDefinition) -> SqlResult<()> {
        if self.at(Tok::LParen) {
            def.columns = self.parse_index_columns()?;
        }
        if self.eat_kw("INCLUDE") {
            def.include = self.parse_paren_ident_list()?;
        }
        if self.eat_kw("WHERE") {
            def.filter = Some(self.parse_expr()?);
        }
        def.with_options = self.parse_opt_with_options()?;
        def.on = self.parse_opt_storage_target()?;
        Ok(())
    }

    fn parse_create_index(&mut self) -> SqlResult<StatementKind> {
        let unique = self.eat_kw("UNIQUE");
        let clustered = self.parse_clustered();
        let columnstore = self.eat_kw("COLUMNSTORE");
        self.expect_kw("INDEX")?;
        let name = self.parse_ident()?;
        self.expect_kw("ON")?;
        let table = self.parse_object_name()?;
        let mut index = IndexDefinition {
            name,
            unique,
            clustered,
            columnstore,
            columns: Vec::new(),
            include: Vec::new(),
            filter: None,
            with_options: Vec::new(),
            on: None,
        };
        if !columnstore && !self.at(Tok::LParen) {
            return Err(self.error_here());
        }
        self.parse_index_tail(&mut index)?;
        Ok(StatementKind::CreateIndex(Box::new(CreateIndex {
            table,
            index,
        })))
    }

    /// Inline `INDEX name [UNIQUE] [CLUSTERED|NONCLUSTERED] [COLUMNSTORE] ...` in a table body.
    fn parse_inline_index(&mut self) -> SqlResult<IndexDefinition> {
        self.expect_kw("INDEX")?;
        let name = self.parse_ident()?;
        let unique = self.eat_kw("UNIQUE");
        let clustered = self.parse_clustered();
        let columnstore = self.eat_kw("COLUMNSTORE");
        let mut index = IndexDefinition {
            name,
            unique,
            clustered,
            columnstore,
            columns: Vec::new(),
            include: Vec::new(),
            filter: None,
            with_options: Vec::new(),
            on: None,
        };
        self.parse_index_tail(&mut index)?;
        Ok(index)
    }

    fn parse_create_table(&mut self) -> SqlResult<StatementKind> {
        let name = self.parse_object_name()?;
        let definition = self.parse_table_definition()?;
        let mut on = None;
        let mut textimage_on = None;
        let mut with_options = Vec::new();
        loop {
            if self.kw("ON") {
                on = self.parse_opt_storage_target()?;
            } else if self.eat_kw("TEXTIMAGE_ON") {
                textimage_on = Some(self.parse_filegroup_name()?);
            } else if self.kw("WITH") && self.at_n(1, Tok::LParen) {
                with_options = self.parse_opt_with_options()?;
            } else {
                break;
            }
        }
        Ok(StatementKind::CreateTable(Box::new(CreateTable {
            name,
            definition,
            on,
            textimage_on,
            with_options,
        })))
    }

    fn parse_filegroup_name(&mut self) -> SqlResult<Ident> {
        let t = self.peek();
        if t.kind == Tok::Word && (self.kw("PRIMARY") || self.kw("DEFAULT")) {
            self.pos += 1;
            return Ok(Ident::new(self.text(t)));
        }
        self.parse_ident()
    }

    /// `( column | constraint | index, ... )`.
    pub(crate) fn parse_table_definition(&mut self) -> SqlResult<TableDefinition> {
        self.expect(Tok::LParen)?;
        let mut def = TableDefinition::default();
        loop {
            match self.parse_table_element()? {
                TableElement::Column(c) => {
                    def.columns.push(c);
                }
                TableElement::Constraint(c) => def.constraints.push(c),
                TableElement::Index(i) => def.indexes.push(i),
            }
            if let Some(ix) = self.pending_column_index.take() {
                def.indexes.push(ix);
            }
            def.constraints.append(&mut self.pending_table_constraints);
            if !self.eat(Tok::Comma) {
                break;
            }
            // trailing comma before ')' is accepted by SQL Server
            if self.at(Tok::RParen) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        Ok(def)
    }

    fn parse_table_element(&mut self) -> SqlResult<TableElement> {
        let w = self.word_upper();
        match w.as_str() {
            "CONSTRAINT" | "PRIMARY" | "UNIQUE" | "CHECK" | "FOREIGN" | "DEFAULT" => {
                Ok(TableElement::Constraint(self.parse_table_constraint()?))
            }
            "INDEX" => Ok(TableElement::Index(self.parse_inline_index()?)),
            _ => Ok(TableElement::Column(self.parse_column_definition()?)),
        }
    }

    fn parse_table_constraint(&mut self) -> SqlResult<TableConstraint> {
        let name = if self.eat_kw("CONSTRAINT") {
            Some(self.parse_ident()?)
        } else {
            None
        };
        let w = self.word_upper();
        let kind = match w.as_str() {
            "PRIMARY" | "UNIQUE" => {
                self.pos += 1;
                if w == "PRIMARY" {
                    self.expect_kw("KEY")?;
                }
                let clustered = self.parse_clustered();
                let columns = self.parse_index_columns()?;
                let with_options = self.parse_opt_with_options()?;
                let on = self.parse_opt_storage_target()?;
                if w == "PRIMARY" {
                    TableConstraintKind::PrimaryKey {
                        clustered,
                        columns,
                        with_options,
                        on,
                    }
                } else {
                    TableConstraintKind::Unique {
                        clustered,
                        columns,
                        with_options,
                        on,
                    }
                }
            }
            "CHECK" => {
                self.pos += 1;
                self.eat_not_for_replication();
                self.expect(Tok::LParen)?;
                let e = self.parse_expr()?;
                self.expect(Tok::RParen)?;
                TableConstraintKind::Check(e)
            }
            "FOREIGN" => {
                self.pos += 1;
                self.expect_kw("KEY")?;
                let columns = self.parse_paren_ident_list()?;
                let references = self.parse_references()?;
                TableConstraintKind::ForeignKey {
                    columns,
                    references,
                }
            }
            "DEFAULT" => {
                self.pos += 1;
                let expr = self.parse_expr()?;
                self.expect_kw("FOR")?;
                let column = self.parse_ident()?;
                TableConstraintKind::Default { expr, column }
            }
            _ => return Err(self.error_here()),
        };
        Ok(TableConstraint { name, kind })
    }

    fn eat_not_for_replication(&mut self) -> bool {
        if self.kw("NOT") && self.kw_at(1, "FOR") && self.kw_at(2, "REPLICATION") {
            self.pos += 3;
            true
        } else {
            false
        }
    }

    fn parse_references(&mut self) -> SqlResult<ForeignKeyRef> {
        self.expect_kw("REFERENCES")?;
        let table = self.parse_object_name()?;
        let columns = if self.at(Tok::LParen) {
            self.parse_paren_ident_list()?
        } else {
            Vec::new()
        };
        let mut r = ForeignKeyRef {
            table,
            columns,
            on_delete: None,
            on_update: None,
        };
        while self.kw("ON") && (self.kw_at(1, "DELETE") || self.kw_at(1, "UPDATE")) {
            let del = self.kw_at(1, "DELETE");
            self.pos += 2;
            let a = if self.eat_kw("CASCADE") {
                ReferentialAction::Cascade
            } else if self.eat_kw("NO") {
                self.expect_kw("ACTION")?;
                ReferentialAction::NoAction
            } else {
                self.expect_kw("SET")?;
                if self.eat_kw("NULL") {
                    ReferentialAction::SetNull
                } else {
                    self.expect_kw("DEFAULT")?;
                    ReferentialAction::SetDefault
                }
            };
            if del {
                r.on_delete = Some(a);
            } else {
                r.on_update = Some(a);
            }
        }
        self.eat_not_for_replication();
        Ok(r)
    }

    pub(crate) fn parse_column_definition(&mut self) -> SqlResult<ColumnDefinition> {
        let name = self.parse_ident()?;
        let mut c = ColumnDefinition {
            name,
            data_type: None,
            computed: None,
            persisted: false,
            collation: None,
            identity: None,
            nullable: None,
            default: None,
            constraints: Vec::new(),
            sparse: false,
            rowguidcol: false,
        };
        if self.eat_kw("AS") {
            c.computed = Some(self.parse_expr()?);
            if self.eat_kw("PERSISTED") {
                c.persisted = true;
            }
        } else {
            c.data_type = Some(self.parse_data_type()?);
        }
        loop {
            let w = self.word_upper();
            match w.as_str() {
                "COLLATE" => {
                    self.pos += 1;
                    c.collation = Some(self.parse_ident()?.value);
                }
                "IDENTITY" => {
                    self.pos += 1;
                    if self.eat(Tok::LParen) {
                        let s = self.parse_i64_signed()?;
                        self.expect(Tok::Comma)?;
                        let i = self.parse_i64_signed()?;
                        self.expect(Tok::RParen)?;
                        c.identity = Some((s, i));
                    } else {
                        c.identity = Some((1, 1));
                    }
                    self.eat_not_for_replication();
                }
                "NULL" => {
                    self.pos += 1;
                    c.nullable = Some(true);
                }
                "NOT" if self.kw_at(1, "NULL") => {
                    self.pos += 2;
                    c.nullable = Some(false);
                }
                "SPARSE" => {
                    self.pos += 1;
                    c.sparse = true;
                }
                "ROWGUIDCOL" => {
                    self.pos += 1;
                    c.rowguidcol = true;
                }
                "DEFAULT" => {
                    self.pos += 1;
                    let expr = self.parse_expr()?;
                    c.default = Some(DefaultConstraint { name: None, expr });
                }
                "INDEX" => {
                    let mut ix = self.parse_inline_index()?;
                    if ix.columns.is_empty() && !ix.columnstore {
                        ix.columns.push(IndexColumn {
                            name: c.name.clone(),
                            desc: false,
                        });
                    }
                    self.pending_column_index = Some(ix);
                }
                "CONSTRAINT" | "PRIMARY" | "UNIQUE" | "CHECK" | "REFERENCES" | "FOREIGN" => {
                    let cname = if self.eat_kw("CONSTRAINT") {
                        Some(self.parse_ident()?)
                    } else {
                        None
                    };
                    let w = self.word_upper();
                    match w.as_str() {
                        "DEFAULT" => {
                            self.pos += 1;
                            let expr = self.parse_expr()?;
                            c.default = Some(DefaultConstraint { name: cname, expr });
                        }
                        "PRIMARY" | "UNIQUE" => {
                            self.pos += 1;
                            if w == "PRIMARY" {
                                self.expect_kw("KEY")?;
                            }
                            let clustered = self.parse_clustered();
                            if self.at(Tok::LParen) {
                                // `b int PRIMARY KEY (a)`: SQL Server takes a column constraint
                                // with a column list as a table constraint.
                                let columns = self.parse_index_columns()?;
                                let with_options = self.parse_opt_with_options()?;
                                let on = self.parse_opt_storage_target()?;
                                let kind = if w == "PRIMARY" {
                                    TableConstraintKind::PrimaryKey {
                                        clustered,
                                        columns,
                                        with_options,
                                        on,
                                    }
                                } else {
                                    TableConstraintKind::Unique {
                                        clustered,
                                        columns,
                                        with_options,
                                        on,
                                    }
                                };
                                self.pending_table_constraints
                                    .push(TableConstraint { name: cname, kind });
                                continue;
                            }
                            let with_options = self.parse_opt_with_options()?;
                            let on = self.parse_opt_storage_target()?;
                            let kind = if w == "PRIMARY" {
                                ColumnConstraintKind::PrimaryKey {
                                    clustered,
                                    with_options,
                                    on,
                                }
                            } else {
                                ColumnConstraintKind::Unique {
                                    clustered,
                                    with_options,
                                    on,
                                }
                            };
                            c.constraints.push(ColumnConstraint { name: cname, kind });
                        }
                        "CHECK" => {
                            self.pos += 1;
                            self.eat_not_for_replication();
                            self.expect(Tok::LParen)?;
                            let e = self.parse_expr()?;
                            self.expect(Tok::RParen)?;
                            c.constraints.push(ColumnConstraint {
                                name: cname,
                                kind: ColumnConstraintKind::Check(e),
                            });
                        }
                        "REFERENCES" | "FOREIGN" => {
                            if self.eat_kw("FOREIGN") {
                                self.expect_kw("KEY")?;
                                if self.at(Tok::LParen) {
                                    let columns = self.parse_paren_ident_list()?;
                                    let references = self.parse_references()?;
                                    self.pending_table_constraints.push(TableConstraint {
                                        name: cname,
                                        kind: TableConstraintKind::ForeignKey {
                                            columns,
                                            references,
                                        },
                                    });
                                    continue;
                                }
                            }
                            let r = self.parse_references()?;
                            c.constraints.push(ColumnConstraint {
                                name: cname,
                                kind: ColumnConstraintKind::References(r),
                            });
                        }
                        "NOT" if cname.is_some() && self.kw_at(1, "NULL") => {
                            self.pos += 2;
                            c.nullable = Some(false);
                        }
                        "NULL" if cname.is_some() => {
                            self.pos += 1;
                            c.nullable = Some(true);
                        }
                        _ => return Err(self.error_here()),
                    }
                }
                _ => break,
            }
        }
        Ok(c)
    }

    pub(crate) fn parse_drop(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("DROP")?;
        if self.eat_kw("EXTERNAL") {
            let kind = self.parse_external_kind()?;
            let name = self.parse_object_name()?;
            return Ok(StatementKind::DropExternal { kind, name });
        }
        let w = self.word_upper();
        let object_type = match w.as_str() {
            "TABLE" => ObjectType::Table,
            "VIEW" => ObjectType::View,
            "PROC" | "PROCEDURE" => ObjectType::Procedure,
            "FUNCTION" => ObjectType::Function,
            "TRIGGER" => ObjectType::Trigger,
            "SEQUENCE" => ObjectType::Sequence,
            "SCHEMA" => ObjectType::Schema,
            "DATABASE" => ObjectType::Database,
            "TYPE" => ObjectType::Type,
            "SYNONYM" => ObjectType::Synonym,
            "STATISTICS" => ObjectType::Statistics,
            "PARTITION" => {
                self.pos += 1;
                if self.kw("FUNCTION") {
                    ObjectType::PartitionFunction
                } else if self.kw("SCHEME") {
                    ObjectType::PartitionScheme
                } else {
                    return Err(self.error_here());
                }
            }
            "INDEX" => {
                self.pos += 1;
                let if_exists = self.parse_if_exists();
                let mut targets = Vec::new();
                loop {
                    let n = self.parse_object_name()?;
                    let target = if self.eat_kw("ON") {
                        let table = self.parse_object_name()?;
                        if n.parts.len() != 1 {
                            return Err(self.error_here());
                        }
                        DropIndexTarget {
                            index: n.parts[0].clone(),
                            table,
                        }
                    } else {
                        let mut parts = n.parts;
                        if parts.len() < 2 {
                            return Err(self.error_here());
                        }
                        let index = parts.pop().unwrap_or_else(|| Ident::new(""));
                        if parts
                            .last()
                            .is_some_and(|p| p.value.is_empty() && !p.quoted)
                        {
                            return Err(self.error_here());
                        }
                        DropIndexTarget {
                            index,
                            table: ObjectName { parts },
                        }
                    };
                    targets.push(target);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                return Ok(StatementKind::DropIndex { if_exists, targets });
            }
            "USER" | "LOGIN" | "ROLE" => {
                self.pos -= 1;
                return self.parse_security_statement();
            }
            "ASSEMBLY" | "CERTIFICATE" | "RULE" | "DEFAULT" => {
                self.pos -= 1;
                return Ok(self.parse_unsupported_from_here());
            }
            _ => return Err(self.error_here()),
        };
        self.pos += 1;
        let if_exists = self.parse_if_exists();
        let mut names = Vec::new();
        loop {
            names.push(self.parse_object_name()?);
            // `DROP FUNCTION f()`: an empty argument list is accepted (Babelfish compatibility).
            if object_type == ObjectType::Function
                && self.at(Tok::LParen)
                && self.at_n(1, Tok::RParen)
            {
                self.pos += 2;
            }
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(StatementKind::Drop {
            object_type,
            if_exists,
            names,
        })
    }

    fn parse_if_exists(&mut self) -> bool {
        if self.kw("IF") && self.kw_at(1, "EXISTS") {
            self.pos += 2;
            true
        } else {
            false
        }
    }

    pub(crate) fn parse_alter(&mut self) -> SqlResult<StatementKind> {
        self.expect_kw("ALTER")?;
        let w = self.word_upper();
        match w.as_str() {
            "TABLE" => {
                self.pos += 1;
                self.parse_alter_table()
            }
            "INDEX" => {
                self.pos += 1;
                let name = if self.eat_kw("ALL") {
                    None
                } else {
                    Some(self.parse_ident()?)
                };
                self.expect_kw("ON")?;
                let table = self.parse_object_name()?;
                let a = self.word_upper();
                self.pos += 1;
                let action = match a.as_str() {
                    "REBUILD" | "REORGANIZE" => {
                        let partition = if self.kw("PARTITION") && self.at_n(1, Tok::Eq) {
                            self.pos += 2;
                            Some(self.parse_option_value()?)
                        } else {
                            None
                        };
                        let options = self.parse_opt_with_options()?;
                        if a == "REBUILD" {
                            AlterIndexAction::Rebuild { partition, options }
                        } else {
                            AlterIndexAction::Reorganize { partition, options }
                        }
                    }
                    "DISABLE" => AlterIndexAction::Disable,
                    "SET" => AlterIndexAction::Set(self.parse_option_list()?),
                    _ => return Err(self.error_at(self.pos - 1)),
                };
                Ok(StatementKind::AlterIndex(Box::new(AlterIndex {
                    name,
                    table,
                    action,
                })))
            }
            "DATABASE" => {
                self.pos += 1;
                self.parse_alter_database()
            }
            "SEQUENCE" => {
                self.pos += 1;
                Ok(StatementKind::AlterSequence(Box::new(
                    self.parse_sequence_body()?,
                )))
            }
            "VIEW" => {
                self.pos += 1;
                self.parse_create_view(CreateMode::Alter, 0)
            }
            "PROC" | "PROCEDURE" => {
                self.pos += 1;
                self.parse_create_procedure(CreateMode::Alter, 0)
            }
            "FUNCTION" => {
                self.pos += 1;
                self.parse_create_function(CreateMode::Alter, 0)
            }
            "TRIGGER" => {
                self.pos += 1;
                self.parse_create_trigger(CreateMode::Alter, 0)
            }
            "USER" | "LOGIN" | "ROLE" => {
                self.pos -= 1;
                self.parse_security_statement()
            }
            "SERVER" if self.kw_at(1, "ROLE") => {
                self.pos -= 1;
                self.parse_security_statement()
            }
            "SCHEMA" | "AUTHORIZATION" | "SERVER" | "ASSEMBLY" | "CERTIFICATE" | "MASTER"
            | "CREDENTIAL" | "QUEUE" | "SERVICE" | "EVENT" | "RESOURCE" | "AVAILABILITY"
            | "ENDPOINT" | "FULLTEXT" | "PARTITION" | "MESSAGE" | "XML" | "SYMMETRIC"
            | "ASYMMETRIC" | "DATABASE_SCOPED" => {
                self.pos -= 1;
                Ok(self.parse_unsupported_from_here())
            }
            _ => Err(self.error_here()),
        }
    }

    fn parse_alter_table(&mut self) -> SqlResult<StatementKind> {
        let name = self.parse_object_name()?;
        let w = self.word_upper();
        if matches!(w.as_str(), "ENABLE" | "DISABLE") && self.kw_at(1, "TRIGGER") {
            // `ALTER TABLE t ENABLE|DISABLE TRIGGER {ALL | names}`: the same statement as
            // `ENABLE|DISABLE TRIGGER .. ON t`, which the engine runs from its text.
            self.pos += 2;
            let names = if self.eat_kw("ALL") {
                "ALL".to_string()
            } else {
                let mut v = vec![self.parse_object_name()?.to_string()];
                while self.eat(Tok::Comma) {
                    v.push(self.parse_object_name()?.to_string());
                }
                v.join(", ")
            };
            return Ok(StatementKind::Unsupported {
                text: format!("{w} TRIGGER {names} ON {name}"),
                keyword: w.to_string(),
            });
        }
        let mut with_check = None;
        let action = match w.as_str() {
            "ADD" => {
                self.pos += 1;
                let mut elems = Vec::new();
                loop {
                    let e = self.parse_table_element()?;
                    elems.push(e);
                    if let Some(ix) = self.pending_column_index.take() {
                        elems.push(TableElement::Index(ix));
                    }
                    for c in self.pending_table_constraints.drain(..) {
                        elems.push(TableElement::Constraint(c));
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                AlterTableAction::Add(elems)
            }
            "DROP" => {
                self.pos += 1;
                let column = if self.eat_kw("COLUMN") {
                    true
                } else {
                    self.eat_kw("CONSTRAINT");
                    false
                };
                let if_exists = self.parse_if_exists();
                let mut names = vec![self.parse_ident()?];
                while self.eat(Tok::Comma) {
                    names.push(self.parse_ident()?);
                }
                if column {
                    AlterTableAction::DropColumns { if_exists, names }
                } else {
                    AlterTableAction::DropConstraints { if_exists, names }
                }
            }
            "ALTER" => {
                self.pos += 1;
                self.expect_kw("COLUMN")?;
                let name = self.parse_ident()?;
                let data_type = self.parse_data_type()?;
                let collation = if self.eat_kw("COLLATE") {
                    Some(self.parse_ident()?.value)
                } else {
                    None
                };
                let nullable = if self.eat_kw("NULL") {
                    Some(true)
                } else if self.kw("NOT") && self.kw_at(1, "NULL") {
                    self.pos += 2;
                    Some(false)
                } else {
                    None
                };
                AlterTableAction::AlterColumn {
                    name,
                    data_type,
                    collation,
                    nullable,
                }
            }
            "WITH" | "CHECK" | "NOCHECK" => {
                if self.eat_kw("WITH") {
                    with_check = if self.eat_kw("CHECK") {
                        Some(true)
                    } else if self.eat_kw("NOCHECK") {
                        Some(false)
                    } else {
                        return Err(self.error_here());
                    };
                }
                if self.kw("ADD") {
                    // WITH CHECK ADD CONSTRAINT ...
                    return self.parse_alter_table_with_name(name, with_check);
                }
                let enable = if self.eat_kw("CHECK") {
                    true
                } else {
                    self.expect_kw("NOCHECK")?;
                    false
                };
                self.expect_kw("CONSTRAINT")?;
                let names = if self.eat_kw("ALL") {
                    Vec::new()
                } else {
                    let mut v = vec![self.parse_ident()?];
                    while self.eat(Tok::Comma) {
                        v.push(self.parse_ident()?);
                    }
                    v
                };
                AlterTableAction::CheckConstraints { enable, names }
            }
            "SET" => {
                self.pos += 1;
                AlterTableAction::Set(self.parse_option_list()?)
            }
            "REBUILD" => {
                self.pos += 1;
                AlterTableAction::Rebuild(self.parse_opt_with_options()?)
            }
            _ => return Err(self.error_here()),
        };
        Ok(StatementKind::AlterTable(Box::new(AlterTable {
            name,
            with_check,
            action,
        })))
    }

    fn parse_alter_table_with_name(
        &mut self,
        name: ObjectName,
        with_check: Option<bool>,
    ) -> SqlResult<StatementKind> {
        // current token is ADD
        self.pos += 1;
        let mut elems = Vec::new();
        loop {
            elems.push(self.parse_table_element()?);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(StatementKind::AlterTable(Box::new(AlterTable {
            name,
            with_check,
            action: AlterTableAction::Add(elems),
        })))
    }

    fn parse_file_specs(&mut self) -> SqlResult<Vec<FileSpec>> {
        let mut v = vec![self.parse_option_list()?];
        while self.at(Tok::Comma) && self.at_n(1, Tok::LParen) {
            self.pos += 1;
            v.push(self.parse_option_list()?);
        }
        Ok(v)
    }

    fn parse_create_database(&mut self) -> SqlResult<StatementKind> {
        let name = self.parse_ident()?;
        let mut db = CreateDatabase {
            name,
            files: Vec::new(),
            log_files: Vec::new(),
            collation: None,
        };
        if self.eat_kw("CONTAINMENT") {
            self.expect(Tok::Eq)?;
            self.parse_any_word()?;
        }
        if self.eat_kw("ON") {
            self.eat_kw("PRIMARY");
            db.files = self.parse_file_specs()?;
        }
        if self.kw("LOG") && self.kw_at(1, "ON") {
            self.pos += 2;
            db.log_files = self.parse_file_specs()?;
        }
        if self.eat_kw("COLLATE") {
            db.collation = Some(self.parse_ident()?.value);
        }
        if self.eat_kw("WITH") {
            loop {
                self.parse_option_setting(true)?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        Ok(StatementKind::CreateDatabase(Box::new(db)))
    }

    fn parse_alter_database(&mut self) -> SqlResult<StatementKind> {
        if self.kw("SCOPED") && self.kw_at(1, "CONFIGURATION") {
            self.pos += 2;
            return self.parse_scoped_configuration();
        }
        let name = if self.eat_kw("CURRENT") {
            None
        } else {
            Some(self.parse_ident()?)
        };
        let w = self.word_upper();
        self.pos += 1;
        let action = match w.as_str() {
            "ADD" => {
                if self.eat_kw("FILEGROUP") {
                    AlterDatabaseAction::AddFilegroup(self.parse_ident()?)
                } else {
                    let log = self.eat_kw("LOG");
                    self.expect_kw("FILE")?;
                    let files = self.parse_file_specs()?;
                    let filegroup = if self.eat_kw("TO") {
                        self.expect_kw("FILEGROUP")?;
                        Some(self.parse_ident()?)
                    } else {
                        None
                    };
                    AlterDatabaseAction::AddFile {
                        log,
                        files,
                        filegroup,
                    }
                }
            }
            "MODIFY" => {
                if self.eat_kw("FILEGROUP") {
                    let name = self.parse_ident()?;
                    let property = self.word_upper();
                    if !matches!(
                        property.as_str(),
                        "DEFAULT"
                            | "READ_ONLY"
                            | "READ_WRITE"
                            | "READONLY"
                            | "READWRITE"
                            | "AUTOGROW_SINGLE_FILE"
                            | "AUTOGROW_ALL_FILES"
                            | "NAME"
                    ) {
                        return Err(self.error_here());
                    }
                    self.pos += 1;
                    let new_name = if property == "NAME" {
                        self.expect(Tok::Eq)?;
                        Some(self.parse_ident()?)
                    } else {
                        None
                    };
                    AlterDatabaseAction::ModifyFilegroup {
                        name,
                        property: property.to_string(),
                        new_name,
                    }
                } else if self.eat_kw("FILE") {
                    AlterDatabaseAction::ModifyFile(self.parse_option_list()?)
                } else {
                    self.expect_kw("NAME")?;
                    self.expect(Tok::Eq)?;
                    AlterDatabaseAction::ModifyName(self.parse_ident()?)
                }
            }
            "COLLATE" => AlterDatabaseAction::Collate(self.parse_ident()?.value),
            "REMOVE" if self.eat_kw("FILEGROUP") => {
                AlterDatabaseAction::RemoveFilegroup(self.parse_ident()?)
            }
            "REMOVE" if self.eat_kw("FILE") => AlterDatabaseAction::RemoveFile(self.parse_ident()?),
            "SET" => {
                let mut options = Vec::new();
                loop {
                    options.push(self.parse_option_setting(true)?);
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                let termination = if self.eat_kw("WITH") {
                    let start = self.peek().start as usize;
                    if self.eat_kw("ROLLBACK") {
                        if self.eat_kw("AFTER") {
                            self.parse_u32()?;
                            self.eat_kw("SECONDS");
                        } else {
                            self.expect_kw("IMMEDIATE")?;
                        }
                    } else {
                        self.expect_kw("NO_WAIT")?;
                    }
                    Some(self.src[start..self.prev_end() as usize].to_ascii_uppercase())
                } else {
                    None
                };
                AlterDatabaseAction::Set {
                    options,
                    termination,
                }
            }
            _ => return Err(self.error_at(self.pos - 1)),
        };
        Ok(StatementKind::AlterDatabase(Box::new(AlterDatabase {
            name,
            action,
        })))
    }

    /// After `ALTER DATABASE SCOPED CONFIGURATION`: `[FOR SECONDARY] SET name = value` (one
    /// option per statement, as SQL Server's grammar has it) or `CLEAR PROCEDURE_CACHE
    /// [plan_handle]`.
    fn parse_scoped_configuration(&mut self) -> SqlResult<StatementKind> {
        let action = if self.eat_kw("CLEAR") {
            self.expect_kw("PROCEDURE_CACHE")?;
            let handle = if self.at(Tok::Binary) {
                Some(self.parse_expr()?)
            } else {
                None
            };
            ScopedConfiguration::ClearProcedureCache(handle)
        } else {
            let for_secondary = if self.eat_kw("FOR") {
                self.expect_kw("SECONDARY")?;
                true
            } else {
                false
            };
            self.expect_kw("SET")?;
            let option = self.parse_option_setting(false)?;
            if option.value.is_none() {
                return Err(self.error_here());
            }
            ScopedConfiguration::Set {
                for_secondary,
                option,
            }
        };
        Ok(StatementKind::AlterDatabaseScopedConfiguration(Box::new(
            action,
        )))
    }

    /// Module text: from the start of the batch to the end of the previous token.
    fn module_text(&self, batch_start: usize) -> String {
        self.src[batch_start..self.prev_end() as usize].to_string()
    }

    fn parse_module_options(&mut self) -> SqlResult<Vec<String>> {
        let mut v = Vec::new();
        if !self.eat_kw("WITH") {
            return Ok(v);
        }
        loop {
            let start = self.peek();
            let w = self.word_upper();
            match w.as_str() {
                "EXECUTE" | "EXEC" => {
                    self.pos += 1;
                    self.expect_kw("AS")?;
                    let t = self.advance();
                    if !matches!(t.kind, Tok::Word | Tok::String | Tok::NString) {
                        return Err(self.error_at(self.pos - 1));
                    }
                }
                "RETURNS" => {
                    // RETURNS NULL ON NULL INPUT
                    self.pos += 1;
                    for k in ["NULL", "ON", "NULL", "INPUT"] {
                        self.expect_kw(k)?;
                    }
                }
                "CALLED" => {
                    self.pos += 1;
                    for k in ["ON", "NULL", "INPUT"] {
                        self.expect_kw(k)?;
                    }
                }
                "INLINE" => {
                    self.pos += 1;
                    self.expect(Tok::Eq)?;
                    if !(self.eat_kw("ON") || self.eat_kw("OFF")) {
                        return Err(self.error_here());
                    }
                }
                "" => return Err(self.error_here()),
                _ => {
                    self.pos += 1;
                }
            }
            let text =
                self.src[start.start as usize..self.prev_end() as usize].to_ascii_uppercase();
            v.push(text.split_whitespace().collect::<Vec<_>>().join(" "));
            if !self.eat(Tok::Comma) {
                return Ok(v);
            }
        }
    }

    fn parse_create_view(
        &mut self,
        mode: CreateMode,
        batch_start: usize,
    ) -> SqlResult<StatementKind> {
        let name = self.parse_object_name()?;
        let columns = if self.at(Tok::LParen) {
            self.parse_paren_ident_list()?
        } else {
            Vec::new()
        };
        let options = self.parse_module_options()?;
        self.expect_kw("AS")?;
        let query = self.parse_query(false)?;
        let with_check_option = if self.kw("WITH") && self.kw_at(1, "CHECK") {
            self.pos += 2;
            self.expect_kw("OPTION")?;
            true
        } else {
            false
        };
        Ok(StatementKind::CreateView(Box::new(CreateView {
            mode,
            name,
            columns,
            options,
            query,
            with_check_option,
            text: self.module_text(batch_start),
        })))
    }

    fn parse_params(&mut self, in_parens: bool) -> SqlResult<Vec<ProcParam>> {
        let mut v = Vec::new();
        if !self.at(Tok::Variable) {
            return Ok(v);
        }
        loop {
            let name = self.parse_variable()?;
            self.eat_kw("AS");
            let data_type = self.parse_data_type()?;
            self.eat_kw("VARYING");
            let default = if self.eat(Tok::Eq) {
                Some(self.parse_expr()?)
            } else {
                None
            };
            let mut output = false;
            let mut readonly = false;
            loop {
                if self.eat_kw("OUTPUT") || self.eat_kw("OUT") {
                    output = true;
                } else if self.eat_kw("READONLY") {
                    readonly = true;
                } else {
                    break;
                }
            }
            v.push(ProcParam {
                name,
                data_type,
                default,
                output,
                readonly,
            });
            if !self.eat(Tok::Comma) {
                break;
            }
            if in_parens && self.at(Tok::RParen) {
                break;
            }
        }
        Ok(v)
    }

    fn parse_create_procedure(
        &mut self,
        mode: CreateMode,
        batch_start: usize,
    ) -> SqlResult<StatementKind> {
        let name = self.parse_object_name()?;
        if self.at(Tok::Semicolon) && self.at_n(1, Tok::Integer) {
            self.pos += 2; // ;number (numbered procedures)
        }
        let params = if self.at(Tok::LParen) {
            self.pos += 1;
            let p = self.parse_params(true)?;
            self.expect(Tok::RParen)?;
            p
        } else {
            self.parse_params(false)?
        };
        let options = self.parse_module_options()?;
        if self.kw("FOR") && self.kw_at(1, "REPLICATION") {
            self.pos += 2;
        }
        self.expect_kw("AS")?;
        let body = self.parse_statements_until_eof()?;
        if body.is_empty() {
            return Err(self.error_here());
        }
        Ok(StatementKind::CreateProcedure(Box::new(CreateProcedure {
            mode,
            name,
            params,
            options,
            body,
            text: self.module_text(batch_start),
        })))
    }

    fn parse_create_function(
        &mut self,
        mode: CreateMode,
        batch_start: usize,
    ) -> SqlResult<StatementKind> {
        let name = self.parse_object_name()?;
        self.expect(Tok::LParen)?;
        let params = self.parse_params(true)?;
        self.expect(Tok::RParen)?;
        self.expect_kw("RETURNS")?;
        let options;
        let body = if self.at(Tok::Variable) {
            let variable = self.parse_variable()?;
            self.expect_kw("TABLE")?;
            let table = self.parse_table_definition()?;
            options = self.parse_module_options()?;
            self.eat_kw("AS");
            self.expect_kw("BEGIN")?;
            let body = self.parse_statements_until_end()?;
            self.expect_kw("END")?;
            FunctionBody::MultiStatement {
                variable,
                table,
                body,
            }
        } else if self.kw("TABLE") {
            self.pos += 1;
            options = self.parse_module_options()?;
            self.eat_kw("AS");
            self.expect_kw("RETURN")?;
            let query = self.parse_query(false)?;
            FunctionBody::InlineTable { query }
        } else {
            let returns = self.parse_data_type()?;
            options = self.parse_module_options()?;
            self.eat_kw("AS");
            self.expect_kw("BEGIN")?;
            let body = self.parse_statements_until_end()?;
            self.expect_kw("END")?;
            FunctionBody::Scalar { returns, body }
        };
        Ok(StatementKind::CreateFunction(Box::new(CreateFunction {
            mode,
            name,
            params,
            options,
            body,
            text: self.module_text(batch_start),
        })))
    }

    fn parse_create_trigger(
        &mut self,
        mode: CreateMode,
        batch_start: usize,
    ) -> SqlResult<StatementKind> {
        let name = self.parse_object_name()?;
        self.expect_kw("ON")?;
        let table = self.parse_object_name()?;
        let _ = self.parse_module_options()?;
        let timing = if self.eat_kw("AFTER") || self.eat_kw("FOR") {
            TriggerTiming::After
        } else {
            self.expect_kw("INSTEAD")?;
            self.expect_kw("OF")?;
            TriggerTiming::InsteadOf
        };
        let mut events = Vec::new();
        loop {
            let e = if self.eat_kw("INSERT") {
                TriggerEvent::Insert
            } else if self.eat_kw("UPDATE") {
                TriggerEvent::Update
            } else {
                self.expect_kw("DELETE")?;
                TriggerEvent::Delete
            };
            events.push(e);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        if self.kw("WITH") && self.kw_at(1, "APPEND") {
            self.pos += 2;
        }
        self.eat_not_for_replication();
        self.expect_kw("AS")?;
        let body = self.parse_statements_until_eof()?;
        if body.is_empty() {
            return Err(self.error_here());
        }
        Ok(StatementKind::CreateTrigger(Box::new(CreateTrigger {
            mode,
            name,
            table,
            timing,
            events,
            body,
            text: self.module_text(batch_start),
        })))
    }
}
