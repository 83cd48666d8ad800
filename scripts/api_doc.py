#!/usr/bin/python3
"""api_doc.py - the C API reference (docs/api-reference.md) made from the
comments of core/texfdtd.h: the header's opening comment, then each section
("---- name ----") with each declaration and the comment above it.

    scripts/api_doc.py [core/texfdtd.h] > docs/api-reference.md

`make api-doc` rewrites the page; python/tests/test_api_doc.py fails when the
page is not what the header gives (the header is the one source)."""

import re
import sys


def blocks(text):
    """Yield ("intro", comment), ("section", name), ("decl", comment, code)."""
    lines = text.split("\n")
    i, comment, first = 0, None, True
    while i < len(lines):
        line = lines[i]
        if line.startswith("/*"):
            body = [line]
            while "*/" not in lines[i]:
                i += 1
                body.append(lines[i])
            i += 1
            raw = "\n".join(body)
            m = re.match(r"/\* -+ (.*?) -+ \*/$", raw.strip())
            if m:
                yield ("section", m.group(1))
                comment = None
            elif first:
                yield ("intro", clean(raw))
                first = False
            else:
                comment = clean(raw)
            continue
        if line.startswith("TF_API") or line.startswith("typedef struct"):
            code = [line]
            while not code[-1].rstrip().endswith(";"):
                i += 1
                code.append(lines[i])
            i += 1
            yield ("decl", comment, "\n".join(code))
            comment = None
            continue
        if line.startswith("#define TEXFDTD_VERSION"):
            yield ("decl", comment, line)
            comment = None
        i += 1


def clean(raw):
    out = []
    for line in raw.split("\n"):
        line = re.sub(r"^\s*/?\*+/?", "", line)
        line = re.sub(r"\*/\s*$", "", line)
        out.append(line[1:] if line.startswith(" ") else line)
    return "\n".join(out).strip()


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "core/texfdtd.h"
    text = open(path).read()
    out = ["# The C API, function by function",
           "",
           "Made by `scripts/api_doc.py` from the comments of "
           "[core/texfdtd.h](../core/texfdtd.h) (`make api-doc`); do not edit by hand. "
           "How to build against the library: [api.md](api.md).",
           ""]
    for b in blocks(text):
        if b[0] == "intro":
            out += ["## Conventions", "", "```text", b[1], "```", ""]
        elif b[0] == "section":
            out += [f"## {b[1][0].upper()}{b[1][1:]}", ""]
        else:
            _, comment, code = b
            if not comment and len(out) >= 2 and out[-2] == "```":
                # no comment of its own: with the declarations before it
                out[-2:-1] = [code.strip(), "```"]
                continue
            out += ["```c", code.strip(), "```", ""]
            if comment:
                out += [comment, ""]
    sys.stdout.write("\n".join(out).rstrip() + "\n")


if __name__ == "__main__":
    main()
