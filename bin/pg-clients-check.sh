#!/usr/bin/env bash
# Checks real PostgreSQL clients against a demo server: psql (\dt, \d trades, a query), psycopg 3 with a bound
# parameter and with a named (server-side) cursor, and pandas read_sql through SQLAlchemy and through psycopg, whole
# and in chunks. Exits non-zero on the first wrong answer.
#
# Needs: the built jar (mvn -B package -pl store-server -am -DskipTests), psql (Debian: apt-get install
# postgresql-client), python3 with psycopg 3, pandas and SQLAlchemy (pip install "psycopg[binary]" pandas sqlalchemy).
# Usage: bin/pg-clients-check.sh [rows]   (default 100000 trades)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rows="${1:-100000}"
work="$(mktemp -d)"
log="$work/demo.log"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; echo "--- demo log" >&2; cat "$log" >&2; exit 1; }

command -v psql >/dev/null || fail "psql not found: apt-get install postgresql-client"
python3 -c 'import psycopg, pandas, sqlalchemy' 2>/dev/null \
  || fail 'python3 lacks psycopg, pandas or sqlalchemy: pip install "psycopg[binary]" pandas sqlalchemy'

"$here/tradestore" demo --rows "$rows" --port 0 --pg-port 0 --dir "$work" >"$log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 240); do
  port="$(grep -o 'psql -h 127.0.0.1 -p [0-9]*' "$log" | awk '{print $5}' | head -1 || true)"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "the demo server stopped"
  sleep 0.5
done
[ -n "$port" ] || fail "the demo server did not print its psql line within 120 s"
echo "demo server: $rows trades, PostgreSQL wire protocol on 127.0.0.1:$port"
export PGHOST=127.0.0.1 PGPORT="$port" PGUSER=tradestore PGDATABASE=tradestore PGPASSWORD=any PGSSLMODE=disable

echo "== psql \\dt"
out="$(psql -X -c '\dt')"; echo "$out"
grep -Eq 'public +\| trades +\| table' <<<"$out" || fail "psql \\dt does not list trades"

echo "== psql \\d trades"
out="$(psql -X -c '\d trades')"; echo "$out"
for c in 'trade_id +\| bigint' 'ts +\| timestamp with time zone' 'venue +\| text' 'price +\| numeric\(18,6\)' \
  'quantity +\| bigint'; do
  grep -Eq "$c" <<<"$out" || fail "psql \\d trades lacks /$c/"
done

echo "== psql query"
out="$(psql -X -A -t -c "SELECT venue, count(*) AS n FROM trades GROUP BY venue ORDER BY venue")"; echo "$out"
total="$(awk -F'|' '{s += $2} END {print s}' <<<"$out")"
[ "$total" = "$rows" ] || fail "psql counts $total trades, not $rows"

echo "== psycopg 3 with a parameter, pandas read_sql via psycopg and via SQLAlchemy"
python3 - "$port" "$rows" <<'PY' || fail "the Python clients"
import sys, warnings
import psycopg, pandas as pd, sqlalchemy as sa
port, rows = int(sys.argv[1]), int(sys.argv[2])
dsn = dict(host="127.0.0.1", port=port, dbname="tradestore", user="tradestore", password="any")
with psycopg.connect(**dsn) as conn:
    cur = conn.execute("select count(*) from trades where venue = %s", ("XLON",))
    xlon = cur.fetchone()[0]
    cur = conn.execute("select venue, count(*) as n from trades where venue in (%s, %s) group by venue order by venue",
                       ("XLON", "XPAR"))
    got = cur.fetchall()
    print("psycopg:", got, [d.name for d in cur.description])
    assert got[0] == ("XLON", xlon), got
    cur = conn.execute("select trade_id, ts, price, quantity from trades where quantity > %s order by ts limit 3",
                       (100,))
    first = cur.fetchall()
    print("psycopg rows:", first)
    assert len(first) == 3 and all(r[3] > 100 for r in first), first
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns that a plain DBAPI connection is untested
        df = pd.read_sql("select venue, count(*) as n from trades group by venue order by venue", conn)
    print("pandas via psycopg:\n", df)
    assert int(df["n"].sum()) == rows, df
engine = sa.create_engine(f"postgresql+psycopg://tradestore:any@127.0.0.1:{port}/tradestore")
with engine.connect() as c:
    df = pd.read_sql("select instrument, sum(quantity) as volume from trades group by instrument "
                     "order by volume desc limit 5", c)
    print("pandas via SQLAlchemy:\n", df)
    assert len(df) == 5 and list(df.columns) == ["instrument", "volume"], df
    print("SQLAlchemy inspector tables:", sa.inspect(c).get_table_names())
    cols = [(x["name"], str(x["type"])) for x in sa.inspect(c).get_columns("trades")]
    print("SQLAlchemy inspector columns:", cols)
    assert [n for n, _ in cols] == ["trade_id", "ts", "client_id", "venue", "instrument", "side", "price",
                                   "quantity"], cols
with psycopg.connect(**dsn) as conn:
    want = conn.execute("select trade_id from trades where venue = %s order by trade_id", ("XLON",)).fetchall()
    with conn.cursor(name="by_venue") as cur:  # a server-side cursor: DECLARE, then FETCH FORWARD itersize
        cur.itersize = 1000
        cur.execute("select trade_id from trades where venue = %s order by trade_id", ("XLON",))
        got = list(cur)
    print("psycopg named cursor:", len(got), "rows")
    assert got == want, (len(got), len(want))
with engine.connect().execution_options(stream_results=True) as c:
    chunks = list(pd.read_sql("select trade_id, quantity from trades order by trade_id", c, chunksize=10000))
print("pandas read_sql in chunks (stream_results: a named cursor):", len(chunks), "chunks")
assert sum(len(f) for f in chunks) == rows, [len(f) for f in chunks]
print("python clients: ok")
PY
echo "ALL CLIENT CHECKS PASSED"
