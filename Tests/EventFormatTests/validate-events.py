#!/usr/bin/python3
"""Checks JSON lines on stdin against a JSON Schema (draft 2020-12).

Usage: validate-events.py SCHEMA < events.jsonl
Prints one line per event that does not conform, "line N: at PATH: MESSAGE",
and exits 1 when there was any; exits 0 when every line conforms.
Uses Debian's python3-jsonschema (scripts/install-deps.sh).
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = False
for number, line in enumerate(sys.stdin, start=1):
    if not line.strip():
        continue
    for error in sorted(validator.iter_errors(json.loads(line)), key=lambda e: list(e.absolute_path)):
        path = "/".join(str(part) for part in error.absolute_path) or "(event)"
        print(f"line {number}: at {path}: {error.message}")
        failed = True
sys.exit(1 if failed else 0)
