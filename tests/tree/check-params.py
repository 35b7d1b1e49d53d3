#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails when a function of the daemon or the policy takes more than MAX_PARAMS parameters
(docs/design.md, "Code rules"): a function that needs more takes a struct of its inputs.

Every function definition and prototype at file scope in daemon/, policy/ and include/mglrud/
(*.c and *.h, not the BPF programs) is counted: comments, strings and preprocessor lines are
left out, and a parameter is a comma at the outermost level of the parentheses after the
function's name (a function-pointer parameter counts once). Function-pointer typedefs and
struct members are types, not functions, and are not counted.

Usage: check-params.py SOURCE_ROOT"""
import os
import re
import sys

MAX_PARAMS = 8
DIRS = ["daemon", "policy", os.path.join("include", "mglrud")]
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "_Static_assert",
                 "__attribute__", "typeof", "__typeof__", "_Alignas", "alignof", "defined"}


def strip(text):
    """text without comments, string and character literals, and preprocessor lines (each kept
    as the same number of newlines, so that line numbers stay true)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    kept, cont = [], False
    for line in lines:
        pre = cont or line.lstrip().startswith("#")
        cont = pre and line.rstrip().endswith("\\")
        kept.append("" if pre else line)
    return "\n".join(kept)


def functions(text):
    """Yields (name, line, parameter count) for each function declared or defined at file
    scope in text (already stripped)."""
    depth = 0  # braces
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "(" and depth == 0:
            m = NAME.search(text[max(0, i - 100):i])
            start = i
            # the matching parenthesis, counting commas at the outermost level
            level, commas, j, empty = 0, 0, i, True
            while j < n:
                ch = text[j]
                if ch in "([{":
                    level += 1
                elif ch in ")]}":
                    level -= 1
                    if level == 0:
                        break
                elif ch == "," and level == 1:
                    commas += 1
                elif not ch.isspace() and level >= 1 and j > i:
                    empty = False
                j += 1
            inner = text[start + 1:j].strip()
            i = j
            if not m or m.group(1) in NOT_FUNCTIONS:
                continue
            # what follows: a body or the end of a prototype (possibly after attributes)
            rest = text[j + 1:j + 200].lstrip()
            while rest.startswith("__attribute__"):
                k, lvl = rest.find("("), 0
                for k2 in range(k, len(rest)):
                    lvl += rest[k2] == "("
                    lvl -= rest[k2] == ")"
                    if lvl == 0:
                        rest = rest[k2 + 1:].lstrip()
                        break
                else:
                    break
            if not rest or rest[0] not in "{;,":
                continue
            count = 0 if empty or inner == "void" else commas + 1
            yield m.group(1), text.count("\n", 0, start) + 1, count
        i += 1


def main():
    root = sys.argv[1]
    bad = []
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")) or name.endswith(".bpf.c"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    text = strip(f.read())
                for fn, line, count in functions(text):
                    if count > MAX_PARAMS:
                        bad.append(f"{os.path.relpath(path, root)}:{line}: {fn}() takes {count} "
                                   f"parameters (at most {MAX_PARAMS}: give it a struct)")
    for b in sorted(set(bad)):
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
