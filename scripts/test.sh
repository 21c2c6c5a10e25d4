#!/usr/bin/env bash
# Builds mpilift and runs every test (lit end-to-end tests and GoogleTest
# unit tests), then prints one closing line: "N passed, N failed, N skipped".
# Usage: bash scripts/test.sh        (as root on Debian 12; installs deps)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MPILIFT_BUILD_DIR:-$root/build}

bash "$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build"

set +e
cmake --build "$build" --target check
status=$?
set -e

python3 - "$build/test-results.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError) as e:
    print(f"no test results: {e}")
    print("0 passed, 1 failed")
    sys.exit(0)
suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
total = failed = skipped = 0
for s in suites:
    total += int(s.get("tests", 0))
    failed += int(s.get("failures", 0)) + int(s.get("errors", 0))
    skipped += int(s.get("skipped", 0))
print(f"{total - failed - skipped} passed, {failed} failed, {skipped} skipped")
PY
exit $status
