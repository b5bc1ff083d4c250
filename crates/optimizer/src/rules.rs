//! The rule registry: every rewrite the planner performs has a name, a description, and can be
//! disabled by name.

/// A named planner rule.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub name: &'static str,
    /// Match, rewrite, and why it is sound.
    pub doc: &'static str,
}

/// All rules, in the order the planner tries them.
pub const RULES: &[Rule] = &[
    Rule {
        name: "ExtractCommonConjuncts",
        doc: "A WHERE conjunct (A AND B) OR (A AND C) becomes A AND (B OR C): conjuncts common to every arm of an OR (non-deterministic calls and ORs with subqueries excepted) are factored out, so a join predicate repeated in each arm becomes a join key. An arm made only of common conjuncts drops the OR. Sound: AND/OR distribute and absorb in three-valued logic.",
    },
    Rule {
        name: "SimplifyOuterJoin",
        doc: "An outer join under a predicate that rejects NULLs of a null-extended side (from a WHERE above it, through filters and joins that do not null-extend it, or an inner join's ON above it) loses that NULL extension: LEFT/RIGHT → inner, FULL → LEFT, RIGHT or inner; an inner join's ON simplifies the joins below it in turn. Null-rejecting: a comparison / LIKE / IN list over a null-propagating expression of the side (column, arithmetic, non-TRY cast), NOT of one, IS NOT NULL, an AND with one, an OR of only such. Sound: the rows an outer join adds have that side all NULL, which such a predicate never accepts.",
    },
    Rule {
        name: "EliminateOuterJoin",
        doc: "a LEFT JOIN b under a projection (and filters) reading none of b's columns, b a table read whose unique unfiltered index has every key column bound by an ON equality to a value not reading b, is replaced by a. Sound: every row of a matches at most one row of b and is kept when it matches none, so the join returns exactly a's rows.",
    },
    Rule {
        name: "PushSelectIntoJoin",
        doc: "Filter over an inner/cross join: conjuncts that read one side move below the join; equalities between the sides become join keys. Sound: a conjunct over one side's columns filters the same rows before or after an inner join.",
    },
    Rule {
        name: "SubqueryToSemiJoin",
        doc: "WHERE EXISTS / NOT EXISTS / IN (correlated subquery shaped [Project] Filter(pred) over a parameter-free input) becomes a left semi / anti semi join on pred with outer references replaced by outer columns. NOT IN is left alone (NULL semantics).",
    },
    Rule {
        name: "NotInToAntiSemiJoin",
        doc: "WHERE x NOT IN (subquery), x op ALL (subquery), NOT (x op ANY (subquery)) over a [Project] [Filter] on a parameter-free input becomes a left anti semi join on the correlation AND x negop y (negop: = for NOT IN / <> ALL). Null-aware: with neither side nullable a plain anti join; uncorrelated, an anti join on x negop y then NOT EXISTS (S WHERE y IS NULL) AND (x IS NOT NULL OR NOT EXISTS (S)); correlated, the anti join predicate is correlation AND (x negop y OR x IS NULL OR y IS NULL). Sound: ALL is TRUE iff no y makes x op y FALSE or UNKNOWN, and TRUE over no rows.",
    },
    Rule {
        name: "AnyToSemiJoin",
        doc: "WHERE x op ANY|SOME (subquery) or NOT (x op ALL (subquery)) over a [Project] [Filter] on a parameter-free input becomes a left semi join on the correlation AND x op y (x negop y for the negated ALL). Sound: in WHERE only TRUE keeps a row, and ANY is TRUE iff some comparison is TRUE; NULL comparisons never match.",
    },
    Rule {
        name: "SemiJoinPushDown",
        doc: "A left semi / anti semi join (from SubqueryToSemiJoin, NotInToAntiSemiJoin, AnyToSemiJoin) whose condition reads the outer side only through one relation of an inner-join tree moves onto that relation, below the inner joins, filters and other semi joins over it (into a LEFT JOIN's preserved input only), before JoinOrder: join ordering then sees the reduced relation. Costed against the written tree, the cheaper kept (applied after selective inner joins a semi join can be cheaper); not under FORCE ORDER or a row goal. Sound: the condition depends on a joined row only through that relation's row, so all joined rows of one such row are kept or dropped together, as the row is when filtered first; below a null-supplying side a dropped row would come back NULL-extended instead, so it never goes there.",
    },
    Rule {
        name: "CorrelatedAggToJoin",
        doc: "A WHERE conjunct reading a correlated scalar subquery [Project] Aggregate(no GROUP BY; SUM/AVG/MIN/MAX/STDEV/VAR) over [Filter] on a parameter-free input, correlated only by equalities inner = outer, becomes a left outer join with that aggregate grouped by the inner sides of the equalities; the subquery's value is read from the join. Sound: each outer row joins the one group its subquery would aggregate, or none (NULL aggregates, as over no rows).",
    },
    Rule {
        name: "GbAggBeforeJoin",
        doc: "GROUP BY (non-empty, no grouping sets) over an inner/cross join whose aggregates (COUNT(*), COUNT, COUNT_BIG, SUM, MIN, MAX; no DISTINCT) read one input A: also planned as a partial aggregate of A grouped by the A columns the ON and GROUP BY read, joined, then a final aggregate (SUM of partial SUMs and counts, MIN of MINs, MAX of MAXs); the cheaper plan by cost wins. Sound: every A row of a partial group joins the same rows of the other input, so each joined row of the original is counted once through its partial group's joined row.",
    },
    Rule {
        name: "GetToScan",
        doc: "A table access becomes a Table Scan (heap) or Clustered Index Scan, the access path every table has; with known row counts it is costed against each SelToIdxSeek alternative. Switched off, a table access needs a seek (Msg 8622 when no index's key the predicates bind). Sound: a scan reads every row and the predicates filter them.",
    },
    Rule {
        name: "SelToIdxSeek",
        doc: "Filter over a table read whose conjuncts bind a prefix of an index key with equalities (plus an optional range on the next key column) becomes an index seek; remaining conjuncts stay as the seek's residual predicate.",
    },
    Rule {
        name: "JNtoIdxLookup",
        doc: "Equi-join whose inner side is a table with an index led by the join columns becomes nested loops with an index seek on the inner side (outer values as parameters).",
    },
    Rule {
        name: "JNtoNL",
        doc: "A join becomes Nested Loops evaluating its condition for every pair of rows: the only implementation of a join without equality keys (cross and theta joins), and of an equi-join under LOOP JOIN when no index serves a seek. Switched off, such a join has no plan (Msg 8622). Sound: the condition is checked on every row pair.",
    },
    Rule {
        name: "JoinOrder",
        doc: "A tree of three or more inner/cross joins (no join hints, no FORCE ORDER, no subqueries in the conditions, row counts known) is flattened into relations and predicates and rebuilt by a costed search: dynamic programming over connected subsets up to 12 relations (a memo group per subset, its best plan by the cost model over the physical alternatives of every split: hash join with either build side, nested loops with an index seek, merge join through clustered order or a Sort enforcer; branch-and-bound pruning), greedy pairing beyond with each join costed; each join is planned with the implementation the search chose; a projection restores the column order. Sound: inner joins are associative and commutative and each predicate is applied where all its columns are present.",
    },
    Rule {
        name: "JoinCommute",
        doc: "Inner equi-join (no join hint, no FORCE ORDER, row counts known): the swapped inputs are costed too — nested loops seeking into the left table through an index on its join keys, and a hash join building on the left input when the right one is over 1,000 rows and four times the left. A projection restores the column order. Sound: an inner join is commutative.",
    },
    Rule {
        name: "BuildSpool",
        doc: "The inner side of nested loops that reads nothing of the outer row (no equality keys, a LOOP hint without a usable index) goes under a Table Spool (Lazy Spool) that keeps its rows on the first execution and replays them for the next outer rows. Costed: built when the outer side has two or more rows and the saved re-executions outweigh keeping the rows. OPTION (NO_PERFORMANCE_SPOOL) switches it off. Sound: such an inner side returns the same rows every time.",
    },
    Rule {
        name: "JoinToHash",
        doc: "Equi-join (or any outer join without keys) becomes a hash match join building on the right input.",
    },
    Rule {
        name: "JoinToMerge",
        doc: "Equi-join with a MERGE hint becomes a merge join over inputs sorted on the keys; in a join tree JoinOrder orders, a merge join on one integer equality is costed against the other implementations (an input read in its clustered order, else under a Sort enforcer).",
    },
    Rule {
        name: "SortToOrderedScan",
        doc: "Sort whose keys are a prefix of the clustered index key (all ascending or all descending) over a scan of that table is removed; the scan runs ordered (backward for descending).",
    },
    Rule {
        name: "TopSortToTopNSort",
        doc: "TOP n (no ties, no percent, no offset) over a Sort becomes a TOP N Sort that keeps only n rows.",
    },
    Rule {
        name: "PruneColumns",
        doc: "Table accesses decode only the columns some operator above reads (others are NULL in the row buffer). Sound: unread positions are never observed.",
    },
    Rule {
        name: "ScanToCoveringSeek",
        doc: "After PruneColumns: a heap or clustered scan whose predicate a nonclustered index can seek on becomes a seek on that index when its INCLUDE columns hold every column the plan then reads (no Key/RID Lookup) and the seek costs less. Sound: the index range plus the residual predicate return the scan's rows, and every column read comes from the index entries.",
    },
    Rule {
        name: "GbAggToHS",
        doc: "GROUP BY (and DISTINCT) becomes a Hash Match aggregate (the default). Switched off, as under OPTION (ORDER GROUP): Sort + Stream Aggregate (Distinct Sort); grouping sets, which only hash, have no plan (Msg 8622). Sound: a hash table holds one entry per group.",
    },
    Rule {
        name: "GbAggToStrm",
        doc: "A scalar aggregate (no GROUP BY) becomes a Stream Aggregate (one group).",
    },
];

/// True if `name` is a registered rule.
pub fn is_rule(name: &str) -> bool {
    RULES.iter().any(|r| r.name.eq_ignore_ascii_case(name))
}
