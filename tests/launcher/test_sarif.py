#!/usr/bin/env python3
"""test_sarif.py BUILD_DIR [gcc|clang]: dacce-race --sarif FILE.

Every log is validated against the official SARIF 2.1.0 schema vendored in
tests/sarif (tests/sarif/validate_sarif.py, python3-jsonschema; exit 77 when
no python3 here has jsonschema), then checked: rules, one result per report
with ruleId/level/message, the primary location relative to %SRCROOT% (the
working directory) with the line of the access, partialFingerprints stable
across runs (different pids and addresses) and different for different
races, code flows outermost-first with one thread flow per access and per
created thread, and the message's note on a merged previous access.
"""
import json
import os
import sys

from lrtest import RACE_PROG, ROOT, SKIP, Test, mark, python_with_jsonschema, validate_sarif

t = Test("launcher_sarif")
PY = python_with_jsonschema()
if not PY:
    print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(SKIP)

prog = t.race_prog()
rel_src = os.path.relpath(os.path.realpath(RACE_PROG), os.path.realpath(ROOT))


def run_sarif(mode, name, cwd):
    out = os.path.join(t.tmp, f"{name}.sarif")
    r = t.run(["--sarif", out, prog, mode], cwd=cwd)
    v = validate_sarif(PY, out)
    t.check(v.returncode == 0, f"{name}: valid SARIF 2.1.0", v.stdout + v.stderr)
    with open(out) as f:
        return r, json.load(f)


def results(log):
    return log["runs"][0]["results"]


# ---------------------------------------------------------------- race, from the source root
r, log = run_sarif("race", "race", ROOT)
t.check_status(r, 66, "race")
run = log["runs"][0]
driver = run["tool"]["driver"]
# informationUri is optional and only emitted when the build configures one
t.check(driver["name"] == "dacce-race" and driver.get("version") and
        ("informationUri" not in driver or driver["informationUri"].startswith("https://")),
        "driver name, version, informationUri absent or a real URI", driver)
t.check([x["id"] for x in driver["rules"]] ==
        ["data-race", "heap-use-after-free", "thread-leak", "lock-order-inversion",
         "mutex-misuse", "signal-unsafe-call", "signal-errno"],
        "rules data-race, heap-use-after-free, thread-leak, lock-order-inversion, "
        "mutex-misuse, signal-unsafe-call and signal-errno",
        driver["rules"])
t.check(run.get("originalUriBaseIds", {}).get("%SRCROOT%", {}).get("uri") ==
        "file://" + os.path.realpath(ROOT) + "/", "%SRCROOT% is the working directory",
        run.get("originalUriBaseIds"))
res = results(log)
if t.check(len(res) == 1, f"race: {len(res)} results, expected 1", res):
    x = res[0]
    t.check(x["ruleId"] == "data-race" and x["level"] == "error", "race: ruleId and level", x)
    msg = x["message"]["text"]
    t.check("read_counter" in msg and "bump_counter" in msg and "shared_counter" in msg,
            "race: message names both functions and the global", msg)
    pl = x["locations"][0]["physicalLocation"]
    t.check(pl["artifactLocation"] == {"uri": rel_src, "uriBaseId": "%SRCROOT%"},
            "race: primary location relative to %SRCROOT%", pl)
    t.check(pl["region"]["startLine"] == mark("read") and pl["region"].get("startColumn", 0) > 0,
            "race: primary location at the read", pl)
    rel = x.get("relatedLocations") or [{}]
    t.check(rel[0].get("physicalLocation", {}).get("region", {}).get("startLine") == mark("write"),
            "race: related location at the previous write", rel)
    flows = x["codeFlows"][0]["threadFlows"]
    t.check([f["id"] for f in flows] == ["current", "previous", "creation-T2", "creation-T1"],
            "race: thread flows for both accesses and both created threads",
            [f["id"] for f in flows])
    cur = flows[0]["locations"]
    t.check([l["nestingLevel"] for l in cur] == list(range(len(cur))),
            "race: nesting levels count up from the outermost frame", cur)
    last = cur[-1]["location"]
    t.check(last["physicalLocation"]["region"]["startLine"] == mark("read") and
            last["logicalLocations"][0]["fullyQualifiedName"] == "read_counter",
            "race: the current flow ends at the access (innermost last)", cur)
    t.check(cur[0]["location"]["logicalLocations"][0]["fullyQualifiedName"] == "reader",
            "race: the current flow starts at the thread's outermost frame", cur)
    cr = flows[3]["locations"]
    t.check(any(l["location"].get("physicalLocation", {}).get("region", {}).get("startLine") ==
                mark("create-writer") for l in cr), "race: creation flow of T1 at @create-writer",
            cr)
    fp1 = x["partialFingerprints"]["dacceRace/v1"]

# ---------------------------------------------------------------- stability
r, log2 = run_sarif("race", "race-again", t.tmp)  # other pid, addresses, working directory
res2 = results(log2)
if res and res2:
    t.check(res2[0]["partialFingerprints"]["dacceRace/v1"] == fp1,
            "race: fingerprint stable across runs", (fp1, res2[0]["partialFingerprints"]))
    uri = res2[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    t.check(uri.get("uri") == "file://" + os.path.realpath(RACE_PROG) and "uriBaseId" not in uri,
            "race: a source outside the working directory is an absolute file URI", uri)
    t.check(res2[0]["properties"]["pid"] != res[0]["properties"]["pid"],
            "race: the two runs were two processes")

r, log3 = run_sarif("chain", "chain", ROOT)
res3 = results(log3)
if t.check(len(res3) == 1, "chain: 1 result", res3):
    ids = [f["id"] for f in res3[0]["codeFlows"][0]["threadFlows"]]
    t.check(ids == ["current", "previous", "creation-T3", "creation-T1", "creation-T2"],
            "chain: creation flows for each thread and the ancestor", ids)
    t.check(res3[0]["partialFingerprints"]["dacceRace/v1"] == fp1,
            "chain: same accesses and variable as 'race' (other threads): same fingerprint")

r, log6 = run_sarif("heap", "heap", ROOT)
res6 = results(log6)
if t.check(len(res6) == 1, "heap: 1 result", res6):
    t.check(res6[0]["partialFingerprints"]["dacceRace/v1"] != fp1,
            "heap: another race gives another fingerprint")

r, log4 = run_sarif("uaf", "uaf", ROOT)
res4 = results(log4)
if t.check(len(res4) == 1, "uaf: 1 result", res4):
    t.check(res4[0]["ruleId"] == "heap-use-after-free" and res4[0]["ruleIndex"] == 1,
            "uaf: ruleId heap-use-after-free", res4[0])
    t.check(res4[0]["locations"][0]["physicalLocation"]["region"]["startLine"] ==
            mark("heap-read"), "uaf: primary location at the use", res4[0]["locations"])

# ---------------------------------------------------------------- a merged previous access
# (racedet/access.c: two field writes of one function share a shadow cell)
merged_prog = t.build(os.path.join(ROOT, "tests", "racedet", "merged_fields.c"),
                      f"merged_fields_{t.cc}", extra=["-pthread"])
out7 = os.path.join(t.tmp, "merged.sarif")
r = t.run(["--sarif", out7, merged_prog], cwd=ROOT)
v = validate_sarif(PY, out7)
t.check(v.returncode == 0, "merged: valid SARIF 2.1.0", v.stdout + v.stderr)
with open(out7) as f:
    res7 = results(json.load(f))
if t.check(len(res7) == 1, "merged: 1 result", res7):
    msg = res7[0]["message"]["text"]
    t.check(msg.count("(the first of several accesses there merged into one record)") == 1 and
            msg.index("merged into one record") > msg.index("previous"),
            "merged: the message says the previous access's line is the first of several", msg)

# ---------------------------------------------------------------- a thread leak
leak_src = os.path.join(ROOT, "tests", "racedet", "thread_leaks.c")
leak_prog = t.build(leak_src, f"thread_leaks_{t.cc}", extra=["-pthread"])
out8 = os.path.join(t.tmp, "leak.sarif")
r = t.run(["--sarif", out8, leak_prog], cwd=ROOT)
t.check_status(r, 66, "leak")
v = validate_sarif(PY, out8)
t.check(v.returncode == 0, "leak: valid SARIF 2.1.0", v.stdout + v.stderr)
with open(out8) as f:
    res8 = results(json.load(f))
with open(leak_src) as f:
    spawn_line = next(n for n, line in enumerate(f, 1)
                      if line.startswith("__attribute__((noinline)) void spawn_leaky"))
if t.check(len(res8) == 1, "leak: 1 result", res8):
    x = res8[0]
    t.check(x["ruleId"] == "thread-leak" and x["ruleIndex"] == 2 and x["level"] == "warning",
            "leak: ruleId thread-leak, index 2, level warning", x)
    t.check("2 more threads created there leaked too" in x["message"]["text"] and
            "spawn_leaky" in x["message"]["text"], "leak: the message names the site and the count",
            x["message"])
    t.check(x["locations"][0]["physicalLocation"]["region"]["startLine"] == spawn_line,
            "leak: primary location at the pthread_create call", x["locations"])
    t.check(x.get("properties", {}).get("similarLeaks") == 2, "leak: similarLeaks 2", x)

# ---------------------------------------------------------------- no reports
r, log5 = run_sarif("clean", "clean", ROOT)
t.check_status(r, 0, "clean")
t.check(results(log5) == [], "clean: a valid log with no results", log5)

t.finish()
