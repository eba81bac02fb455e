"""Version tests computed as they run on TF 1.8."""
import ast

import pytest

from cglint.version_tests import evaluate


def _evaluate(source, version=(1, 8)):
    test = ast.parse(source, mode="eval").body

    def resolve(expr):
        return "tensorflow.__version__" if ast.unparse(expr) == "tf.__version__" else None
    return evaluate(test, version, resolve, lambda name: None)


@pytest.mark.parametrize("source, expected", [
    ('LooseVersion(tf.__version__) >= LooseVersion("1.13")', False),
    ('StrictVersion(tf.__version__) < StrictVersion("1.10.0")', True),
    ('version.parse(tf.__version__) >= version.parse("2.0")', False),
    ('tf.__version__.startswith("1.")', True),
    ('tf.__version__ < "1.13"', False),  # as strings, as at run time
    ('tuple(map(int, tf.__version__.split(".")[:2])) >= (1, 8)', True),
    ('int(tf.__version__.split(".")[0]) >= 2', False),
    ('tf.__version__[0] == "2"', False),
    ('not tf.__version__.startswith("2") and tf.__version__ != "1.7.0"', True),
    ('[int(v) for v in tf.__version__.split(".")[:2]] >= (1, 13)', None),  # list vs tuple
    ('tuple(int(v) for v in tf.__version__.split(".")[:2]) >= (1, 13)', False),
    ('tuple([int(v) for v in tf.__version__.split(".")]) == (1, 8, 0)', True),
    ('tuple(int(v) for v in tf.__version__.split(".") if v) >= (1, 13)', None),  # a condition
    ('tuple(int(v) for v in tf.__version__.split(".") for w in v) >= (1, 13)', None),
    ('float(".".join(tf.__version__.split(".")[:2])) >= 1.13', True),  # 1.8 > 1.13
    ('tf.__version__.startswith("2") and tf.__version__ in SUPPORTED', False),  # as run
    ('tf.__version__ in SUPPORTED and tf.__version__.startswith("2")', None),
    ('tf.__version__ in SUPPORTED', None),
    ('LooseVersion(tf.__version__) >= 2', None),
])
def test_on_18(source, expected):
    assert _evaluate(source) == expected


def test_another_target():
    assert _evaluate('LooseVersion(tf.__version__) >= LooseVersion("1.13")', (2, 3)) is True
