#!/usr/bin/env python3
"""Structural check of a SARIF 2.1.0 log written by `mpilift check`: every
field GitHub code scanning and other SARIF consumers rely on is present and
well typed; prints one line per result for FileCheck. Exits 1 on the first
violation, naming it."""
import json
import re
import sys


def need(cond, what):
    if not cond:
        print("sarif: invalid: " + what)
        sys.exit(1)


def region_ok(r, full=False):
    keys = ["startLine", "startColumn"] + (["endLine", "endColumn"] if full else [])
    return all(isinstance(r.get(k), int) and r[k] >= 1 for k in keys)


def location_ok(loc):
    phys = loc.get("physicalLocation", {})
    uri = phys.get("artifactLocation", {}).get("uri", "")
    return uri.startswith("file:///") and region_ok(phys.get("region", {}))


log = json.load(open(sys.argv[1]))
need(log.get("version") == "2.1.0", "version is not 2.1.0")
need("sarif-2.1.0" in log.get("$schema", ""), "$schema does not name 2.1.0")
need(isinstance(log.get("runs"), list) and len(log["runs"]) == 1, "one run")
run = log["runs"][0]
driver = run.get("tool", {}).get("driver", {})
need(driver.get("name") == "mpilift", "tool.driver.name")
need(isinstance(driver.get("version"), str), "tool.driver.version")
rules = driver.get("rules", [])
ids = [r.get("id") for r in rules]
need(len(ids) == len(set(ids)) and all(ids), "rule ids unique and present")
for r in rules:
    need(re.fullmatch(r"mpilift-[a-z-]+", r["id"]), "rule id " + r["id"])
    need(r.get("shortDescription", {}).get("text"), "rule description")
    need(r.get("helpUri", "").startswith("docs/checks/"), "rule helpUri")
print("rules: " + " ".join(ids))
for res in run.get("results", []):
    need(res.get("ruleId") in ids, "result ruleId")
    need(ids[res.get("ruleIndex", -1)] == res["ruleId"], "ruleIndex")
    need(res.get("level") in ("warning", "error"), "level")
    need(res.get("message", {}).get("text"), "message")
    need(len(res.get("locations", [])) == 1 and location_ok(res["locations"][0]),
         "locations")
    fp = res.get("partialFingerprints", {})
    need(re.fullmatch(r"[0-9a-f]+", fp.get("mpiliftPattern/v1", "")),
         "partialFingerprints")
    related = res.get("relatedLocations", [])
    for i, rel in enumerate(related):
        need(rel.get("id") == i and location_ok(rel) and
             rel.get("message", {}).get("text"), "relatedLocations")
    fixes = res.get("fixes", [])
    for fix in fixes:
        need(fix.get("description", {}).get("text"), "fix description")
        for change in fix.get("artifactChanges", []):
            need(change.get("artifactLocation", {}).get("uri", "")
                 .startswith("file:///"), "fix artifact")
            for rep in change.get("replacements", []):
                need(region_ok(rep.get("deletedRegion", {}), full=True),
                     "deletedRegion")
                need(isinstance(rep.get("insertedContent", {}).get("text"), str),
                     "insertedContent")
    region = res["locations"][0]["physicalLocation"]["region"]
    print(f"result: {res['ruleId']} {res['level']} line {region['startLine']} "
          f"notes {len(related)} fixes {len(fixes)}: {res['message']['text']}")
print("sarif: valid")
