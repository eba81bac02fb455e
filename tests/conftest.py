import textwrap

import pytest

from cglint import check, engine


def lint(code, select=(), target_python=(2, 7)):
    """(code, line, col) of every finding on a dedented snippet, as a run of that file."""
    options = engine.Options(select=tuple(select), target_python=target_python)
    result = check.check_alone("snippet.py", textwrap.dedent(code), options)
    assert not result.error, result.error
    return [(d.code, d.line, d.col) for d in result.diagnostics]


def codes(code, **kwargs):
    return sorted({finding[0] for finding in lint(code, **kwargs)})


@pytest.fixture
def run_lint():
    return lint


@pytest.fixture
def recorded_caches(monkeypatch):
    """The Cache of each command-line run, in order (to read its hits and misses)."""
    from cglint import cache, lint_run

    made = []

    class Recorded(cache.Cache):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(lint_run, "Cache", Recorded)
    return made


@pytest.fixture(scope="module")
def interpreters():
    """{name: python} of the TF 1.8 interpreters (built when missing), for the tests that
    measure what TF 1.8 does."""
    from cglint.oracle import envs

    found, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable (run `cglint confirm --setup`): %s" % errors)
    return found
