#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Kinema authors
"""Checks the hand-written manual pages.

  test-man.py lint GROFF PAGE...
      groff with every warning on (-ww) must print nothing for each PAGE.
  test-man.py commands KINEMA_CLI PAGE
      every command that "kinema-cli --help" lists must have a subsection (.SS) in PAGE,
      and every long option that "kinema-cli COMMAND --help" shows must appear in PAGE.

Prints TAP.
"""

import os
import re
import subprocess
import sys


def tap(results):
    print(f"1..{len(results)}")
    failed = 0
    for i, (ok, name, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if not ok:
            failed += 1
            for line in detail.splitlines():
                print(f"# {line}")
    return 1 if failed else 0


def lint(groff, pages):
    results = []
    for page in pages:
        env = dict(os.environ, LC_ALL="C.UTF-8")
        proc = subprocess.run([groff, "-man", "-ww", "-z", "-Tutf8", page],
                              capture_output=True, text=True, env=env)
        problems = (proc.stderr or "").strip()
        ok = proc.returncode == 0 and not problems
        results.append((ok, f"groff -ww {os.path.basename(page)}",
                        problems or f"groff exited with {proc.returncode}"))
        # Every page needs these sections in this order.
        with open(page, encoding="utf-8") as f:
            text = f.read()
        sections = re.findall(r'^\.SH\s+"?([^"\n]+)"?\s*$', text, re.M)
        wanted = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES",
                  "SEE ALSO"]
        order = [s for s in sections if s in wanted]
        results.append((order == wanted, f"sections of {os.path.basename(page)}",
                        f"have {sections}, want {wanted} in this order"))
        non_ascii = [n for n, line in enumerate(text.splitlines(), 1)
                     if any(ord(c) > 127 for c in line)]
        results.append((not non_ascii, f"{os.path.basename(page)} is ASCII (troff escapes)",
                        f"non-ASCII characters on lines {non_ascii}"))
    return results


def run_help(cli, args):
    env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
    proc = subprocess.run([cli] + args, capture_output=True, text=True, env=env, timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join([cli] + args)} exited with {proc.returncode}:\n"
                           f"{proc.stderr}")
    return proc.stdout


def troff_plain(text):
    """The page's text with troff's escaped minus and font changes removed."""
    text = text.replace("\\-", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    return text


def commands(cli, page):
    results = []
    with open(page, encoding="utf-8") as f:
        text = troff_plain(f.read())
    subsections = re.findall(r'^\.SS\s+"?([^"\s]+)', text, re.M)

    usage = run_help(cli, ["--help"])
    match = re.search(r"^Commands:\n((?:  \S.*\n)+)", usage, re.M)
    results.append((match is not None, "kinema-cli --help lists commands", usage))
    if match is None:
        return results
    names = [line.split()[0] for line in match.group(1).splitlines()]
    results.append((len(names) >= 6, "at least the six commands of issue 10",
                    f"found only {names}"))
    for name in names:
        results.append((name in subsections, f"command {name} has a subsection",
                        f"no '.SS {name} ...' in {page}; subsections: {subsections}"))
        if name == "version":
            continue
        help_text = run_help(cli, [name, "--help"])
        options = sorted(set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", help_text, re.M)))
        options = [o for o in options if o not in ("--help", "--help-all")]
        section = re.search(r'^\.SS\s+"?' + re.escape(name) + r"\b(.*?)(?=^\.S[SH]\b)",
                            text, re.M | re.S)
        body = section.group(1) if section else ""
        missing = [o for o in options if not re.search(re.escape(o) + r"\b", body)]
        results.append((not missing, f"options of {name} are documented",
                        f"missing in the '{name}' subsection of {page}: {missing}"))
    return results


def main(argv):
    if len(argv) >= 3 and argv[1] == "lint":
        return tap(lint(argv[2], argv[3:]))
    if len(argv) == 4 and argv[1] == "commands":
        return tap(commands(argv[2], argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
