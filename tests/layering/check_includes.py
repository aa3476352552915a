#!/usr/bin/env python3
"""Fails when an #include in src/ goes against the layer table in layers.txt.

Usage: check_includes.py [SRC_DIR] [--layers FILE]

Every `#include "x/..."` in src/<folder>/ must name a folder that <folder> may depend on
(transitively, per layers.txt), and every `#include <lib/...>` of a third-party library with
an `external` rule must come from a folder that rule allows. Prints one line per violation
(file:line: what and why) and a final `N passed, N failed` line; exits 1 on any violation.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cxx", ".inc", ".def", ".ipp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


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
        """Every folder `folder` may include: itself plus its dependencies' closure."""
        if self.direct.get(folder, set()) is None:
            return set(self.direct)
        seen, stack = {folder}, [folder]
        while stack:
            for dep in self.direct.get(stack.pop()) or ():
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    def external_rule(self, include):
        """The folders allowed to include a third-party header, or None when no rule names it."""
        best = None
        for prefix, folders in self.externals:
            if include == prefix or include.startswith(prefix):
                if best is None or len(prefix) > len(best[0]):
                    best = (prefix, folders)
        return best


def source_files(src_dir):
    for root, dirs, files in os.walk(src_dir):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(root, name)


def check(src_dir, table):
    """Returns (number of files checked, list of violation strings)."""
    violations = []
    folders = sorted(d for d in os.listdir(src_dir) if os.path.isdir(os.path.join(src_dir, d)))
    for folder in folders:
        if folder not in table.direct:
            violations.append(
                f"src/{folder}/: folder has no row in tests/layering/layers.txt "
                "(add it there and to docs/DESIGN.md's module table)")
    checked = 0
    for path in source_files(src_dir):
        rel = os.path.relpath(path, src_dir)
        if os.sep not in rel:
            continue  # a file directly in src/ belongs to no layer
        folder = rel.split(os.sep, 1)[0]
        if folder not in table.direct:
            continue  # already reported once for the whole folder
        allowed = table.allowed(folder)
        checked += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            for line_no, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                bracket, include = m.groups()
                where = f"src/{rel}:{line_no}"
                target = include.split("/", 1)[0] if "/" in include else None
                is_project = target is not None and os.path.isfile(os.path.join(src_dir, include))
                if bracket == '"' or is_project:
                    if target is None:
                        continue  # "foo.h": a file next to this one
                    if target in table.direct:
                        if target not in allowed:
                            violations.append(
                                f'{where}: {folder}/ includes "{include}", but {folder}/ may '
                                f"include only: {', '.join(sorted(allowed))}")
                    elif os.path.isdir(os.path.join(src_dir, target)):
                        pass  # reported above as a folder without a row
                    elif bracket == '"':
                        violations.append(
                            f'{where}: "{include}" is not under src/; include third-party '
                            "headers with <...>")
                    continue
                rule = table.external_rule(include)
                if rule is not None and folder not in rule[1]:
                    owners = ", ".join(f"{name}/" for name in sorted(rule[1])) or "no src/ folder"
                    violations.append(
                        f"{where}: {folder}/ includes <{include}>; <{rule[0]}...> belongs to "
                        f"{owners}")
    return checked, violations


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", default=os.path.join(HERE, "..", "..", "src"))
    parser.add_argument("--layers", default=os.path.join(HERE, "layers.txt"))
    args = parser.parse_args(argv)
    try:
        table = LayerTable.parse(args.layers)
    except (OSError, ValueError) as e:
        print(f"layering: cannot read the layer table: {e}")
        print("0 passed, 1 failed")
        return 1
    if not os.path.isdir(args.src):
        print(f"layering: {args.src} is not a directory")
        print("0 passed, 1 failed")
        return 1
    checked, violations = check(os.path.normpath(args.src), table)
    for v in violations:
        print(v)
    if violations:
        print(f"layering: {len(violations)} include(s) go against tests/layering/layers.txt")
        print("0 passed, 1 failed")
        return 1
    print(f"layering: {checked} files follow tests/layering/layers.txt")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
