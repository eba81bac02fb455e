#!/usr/bin/env python3
"""Write docs/rules/CGNNN.md for every rule (cglint/ruledocs.py); remove stale pages.

    python3 tools/gen_rule_docs.py
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from cglint import engine, ruledocs  # noqa: E402 (after the path is set)

OUT = os.path.join(ROOT, "docs", "rules")


def pages():
    """{file name: text} of every page."""
    fixtures = os.path.join(ROOT, "fixtures")
    return {code + ".md": ruledocs.page(rule, fixtures) for code, rule in engine.rules().items()}


def main():
    os.makedirs(OUT, exist_ok=True)
    wanted = pages()
    for name in os.listdir(OUT):
        if name.endswith(".md") and name not in wanted:
            os.remove(os.path.join(OUT, name))
    for name, text in wanted.items():
        with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    print("wrote %d pages to %s" % (len(wanted), OUT))


if __name__ == "__main__":
    main()
