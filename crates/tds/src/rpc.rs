//! RPC requests ([MS-TDS] 2.2.6.6): the procedure (by name or by the well-known id), option
//! flags and typed parameters of each request in an RPC message. The caller strips
//! ALL_HEADERS first; several requests in one message are separated by BatchFlag (0x80) or
//! NoExecFlag (0xFF).

use crate::error::{TdsError, TdsResult};
use crate::types::{read_b_varchar, read_u16, read_u8, read_utf16, write_b_varchar, TypeInfo};
use crate::value_codec::{read_value, write_value};
use ::types::Value;

/// Well-known procedure ids (ProcID, [MS-TDS] 2.2.6.6).
pub mod proc_id {
    pub const SP_CURSOR: u16 = 1;
    pub const SP_CURSOROPEN: u16 = 2;
    pub const SP_CURSORPREPARE: u16 = 3;
    pub const SP_CURSOREXECUTE: u16 = 4;
    pub const SP_CURSORPREPEXEC: u16 = 5;
    pub const SP_CURSORUNPREPARE: u16 = 6;
    pub const SP_CURSORFETCH: u16 = 7;
    pub const SP_CURSOROPTION: u16 = 8;
    pub const SP_CURSORCLOSE: u16 = 9;
    pub const SP_EXECUTESQL: u16 = 10;
    pub const SP_PREPARE: u16 = 11;
    pub const SP_EXECUTE: u16 = 12;
    pub const SP_PREPEXEC: u16 = 13;
    pub const SP_PREPEXECRPC: u16 = 14;
    pub const SP_UNPREPARE: u16 = 15;
}

/// The name of a well-known procedure id (`sp_executesql` for 10...).
pub fn proc_id_name(id: u16) -> Option<&'static str> {
    Some(match id {
        proc_id::SP_CURSOR => "sp_cursor",
        proc_id::SP_CURSOROPEN => "sp_cursoropen",
        proc_id::SP_CURSORPREPARE => "sp_cursorprepare",
        proc_id::SP_CURSOREXECUTE => "sp_cursorexecute",
        proc_id::SP_CURSORPREPEXEC => "sp_cursorprepexec",
        proc_id::SP_CURSORUNPREPARE => "sp_cursorunprepare",
        proc_id::SP_CURSORFETCH => "sp_cursorfetch",
        proc_id::SP_CURSOROPTION => "sp_cursoroption",
        proc_id::SP_CURSORCLOSE => "sp_cursorclose",
        proc_id::SP_EXECUTESQL => "sp_executesql",
        proc_id::SP_PREPARE => "sp_prepare",
        proc_id::SP_EXECUTE => "sp_execute",
        proc_id::SP_PREPEXEC => "sp_prepexec",
        proc_id::SP_PREPEXECRPC => "sp_prepexecrpc",
        proc_id::SP_UNPREPARE => "sp_unprepare",
        _ => return None,
    })
}

/// Option flags of a request.
pub mod option_flags {
    pub const WITH_RECOMPILE: u16 = 0x0001;
    pub const NO_METADATA: u16 = 0x0002;
    pub const REUSE_METADATA: u16 = 0x0004;
}

/// Parameter status flags.
pub mod status_flags {
    /// fByRefValue: an OUTPUT parameter.
    pub const BY_REF: u8 = 0x01;
    /// fDefaultValue: use the parameter's default.
    pub const DEFAULT_VALUE: u8 = 0x02;
    /// fEncrypted (Always Encrypted).
    pub const ENCRYPTED: u8 = 0x08;
}

/// BatchFlag / NoExecFlag: what separates two requests in one RPC message.
pub const BATCH_FLAG: u8 = 0x80;
pub const NO_EXEC_FLAG: u8 = 0xFF;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RpcProc {
    /// A well-known procedure id ([`proc_id`]).
    Id(u16),
    Name(String),
}

impl RpcProc {
    /// The procedure's name (`sp_executesql` for id 10); `None` for an unknown id.
    pub fn name(&self) -> Option<&str> {
        match self {
            RpcProc::Id(id) => proc_id_name(*id),
            RpcProc::Name(n) => Some(n),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RpcParam {
    /// `@name`, or empty for a positional parameter.
    pub name: String,
    /// fByRefValue: an OUTPUT parameter.
    pub output: bool,
    /// fDefaultValue: the procedure's default is to be used (the value is NULL).
    pub by_default: bool,
    pub type_info: TypeInfo,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RpcRequest {
    pub proc: RpcProc,
    pub option_flags: u16,
    pub params: Vec<RpcParam>,
}

/// Parses the requests of an RPC message (`payload` = the bytes after ALL_HEADERS).
/// Errors name what was wrong; unsupported parameter kinds (TVP, UDT, encrypted) are
/// [`TdsError::Unsupported`]. Never panics.
pub fn parse_rpc_batch(payload: &[u8]) -> TdsResult<Vec<RpcRequest>> {
    let mut input = payload;
    let mut reqs = Vec::new();
    loop {
        reqs.push(parse_one(&mut input)?);
        match input.first() {
            None => return Ok(reqs),
            Some(&BATCH_FLAG) | Some(&NO_EXEC_FLAG) => {
                input = &input[1..];
                if input.is_empty() {
                    // A trailing separator with nothing after it.
                    return Ok(reqs);
                }
            }
            Some(b) => {
                return Err(TdsError::Malformed(format!(
                    "RPC: byte 0x{b:02X} where a parameter or batch separator was expected"
                )))
            }
        }
    }
}

fn parse_one(input: &mut &[u8]) -> TdsResult<RpcRequest> {
    let name_len = read_u16(input, "RPC procedure name length")?;
    let proc = if name_len == 0xFFFF {
        RpcProc::Id(read_u16(input, "RPC procedure id")?)
    } else {
        if name_len == 0 {
            return Err(TdsError::Malformed("RPC: empty procedure name".into()));
        }
        RpcProc::Name(read_utf16(input, name_len as usize, "RPC procedure name")?)
    };
    let option_flags = read_u16(input, "RPC option flags")?;
    let mut params = Vec::new();
    while let Some(&b) = input.first() {
        if b == BATCH_FLAG || b == NO_EXEC_FLAG {
            break;
        }
        params.push(parse_param(input, params.len() + 1)?);
    }
    Ok(RpcRequest {
        proc,
        option_flags,
        params,
    })
}

fn parse_param(input: &mut &[u8], ordinal: usize) -> TdsResult<RpcParam> {
    let name = read_b_varchar(input, "RPC parameter name")?;
    let status = read_u8(input, "RPC parameter status")?;
    if status & status_flags::ENCRYPTED != 0 {
        return Err(TdsError::Unsupported(format!(
            "Always Encrypted parameter {ordinal}"
        )));
    }
    let with_ordinal = |e: TdsError| match e {
        TdsError::Malformed(m) => TdsError::Malformed(format!("RPC parameter {ordinal}: {m}")),
        TdsError::Value(m) => TdsError::Value(format!("RPC parameter {ordinal}: {m}")),
        TdsError::Unsupported(m) => TdsError::Unsupported(format!("RPC parameter {ordinal}: {m}")),
        t => t,
    };
    let type_info = TypeInfo::read(input).map_err(with_ordinal)?;
    let value = read_value(input, &type_info).map_err(with_ordinal)?;
    Ok(RpcParam {
        name,
        output: status & status_flags::BY_REF != 0,
        by_default: status & status_flags::DEFAULT_VALUE != 0,
        type_info,
        value,
    })
}

/// Appends one request (client side: tests and `latchkey -S`). Join several with
/// [`BATCH_FLAG`] (see [`write_rpc_batch`]).
pub fn write_rpc(out: &mut Vec<u8>, req: &RpcRequest) -> TdsResult<()> {
    let at = out.len();
    let r = write_rpc_inner(out, req);
    if r.is_err() {
        out.truncate(at);
    }
    r
}

fn write_rpc_inner(out: &mut Vec<u8>, req: &RpcRequest) -> TdsResult<()> {
    match &req.proc {
        RpcProc::Id(id) => {
            out.extend_from_slice(&0xFFFFu16.to_le_bytes());
            out.extend_from_slice(&id.to_le_bytes());
        }
        RpcProc::Name(n) => {
            let units: Vec<u16> = n.encode_utf16().collect();
            if units.is_empty() || units.len() >= 0xFFFF {
                return Err(TdsError::Value(format!(
                    "RPC procedure name of {} characters",
                    units.len()
                )));
            }
            out.extend_from_slice(&(units.len() as u16).to_le_bytes());
            for u in units {
                out.extend_from_slice(&u.to_le_bytes());
            }
        }
    }
    out.extend_from_slice(&req.option_flags.to_le_bytes());
    for p in &req.params {
        write_b_varchar(out, &p.name);
        let mut status = 0;
        if p.output {
            status |= status_flags::BY_REF;
        }
        if p.by_default {
            status |= status_flags::DEFAULT_VALUE;
        }
        out.push(status);
        let ti = if p.value.is_null() {
            p.type_info.nullable_form()
        } else {
            p.type_info.clone()
        };
        ti.write(out);
        write_value(out, &ti, &p.value)?;
    }
    Ok(())
}

/// Appends several requests separated by BatchFlag.
pub fn write_rpc_batch(out: &mut Vec<u8>, reqs: &[RpcRequest]) -> TdsResult<()> {
    for (i, r) in reqs.iter().enumerate() {
        if i > 0 {
            out.push(BATCH_FLAG);
        }
        write_rpc(out, r)?;
    }
    Ok(())
}
