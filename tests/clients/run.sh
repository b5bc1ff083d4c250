#!/usr/bin/env bash
# Real SQL Server clients, unmodified, against `latchkey serve` (tests/clients/README.md).
#
#   tests/clients/run.sh [--bin PATH] [--only NAME[,NAME...]] [--keep] [--baseline FILE]
#
# --baseline FILE ("client passed-checks" lines): a client with failing checks whose number of
# passing checks is still at least its baseline is a known gap, not a CI failure; fewer passing
# checks than the baseline fails (as the conformance counts do).
#
# Installs each client from its registry (PyPI, npm, Maven Central, the Go module proxy,
# Debian), starts one server on 127.0.0.1 with a certificate made here, runs each client's
# scripted session and prints one summary line per client. Exit status 1 when any client that
# installed failed; a client that could not be installed is "skipped (install failed: ...)",
# never counted as passed. Logs: target/clients/logs/<client>.log.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=$TARGET/clients
BIN=""
ONLY=""
KEEP=0
BASELINE=""
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --baseline) BASELINE=$2; shift 2 ;;
    *) echo "usage: $0 [--bin PATH] [--only NAME,...] [--keep] [--baseline FILE]" >&2; exit 2 ;;
  esac
done
if [ -z "$BIN" ]; then
  for b in "$TARGET/release/latchkey" "$TARGET/debug/latchkey"; do
    [ -x "$b" ] && { BIN=$b; break; }
  done
fi
[ -x "$BIN" ] || { echo "clients: no latchkey binary (build it, or give --bin)" >&2; exit 1; }

# one client's whole session may take this long (a hang is a failure, not a stuck CI)
CLIENT_TIMEOUT=${LK_CLIENT_TIMEOUT:-120}
ALL="pytds pymssql pyodbc-freetds mssql-python go-mssqldb tedious mssql-jdbc tsql tiberius"
wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

rm -rf "$WORK/logs" "$WORK/data" "$WORK/scratch"
mkdir -p "$WORK/logs" "$WORK/scratch"
declare -A SKIP   # client -> why it could not be installed

# --- installs: pinned versions (README.md lists them), each on its own ---------------------------
PY_PKGS_pytds="python-tds==1.17.1 pyopenssl==26.4.0"
PY_PKGS_pymssql="pymssql==2.4.6"
PY_PKGS_pyodbc_freetds="pyodbc==5.5.0"
PY_PKGS_mssql_python="mssql-python==1.16.0"
JDBC_VERSION=13.4.0.jre11
JDBC_JAR=$HOME/.m2/repository/com/microsoft/sqlserver/mssql-jdbc/$JDBC_VERSION/mssql-jdbc-$JDBC_VERSION.jar

apt_install() { # packages...: installs the missing ones (root), returns non-zero on failure
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null 2>&1; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >>"$WORK/logs/install.log" 2>&1
}

install_python() {
  command -v python3 >/dev/null || { echo "python3 missing"; return 1; }
  if [ ! -x "$WORK/venv/bin/python" ]; then
    python3 -m venv "$WORK/venv" >>"$WORK/logs/install.log" 2>&1 || { echo "python3 -m venv failed"; return 1; }
  fi
}

install_client() { # name: prints why on failure
  local n=$1 var
  case $n in
    pytds|pymssql|pyodbc-freetds|mssql-python)
      install_python || return 1
      if [ "$n" = pyodbc-freetds ]; then
        apt_install unixodbc tdsodbc || { echo "apt-get install unixodbc tdsodbc failed"; return 1; }
        odbcinst -q -d 2>/dev/null | grep -q '^\[FreeTDS\]' || { echo "no [FreeTDS] driver in odbcinst.ini"; return 1; }
      fi
      var=PY_PKGS_${n//-/_}
      "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check ${!var} \
          >>"$WORK/logs/install.log" 2>&1 || { echo "pip install ${!var} failed"; return 1; } ;;
    go-mssqldb)
      command -v go >/dev/null || { echo "go missing"; return 1; }
      (cd "$HERE/go" && go build -o "$WORK/go-session" .) >>"$WORK/logs/install.log" 2>&1 \
        || { echo "go build (go-mssqldb v1.11.2) failed"; return 1; } ;;
    tedious)
      command -v npm >/dev/null || { echo "npm missing"; return 1; }
      (cd "$HERE/tedious" && npm ci --no-audit --no-fund --silent) >>"$WORK/logs/install.log" 2>&1 \
        || { echo "npm ci (tedious) failed"; return 1; } ;;
    mssql-jdbc)
      command -v javac >/dev/null && command -v mvn >/dev/null || { echo "javac or mvn missing"; return 1; }
      mvn -q -B dependency:get -Dartifact=com.microsoft.sqlserver:mssql-jdbc:$JDBC_VERSION \
        >>"$WORK/logs/install.log" 2>&1 || { echo "mvn dependency:get mssql-jdbc failed"; return 1; }
      mkdir -p "$WORK/jdbc"
      javac -d "$WORK/jdbc" -cp "$JDBC_JAR" "$HERE/jdbc/Session.java" >>"$WORK/logs/install.log" 2>&1 \
        || { echo "javac Session.java failed"; return 1; } ;;
    tsql)
      apt_install freetds-bin || { echo "apt-get install freetds-bin failed"; return 1; } ;;
    tiberius)
      # its own cargo project (Cargo.lock pinned), built apart from the workspace's target
      command -v cargo >/dev/null || { echo "cargo missing"; return 1; }
      (cd "$HERE/tiberius" && cargo build --release --locked --target-dir "$WORK/tiberius") \
        >>"$WORK/logs/install.log" 2>&1 || { echo "cargo build (tiberius 0.13.0) failed"; return 1; } ;;
  esac
}

for n in $ALL; do
  wanted "$n" || continue
  if ! why=$(install_client "$n"); then SKIP[$n]=${why:-unknown}; fi
done

# --- the server ---------------------------------------------------------------------------------
PORT=""
for p in $(seq 14340 14359); do
  (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { PORT=$p; break; }
done
[ -n "$PORT" ] || { echo "clients: no free port in 14340-14359" >&2; exit 1; }
export LK_HOST=127.0.0.1 LK_PORT=$PORT LK_USER=sa LK_PASSWORD='Latchkey-Clients-1' LK_WORK=$WORK/scratch
mkdir -p "$WORK/tls"
CERT=$WORK/tls/cert.pem KEY=$WORK/tls/key.pem
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$KEY" -out "$CERT" \
  >>"$WORK/logs/install.log" 2>&1 || echo "clients: openssl could not make a certificate" >&2
export LK_CAFILE=$CERT
MSSQL_SA_PASSWORD=$LK_PASSWORD "$BIN" serve --data "$WORK/data" --port "$PORT" \
  --tls-cert "$CERT" --tls-key "$KEY" >"$WORK/logs/server.log" 2>&1 &
SERVER=$!
stop_server() {
  if kill -0 "$SERVER" 2>/dev/null; then
    kill -TERM "$SERVER" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$SERVER" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$SERVER" 2>/dev/null
  fi
  [ $KEEP -eq 1 ] || rm -rf "$WORK/data"
}
trap stop_server EXIT
up=0
for _ in $(seq 150); do
  kill -0 "$SERVER" 2>/dev/null || break
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then up=1; break; fi
  sleep 0.2
done

if [ $up -ne 1 ]; then
  echo "clients: latchkey serve did not accept connections on 127.0.0.1:$PORT; its log:"
  tail -n 20 "$WORK/logs/server.log" | sed 's/^/    /'
fi

# --- the sessions -------------------------------------------------------------------------------
passed=0; failed=0; skipped=0; known=0
# the passing-check count a client must keep (--baseline FILE: "name count" lines)
baseline_of() {
  if [ -n "$BASELINE" ] && [ -f "$BASELINE" ]; then
    awk -v n="$1" '$1 == n { print $2 }' "$BASELINE"
  fi
}
run_client() { # name: runs its session, its output in the log
  local n=$1
  export LK_CLIENT=${n//-/_}
  case $n in
    pytds|pymssql|pyodbc-freetds|mssql-python)
      (cd "$HERE/python" && timeout $CLIENT_TIMEOUT "$WORK/venv/bin/python" "${LK_CLIENT}_session.py") ;;
    go-mssqldb) timeout $CLIENT_TIMEOUT "$WORK/go-session" ;;
    tedious) (cd "$HERE/tedious" && timeout $CLIENT_TIMEOUT node session.js) ;;
    mssql-jdbc) timeout $CLIENT_TIMEOUT java -cp "$WORK/jdbc:$JDBC_JAR" Session ;;
    tsql) timeout $CLIENT_TIMEOUT bash "$HERE/tsql/session.sh" ;;
    tiberius) timeout $CLIENT_TIMEOUT "$WORK/tiberius/release/tiberius-session" ;;
  esac
}
for n in $ALL; do
  wanted "$n" || continue
  log=$WORK/logs/$n.log
  if [ -n "${SKIP[$n]:-}" ]; then
    echo "client $n: skipped (install failed: ${SKIP[$n]})"; skipped=$((skipped + 1)); continue
  fi
  if [ $up -ne 1 ]; then
    echo "client $n: FAILED (the server did not start: see $WORK/logs/server.log)"
    failed=$((failed + 1)); continue
  fi
  run_client "$n" >"$log" 2>&1
  rc=$?
  counts=$(grep -E "^[a-z-]+: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1 | sed 's/^[^:]*: //')
  if [ $rc -eq 0 ] && [ -z "$counts" ]; then
    rc=1  # a session that ended without its summary line did not pass
  fi
  got=$(printf '%s' "$counts" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
  # a session killed by its timeout has no summary line: count the checks it passed
  [ -n "$got" ] || got=$(grep -c '^  ok ' "$log")
  listed=$(baseline_of "$n"); floor=${listed:-0}
  if [ $rc -eq 0 ] && [ "$got" -ge "$floor" ]; then
    echo "client $n: passed (${counts:-no count})"; passed=$((passed + 1))
  elif [ -n "$listed" ] && [ "$got" -ge "$floor" ]; then
    # a known gap (tests/clients/README.md status table): not a regression while the count of
    # passing checks holds; a drop below the baseline fails like a conformance count
    echo "client $n: known failures (${counts:-no count}; baseline $floor passed; log $log)"
    known=$((known + 1))
  else
    echo "client $n: FAILED (exit $rc; ${counts:-no count}; baseline $floor; log $log)"; failed=$((failed + 1))
    grep -E "^  FAIL|Traceback|Exception" "$log" | head -n 15 | cut -c1-240 | sed 's/^/    /'
  fi
  [ -n "$listed" ] && [ "$got" -gt "$floor" ] && echo "    ($n: $got passed > baseline $floor: raise it in $BASELINE)"
done
# go-mssqldb's own test suite, counted against its baseline ("go-mssqldb-upstream N")
suite_floor=$(baseline_of go-mssqldb-upstream)
if [ -n "$suite_floor" ] && wanted go-mssqldb && [ -z "${SKIP[go-mssqldb]:-}" ] && [ $up -eq 1 ]; then
  line=$(bash "$HERE/go-mssqldb-suite.sh" "$LK_HOST" "$PORT" "$LK_USER" "$LK_PASSWORD" | tail -n 1)
  suite_pass=$(printf '%s' "$line" | sed -n 's/^go-mssqldb upstream: \([0-9]*\) passed.*/\1/p')
  if [ "${suite_pass:-0}" -ge "$suite_floor" ]; then
    echo "$line; baseline $suite_floor"
  else
    echo "$line; BELOW baseline $suite_floor"; failed=$((failed + 1))
  fi
fi
if [ $up -eq 1 ] && ! kill -0 "$SERVER" 2>/dev/null; then
  echo "clients: the server exited during the sessions (see $WORK/logs/server.log)"; failed=$((failed + 1))
fi
echo "clients: $passed passed, $known with known failures at their baseline, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
