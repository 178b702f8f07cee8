#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Kinema authors
"""Translation checks (po/README.md says how to fix what they report). Prints TAP.

  test-po.py potfiles SOURCE_ROOT
      po/POTFILES.in is sorted, names only existing files, and names every file under
      src/, ui/, resources/ and data/ with translatable strings: _(), N_(), C_(), NC_(),
      g_dngettext()… calls with a string literal in C sources, headers and .inc files,
      translatable="yes" in GtkBuilder files, the desktop and metainfo templates (data/*.in),
      GSettings schemas with a gettext-domain and the shared-mime-info package.
  test-po.py pot XGETTEXT SOURCE_ROOT
      Regenerates the POT into a temporary directory with xgettext and the arguments of
      meson's i18n.gettext(preset: 'glib') (what `ninja kinema-pot` runs) and compares its
      messages (context, singular, plural) with po/kinema.pot; line numbers, dates and
      comments are ignored.
  test-po.py msgfmt MSGFMT PO...
      `msgfmt --check` accepts each PO file.
"""

import os
import re
import subprocess
import sys
import tempfile

# meson's mesonbuild/modules/i18n.py PRESET_ARGS['glib'] (meson >= 1.0), which
# po/meson.build uses; run_potgen adds the rest of the command line.
GLIB_PRESET_ARGS = [
    "--from-code=UTF-8",
    "--add-comments",
    "--keyword=_",
    "--keyword=N_",
    "--keyword=C_:1c,2",
    "--keyword=NC_:1c,2",
    "--keyword=g_dcgettext:2",
    "--keyword=g_dngettext:2,3",
    "--keyword=g_dpgettext2:2c,3",
    "--flag=N_:1:pass-c-format",
    "--flag=C_:2:pass-c-format",
    "--flag=NC_:2:pass-c-format",
    "--flag=g_dngettext:2:pass-c-format",
    "--flag=g_strdup_printf:1:c-format",
    "--flag=g_string_printf:2:c-format",
    "--flag=g_string_append_printf:2:c-format",
    "--flag=g_error_new:3:c-format",
    "--flag=g_set_error:4:c-format",
    "--flag=g_markup_printf_escaped:1:c-format",
    "--flag=g_log:3:c-format",
    "--flag=g_print:1:c-format",
    "--flag=g_printerr:1:c-format",
    "--flag=g_printf:1:c-format",
    "--flag=g_fprintf:2:c-format",
    "--flag=g_sprintf:2:c-format",
    "--flag=g_snprintf:3:c-format",
]

REFRESH = "refresh it: ninja -C _build kinema-pot (see po/README.md)"


def tap(results):
    print(f"1..{len(results)}")
    for i, (ok, name, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if not ok:
            for line in str(detail).splitlines():
                print(f"# {line}")
    return 0 if all(ok for ok, _, _ in results) else 1


def read_potfiles(source_root):
    with open(os.path.join(source_root, "po", "POTFILES.in"), encoding="utf-8") as f:
        return [line.strip() for line in f
                if line.strip() and not line.lstrip().startswith("#")]


# A gettext keyword called with a string literal (possibly after a context literal).
C_KEYWORD = re.compile(r'(?<![\w.>])(?:_|N_|C_|NC_|Q_|g_dgettext|g_dcgettext|g_dngettext|'
                       r'g_dpgettext2|ngettext|dgettext|gettext)\s*\(\s*(?:[\w]+\s*,\s*)?"')
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
C_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def strip_c_comments(text):
    # Keep string literals intact while dropping comments: "/*" inside a string is not one.
    out = []
    pos = 0
    token = re.compile(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/|//[^\n]*', re.S)
    for m in token.finditer(text):
        out.append(text[pos:m.start()])
        out.append(m.group(0) if m.group(0).startswith('"') else " ")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def has_translatable(path):
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    if name.endswith((".c", ".h", ".inc")):
        return C_KEYWORD.search(strip_c_comments(text)) is not None
    if name.endswith(".ui"):
        return re.search(r'translatable\s*=\s*"(?:yes|true|1)"', text) is not None
    if name.endswith((".desktop.in", ".metainfo.xml.in", ".appdata.xml.in")):
        return True
    if name.endswith(".gschema.xml"):
        return "gettext-domain" in text
    if name.endswith(".mime.xml"):
        return "<comment" in text
    return False


def potfiles(source_root):
    results = []
    listed = read_potfiles(source_root)
    results.append((listed == sorted(listed), "POTFILES.in is sorted",
                    "out of order: " + ", ".join(a for a, b in zip(listed, sorted(listed))
                                                 if a != b)))
    dups = sorted({p for p in listed if listed.count(p) > 1})
    results.append((not dups, "POTFILES.in has no duplicates", ", ".join(dups)))
    missing = [p for p in listed if not os.path.isfile(os.path.join(source_root, p))]
    results.append((not missing, "every file in POTFILES.in exists",
                    "no such file: " + ", ".join(missing)))

    candidates = []
    for top in ("src", "ui", "resources"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(source_root, top)):
            dirnames.sort()
            for filename in sorted(filenames):
                candidates.append(os.path.relpath(os.path.join(dirpath, filename), source_root))
    data_dir = os.path.join(source_root, "data")
    for filename in sorted(os.listdir(data_dir)):
        candidates.append(os.path.join("data", filename))

    need = [p for p in candidates if has_translatable(os.path.join(source_root, p))]
    unlisted = [p for p in need if p not in listed]
    results.append((len(need) > 0, "some source files have translatable strings",
                    "the scan found none: the scanner is broken"))
    results.append((not unlisted, f"all {len(need)} files with translatable strings are "
                    "in po/POTFILES.in",
                    "add to po/POTFILES.in (keep it sorted), then " + REFRESH + ":\n  " +
                    "\n  ".join(unlisted)))
    return results


def unquote(s):
    return C_STRING.findall(s)


def read_messages(path):
    """The set of (msgctxt, msgid, msgid_plural) of a PO/POT file, header excluded."""
    messages = set()
    entry = {}
    field = None

    def flush():
        if "msgid" in entry and entry["msgid"] != "":
            messages.add((entry.get("msgctxt"), entry["msgid"], entry.get("msgid_plural")))
        entry.clear()

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                if not line and entry:
                    flush()
                    field = None
                continue
            m = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(.*)", line)
            if m:
                field = m.group(1)
                if field in ("msgctxt", "msgid") and "msgstr" in entry:
                    flush()
                if field == "msgctxt" and "msgid" in entry:
                    flush()
                value = "".join(s[1:-1] for s in unquote(m.group(2)))
                entry[field if not field.startswith("msgstr") else "msgstr"] = \
                    entry.get("msgstr", "") + value if field.startswith("msgstr") else value
            elif line.startswith('"') and field:
                key = "msgstr" if field.startswith("msgstr") else field
                entry[key] = entry.get(key, "") + "".join(s[1:-1] for s in unquote(line))
    flush()
    return messages


def describe(message):
    ctxt, msgid, plural = message
    text = (f"[{ctxt}] " if ctxt else "") + msgid
    if plural:
        text += f" | {plural}"
    return text if len(text) < 110 else text[:107] + "..."


def pot(xgettext, source_root):
    results = []
    committed = os.path.join(source_root, "po", "kinema.pot")
    if not os.path.isfile(committed):
        return [(False, "po/kinema.pot exists", "no po/kinema.pot; " + REFRESH)]
    with tempfile.TemporaryDirectory(prefix="kinema-pot-") as tmp:
        cmd = [xgettext, "--package-name=kinema", "-p", tmp,
               "-f", os.path.join(source_root, "po", "POTFILES.in"),
               "-D", source_root, "-k_", "-o", "kinema.pot"] + GLIB_PRESET_ARGS
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        fresh = os.path.join(tmp, "kinema.pot")
        ok = proc.returncode == 0 and os.path.isfile(fresh)
        results.append((ok, "xgettext extracts the messages", proc.stderr))
        if not ok:
            return results
        new = read_messages(fresh)
    old = read_messages(committed)
    results.append((len(new) > 0, "the sources have translatable messages",
                    "xgettext found no messages"))
    added = sorted(new - old, key=describe)
    removed = sorted(old - new, key=describe)
    detail = [f"po/kinema.pot is out of date with the sources; {REFRESH}"]
    detail += ["  missing: " + describe(m) for m in added[:40]]
    detail += ["  stale:   " + describe(m) for m in removed[:40]]
    if len(added) > 40 or len(removed) > 40:
        detail.append(f"  ({len(added)} missing, {len(removed)} stale in all)")
    results.append((not added and not removed,
                    f"po/kinema.pot has the {len(new)} messages of the sources",
                    "\n".join(detail)))
    return results


def msgfmt(msgfmt_path, pos):
    results = []
    for po in pos:
        proc = subprocess.run([msgfmt_path, "--check", "--check-format", "--check-header",
                               "--check-domain", "-o", os.devnull, po],
                              capture_output=True, text=True, timeout=60)
        results.append((proc.returncode == 0, f"msgfmt --check {os.path.basename(po)}",
                        proc.stderr))
    results.append((len(pos) > 0, "there are PO files", "no PO file given"))
    return results


def main(argv):
    if len(argv) == 3 and argv[1] == "potfiles":
        return tap(potfiles(argv[2]))
    if len(argv) == 4 and argv[1] == "pot":
        return tap(pot(argv[2], argv[3]))
    if len(argv) >= 3 and argv[1] == "msgfmt":
        return tap(msgfmt(argv[2], argv[3:]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
