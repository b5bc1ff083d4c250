//! `SET SHOWPLAN_MEMO ON` (latchkey's own option, optimizer README "The memo"): like
//! SHOWPLAN_XML, batches are compiled, not run; each statement returns one result set with
//! every group and alternative its search considered (optimizer `memo.rs`): the pruned and
//! forbidden ones too, each loser with why it lost. With SHOWPLAN_XML also on, the same memo
//! goes into the XML plan's `InternalInfo` element instead; with SHOWPLAN_TEXT / SHOWPLAN_ALL
//! it follows their result sets.

use crate::events::{EventSink, OutColumn};
use crate::session::Session;
use optimizer::memo::{fmt_num, Memo};
use types::{DataType, Value};

/// The memo result set's columns.
const MEMO_COLUMNS: [(&str, DataType); 13] = [
    ("group_id", DataType::Int),
    ("alternative_id", DataType::Int),
    ("expression", DataType::NVarChar(None)),
    ("logical_op", DataType::NVarChar(None)),
    ("physical_op", DataType::NVarChar(None)),
    ("rule", DataType::NVarChar(None)),
    ("children", DataType::NVarChar(None)),
    ("est_rows", DataType::Float),
    ("own_cost", DataType::Float),
    ("subtree_cost", DataType::Float),
    ("properties", DataType::NVarChar(None)),
    ("chosen", DataType::Bit),
    ("why_lost", DataType::NVarChar(None)),
];

/// A cost or row figure at the memo's six significant digits (stable in golden output).
fn number(v: Option<f64>) -> Value {
    match v {
        Some(v) if v.is_finite() => Value::Float(fmt_num(v).parse().unwrap_or(v)),
        _ => Value::Null,
    }
}

fn text(v: Option<&str>) -> Value {
    v.map_or(Value::Null, |s| Value::NVarChar(s.to_string()))
}

/// One result set: a row per alternative of every group (none for a statement without a plan).
pub(crate) fn memo_result(memo: Option<&Memo>, show_count: bool, sink: &mut dyn EventSink) {
    let cols: Vec<OutColumn> = MEMO_COLUMNS
        .iter()
        .map(|(n, t)| OutColumn {
            name: (*n).into(),
            data_type: t.clone(),
        })
        .collect();
    sink.result_start(&cols);
    let mut rows = 0u64;
    for g in memo.map(|m| m.groups.as_slice()).unwrap_or_default() {
        for (i, a) in g.alternatives.iter().enumerate() {
            let children: Vec<String> = a.children.iter().map(u32::to_string).collect();
            sink.row(&[
                Value::Int(g.id as i32),
                Value::Int(i as i32 + 1),
                Value::NVarChar(g.label.clone()),
                Value::NVarChar(a.logical.clone()),
                text(a.physical.as_deref()),
                text((!a.rule.is_empty()).then_some(a.rule)),
                text(
                    (!children.is_empty())
                        .then(|| children.join(" "))
                        .as_deref(),
                ),
                number(a.est_rows),
                number(a.own_cost),
                number(a.subtree_cost),
                text(a.properties.as_deref()),
                Value::Bit(a.chosen),
                text(a.why_lost.as_deref()),
            ]);
            rows += 1;
        }
    }
    sink.result_end(rows, false, show_count);
}

impl Session {
    /// Whether SET SHOWPLAN_MEMO is ON: the optimizer records its memo.
    pub(crate) fn showplan_memo_on(&self) -> bool {
        self.options
            .flags
            .get("SHOWPLAN_MEMO")
            .copied()
            .unwrap_or(false)
    }
}
