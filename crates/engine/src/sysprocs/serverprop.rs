//! `SERVERPROPERTY(name)`.
//!
//! Version choice: latchkey reports SQL Server's version *shape* with major version 16 (SQL
//! Server 2022, whose T-SQL surface latchkey targets: GREATEST/LEAST, APPROX_COUNT_DISTINCT,
//! ...) so that drivers and tools that branch on `ProductMajorVersion` / `ProductVersion` work,
//! and its own release in the build number: `ProductVersion` = `16.0.<build>.0` where build
//! = major*10000 + minor*100 + patch of latchkey's version (0.1.0 → `16.0.100.0`).
//! `Edition` says latchkey. Unknown properties (and NULL) give NULL, as in SQL Server. The
//! binder types the result `nvarchar(128)` (latchkey has no sql_variant yet).

use types::Value;

use crate::session::Session;

/// `16.0.<build>.0`, see the module comment.
fn latchkey_build() -> u32 {
    let part = |s: &str| s.parse::<u32>().unwrap_or(0);
    let major = part(env!("CARGO_PKG_VERSION_MAJOR"));
    let minor = part(env!("CARGO_PKG_VERSION_MINOR"));
    let patch = part(env!("CARGO_PKG_VERSION_PATCH"));
    major * 10_000 + minor * 100 + patch
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

/// `SERVERPROPERTY(prop)`.
pub(crate) fn server_property(session: &Session, prop: Option<&Value>) -> Value {
    let Some(p) = prop
        .filter(|v| !v.is_null())
        .and_then(|v| crate::render::value_text(v, &types::DataType::NVarChar(None)))
    else {
        return Value::Null;
    };
    let text = |s: &str| Value::NVarChar(s.to_string());
    let num = |n: i64| Value::NVarChar(n.to_string());
    let build = latchkey_build();
    match p.trim().to_ascii_lowercase().as_str() {
        "productversion" => text(&format!("16.0.{build}.0")),
        "productmajorversion" => num(16),
        "productminorversion" => num(0),
        "productbuild" => num(build as i64),
        "productlevel" => text("RTM"),
        "productupdatelevel" | "productupdatereference" | "productbuildtype" => Value::Null,
        "resourceversion" => text(&format!("16.00.{build}")),
        "edition" => text("latchkey (64-bit)"),
        // Developer Edition's id; EngineEdition 3 = the Enterprise-class feature set
        "editionid" => num(-2_117_995_310),
        "engineedition" => num(3),
        "servername" => text("latchkey"),
        "machinename" | "computernamephysicalnetbios" => text(&host_name()),
        "instancename" => Value::Null,
        "instancedefaultdatapath" | "instancedefaultlogpath" | "instancedefaultbackuppath" => {
            let mut d = session.engine().data_dir().display().to_string();
            if !d.ends_with('/') {
                d.push('/');
            }
            text(&d)
        }
        "collation" => text("SQL_Latin1_General_CP1_CI_AS"),
        "collationid" => num(872_468_488),
        "lcid" => num(1033),
        "sqlcharset" => num(1),
        "sqlcharsetname" => text("iso_1"),
        "sqlsortorder" => num(52),
        "sqlsortordername" => text("nocase_iso"),
        "comparisonstyle" => num(196_609),
        "processid" => num(std::process::id() as i64),
        // SQL logins only: there is no Windows authentication
        "isintegratedsecurityonly"
        | "isclustered"
        | "isfulltextinstalled"
        | "ishadrenabled"
        | "issingleuser"
        | "islocaldb"
        | "isxtpsupported"
        | "ispolybaseinstalled"
        | "isadvancedanalyticsinstalled"
        | "isbigdatacluster"
        | "istempdbmetadatamemoryoptimized"
        | "isexternalauthenticationonly"
        | "filestreamconfiguredlevel"
        | "filestreameffectivelevel" => num(0),
        _ => Value::Null,
    }
}
