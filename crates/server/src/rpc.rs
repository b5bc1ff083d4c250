//! RPC requests ([MS-TDS] 2.2.6.6): procedure calls by name or by well-known id. Every call runs
//! on the engine's own EXEC path: the RPC becomes `EXEC @rs = proc @a = @v0 OUTPUT, ...` run
//! through `Session::execute_parameterized` with the client's parameters as the typed outer
//! variables, so declared parameter types, defaults, conversions and OUTPUT semantics are the
//! engine's. The final values of the outer variables come back as RETURNVALUE tokens, the
//! procedure's status as RETURNSTATUS. sp_prepare / sp_execute / sp_prepexec / sp_unprepare
//! keep the prepared statements of the connection in [`Prepared`].

use std::collections::HashMap;
use std::io::{self, Write};

use common::SqlError;
use engine::{EventSink, Session};
use tds::rpc::{parse_rpc_batch_checked, proc_id, RpcParam, RpcParseError, RpcProc, RpcRequest};
use tds::tokens::{self, done_status, token, Done};
use types::{DataType, Value};

use crate::sink::TdsSink;

/// The prepared statements of one connection (sp_prepare handles).
#[derive(Default)]
pub(crate) struct Prepared {
    map: HashMap<i32, (String, String)>,
    next: i32,
}

impl Prepared {
    fn add(&mut self, decl: String, stmt: String) -> i32 {
        self.next += 1;
        self.map.insert(self.next, (decl, stmt));
        self.next
    }
}

const RS: &str = "@__rpc_rs";

fn var(i: usize) -> String {
    format!("@__rpc{i}")
}

fn quote(name: &str) -> String {
    // A multi-part name is kept as the client wrote it (dbo.p, [dbo].[p]).
    if name.contains('.') || name.starts_with('[') {
        name.to_string()
    } else {
        format!("[{}]", name.replace(']', "]]"))
    }
}

fn text_of(v: &Value) -> Option<String> {
    engine::render::value_text(v, &DataType::NVarChar(None))
}

fn int_of(v: &Value) -> Option<i32> {
    text_of(v).and_then(|t| t.trim().parse().ok())
}

pub(crate) fn handle<W: Write>(
    session: &mut Session,
    prepared: &mut Prepared,
    payload: &[u8],
    sink: &mut TdsSink<'_, W>,
) -> io::Result<()> {
    let (_, used) = tds::batch::parse_all_headers(payload).map_err(tds::packet::to_io)?;
    let reqs = match parse_rpc_batch_checked(&payload[used..]) {
        Ok(r) => r,
        // A bad parameter: SQL Server's Msg 80xx, the connection stays.
        Err(RpcParseError {
            sql_error: Some(e), ..
        }) => {
            sink.error(&e);
            return Ok(());
        }
        Err(RpcParseError {
            error: tds::TdsError::Unsupported(m),
            ..
        }) => {
            sink.error(&SqlError::custom(
                40517,
                16,
                1,
                format!("Keyword or statement option '{m}' is not supported in this version of SQL Server."),
            ));
            return Ok(());
        }
        // A cut or unreadable message: a framing error, the connection closes.
        Err(e) => return Err(tds::packet::to_io(e.error)),
    };
    let n = reqs.len();
    for (i, req) in reqs.into_iter().enumerate() {
        call(session, prepared, req, sink);
        if i + 1 < n {
            let mut status = done_status::MORE;
            if std::mem::take(&mut sink.error_pending) {
                status |= done_status::ERROR;
            }
            tokens::done(
                sink.buf(),
                token::DONEPROC,
                &Done {
                    status,
                    cur_cmd: tokens::cur_cmd::EXECUTE,
                    row_count: 0,
                },
            );
        }
    }
    Ok(())
}

fn wrong_params<W: Write>(sink: &mut TdsSink<'_, W>, proc: &str) {
    sink.error(&SqlError::custom(
        8144,
        16,
        2,
        format!("Procedure or function {proc} has too many arguments specified."),
    ));
}

fn call<W: Write>(
    session: &mut Session,
    prepared: &mut Prepared,
    req: RpcRequest,
    sink: &mut TdsSink<'_, W>,
) {
    let id = match &req.proc {
        RpcProc::Id(id) => Some(*id),
        RpcProc::Name(n) => match n.to_ascii_lowercase().trim_start_matches("sys.") {
            "sp_executesql" => Some(proc_id::SP_EXECUTESQL),
            "sp_prepare" => Some(proc_id::SP_PREPARE),
            "sp_execute" => Some(proc_id::SP_EXECUTE),
            "sp_prepexec" => Some(proc_id::SP_PREPEXEC),
            "sp_unprepare" => Some(proc_id::SP_UNPREPARE),
            _ => None,
        },
    };
    let mut params = req.params;
    match id {
        None => {
            let name = req.proc.name().unwrap_or_default().to_string();
            exec(session, &quote(&name), Vec::new(), &params, 0, sink, true);
        }
        Some(proc_id::SP_EXECUTESQL) => {
            // The statement and the declarations are taken by position, whatever the client
            // names them: tiberius sends them as "stmt" and "params", without the @.
            for p in params.iter_mut().take(2) {
                p.name.clear();
            }
            exec(session, "sp_executesql", Vec::new(), &params, 0, sink, true);
        }
        Some(proc_id::SP_PREPARE) | Some(proc_id::SP_PREPEXEC) => {
            let execute = id == Some(proc_id::SP_PREPEXEC);
            if params.len() < 3 {
                wrong_params(sink, if execute { "sp_prepexec" } else { "sp_prepare" });
                return;
            }
            let decl = text_of(&params[1].value).unwrap_or_default();
            let stmt = text_of(&params[2].value).unwrap_or_default();
            let handle = prepared.add(decl.clone(), stmt.clone());
            // The handle goes back first (ordinal 0, @handle OUTPUT).
            return_value(sink, 0, &params[0], &Value::Int(handle));
            if execute {
                let pre = vec![
                    (Value::NVarChar(stmt), DataType::NVarChar(None)),
                    (Value::NVarChar(decl), DataType::NVarChar(None)),
                ];
                exec(session, "sp_executesql", pre, &params[3..], 3, sink, false);
            } else {
                tokens::return_status(sink.buf(), 0);
            }
        }
        Some(proc_id::SP_EXECUTE) => {
            let Some(h) = params.first().and_then(|p| int_of(&p.value)) else {
                wrong_params(sink, "sp_execute");
                return;
            };
            let Some((decl, stmt)) = prepared.map.get(&h).cloned() else {
                sink.error(&SqlError::custom(
                    8179,
                    16,
                    2,
                    format!("Could not find prepared statement with handle {h}."),
                ));
                return;
            };
            let pre = vec![
                (Value::NVarChar(stmt), DataType::NVarChar(None)),
                (Value::NVarChar(decl), DataType::NVarChar(None)),
            ];
            exec(session, "sp_executesql", pre, &params[1..], 1, sink, true);
        }
        Some(proc_id::SP_UNPREPARE) => {
            if let Some(h) = params.first().and_then(|p| int_of(&p.value)) {
                prepared.map.remove(&h);
            }
            tokens::return_status(sink.buf(), 0);
        }
        Some(other) => {
            let name = tds::rpc::proc_id_name(other).unwrap_or("unknown procedure id");
            sink.error(&SqlError::custom(
                40517,
                16,
                1,
                format!("Keyword or statement option '{name}' is not supported in this version of SQL Server."),
            ));
        }
    }
}

fn return_value<W: Write>(sink: &mut TdsSink<'_, W>, ordinal: usize, p: &RpcParam, v: &Value) {
    let at = sink.buf().len();
    if tds::rows::write_returnvalue(sink.buf(), ordinal as u16, &p.name, true, &p.type_info, v)
        .is_err()
    {
        sink.buf().truncate(at);
    }
}

/// Runs `EXEC @rs = target pre..., params...` with `pre` (fixed leading arguments, e.g. the
/// statement and declarations of a prepared handle) and the client's `params` (their
/// ordinals start at `first_ordinal`), then sends RETURNSTATUS and RETURNVALUEs.
fn exec<W: Write>(
    session: &mut Session,
    target: &str,
    pre: Vec<(Value, DataType)>,
    params: &[RpcParam],
    first_ordinal: usize,
    sink: &mut TdsSink<'_, W>,
    status: bool,
) {
    let mut vars: Vec<(String, DataType, Value)> = vec![(RS.into(), DataType::Int, Value::Null)];
    let mut args: Vec<String> = Vec::new();
    for (i, (v, t)) in pre.into_iter().enumerate() {
        let name = format!("@__rpcpre{i}");
        args.push(name.clone());
        vars.push((name, t, v));
    }
    let mut typed = Vec::with_capacity(params.len());
    for (i, p) in params.iter().enumerate() {
        let t = match p.type_info.to_data_type() {
            Ok(t) => t,
            Err(e) => {
                sink.error(&SqlError::custom(
                    8016,
                    16,
                    2,
                    format!("The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter {} (\"{}\"): {e}", i + 1 + first_ordinal, p.name),
                ));
                return;
            }
        };
        let v = var(i);
        let mut a = if p.by_default {
            "DEFAULT".to_string()
        } else {
            v.clone()
        };
        if p.output && !p.by_default {
            a.push_str(" OUTPUT");
        }
        if !p.name.is_empty() {
            a = format!("{} = {a}", p.name);
        }
        args.push(a);
        typed.push(t.clone());
        vars.push((v, t, p.value.clone()));
    }
    let text = format!("EXEC {RS} = {target} {}", args.join(", "));
    let out = session.execute_parameterized(&text, vars, sink);
    if status {
        if let Some(Value::Int(rs)) = out.first() {
            tokens::return_status(sink.buf(), *rs);
        }
    }
    let skip = out.len().saturating_sub(params.len());
    for (i, p) in params.iter().enumerate() {
        if p.output {
            let v = out.get(skip + i).cloned().unwrap_or(Value::Null);
            return_value(sink, first_ordinal + i, p, &v);
        }
    }
}
