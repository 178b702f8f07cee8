#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright 2026 The Kinema authors
"""test-manifest.py SOURCE_ROOT [FLATPAK_BUILDER]

Checks flatpak/io.github.kinema.Kinema.json without the network (building it needs one):
valid JSON, the app id and command of meson.build and the desktop file, a GNOME runtime,
every module's sources pinned (git: a tag or a commit; archives: a sha256), the kinema
module's -D options known to meson_options.txt with values their type accepts, and every
dependency() of meson.build either in the GNOME runtime or built by a module. With
FLATPAK_BUILDER, `flatpak-builder --show-manifest` must read it without a warning (it
warns about unknown properties and values of the wrong type). Prints TAP.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

# pkg-config names org.gnome.Platform (>= 47) provides; the rest needs a module.
RUNTIME_PROVIDES = {"glib-2.0", "gobject-2.0", "gio-2.0", "gmodule-2.0", "gtk4", "epoxy",
                    "json-glib-1.0", "threads"}
# module name -> pkg-config name it installs
MODULE_PROVIDES = {"cglm": "cglm", "libyaml": "yaml-0.1"}
# meson built-in options a manifest may pass besides the project's own.
MESON_BUILTINS = {"buildtype", "optimization", "debug", "b_lto", "b_ndebug", "b_pie",
                  "werror", "warning_level", "default_library", "strip"}
BUILDSYSTEMS = {"meson", "autotools", "cmake", "cmake-ninja", "simple", "qmake"}


def tap(results):
    print(f"1..{len(results)}")
    for i, (ok, name, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
        if not ok:
            for line in str(detail).splitlines():
                print(f"# {line}")
    return 0 if all(ok for ok, _, _ in results) else 1


def meson_options(path):
    """name -> (type, choices or None) from meson_options.txt."""
    options = {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for m in re.finditer(r"option\s*\(\s*'([^']+)'\s*,(.*?)\)\s*$", text, re.M | re.S):
        name, rest = m.group(1), m.group(2)
        kind = re.search(r"type\s*:\s*'([^']+)'", rest)
        choices = re.search(r"choices\s*:\s*\[([^\]]*)\]", rest)
        options[name] = (kind.group(1) if kind else None,
                         re.findall(r"'([^']*)'", choices.group(1)) if choices else None)
    return options


def value_ok(kind, choices, value):
    if kind == "feature":
        return value in ("enabled", "disabled", "auto")
    if kind == "boolean":
        return value in ("true", "false")
    if kind == "combo":
        return choices is not None and value in choices
    if kind == "integer":
        return re.fullmatch(r"-?\d+", value) is not None
    return kind in ("string", "array")


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    results = []
    with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
        meson_build = f.read()
    app_id = re.search(r"^app_id\s*=\s*'([^']+)'", meson_build, re.M).group(1)
    path = os.path.join(root, "flatpak", app_id + ".json")

    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        results.append((True, "the manifest is valid JSON", ""))
    except (OSError, ValueError) as e:
        return tap([(False, "the manifest is valid JSON", str(e))])

    results.append((manifest.get("id") == app_id, "id is the app id of meson.build",
                    f"id {manifest.get('id')!r}, meson.build {app_id!r}"))
    results.append((manifest.get("runtime") == "org.gnome.Platform" and
                    manifest.get("sdk") == "org.gnome.Sdk",
                    "runtime org.gnome.Platform, sdk org.gnome.Sdk",
                    f"{manifest.get('runtime')!r} / {manifest.get('sdk')!r}"))
    version = str(manifest.get("runtime-version", ""))
    results.append((version.isdigit() and int(version) >= 47, "a current GNOME runtime (>= 47)",
                    f"runtime-version {version!r}"))
    with open(os.path.join(root, "data", app_id + ".desktop.in"), encoding="utf-8") as f:
        exec_line = re.search(r"^Exec=(\S+)", f.read(), re.M)
    results.append((exec_line is not None and manifest.get("command") == exec_line.group(1),
                    "command is the desktop file's Exec program",
                    f"command {manifest.get('command')!r}, Exec "
                    f"{exec_line.group(1) if exec_line else None!r}"))
    finish = manifest.get("finish-args", [])
    for arg in ("--socket=wayland", "--socket=fallback-x11", "--device=dri", "--share=ipc"):
        results.append((arg in finish, f"finish-args has {arg}", f"finish-args: {finish}"))

    modules = manifest.get("modules", [])
    names = [m.get("name") for m in modules if isinstance(m, dict)]
    results.append((len(names) == len(modules) and len(set(names)) == len(names) and
                    all(names), "modules are objects with unique names", f"names: {names}"))
    results.append((bool(names) and names[-1] == "kinema", "the last module builds kinema",
                    f"names: {names}"))

    for module in modules:
        name = module.get("name")
        results.append((module.get("buildsystem") in BUILDSYSTEMS,
                        f"{name}: known buildsystem", f"{module.get('buildsystem')!r}"))
        sources = module.get("sources", [])
        results.append((len(sources) > 0, f"{name}: has sources", ""))
        for source in sources:
            kind = source.get("type")
            if kind == "git":
                commit = source.get("commit")
                ok = (source.get("url", "").startswith("https://") and
                      (bool(source.get("tag")) or commit is not None) and
                      (commit is None or re.fullmatch(r"[0-9a-f]{40}", commit) is not None) and
                      "branch" not in source)
                results.append((ok, f"{name}: git source pinned to a tag or commit",
                                json.dumps(source)))
            elif kind in ("archive", "file"):
                results.append((re.fullmatch(r"[0-9a-f]{64}", source.get("sha256", "")) and
                                source.get("url", "").startswith("https://"),
                                f"{name}: {kind} source has https and sha256",
                                json.dumps(source)))
            elif kind == "dir":
                ok = name == "kinema" and os.path.isfile(
                    os.path.join(os.path.dirname(path), source.get("path", ""), "meson.build"))
                results.append((ok, f"{name}: dir source is this source tree",
                                json.dumps(source)))
            else:
                results.append((False, f"{name}: known source type", json.dumps(source)))
        if name == "kinema":
            options = meson_options(os.path.join(root, "meson_options.txt"))
            results.append(("gui" in options, "meson_options.txt parsed",
                             f"options: {options}"))
            for opt in module.get("config-opts", []):
                m = re.fullmatch(r"-D([\w.-]+)=(.*)", opt)
                if m is None:
                    results.append((False, f"kinema: config-opt {opt} is -Dname=value", ""))
                    continue
                key, value = m.groups()
                if key in MESON_BUILTINS:
                    results.append((True, f"kinema: {opt} is a meson built-in", ""))
                    continue
                kind, choices = options.get(key, (None, None))
                results.append((key in options and value_ok(kind, choices, value),
                                f"kinema: {opt} matches meson_options.txt",
                                f"meson_options.txt: {key} -> {options.get(key)}"))
            results.append(("-Dgui=enabled" in module.get("config-opts", []),
                            "kinema: the GUI is built (-Dgui=enabled)", ""))

    deps = set(re.findall(r"dependency\s*\(\s*'([^']+)'", meson_build))
    built = {MODULE_PROVIDES[n] for n in names if n in MODULE_PROVIDES}
    lacking = sorted(deps - RUNTIME_PROVIDES - built)
    results.append((not lacking, "every dependency() is in the runtime or built by a module",
                    f"add a module (and MODULE_PROVIDES in {sys.argv[0]}) for: {lacking}"))
    unused = sorted(n for n in names if n in MODULE_PROVIDES and MODULE_PROVIDES[n] not in deps)
    results.append((not unused, "no module builds a library meson.build does not use",
                    f"unused: {unused}"))
    if len(argv) == 3:
        # It leaves a .flatpak-builder state directory in the working directory.
        with tempfile.TemporaryDirectory(prefix="kinema-flatpak-") as tmp:
            proc = subprocess.run([argv[2], "--show-manifest", os.path.abspath(path)],
                                  capture_output=True, text=True, timeout=60, cwd=tmp)
        shown = None
        try:
            shown = json.loads(proc.stdout)
        except ValueError:
            pass
        results.append((proc.returncode == 0 and not proc.stderr.strip() and
                        isinstance(shown, dict) and shown.get("id") == app_id,
                        "flatpak-builder --show-manifest reads it without warnings",
                        f"exit {proc.returncode}: {proc.stderr}"))
    return tap(results)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
