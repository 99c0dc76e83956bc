"""Sends trades to a running tradestore server with QuestDB's Python client (pip install questdb), in the client's
default HTTP configuration, then checks over /v1/sql that the server holds exactly what was sent: the row count and
the exact sum of the decimal prices.

    python3 examples/python/send_trades.py --port 8080 --rows 100000

The table must have the trades schema (tradestore demo, or tradestore create STORE): prices go to its decimal(6)
column exactly from the text the client writes (Python's shortest repr of each float, so 101.25 is 101.250000).
"""
import argparse
import decimal
import json
import random
import sys
import time
import urllib.request

try:  # questdb 6 and later
    from questdb import Sender, TimestampNanos
except ImportError:  # earlier releases
    from questdb.ingress import Sender, TimestampNanos


def sql(port, text):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/sql", data=text.encode("utf-8"),
                                     headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read(), parse_float=decimal.Decimal)["rows"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--table", default="trades")
    parser.add_argument("--first-id", type=int, default=900_000_000,
                        help="trade_id of the first row sent; the check counts trade_id >= it")
    args = parser.parse_args()

    rnd = random.Random(7)
    venues = ["XLON", "XPAR", "XETR", "BATE"]
    sent = decimal.Decimal(0)
    start_ns = time.time_ns()
    began = time.perf_counter()
    # the default configuration: HTTP, auto-flush every 75,000 rows or second, flush at the end of the block
    with Sender.from_conf(f"http::addr=127.0.0.1:{args.port};") as sender:
        for i in range(args.rows):
            price = rnd.randint(1, 100_000_000) / 100
            sent += decimal.Decimal(repr(price))
            sender.row(args.table,
                       symbols={"venue": rnd.choice(venues), "instrument": f"SYM{rnd.randrange(500):03d}"},
                       columns={"trade_id": args.first_id + i, "client_id": 100_000 + rnd.randrange(10_000),
                                "side": rnd.choice("BS"), "price": price, "quantity": rnd.randint(1, 5000)},
                       at=TimestampNanos(start_ns + i))
    took = time.perf_counter() - began

    count, total = sql(args.port, f"SELECT count(*), sum(price) FROM {args.table} "
                                  f"WHERE trade_id >= {args.first_id}")[0]
    print(f"sent {args.rows} rows in {took:.2f} s ({args.rows / took:,.0f} rows/s); "
          f"server holds {count} rows with sum(price) {total} (sent {sent})")
    if count != args.rows or decimal.Decimal(total) != sent:
        print("MISMATCH", file=sys.stderr)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
