//! The scripted session of tests/clients/README.md through tiberius (Rust, TDS 7.3 codec):
//! plain and TLS connections, several result sets, typed parameters round-tripping, errors with
//! their numbers, a transaction through TDS transaction-manager requests seen from another
//! connection, OUTPUT parameters over RPC with the return status (`tiberius::Command`), and a
//! cancel: the query future dropped by a timeout, then `Client::cancel_query` (an attention).
//!
//! Environment: LK_HOST, LK_PORT, LK_USER, LK_PASSWORD, LK_CLIENT, LK_CAFILE.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use chrono::{FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use tiberius::numeric::Numeric;
use tiberius::{AuthMethod, Client, ColumnData, Command, Config, EncryptionLevel, Row, ToSql};
use tokio::net::TcpStream;
use tokio_util::compat::{Compat, TokioAsyncWriteCompatExt};
use uuid::Uuid;

type Conn = Client<Compat<TcpStream>>;

#[derive(Default)]
struct Checks {
    passed: usize,
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, name: &str, ok: bool, detail: impl FnOnce() -> String) {
        if ok {
            self.passed += 1;
            println!("  ok   {name}");
        } else {
            println!("  FAIL {name}: {}", detail());
            self.failed.push(name.to_string());
        }
    }

    fn equal<T: PartialEq + Debug>(&mut self, name: &str, got: T, want: T) {
        let ok = got == want;
        self.check(name, ok, || format!("got {got:?}, want {want:?}"));
    }

    /// The value, or a failed check naming the error.
    fn ok<T>(&mut self, name: &str, r: tiberius::Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.check(name, false, || e.to_string());
                None
            }
        }
    }

    fn finish(&self) -> ! {
        println!(
            "tiberius: {} passed, {} failed",
            self.passed,
            self.failed.len()
        );
        if !self.failed.is_empty() {
            println!("tiberius: failed: {}", self.failed.join(", "));
            std::process::exit(1);
        }
        std::process::exit(0);
    }
}

fn env(key: &str, default: &str) -> String {
    std::env::var(key)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_string())
}

fn obj(name: &str) -> String {
    format!("dbo.c_{}_{}", env("LK_CLIENT", "tiberius"), name)
}

async fn connect(encryption: EncryptionLevel) -> tiberius::Result<Conn> {
    let mut config = Config::new();
    config.host(env("LK_HOST", "127.0.0.1"));
    config.port(env("LK_PORT", "1433").parse().unwrap_or(1433));
    config.database("master");
    config.authentication(AuthMethod::sql_server(
        env("LK_USER", "sa"),
        env("LK_PASSWORD", ""),
    ));
    config.encryption(encryption);
    // the certificate run.sh made is self-signed: trusted as TrustServerCertificate does
    // (webpki refuses it as its own trust anchor: openssl req -x509 marks it CA:TRUE, and a CA
    // certificate is not accepted as the server's end-entity certificate)
    config.trust_cert();
    config.command_timeout(Some(Duration::from_secs(60)));
    let tcp = TcpStream::connect(config.get_addr()).await?;
    tcp.set_nodelay(true)?;
    Client::connect(config, tcp.compat_write()).await
}

/// Every result set of a batch, each row rendered as its cells' text.
async fn results(client: &mut Conn, sql: &str) -> tiberius::Result<Vec<Vec<String>>> {
    let sets = client.simple_query(sql).await?.into_results().await?;
    Ok(sets
        .into_iter()
        .map(|set| set.into_iter().map(render_row).collect())
        .collect())
}

fn render_row(row: Row) -> String {
    row.into_iter()
        .map(|cell| render(&cell))
        .collect::<Vec<_>>()
        .join(" ")
}

fn render(cell: &ColumnData<'_>) -> String {
    match cell {
        ColumnData::U8(Some(v)) => v.to_string(),
        ColumnData::I16(Some(v)) => v.to_string(),
        ColumnData::I32(Some(v)) => v.to_string(),
        ColumnData::I64(Some(v)) => v.to_string(),
        ColumnData::F32(Some(v)) => v.to_string(),
        ColumnData::F64(Some(v)) => v.to_string(),
        ColumnData::Bit(Some(v)) => v.to_string(),
        ColumnData::String(Some(v)) => v.to_string(),
        ColumnData::Numeric(Some(v)) => v.to_string(),
        ColumnData::Guid(Some(v)) => v.to_string(),
        ColumnData::Binary(Some(v)) => format!(
            "0x{}",
            v.iter().map(|b| format!("{b:02X}")).collect::<String>()
        ),
        other => format!("{other:?}"),
    }
}

/// The first row of a one-row query with parameters.
async fn one_row(
    client: &mut Conn,
    sql: &str,
    params: &[&dyn ToSql],
) -> tiberius::Result<Option<Row>> {
    client.query(sql, params).await?.into_row().await
}

/// The server error a result carries: (number, class, message).
fn server_error<T>(r: tiberius::Result<T>) -> Option<(u32, u8, String)> {
    match r {
        Err(tiberius::error::Error::Server(e)) => {
            Some((e.code(), e.class(), e.message().to_string()))
        }
        _ => None,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Checks::default();
    println!(
        "tiberius: {}:{}",
        env("LK_HOST", "127.0.0.1"),
        env("LK_PORT", "1433")
    );

    // tiberius's Off: login-only encryption (the LOGIN7 packet under TLS, then plain)
    let Some(mut client) = c.ok("connect without TLS", connect(EncryptionLevel::Off).await) else {
        c.finish()
    };
    match c.ok(
        "plain connection",
        results(&mut client, "SELECT 1, DB_NAME()").await,
    ) {
        Some(sets) => c.equal(
            "plain connection: SELECT 1, DB_NAME()",
            sets,
            vec![vec!["1 master".to_string()]],
        ),
        None => c.finish(),
    }
    if let Some(mut unencrypted) = c.ok(
        "connect with no encryption at all",
        connect(EncryptionLevel::NotSupported).await,
    ) {
        let got = c.ok(
            "unencrypted connection",
            results(&mut unencrypted, "SELECT 3").await,
        );
        if let Some(sets) = got {
            c.equal(
                "unencrypted connection: SELECT 3",
                sets,
                vec![vec!["3".to_string()]],
            );
        }
    }
    if let Some(mut tls) = c.ok("connect with TLS", connect(EncryptionLevel::Required).await) {
        if let Some(sets) = c.ok("TLS connection", results(&mut tls, "SELECT 2").await) {
            c.equal(
                "TLS connection: SELECT 2",
                sets,
                vec![vec!["2".to_string()]],
            );
        }
    }

    if let Some(mut strict) = c.ok(
        "connect with TDS 8.0 strict encryption",
        connect(EncryptionLevel::Strict).await,
    ) {
        // a date comes back as a date only if LOGINACK said 7.3 or later
        let got = one_row(&mut strict, "SELECT CAST('2024-02-29' AS date)", &[]).await;
        if let Some(row) = c.ok("strict connection", got) {
            let d = row.and_then(|r| r.get::<NaiveDate, _>(0));
            c.equal(
                "strict connection: a date",
                d,
                NaiveDate::from_ymd_opt(2024, 2, 29),
            );
        }
    }

    result_sets(&mut c, &mut client).await;
    round_trip(&mut c, &mut client).await;
    server_typed(&mut c, &mut client).await;
    errors(&mut c, &mut client).await;
    setup(&mut c, &mut client).await;
    transaction(&mut c, &mut client).await;
    output_params(&mut c, &mut client).await;
    cancel(&mut c, &mut client).await;
    c.finish()
}

async fn result_sets(c: &mut Checks, client: &mut Conn) {
    let sql = "SELECT 1 AS a, N'x' AS b; SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v; \
               SELECT name FROM sys.databases WHERE 1 = 0; SELECT N'last' AS z";
    let Some(sets) = c.ok("several result sets", results(client, sql).await) else {
        return;
    };
    let want: Vec<Vec<String>> = vec![
        vec!["1 x".into()],
        vec!["2".into(), "3".into()],
        vec![],
        vec!["last".into()],
    ];
    c.equal("several result sets", sets, want);
}

async fn round_trip(c: &mut Checks, client: &mut Conn) {
    // `$ty` is bound and read back; `$read` is the type read (a borrowed form for String and
    // Vec<u8>), turned back into `$ty` by `$own`
    macro_rules! param {
        ($name:expr, $ty:ty, $value:expr) => {
            param!($name, $ty, $value, $ty, |v| v)
        };
        ($name:expr, $ty:ty, $value:expr, $read:ty, $own:expr) => {{
            let value: $ty = $value;
            let got = one_row(client, "SELECT @P1", &[&value]).await;
            if let Some(row) = c.ok(concat!("param ", $name), got) {
                let cell: Option<$ty> = row
                    .as_ref()
                    .and_then(|r| r.try_get::<$read, _>(0).ok().flatten())
                    .map($own);
                c.equal(concat!("param ", $name), cell, Some(value));
            }
        }};
    }
    param!("int", i32, i32::MIN);
    param!("bigint", i64, 1 << 40);
    param!("smallint", i16, -32768);
    param!("tinyint", u8, 255);
    param!("bit", bool, true);
    param!("float", f64, 1.0e300 / 3.0);
    param!("real", f32, 1.5e-20);
    let text = |v: &str| v.to_string();
    let bytes = |v: &[u8]| v.to_vec();
    param!(
        "nvarchar",
        String,
        "h\u{e9}llo \u{2713} \u{4e16}\u{754c}".to_string(),
        &str,
        text
    );
    param!(
        "nvarchar(max)",
        String,
        "long \u{e9} ".repeat(2000),
        &str,
        text
    );
    param!("varbinary", Vec<u8>, vec![0, 1, 0xfe, 0xff], &[u8], bytes);
    param!(
        "varbinary(max)",
        Vec<u8>,
        [1u8, 2, 3, 4].repeat(3000),
        &[u8],
        bytes
    );
    param!("decimal", Numeric, Numeric::new_with_scale(123_456_789, 4));
    param!(
        "uniqueidentifier",
        Uuid,
        Uuid::from_u128(0x6f9619ff_8b86_d011_b42d_00c04fc964ff)
    );
    let date = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap_or_default();
    param!("date", NaiveDate, date);
    param!(
        "date 0001-01-01",
        NaiveDate,
        NaiveDate::from_ymd_opt(1, 1, 1).unwrap_or_default()
    );
    let time = NaiveTime::from_hms_nano_opt(13, 45, 10, 123_456_700).unwrap_or_default();
    param!("time", NaiveTime, time);
    param!("datetime2", NaiveDateTime, date.and_time(time));
    let offset = FixedOffset::east_opt(5 * 3600 + 30 * 60)
        .unwrap_or(FixedOffset::east_opt(0).unwrap_or_else(|| unreachable!()));
    let dto = offset.from_local_datetime(&date.and_time(time)).single();
    if let Some(dto) = dto {
        param!("datetimeoffset", chrono::DateTime<FixedOffset>, dto);
    }
    // NULL: a typed NULL parameter comes back NULL
    let null: Option<i32> = None;
    if let Some(row) = c.ok("param NULL", one_row(client, "SELECT @P1", &[&null]).await) {
        let cell = row.as_ref().map(|r| r.try_get::<i32, _>(0).ok().flatten());
        c.equal("param NULL", cell, Some(None));
    }
    // several parameters in one statement
    let (a, b) = (20i32, "x".to_string());
    if let Some(row) = c.ok(
        "two parameters",
        one_row(client, "SELECT @P1 + 1, @P2 + N'y'", &[&a, &b]).await,
    ) {
        let got = row.map(render_row);
        c.equal("two parameters", got, Some("21 xy".to_string()));
    }
}

async fn server_typed(c: &mut Checks, client: &mut Conn) {
    let sql = "SELECT CAST(255 AS tinyint), CAST(-32768 AS smallint), CAST(2147483647 AS int), \
               CAST(-9223372036854775808 AS bigint), CAST(1 AS bit), CAST(1.5 AS real), CAST(-2.25 AS float), \
               CAST(12345678901234567890.1234567891 AS decimal(38,10)), CAST(-12345.6789 AS money), \
               CAST('ab' AS char(4)), CAST(0x0102 AS binary(3)), REPLICATE(CAST('v' AS varchar(max)), 9000)";
    let Some(Some(row)) = c.ok("server-typed values", one_row(client, sql, &[]).await) else {
        return;
    };
    let cells: Vec<String> = row.into_iter().map(|cell| render(&cell)).collect();
    let want = [
        "255",
        "-32768",
        "2147483647",
        "-9223372036854775808",
        "true",
        "1.5",
        "-2.25",
        "12345678901234567890.1234567891",
        "-12345.6789", // tiberius decodes money as an f64
        "ab  ",
        "0x010200",
    ];
    for (i, w) in want.iter().enumerate() {
        let got = cells.get(i).cloned().unwrap_or_default();
        c.equal(&format!("server-typed column {}", i + 1), got.as_str(), *w);
    }
    let long = cells.get(11).cloned().unwrap_or_default();
    c.equal("server-typed varchar(max)", long, "v".repeat(9000));

    let sql = "SELECT CAST('2024-02-29T13:45:10.997' AS datetime), CAST('2024-02-29T13:45:10.1234567' AS datetime2(7)), \
               CAST('0001-01-01' AS date), CAST('23:59:59.9999999' AS time(7)), \
               CAST('2024-02-29T13:45:10.1234567+05:30' AS datetimeoffset(7))";
    let Some(Some(row)) = c.ok("server-typed dates", one_row(client, sql, &[]).await) else {
        return;
    };
    let ymd = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default();
    let hms = |h, m, s, n| NaiveTime::from_hms_nano_opt(h, m, s, n).unwrap_or_default();
    c.equal(
        "datetime (1/300 s ticks)",
        row.get::<NaiveDateTime, _>(0),
        Some(ymd(2024, 2, 29).and_time(hms(13, 45, 10, 996_666_666))),
    );
    c.equal(
        "datetime2(7)",
        row.get::<NaiveDateTime, _>(1),
        Some(ymd(2024, 2, 29).and_time(hms(13, 45, 10, 123_456_700))),
    );
    c.equal("date", row.get::<NaiveDate, _>(2), Some(ymd(1, 1, 1)));
    c.equal(
        "time(7)",
        row.get::<NaiveTime, _>(3),
        Some(hms(23, 59, 59, 999_999_900)),
    );
    let dto = row.get::<chrono::DateTime<FixedOffset>, _>(4);
    c.equal(
        "datetimeoffset(7)",
        dto.map(|d| d.to_rfc3339()),
        Some("2024-02-29T13:45:10.123456700+05:30".to_string()),
    );
}

async fn errors(c: &mut Checks, client: &mut Conn) {
    let missing = obj("no_such_table");
    let cases = [
        (
            format!("SELECT * FROM {missing}"),
            208u32,
            format!("Invalid object name '{missing}'."),
        ),
        (
            "SELECT 1/0".to_string(),
            8134,
            "Divide by zero error encountered.".to_string(),
        ),
        (
            "RAISERROR('custom %d', 16, 1, 42)".to_string(),
            50000,
            "custom 42".to_string(),
        ),
    ];
    for (sql, number, text) in cases {
        let got = match client.simple_query(sql).await {
            Ok(stream) => stream.into_results().await.map(|_| ()),
            Err(e) => Err(e),
        };
        match server_error(got) {
            Some((code, class, message)) => {
                c.equal(&format!("error {number}: number"), code, number);
                c.equal(&format!("error {number}: message"), message, text);
                c.equal(&format!("error {number}: severity"), class, 16);
            }
            None => c.check(&format!("error {number}"), false, || {
                "no server error".into()
            }),
        }
        if let Some(sets) = c.ok("after an error", results(client, "SELECT 5").await) {
            c.equal(
                &format!("error {number}: connection still usable"),
                sets,
                vec![vec!["5".to_string()]],
            );
        }
    }
}

async fn setup(c: &mut Checks, client: &mut Conn) {
    let (t, out) = (obj("t"), obj("out"));
    for sql in [
        format!("IF OBJECT_ID('{t}') IS NOT NULL DROP TABLE {t}"),
        format!("CREATE TABLE {t} (id int PRIMARY KEY, v nvarchar(50))"),
        format!("IF OBJECT_ID('{out}') IS NOT NULL DROP PROCEDURE {out}"),
        format!(
            "CREATE PROCEDURE {out} @a int, @b int OUTPUT, @s nvarchar(20) OUTPUT AS \
             BEGIN SET @b = @a * 2; SET @s = N'out:' + CAST(@a AS nvarchar(10)); RETURN 7; END"
        ),
    ] {
        let r = client.execute(sql.as_str(), &[]).await.map(|_| ());
        let name = format!("setup: {}", &sql[..20.min(sql.len())]);
        if c.ok(&name, r).is_some() {
            c.check(&name, true, String::new);
        }
    }
}

async fn transaction(c: &mut Checks, client: &mut Conn) {
    let t = obj("t");
    if c.ok("begin (TM request)", client.begin_transaction().await)
        .is_none()
    {
        return;
    }
    let insert = format!("INSERT INTO {t} (id, v) VALUES (1, N'rolled back')");
    let r = client
        .execute(insert.as_str(), &[])
        .await
        .map(|r| r.total());
    c.ok("insert in transaction", r);
    c.ok("rollback (TM request)", client.rollback_transaction().await);
    if let Some(sets) = c.ok(
        "count",
        results(client, &format!("SELECT COUNT(*) FROM {t}")).await,
    ) {
        c.equal(
            "rollback undoes the insert",
            sets,
            vec![vec!["0".to_string()]],
        );
    }

    if c.ok("begin (TM request)", client.begin_transaction().await)
        .is_none()
    {
        return;
    }
    let insert = format!("INSERT INTO {t} (id, v) VALUES (@P1, @P2)");
    let r = client
        .execute(insert.as_str(), &[&2i32, &"committed"])
        .await
        .map(|r| r.total());
    if let Some(n) = c.ok("insert with parameters", r) {
        c.equal("insert with parameters: rows affected", n, 1);
    }
    c.ok("commit (TM request)", client.commit_transaction().await);
    let Some(mut other) = c.ok("second connection", connect(EncryptionLevel::Off).await) else {
        return;
    };
    let read = format!("SELECT v FROM {t} WHERE id = 2");
    if let Some(sets) = c.ok("read back", results(&mut other, &read).await) {
        c.equal(
            "commit seen from another connection",
            sets,
            vec![vec!["committed".to_string()]],
        );
    }
}

async fn output_params(c: &mut Checks, client: &mut Conn) {
    let out = obj("out");
    let mut cmd = Command::new(out.as_str());
    cmd.bind_param("@a", 21i32);
    cmd.bind_out_param("@b", None::<i32>);
    cmd.bind_out_param("@s", "x".repeat(20));
    let r = match cmd.exec(client).await {
        Ok(stream) => stream.into_command_result().await,
        Err(e) => Err(e),
    };
    let Some(res) = c.ok("OUTPUT parameters (RPC)", r) else {
        return;
    };
    c.equal(
        "OUTPUT int",
        res.try_return_value::<i32>("@b").ok().flatten(),
        Some(42),
    );
    c.equal(
        "OUTPUT nvarchar",
        res.try_return_value::<&str>("@s").ok().flatten(),
        Some("out:21"),
    );
    c.equal("return status", res.return_code(), 7);
}

async fn cancel(c: &mut Checks, client: &mut Conn) {
    // tiberius cancels by dropping the query future (here at a timeout) and sending an
    // attention with Client::cancel_query, which reads up to the DONE with the attention bit
    let start = Instant::now();
    let run = tokio::time::timeout(Duration::from_secs(1), async {
        client
            .simple_query("WAITFOR DELAY '00:00:20'")
            .await?
            .into_results()
            .await
    })
    .await;
    c.check(
        "cancel: WAITFOR still running at the timeout",
        run.is_err(),
        || "it finished".into(),
    );
    let acked = client.cancel_query().await;
    let elapsed = start.elapsed();
    // the cancelled request's response came back, so the server stopped the WAITFOR
    c.check(
        "cancel stops WAITFOR within 10 s",
        elapsed < Duration::from_secs(10),
        || format!("{elapsed:?}"),
    );
    match acked {
        Ok(()) => {
            c.check("cancel: attention acknowledged", true, String::new);
            if let Some(sets) = c.ok("after cancel", results(client, "SELECT 4").await) {
                c.equal(
                    "connection usable after cancel",
                    sets,
                    vec![vec!["4".to_string()]],
                );
            }
        }
        // tiberius 0.13.0 reads one response after the attention (flush_done_attention stops
        // at the end of the message); the server ends the cancelled request's response and
        // acknowledges in the next message, which [MS-TDS] 3.2.5.7 (Sent Attention state)
        // has a client read on for, and which tedious requires. The connection then still
        // holds the acknowledgement, so it is not used again.
        Err(tiberius::error::Error::Protocol(m)) if m.contains("Never got a DONE token") => {
            println!(
                "  skip cancel: attention acknowledged / connection usable after cancel: tiberius \
                 0.13.0 reads only the first response after an attention, the acknowledgement \
                 comes in the next message ([MS-TDS] 3.2.5.7)"
            );
        }
        Err(e) => c.check("cancel: attention acknowledged", false, || e.to_string()),
    }
}
