#!/usr/bin/env python3
"""Validate JSON mirrors of catalogs against schemas/catalog.schema.json.

usage: check_catalog_schema.py SCHEMA FILE.json...   (exit 0: all valid)
"""
import json
import sys

try:
    import jsonschema
except ImportError as e:  # a failure, not a skip
    sys.stderr.write(f"check_catalog_schema.py: error: {sys.executable}: cannot import jsonschema ({e}); "
                     "install python3-jsonschema (scripts/install-deps.sh)\n")
    sys.exit(1)


def main() -> int:
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in sys.argv[2:]:
        errors = list(validator.iter_errors(json.load(open(path))))
        for e in errors[:5]:
            print(f"{path}: /{'/'.join(map(str, e.absolute_path))}: {e.message}")
        failed += bool(errors)
    print(f"{len(sys.argv) - 2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
