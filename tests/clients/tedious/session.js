// The scripted session of tests/clients/README.md through tedious (pure-JavaScript TDS):
// plain and TLS connections, several result sets, typed parameters round-tripping through
// sp_executesql, errors with their numbers, a transaction (transaction-manager requests),
// OUTPUT parameters over RPC with the return status, and request.cancel() (an attention).
//
// Environment: LK_HOST, LK_PORT, LK_USER, LK_PASSWORD, LK_CLIENT.
'use strict';
const { Connection, Request, TYPES } = require('tedious');
const assert = require('node:assert');

const env = (k, d) => process.env[k] || d;
const obj = (n) => `dbo.c_${env('LK_CLIENT', 'tedious')}_${n}`;
let passed = 0;
const failed = [];

function check(name, ok, detail) {
  if (ok) { passed++; console.log(`  ok   ${name}`); } else { failed.push(name); console.log(`  FAIL ${name}: ${detail}`); }
}
function equal(name, got, want) {
  let ok = true;
  try { assert.deepStrictEqual(got, want); } catch { ok = false; }
  check(name, ok, `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

function connect(tls) {
  return new Promise((resolve, reject) => {
    const options = {
      port: Number(env('LK_PORT', '1433')), database: 'master', encrypt: tls, trustServerCertificate: true,
      connectTimeout: 10000, requestTimeout: 0, rowCollectionOnRequestCompletion: false,
    };
    // TDS 8.0 checks the certificate whatever trustServerCertificate says: trust run.sh's
    if (tls === 'strict') options.cryptoCredentialsDetails = { ca: require('node:fs').readFileSync(env('LK_CAFILE', '')) };
    const conn = new Connection({
      server: env('LK_HOST', '127.0.0.1'),
      authentication: { type: 'default', options: { userName: env('LK_USER', 'sa'), password: env('LK_PASSWORD', '') } },
      options,
    });
    conn.on('connect', (err) => (err ? reject(err) : resolve(conn)));
    conn.connect();
  });
}

// Runs a batch (or sp_executesql with params): resolves with the result sets.
function run(conn, sql, params = [], how = 'execSql') {
  return new Promise((resolve, reject) => {
    const sets = [];
    let cur = null;
    const req = new Request(sql, (err) => (err ? reject(err) : resolve(sets)));
    for (const [name, type, value, opts] of params) req.addParameter(name, type, value, opts);
    req.on('columnMetadata', () => { cur = []; sets.push(cur); });
    req.on('row', (cols) => cur.push(cols.map((c) => c.value)));
    conn[how](req);
  });
}

const close = (conn) => new Promise((resolve) => {
  if (conn.closed) { resolve(); return; }
  conn.on('end', resolve);
  conn.close();
  setTimeout(resolve, 2000);
});

// If the event loop drains while a promise waits on an event that never comes, Node exits
// with status 0 without running the summary: count that as a failure, never as a pass.
let summarized = false;
process.on('exit', () => {
  if (!summarized) {
    console.log(`tedious: ${passed} passed, ${failed.length + 1} failed`);
    console.log('tedious: failed: the session ended before its summary (a request never completed)');
    process.exitCode = 1;
  }
});

async function main() {
  console.log(`tedious: ${env('LK_HOST', '127.0.0.1')}:${env('LK_PORT', '1433')}`);
  let conn;
  try {
    conn = await connect(false);
    equal('plain connection: SELECT 1', (await run(conn, 'SELECT 1'))[0], [[1]]);
  } catch (e) {
    check('connect without TLS', false, String(e));
    return;
  }
  try {
    const tconn = await connect(true);
    equal('TLS connection: SELECT 2', (await run(tconn, 'SELECT 2'))[0], [[2]]);
    await close(tconn);
  } catch (e) { check('connect with TLS', false, String(e)); }
  try {
    // TDS 8.0 strict encryption: TLS (ALPN tds/8.0) before PRELOGIN
    const sconn = await connect('strict');
    equal('TDS 8.0 strict connection: SELECT 3', (await run(sconn, 'SELECT 3'))[0], [[3]]);
    await close(sconn);
  } catch (e) { check('connect with TDS 8.0 strict encryption', false, String(e)); }

  try {
    const sets = await run(conn, "SELECT 1 AS a, N'x' AS b; SELECT v FROM (VALUES (2), (3)) AS t(v) ORDER BY v; "
      + "SELECT name FROM sys.databases WHERE 1 = 0; SELECT N'last' AS z");
    equal('several result sets', sets, [[[1, 'x']], [[2], [3]], [], [['last']]]);
  } catch (e) { check('several result sets', false, String(e)); }

  const when = new Date(Date.UTC(2024, 1, 29, 13, 45, 10, 123));
  const cases = [
    ['Int', TYPES.Int, -2147483648],
    ['BigInt', TYPES.BigInt, '1099511627783'],
    ['SmallInt', TYPES.SmallInt, -32768],
    ['TinyInt', TYPES.TinyInt, 255],
    ['Bit', TYPES.Bit, true],
    ['Float', TYPES.Float, 1.0e300 / 3],
    ['Real', TYPES.Real, 0.5],
    ['Decimal', TYPES.Decimal, 12345.6789, { precision: 10, scale: 4 }],
    ['Numeric', TYPES.Numeric, -0.0001, { precision: 10, scale: 4 }],
    ['Money', TYPES.Money, -922337203685.4775],
    ['SmallMoney', TYPES.SmallMoney, 214748.3647],
    ['NVarChar', TYPES.NVarChar, 'h\u00e9llo \u2713 \u4e16\u754c'],
    ['NVarChar(max)', TYPES.NVarChar, 'long \u00e9 '.repeat(2000)],
    ['VarChar', TYPES.VarChar, 'abc'],
    ['NChar', TYPES.NChar, 'ab', { length: 4 }],
    ['VarBinary', TYPES.VarBinary, Buffer.from([0, 1, 0xfe, 0xff])],
    ['VarBinary(max)', TYPES.VarBinary, Buffer.alloc(12000, 7)],
    ['Binary', TYPES.Binary, Buffer.from([1, 2]), { length: 2 }],
    ['UniqueIdentifier', TYPES.UniqueIdentifier, '6F9619FF-8B86-D011-B42D-00C04FC964FF'],
    ['Date', TYPES.Date, new Date(Date.UTC(2024, 1, 29))],
    ['DateTime', TYPES.DateTime, new Date(Date.UTC(2024, 1, 29, 13, 45, 10, 0))],
    ['SmallDateTime', TYPES.SmallDateTime, new Date(Date.UTC(2024, 1, 29, 13, 45))],
    ['DateTime2', TYPES.DateTime2, when, { scale: 3 }],
    ['DateTimeOffset', TYPES.DateTimeOffset, when, { scale: 3 }],
    ['Time', TYPES.Time, new Date(Date.UTC(1970, 0, 1, 13, 45, 10, 500)), { scale: 3 }],
    ['Null', TYPES.Int, null],
  ];
  for (const [name, type, value, opts] of cases) {
    try {
      const sets = await run(conn, 'SELECT @v', [['v', type, value, opts]], 'execSql');
      let got = sets[0][0][0];
      let want = value;
      if (name === 'NChar') want = 'ab  ';
      if (got instanceof Date) { got = got.toISOString(); want = want.toISOString(); }
      if (Buffer.isBuffer(got)) { got = got.toString('hex'); want = want.toString('hex'); }
      equal(`param ${name}`, got, want);
    } catch (e) { check(`param ${name}`, false, String(e)); }
  }

  for (const [sql, number, text] of [
    [`SELECT * FROM ${obj('no_such_table')}`, 208, `Invalid object name '${obj('no_such_table')}'.`],
    ['SELECT 1/0', 8134, 'Divide by zero error encountered.'],
    ["RAISERROR('custom %d', 16, 1, 42)", 50000, 'custom 42'],
  ]) {
    try {
      await run(conn, sql);
      check(`error ${number}`, false, 'no error raised');
    } catch (e) {
      equal(`error ${number}: number`, e.number, number);
      equal(`error ${number}: message`, e.message, text);
      equal(`error ${number}: class`, e.class, 16);
    }
  }

  try {
    await run(conn, `IF OBJECT_ID('${obj('t')}') IS NOT NULL DROP TABLE ${obj('t')}`);
    await run(conn, `CREATE TABLE ${obj('t')} (id int PRIMARY KEY, v nvarchar(50))`);
    await run(conn, `IF OBJECT_ID('${obj('out')}') IS NOT NULL DROP PROCEDURE ${obj('out')}`);
    await run(conn, `CREATE PROCEDURE ${obj('out')} @a int, @b int OUTPUT, @s nvarchar(20) OUTPUT AS `
      + "BEGIN SET @b = @a * 2; SET @s = N'out:' + CAST(@a AS nvarchar(10)); RETURN 7; END");
  } catch (e) { check('create objects', false, String(e)); }

  // transactions through the transaction-manager request (beginTransaction etc.)
  try {
    // tedious takes the callback first: beginTransaction(callback, name)
    const tx = (fn, ...a) => new Promise((res, rej) => conn[fn]((err) => (err ? rej(err) : res()), ...a));
    await tx('beginTransaction', 'lk');
    await run(conn, `INSERT INTO ${obj('t')} (id, v) VALUES (1, N'rolled back')`);
    await tx('rollbackTransaction');
    equal('rollback undoes the insert', (await run(conn, `SELECT COUNT(*) FROM ${obj('t')}`))[0], [[0]]);
    await tx('beginTransaction', 'lk');
    await run(conn, `INSERT INTO ${obj('t')} (id, v) VALUES (@id, @v)`, [['id', TYPES.Int, 2], ['v', TYPES.NVarChar, 'committed']]);
    await tx('commitTransaction');
    equal('commit keeps the insert', (await run(conn, `SELECT id, v FROM ${obj('t')}`))[0], [[2, 'committed']]);
  } catch (e) { check('transaction', false, String(e)); }

  try {
    const out = {};
    let status = null;
    await new Promise((resolve, reject) => {
      const req = new Request(obj('out'), (err) => (err ? reject(err) : resolve()));
      req.addParameter('a', TYPES.Int, 21);
      req.addOutputParameter('b', TYPES.Int);
      req.addOutputParameter('s', TYPES.NVarChar, null, { length: 20 });
      req.on('returnValue', (name, value) => { out[name] = value; });
      req.on('doneProc', (rowCount, more, returnStatus) => { if (returnStatus !== undefined) status = returnStatus; });
      conn.callProcedure(req);
    });
    equal('OUTPUT parameters', out, { b: 42, s: 'out:21' });
    equal('return status', status, 7);
  } catch (e) { check('OUTPUT parameters', false, String(e)); }

  try {
    const started = Date.now();
    const p = run(conn, "WAITFOR DELAY '00:00:20'");
    setTimeout(() => conn.cancel(), 1000);
    let err = null;
    try { await p; } catch (e) { err = e; }
    check('cancel: request cancelled', err && err.code === 'ECANCEL', String(err));
    check('cancel stops WAITFOR within 10 s', Date.now() - started < 10000, `${Date.now() - started} ms`);
    equal('connection usable after cancel', (await run(conn, 'SELECT 4'))[0], [[4]]);
  } catch (e) { check('cancel', false, String(e)); }

  await close(conn);
}

main().catch((e) => check('session', false, String(e))).finally(() => {
  summarized = true;
  console.log(`tedious: ${passed} passed, ${failed.length} failed`);
  if (failed.length) console.log(`tedious: failed: ${failed.join(', ')}`);
  process.exit(failed.length ? 1 : 0);
});
