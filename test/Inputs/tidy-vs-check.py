#!/usr/bin/env python3
"""clang-tidy with mpilift's module must report and fix what `mpilift
check` does: for each program, the mpilift-* warnings of `mpilift-clang-tidy
--checks=-*,mpilift-*` (rule, place, message) are the findings of `mpilift
check`, and the file after `mpilift-clang-tidy --fix` is the file `mpilift
check --fix` writes.

  tidy-vs-check.py BIN_DIR WORKDIR FILES...
"""
import os
import sys

from checkreference import findings, project, reference, run


def main():
    bindir, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    mpilift = os.path.join(bindir, "mpilift")
    tidy = os.path.join(bindir, "mpilift-clang-tidy")
    os.makedirs(work, exist_ok=True)
    ok = True
    for source in files:
        name = os.path.basename(source)
        expected, check_fixed = reference(mpilift, work, source)
        d, path = project(work, source, "tidy")
        got = findings(run([tidy, "-p", d, "--checks=-*,mpilift-*", path]))
        run([tidy, "-p", d, "--checks=-*,mpilift-*", "--fix", path])
        tidy_fixed = open(path).read()
        same = got == expected and tidy_fixed == check_fixed
        if got != expected:
            print(f"{name}: clang-tidy's findings differ from mpilift check's:")
            print("  check:", expected)
            print("  tidy: ", got)
        if tidy_fixed != check_fixed:
            print(f"{name}: clang-tidy --fix does not write what mpilift check --fix does")
        if same:
            rewritten = tidy_fixed != open(source).read()
            print(f"{name}: {len(got)} finding(s), "
                  f"{'rewritten' if rewritten else 'unchanged'}: same")
        ok &= same
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
