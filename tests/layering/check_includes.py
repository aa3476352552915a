#!/usr/bin/env python3
"""Fails when an #include in src/, tools/ or bench/ goes against the layer table in layers.txt.

Usage: check_includes.py [ROOT] [--layers FILE]

ROOT is the repository (default: this checkout). Its folders are src/<name>/, named `<name>` as
their includes read ("storage/engine.h"), and tools/<name>/ and bench/<name>/, named
`tools/<name>` and `bench/<name>` (includes read "tools/client/mongo_client.h"). Every
`#include "x/..."` in a folder must name that folder or one its row lists directly; what those
folders include in turn is their own business. Every `#include <lib/...>` of a third-party
library with an `external` rule must come from a folder that rule allows. Each
`quarry_library(<name> DEPS ...)` in src/<name>/CMakeLists.txt must link exactly the quarry_
libraries of the row, so the build and the table say the same. Prints one line per violation
(file:line: what and why) and a final `N passed, N failed` line; exits 1 on any violation.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cxx", ".inc", ".def", ".ipp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
QUARRY_LIBRARY_RE = re.compile(r"quarry_library\(\s*(\w+)([^)]*)\)")
# Trees whose folders are named with their tree's prefix, as their includes spell them.
PREFIXED_TREES = ("tools", "bench")


class LayerTable:
    """The parsed layers.txt: direct dependencies per folder and the external-include rules."""

    def __init__(self, direct, externals):
        self.direct = direct  # folder -> set of folders, or None for "*"
        self.externals = externals  # list of (include prefix, set of folders)

    @classmethod
    def parse(cls, path):
        direct, externals = {}, []
        with open(path, encoding="utf-8") as f:
            for line_no, raw in enumerate(f, 1):
                line = raw.split("#", 1)[0].strip()
                if not line:
                    continue
                if ":" not in line:
                    raise ValueError(f"{path}:{line_no}: expected 'name: deps', got {raw!r}")
                name, deps = (part.strip() for part in line.split(":", 1))
                names = set(deps.split()) - {"-"}
                if name.startswith("external "):
                    externals.append((name[len("external "):].strip(), names))
                elif name in direct:
                    raise ValueError(f"{path}:{line_no}: a second row for {name}")
                elif deps.strip() == "*":
                    direct[name] = None
                else:
                    direct[name] = names
        for name, deps in direct.items():
            for dep in deps or ():
                if dep not in direct:
                    raise ValueError(f"{path}: {name} depends on {dep}, which has no row")
        return cls(direct, externals)

    def allowed(self, folder):
        """Every folder `folder` may include: itself and the folders its row names."""
        deps = self.direct.get(folder, set())
        if deps is None:
            return set(self.direct)
        return {folder} | deps

    def external_rule(self, include):
        """The folders allowed to include a third-party header, or None when no rule names it."""
        best = None
        for prefix, folders in self.externals:
            if include == prefix or include.startswith(prefix):
                if best is None or len(prefix) > len(best[0]):
                    best = (prefix, folders)
        return best


def has_sources(path):
    return any(name.endswith(SOURCE_SUFFIXES) for _, _, files in os.walk(path) for name in files)


def layer_folders(root):
    """(folder name, its directory) for every folder the table must have a row for.

    Every directory under src/ is a layer, even one with no code yet. Under tools/ and bench/,
    only directories holding C++ sources are (bench/ also keeps scripts).
    """
    found = []
    for tree in ("src",) + PREFIXED_TREES:
        tree_dir = os.path.join(root, tree)
        if not os.path.isdir(tree_dir):
            continue
        for name in sorted(os.listdir(tree_dir)):
            path = os.path.join(tree_dir, name)
            if not os.path.isdir(path):
                continue
            if tree == "src":
                found.append((name, path))
            elif has_sources(path):
                found.append((f"{tree}/{name}", path))
    return found


def source_files(folder_dir):
    for base, dirs, files in os.walk(folder_dir):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(base, name)


def include_target(root, include):
    """(the folder an include path names, the file it names if it is the project's).

    The folder is None for an include without a folder ("local.h")."""
    parts = include.split("/")
    if len(parts) < 2:
        return None, None
    if parts[0] in PREFIXED_TREES and len(parts) > 2:
        return f"{parts[0]}/{parts[1]}", os.path.join(root, include)
    return parts[0], os.path.join(root, "src", include)


def check_includes(root, table):
    """Returns (number of files checked, list of violation strings)."""
    violations = []
    folders = layer_folders(root)
    known_dirs = {name for name, _ in folders}
    checked = 0
    for folder, folder_dir in folders:
        if folder not in table.direct:
            prefix = "" if "/" in folder else "src/"
            violations.append(
                f"{prefix}{folder}/: folder has no row in tests/layering/layers.txt "
                "(add it there and to docs/DESIGN.md's module table)")
            continue
        allowed = table.allowed(folder)
        for path in source_files(folder_dir):
            checked += 1
            violations += check_file(root, path, folder, allowed, known_dirs, table)
    return checked, violations


def check_file(root, path, folder, allowed, known_dirs, table):
    violations = []
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    with open(path, encoding="utf-8", errors="replace") as f:
        for line_no, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            bracket, include = m.groups()
            where = f"{rel}:{line_no}"
            target, target_file = include_target(root, include)
            is_project = target_file is not None and os.path.isfile(target_file)
            if bracket == '"' or is_project:
                if target is None:
                    continue  # "foo.h": a file next to this one
                if target in table.direct:
                    if target not in allowed:
                        violations.append(
                            f'{where}: {folder}/ includes "{include}", but {folder}/ may '
                            f"include only: {', '.join(sorted(allowed))}")
                elif target in known_dirs:
                    pass  # reported once as a folder without a row
                elif bracket == '"':
                    violations.append(
                        f'{where}: "{include}" is not in a folder of src/, tools/ or bench/; '
                        "include third-party headers with <...>")
                continue
            rule = table.external_rule(include)
            if rule is not None and folder not in rule[1]:
                owners = ", ".join(f"{name}/" for name in sorted(rule[1])) or "no folder"
                violations.append(
                    f"{where}: {folder}/ includes <{include}>; <{rule[0]}...> belongs to {owners}")
    return violations


def check_cmake_deps(root, table):
    """Violations where a src/ folder's quarry_library(...) links other quarry_ libraries than
    its row lists (third-party targets are not compared)."""
    violations = []
    src = os.path.join(root, "src")
    if not os.path.isdir(src):
        return violations
    for name in sorted(os.listdir(src)):
        cmake = os.path.join(src, name, "CMakeLists.txt")
        if not os.path.isfile(cmake) or table.direct.get(name, set()) is None:
            continue
        with open(cmake, encoding="utf-8") as f:
            text = re.sub(r"#.*", "", f.read())
        for m in QUARRY_LIBRARY_RE.finditer(text):
            if m.group(1) != name:
                continue
            words = m.group(2).split()
            linked = {w[len("quarry_"):] for w in words if w.startswith("quarry_")}
            row = table.direct.get(name, set())
            for missing in sorted(row - linked):
                violations.append(f"src/{name}/CMakeLists.txt: layers.txt lets {name}/ include "
                                  f"{missing}/, but quarry_{name} does not link quarry_{missing}")
            for extra in sorted(linked - row):
                violations.append(f"src/{name}/CMakeLists.txt: quarry_{name} links quarry_{extra}, "
                                  f"but layers.txt does not list {extra} for {name}")
    return violations


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=os.path.join(HERE, "..", ".."))
    parser.add_argument("--layers", default=os.path.join(HERE, "layers.txt"))
    args = parser.parse_args(argv)
    try:
        table = LayerTable.parse(args.layers)
    except (OSError, ValueError) as e:
        print(f"layering: cannot read the layer table: {e}")
        print("0 passed, 1 failed")
        return 1
    root = os.path.normpath(args.root)
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"layering: {root} has no src/ directory")
        print("0 passed, 1 failed")
        return 1
    checked, violations = check_includes(root, table)
    violations += check_cmake_deps(root, table)
    for v in violations:
        print(v)
    if violations:
        print(f"layering: {len(violations)} violation(s) of tests/layering/layers.txt")
        print("0 passed, 1 failed")
        return 1
    print(f"layering: {checked} files follow tests/layering/layers.txt")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
