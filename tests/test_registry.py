"""The rule registry (cglint/rules/__init__.py) holds every rule file, under its own code,
and the README's rule table lists exactly the rules `--list-rules` prints."""
import os
import re

import cglint.rules
from cglint.cli import main
from cglint.rules import all_rules

RULES_FOLDER = os.path.dirname(cglint.rules.__file__)
README = os.path.join(os.path.dirname(os.path.dirname(RULES_FOLDER)), "README.md")


def rule_files():
    return sorted(name[:-3] for name in os.listdir(RULES_FOLDER)
                  if re.match(r"cg\d{3}_\w+\.py$", name))


def test_every_rule_file_is_registered_under_the_code_in_its_name():
    registered = {type(rule).__module__.rsplit(".", 1)[1]: code
                  for code, rule in all_rules().items()}
    assert sorted(registered) == rule_files()
    for module, code in registered.items():
        assert module[:5] == code.lower(), module


def test_codes_are_unique_and_names_too():
    rules = list(all_rules().values())
    assert len({rule.name for rule in rules}) == len(rules) == len(rule_files())


def test_the_readme_table_lists_the_rules_of_list_rules(capsys):
    assert main(["--list-rules"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    with open(README, encoding="utf-8") as handle:
        table = re.findall(r"^\| (CG\d{3}) \|", handle.read(), re.MULTILINE)
    assert table == listed == list(all_rules())


def test_no_rule_imports_another_rule():
    for name in rule_files():
        with open(os.path.join(RULES_FOLDER, name + ".py"), encoding="utf-8") as handle:
            source = handle.read()
        assert not re.search(r"^(from|import) cglint\.rules\.cg", source, re.MULTILINE), name
