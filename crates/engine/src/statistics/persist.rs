//! Persistent form of a table's statistics objects: one JSON document per table in the
//! database's catalog B-tree under key `X` + table object id (catalog README), written with the
//! table's other catalog rows. Histogram keys are stored as the hex of a one-column record in
//! the row format (exact for every type) with the type's T-SQL text beside them; a key that no
//! longer decodes (the column's type changed) drops the object's data, never the database.

use std::sync::Arc;

use catalog::serial;
use catalog::statistics::{DensityEntry, HistogramStep, StatisticsData, StatisticsObject};
use common::{SqlError, SqlResult};
use exec::row_format::RowFormat;
use serde_json::{json, Value as J};
use types::{DataType, Value};

fn corrupt() -> SqlError {
    SqlError::custom(
        8966,
        16,
        1,
        "Unable to read and latch a catalog row: malformed statistics.",
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Encodes a table's statistics objects; `key_types`: the type of each object's leading
/// column (same order).
pub(crate) fn encode(objects: &[(Arc<StatisticsObject>, DataType)]) -> SqlResult<Vec<u8>> {
    let mut list = Vec::new();
    for (o, key_type) in objects {
        let data = match &o.data {
            None => J::Null,
            Some(d) => {
                let mut format = RowFormat::new(vec![key_type.clone()]);
                let mut steps = Vec::new();
                for s in &d.steps {
                    let key = hex(format.encode(std::slice::from_ref(&s.range_hi_key))?);
                    steps.push(json!([key, s.range_rows, s.eq_rows, s.distinct_range_rows, s.avg_range_rows]));
                }
                let density: Vec<J> = d
                    .density
                    .iter()
                    .map(|e| json!({"columns": e.columns, "density": e.all_density, "length": e.average_length}))
                    .collect();
                json!({
                    "rows": d.rows,
                    "rows_sampled": d.rows_sampled,
                    "null_rows": d.null_rows,
                    "updated": d.updated,
                    "key_type": serial::type_to_text(key_type),
                    "steps": steps,
                    "density": density,
                })
            }
        };
        list.push(json!({
            "stats_id": o.stats_id,
            "name": o.name,
            "columns": o.columns,
            "index_id": o.index_id,
            "auto_created": o.auto_created,
            "user_created": o.user_created,
            "no_recompute": o.no_recompute,
            "filter": o.filter,
            "data": data,
        }));
    }
    Ok(J::Array(list).to_string().into_bytes())
}

/// Decodes [`encode`]'s document. A malformed document is a corruption error.
pub(crate) fn decode(bytes: &[u8]) -> SqlResult<Vec<StatisticsObject>> {
    let doc: J = serde_json::from_slice(bytes).map_err(|_| corrupt())?;
    let list = doc.as_array().ok_or_else(corrupt)?;
    let mut out = Vec::with_capacity(list.len());
    for o in list {
        let columns = o["columns"]
            .as_array()
            .ok_or_else(corrupt)?
            .iter()
            .map(|c| c.as_u64().map(|c| c as usize).ok_or_else(corrupt))
            .collect::<SqlResult<Vec<usize>>>()?;
        out.push(StatisticsObject {
            stats_id: o["stats_id"].as_i64().ok_or_else(corrupt)? as i32,
            name: o["name"].as_str().ok_or_else(corrupt)?.to_string(),
            columns,
            index_id: o["index_id"].as_i64().map(|i| i as i32),
            auto_created: o["auto_created"].as_bool().unwrap_or(false),
            user_created: o["user_created"].as_bool().unwrap_or(false),
            no_recompute: o["no_recompute"].as_bool().unwrap_or(false),
            filter: o["filter"].as_str().map(str::to_string),
            data: decode_data(&o["data"]),
        });
    }
    Ok(out)
}

fn decode_data(d: &J) -> Option<StatisticsData> {
    if d.is_null() {
        return None;
    }
    let key_type = serial::type_from_text(d["key_type"].as_str()?).ok()?;
    let format = RowFormat::new(vec![key_type]);
    let mut steps = Vec::new();
    for s in d["steps"].as_array()? {
        let mut key: Vec<Value> = Vec::new();
        format
            .decode_into(&unhex(s[0].as_str()?)?, &mut key)
            .ok()?;
        steps.push(HistogramStep {
            range_hi_key: key.into_iter().next()?,
            range_rows: s[1].as_f64()?,
            eq_rows: s[2].as_f64()?,
            distinct_range_rows: s[3].as_f64()?,
            avg_range_rows: s[4].as_f64()?,
        });
    }
    let mut density = Vec::new();
    for e in d["density"].as_array()? {
        density.push(DensityEntry {
            columns: e["columns"]
                .as_array()?
                .iter()
                .map(|c| c.as_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()?,
            all_density: e["density"].as_f64()?,
            average_length: e["length"].as_f64()?,
        });
    }
    Some(StatisticsData {
        rows: d["rows"].as_u64()?,
        rows_sampled: d["rows_sampled"].as_u64()?,
        null_rows: d["null_rows"].as_f64()?,
        steps,
        density,
        updated: d["updated"].as_str()?.to_string(),
    })
}

/// The database's AUTO_CREATE_STATISTICS / AUTO_UPDATE_STATISTICS settings (key id 0).
pub(crate) fn encode_options(auto_create: bool, auto_update: bool) -> Vec<u8> {
    json!({"auto_create": auto_create, "auto_update": auto_update})
        .to_string()
        .into_bytes()
}

/// Inverse of [`encode_options`]; missing fields read as ON (the default).
pub(crate) fn decode_options(bytes: &[u8]) -> SqlResult<(bool, bool)> {
    let doc: J = serde_json::from_slice(bytes).map_err(|_| corrupt())?;
    Ok((
        doc["auto_create"].as_bool().unwrap_or(true),
        doc["auto_update"].as_bool().unwrap_or(true),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_round_trip_with_typed_keys() {
        let o = StatisticsObject {
            stats_id: 3,
            name: "s".into(),
            columns: vec![1, 0],
            index_id: None,
            auto_created: false,
            user_created: true,
            no_recompute: true,
            filter: None,
            data: Some(StatisticsData {
                rows: 10,
                rows_sampled: 10,
                null_rows: 1.0,
                steps: vec![HistogramStep {
                    range_hi_key: Value::VarChar("héllo".into()),
                    range_rows: 2.0,
                    eq_rows: 3.0,
                    distinct_range_rows: 1.0,
                    avg_range_rows: 2.0,
                }],
                density: vec![DensityEntry {
                    columns: vec!["b".into()],
                    all_density: 0.5,
                    average_length: 4.5,
                }],
                updated: "2026-01-02 03:04:05.000".into(),
            }),
        };
        let bytes = encode(&[(Arc::new(o.clone()), DataType::VarChar(Some(20)))]).unwrap();
        assert_eq!(decode(&bytes).unwrap(), vec![o]);
        assert!(decode(b"{not json").is_err());
        assert!(decode(b"[{\"name\": 1}]").is_err());
    }
}
