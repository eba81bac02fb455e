"""Each rule's documentation page (docs/rules/CGNNN.md) and its URL.

A page is the rule's docstring (what `--explain` prints) followed by one bad and one good
example program from fixtures/CODE/, which the oracle runs under real TF 1.8: so the docs
are the code's own words and proven examples. `tools/gen_rule_docs.py` writes the pages;
a test fails when one is stale.
"""
import os

# Where docs/rules/ is published: the repository's browsable tree. Set it to the real
# host when the repository is published (the README's snippets use the same placeholder).
REPOSITORY = "https://example.invalid/cglint"
DOCS_URL = REPOSITORY + "/blob/main/docs/rules/%s.md"


def url(code):
    return DOCS_URL % code


def page(rule, fixtures):
    """The Markdown page of one rule; `fixtures` is the repository's fixtures/ folder."""
    text = ["# %s %s\n\n%s\n" % (rule.code, rule.name, rule.documentation())]
    folder = os.path.join(fixtures, rule.code)
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    for kind, title in (("bad_", "Example that breaks"), ("good_", "Example that works")):
        chosen = next((name for name in names if name.startswith(kind)
                       and name.endswith(".py")), None)
        if chosen is None:
            continue
        with open(os.path.join(folder, chosen), encoding="utf-8") as handle:
            source = handle.read()
        text.append("\n## %s\n\n`fixtures/%s/%s` (its header says what cglint reports and "
                    "what TF 1.8 does):\n\n```python\n%s```\n"
                    % (title, rule.code, chosen, source))
    return "".join(text)
