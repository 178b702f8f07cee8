#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Kinema authors
"""test-install.py MESON BUILD_ROOT SOURCE_ROOT VERSION GUI(true|false)

Installs the build into a temporary DESTDIR (`meson install --destdir --no-rebuild`) and
checks that it is a working application: every file of `meson introspect --installed`
exists, the expected desktop-integration files are among them, the installed kinema-cli
runs and prints the version, its resources are compiled in, the installed body handlers
load, and the installed schema compiles. Prints TAP.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


class Tap:
    def __init__(self):
        self.results = []

    def check(self, ok, name, detail=""):
        self.results.append((bool(ok), name, detail))
        return ok

    def finish(self):
        print(f"1..{len(self.results)}")
        for i, (ok, name, detail) in enumerate(self.results, 1):
            print(f"{'ok' if ok else 'not ok'} {i} {name}")
            if not ok:
                for line in str(detail).splitlines():
                    print(f"# {line}")
        return 0 if all(ok for ok, _, _ in self.results) else 1


def run(args, **kwargs):
    env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
    env.update(kwargs.pop("env", {}))
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=120,
                          **kwargs)


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    meson, build_root, source_root, version, gui = argv[1:]
    gui = gui == "true"
    tap = Tap()

    proc = run([meson, "introspect", "--buildoptions", build_root])
    if not tap.check(proc.returncode == 0, "meson introspect --buildoptions", proc.stderr):
        return tap.finish()
    options = {o["name"]: o["value"] for o in json.loads(proc.stdout)}
    prefix = options["prefix"]
    dirs = {name: os.path.join(prefix, options[name])
            for name in ("bindir", "libdir", "datadir", "mandir", "localedir")}

    proc = run([meson, "introspect", "--installed", build_root])
    if not tap.check(proc.returncode == 0, "meson introspect --installed", proc.stderr):
        return tap.finish()
    planned = sorted(set(json.loads(proc.stdout).values()))

    with tempfile.TemporaryDirectory(prefix="kinema-install-") as destdir:
        def staged(path):
            return os.path.join(destdir, os.path.relpath(path, "/"))

        proc = run([meson, "install", "-C", build_root, "--no-rebuild", "--quiet",
                    "--destdir", destdir])
        if not tap.check(proc.returncode == 0, "meson install --destdir",
                         proc.stdout + proc.stderr):
            return tap.finish()

        missing = [p for p in planned if not os.path.isfile(staged(p))]
        tap.check(not missing, f"all {len(planned)} planned files are installed",
                  "missing: " + ", ".join(missing))

        cli = os.path.join(dirs["bindir"], "kinema-cli")
        linguas = []
        with open(os.path.join(source_root, "po", "LINGUAS"), encoding="utf-8") as f:
            for line in f:
                linguas += line.split("#")[0].split()
        handler_dir = os.path.join(dirs["libdir"], "kinema", "bodyhandler")
        expected = [
            cli,
            os.path.join(dirs["mandir"], "man1", "kinema-cli.1"),
            os.path.join(dirs["datadir"], "glib-2.0", "schemas",
                         "io.github.kinema.Kinema.gschema.xml"),
            os.path.join(dirs["datadir"], "mime", "packages", "io.github.kinema.Kinema.xml"),
            os.path.join(dirs["datadir"], "icons", "hicolor", "scalable", "apps",
                         "io.github.kinema.Kinema.svg"),
            os.path.join(dirs["datadir"], "icons", "hicolor", "symbolic", "apps",
                         "io.github.kinema.Kinema-symbolic.svg"),
        ]
        expected += [os.path.join(handler_dir, name + ".so")
                     for name in ("ClosedLinkSampleHandler", "LinearActuatorSampleHandler",
                                  "UR5AnalyticIkHandler")]
        expected += [os.path.join(dirs["localedir"], lang, "LC_MESSAGES", "kinema.mo")
                     for lang in linguas]
        if gui:
            expected += [
                os.path.join(dirs["bindir"], "kinema"),
                os.path.join(dirs["mandir"], "man1", "kinema.1"),
                os.path.join(dirs["datadir"], "applications", "io.github.kinema.Kinema.desktop"),
                os.path.join(dirs["datadir"], "metainfo", "io.github.kinema.Kinema.metainfo.xml"),
            ]
        for path in expected:
            tap.check(os.path.isfile(staged(path)), f"installs {os.path.relpath(path, prefix)}",
                      f"{staged(path)} does not exist")

        for exe in [cli] + ([os.path.join(dirs["bindir"], "kinema")] if gui else []):
            tap.check(os.access(staged(exe), os.X_OK), f"{os.path.basename(exe)} is executable",
                      f"{staged(exe)} is not executable")

        proc = run([staged(cli), "--version"])
        tap.check(proc.returncode == 0 and proc.stdout == f"kinema-cli {version}\n",
                  "installed kinema-cli --version prints the version",
                  f"exit {proc.returncode}, stdout {proc.stdout!r}, stderr {proc.stderr!r}")

        proc = run([staged(cli), "validate", os.path.join(source_root, "data", "skeleton.json")])
        tap.check(proc.returncode == 0, "installed kinema-cli validates the default skeleton",
                  f"exit {proc.returncode}: {proc.stderr}")

        # The embedded defaults are GResources compiled into the binary, not files.
        gresource = shutil.which("gresource")
        if gresource:
            proc = run([gresource, "list", staged(cli)])
            tap.check(proc.returncode == 0 and "skeleton.json" in proc.stdout,
                      "installed kinema-cli has its resources compiled in",
                      f"exit {proc.returncode}: {proc.stdout}{proc.stderr}")
            if gui:
                proc = run([gresource, "list", staged(os.path.join(dirs["bindir"], "kinema"))])
                tap.check(proc.returncode == 0 and "km-window.ui" in proc.stdout,
                          "installed kinema has its UI resources compiled in",
                          f"exit {proc.returncode}: {proc.stdout}{proc.stderr}")

        # KINEMA_HANDLER_DIR names the final location; point the search path at the staged one.
        model = os.path.join(source_root, "tests", "data", "ur5-analytic.json")
        proc = run([staged(cli), "info", model],
                   env={"KINEMA_BODYHANDLER_PATH": staged(handler_dir),
                        "XDG_DATA_HOME": os.path.join(destdir, "xdg-data")})
        tap.check(proc.returncode == 0 and
                  f"handler UR5AnalyticIkHandler: attached" in proc.stdout and
                  staged(handler_dir) in proc.stdout,
                  "installed body handler loads",
                  f"exit {proc.returncode}: {proc.stdout}{proc.stderr}")

        if gui:
            proc = run([staged(os.path.join(dirs["bindir"], "kinema")), "--help"])
            tap.check(proc.returncode == 0 and "Usage:" in proc.stdout,
                      "installed kinema --help runs",
                      f"exit {proc.returncode}: {proc.stdout}{proc.stderr}")

        schema_dir = staged(os.path.join(dirs["datadir"], "glib-2.0", "schemas"))
        proc = run(["glib-compile-schemas", "--strict", "--dry-run", schema_dir])
        tap.check(proc.returncode == 0, "installed schema compiles with --strict",
                  proc.stderr)

        mime = staged(os.path.join(dirs["datadir"], "mime", "packages",
                                   "io.github.kinema.Kinema.xml"))
        desktop = staged(os.path.join(dirs["datadir"], "applications",
                                      "io.github.kinema.Kinema.desktop"))
        update_mime = shutil.which("update-mime-database")
        if update_mime and os.path.isfile(mime):
            mime_dir = os.path.dirname(os.path.dirname(mime))
            proc = run([update_mime, mime_dir])
            globs = os.path.join(mime_dir, "globs2")
            text = ""
            if os.path.isfile(globs):
                with open(globs, encoding="utf-8") as f:
                    text = f.read()
            tap.check(proc.returncode == 0 and
                      ":application/x-choreonoid-project:*.cnoid" in text,
                      "update-mime-database maps *.cnoid to the project type",
                      f"exit {proc.returncode}: {proc.stderr}\nglobs2: {text}")
            tap.check(":application/x-choreonoid-body:*.body" in text and
                      ":application/x-urdf:*.urdf" in text,
                      "update-mime-database maps *.body and *.urdf to the model types",
                      f"globs2: {text}")

        if gui and os.path.isfile(mime) and os.path.isfile(desktop):
            with open(mime, encoding="utf-8") as f:
                mime_text = f.read()
            with open(desktop, encoding="utf-8") as f:
                desktop_text = f.read()
            installed = re.findall(r'<mime-type type="([^"]+)"', mime_text)
            opened = re.search(r"^MimeType=(.*)$", desktop_text, re.M)
            opened = opened.group(1).split(";") if opened else []
            tap.check(len(installed) >= 3 and all(t in opened for t in installed),
                      "the desktop file opens every MIME type it installs",
                      f"installed {installed}, MimeType {opened}")

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
