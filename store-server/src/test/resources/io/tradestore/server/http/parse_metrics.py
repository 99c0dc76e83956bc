"""Parses Prometheus text format read from stdin with the official Python client's parser and prints the metric
families as JSON on stdout (PrometheusMetricsTest reads it). Exits 3 when prometheus_client is not installed."""
import json
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError as e:
    sys.stderr.write("cannot import prometheus_client (%s); install it with: python3 -m pip install prometheus_client==0.26.0\n" % e)
    sys.exit(3)

families = [
    {
        "name": f.name,
        "type": f.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples],
    }
    for f in text_string_to_metric_families(sys.stdin.read())
]
json.dump(families, sys.stdout)
