#!/usr/bin/env python3
"""Reads tagrouter's metrics with Prometheus's own parser (prometheus_client) and prints them as one JSON object.

    scrape-metrics.py URL [TOKEN]   GET URL (with `Authorization: Bearer TOKEN` when given)
    scrape-metrics.py FILE          read a textfile

Prints {"status": 200, "content_type": ..., "types": {family: type}, "samples": [{"name", "labels", "value"}]},
or for an HTTP error {"status": 401, "body": ..., "www_authenticate": ...}. Text the parser refuses: exit 1.
"""
import json
import sys
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def fetch(source, token):
    if not source.startswith("http"):
        with open(source, encoding="utf-8") as file:
            return {"status": 200, "content_type": None}, file.read()
    request = urllib.request.Request(source)
    if token is not None:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return {"status": response.status, "content_type": response.headers["Content-Type"]}, response.read().decode()
    except urllib.error.HTTPError as error:
        return {"status": error.code, "body": error.read().decode(), "www_authenticate": error.headers.get("WWW-Authenticate")}, None


def main():
    result, text = fetch(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    if text is not None:
        families = list(text_string_to_metric_families(text))
        result["types"] = {family.name: family.type for family in families}
        result["samples"] = [
            {"name": sample.name, "labels": sample.labels, "value": sample.value} for family in families for sample in family.samples
        ]
    print(json.dumps(result))


main()
