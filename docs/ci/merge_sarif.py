#!/usr/bin/env python3
"""merge_sarif.py [--srcroot DIR] [--category NAME] -o OUT.sarif LOG.sarif...

Merges the SARIF logs that `dacce-race --sarif` wrote (one per test program,
e.g. DACCE_RACE_REPORT_DIR/<test>.sarif of the CMake package) into one log
with ONE run, as GitHub code scanning wants: since June 2025 an upload whose
runs share a tool and category is rejected, and so is a directory of such
files.

Each dacce-race log names source files relative to its own %SRCROOT% (the
directory dacce-race ran in: for ctest, the test's build directory) and the
others as absolute file:// URIs.  The merged log has one %SRCROOT%, --srcroot
(default: the current directory, in CI the repository checkout): every
location under it becomes a relative URI with uriBaseId %SRCROOT%, which is
what code scanning needs to place an alert in the repository; the others stay
absolute.  Results with the same rule and partialFingerprints (the same race
seen by several tests, or twice by one) are kept once; the count goes to
properties.occurrences.  Logs with no results and empty files (a run that
found nothing still writes a valid log) are fine; a missing or non-JSON file
is an error.

Standard library only.  Exit status 0, or 2 on an error.
"""
import argparse
import copy
import json
import os
import sys
from urllib.parse import quote, unquote, urlparse

SRCROOT = "%SRCROOT%"


def file_uri_path(uri):
    """the absolute path of a file:// URI, else None"""
    u = urlparse(uri)
    if u.scheme != "file":
        return None
    return unquote(u.path)


def rebase(artifact, old_root, new_root):
    """rewrite one artifactLocation (in place) against new_root"""
    uri = artifact.get("uri")
    if not uri:
        return
    base = artifact.get("uriBaseId")
    if base == SRCROOT and old_root:
        path = os.path.normpath(os.path.join(old_root, unquote(uri)))
    elif base is None:
        path = file_uri_path(uri)
        if path is None:
            return  # relative without a base, or another scheme: leave it
    else:
        return  # a base we do not know
    rel = os.path.relpath(path, new_root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        artifact["uri"] = "file://" + quote(path)
        artifact.pop("uriBaseId", None)
    else:
        artifact["uri"] = quote(rel)
        artifact["uriBaseId"] = SRCROOT


def walk_artifacts(node, fn):
    if isinstance(node, dict):
        for key, val in node.items():
            if key == "artifactLocation" and isinstance(val, dict):
                fn(val)
            else:
                walk_artifacts(val, fn)
    elif isinstance(node, list):
        for val in node:
            walk_artifacts(val, fn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    ap.add_argument("logs", nargs="+", metavar="LOG.sarif")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--srcroot", default=os.getcwd(),
                    help="the repository root (default: the current directory)")
    ap.add_argument("--category", help="runAutomationDetails id, e.g. 'dacce-race/gcc/' "
                    "(upload-sarif's category input does the same)")
    a = ap.parse_args()
    new_root = os.path.normpath(os.path.abspath(a.srcroot))

    merged_run = None
    seen = {}
    results = []
    for path in a.logs:
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            print(f"merge_sarif: {path}: {e.strerror}", file=sys.stderr)
            return 2
        if not text.strip():
            continue
        try:
            log = json.loads(text)
        except ValueError as e:
            print(f"merge_sarif: {path}: not JSON: {e}", file=sys.stderr)
            return 2
        for run in log.get("runs", []):
            base = run.get("originalUriBaseIds", {}).get(SRCROOT, {}).get("uri")
            old_root = file_uri_path(base) if base else None
            if merged_run is None:
                merged_run = copy.deepcopy(run)
                merged_run["results"] = []
            for res in run.get("results", []):
                walk_artifacts(res, lambda art: rebase(art, old_root, new_root))
                key = (res.get("ruleId"),
                       json.dumps(res.get("partialFingerprints"), sort_keys=True))
                if res.get("partialFingerprints") and key in seen:
                    first = seen[key]
                    props = first.setdefault("properties", {})
                    props["occurrences"] = props.get("occurrences", 1) + 1
                    continue
                seen[key] = res
                results.append(res)
    if merged_run is None:
        # nothing ran: an empty log still tells code scanning "no alerts"
        merged_run = {"tool": {"driver": {"name": "dacce-race", "rules": []}}}
    merged_run["results"] = results
    merged_run["originalUriBaseIds"] = {SRCROOT: {"uri": "file://" + quote(new_root.rstrip("/")) + "/"}}
    if a.category:
        merged_run["automationDetails"] = {"id": a.category}
    out = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [merged_run]}
    with open(a.output, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"merge_sarif: {len(results)} result(s) from {len(a.logs)} log(s) -> {a.output}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
