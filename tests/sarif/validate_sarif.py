#!/usr/bin/env python3
"""validate_sarif.py LOG.sarif [--schema SCHEMA.json] [--min-results N]

Validates a SARIF log against the official SARIF 2.1.0 JSON schema vendored
beside this script (sarif-schema-2.1.0.json, see README.md), with
python3-jsonschema, then checks what GitHub code scanning needs on top of
the schema:
  - version 2.1.0 and at least one run with tool.driver.name;
  - every result has a ruleId that tool.driver.rules defines, a
    message.text, at least one location with
    physicalLocation.artifactLocation.uri and, for source files, a
    region.startLine >= 1;
  - every uriBaseId used is defined in run.originalUriBaseIds, whose URIs
    are absolute file URIs ending in '/';
  - partialFingerprints are strings.
Exit status: 0 valid, 1 invalid (each problem on a line), 2 usage error,
77 python3-jsonschema is not installed (ctest skips).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def github_checks(log):
    problems = []
    if log.get("version") != "2.1.0":
        problems.append("version is not 2.1.0")
    runs = log.get("runs") or []
    if not runs:
        problems.append("no runs")
    for ri, run in enumerate(runs):
        driver = run.get("tool", {}).get("driver", {})
        if not driver.get("name"):
            problems.append(f"runs[{ri}]: tool.driver.name missing")
        rules = {r.get("id") for r in driver.get("rules", [])}
        bases = run.get("originalUriBaseIds", {})
        for name, base in bases.items():
            uri = base.get("uri", "")
            if not uri.startswith("file:///") or not uri.endswith("/"):
                problems.append(f"runs[{ri}]: originalUriBaseIds[{name}] is not an absolute "
                                f"file URI ending in '/': {uri!r}")

        def check_location(where, loc, need_region):
            pl = loc.get("physicalLocation")
            if not pl:
                if need_region:
                    problems.append(f"{where}: no physicalLocation")
                return
            al = pl.get("artifactLocation", {})
            if not al.get("uri"):
                problems.append(f"{where}: no artifactLocation.uri")
            base = al.get("uriBaseId")
            if base is not None and base not in bases:
                problems.append(f"{where}: uriBaseId {base!r} not in originalUriBaseIds")
            region = pl.get("region")
            if region is not None and region.get("startLine", 1) < 1:
                problems.append(f"{where}: region.startLine < 1")
            if need_region and region is None and not al.get("uri", "").startswith("file:"):
                problems.append(f"{where}: source location without a region")

        for i, res in enumerate(run.get("results", [])):
            where = f"runs[{ri}].results[{i}]"
            if res.get("ruleId") not in rules:
                problems.append(f"{where}: ruleId {res.get('ruleId')!r} not among the rules")
            if not res.get("message", {}).get("text"):
                problems.append(f"{where}: no message.text")
            locs = res.get("locations") or []
            if not locs:
                problems.append(f"{where}: no locations")
            for k, loc in enumerate(locs):
                check_location(f"{where}.locations[{k}]", loc, True)
            for k, loc in enumerate(res.get("relatedLocations", [])):
                check_location(f"{where}.relatedLocations[{k}]", loc, False)
            for c, flow in enumerate(res.get("codeFlows", [])):
                for t, tf in enumerate(flow.get("threadFlows", [])):
                    for k, tfl in enumerate(tf.get("locations", [])):
                        check_location(f"{where}.codeFlows[{c}].threadFlows[{t}].locations[{k}]",
                                       tfl.get("location", {}), False)
            for key, val in res.get("partialFingerprints", {}).items():
                if not isinstance(val, str):
                    problems.append(f"{where}: partialFingerprints[{key}] is not a string")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--schema", default=os.path.join(HERE, "sarif-schema-2.1.0.json"))
    ap.add_argument("--min-results", type=int, default=0)
    a = ap.parse_args()
    try:
        import jsonschema
    except ImportError:
        # Debian's python3-jsonschema (.ci/packages) serves /usr/bin/python3,
        # which may not be the python3 found first on PATH
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system):
            os.execv(system, [system] + sys.argv)
        print("python3-jsonschema is not installed", file=sys.stderr)
        return 77
    with open(a.schema) as f:
        schema = json.load(f)
    try:
        with open(a.log) as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{a.log}: not JSON: {e}")
        return 1
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER
                    if hasattr(cls, "FORMAT_CHECKER") else None)
    problems = []
    for err in sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path)):
        path = "/".join(str(p) for p in err.absolute_path) or "(root)"
        problems.append(f"schema: {path}: {err.message}")
    problems += github_checks(log)
    n = sum(len(r.get("results", [])) for r in log.get("runs", []))
    if n < a.min_results:
        problems.append(f"{n} results, expected at least {a.min_results}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{a.log}: valid SARIF 2.1.0, {n} results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
