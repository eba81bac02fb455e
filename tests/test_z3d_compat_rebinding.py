"""CG402: `tf = tf.compat.v1` at the top of a module, with nothing testing for `v1` first.
Measured on TF 1.8 (py27 and py36): `AttributeError: module ... 'compat' has no attribute
'v1'` at that line (fixtures/CG402/bad_compat_v1_rebound_unconditionally.py)."""
import pytest

from conftest import lint


@pytest.mark.parametrize("code", [
    "import tensorflow as tf\ntf = tf.compat.v1\nx = tf.placeholder(tf.float32)\n",
    "import tensorflow as tf\ntf = tf.compat.v1\ntf.disable_v2_behavior()\n",
    "import numpy as np\nimport tensorflow as tf\n\ntf = tf.compat.v1\n",
])
def test_unguarded_rebinding_is_reported_at_its_value(code):
    line = code.splitlines().index("tf = tf.compat.v1") + 1
    assert lint(code, select=["CG402"]) == [("CG402", line, 6)]


def test_message_says_to_drop_the_assignment():
    from cglint import check, engine

    result = check.check_alone("snippet.py", "import tensorflow as tf\ntf = tf.compat.v1\n",
                               engine.Options(select=("CG402",)))
    (diagnostic,) = result.diagnostics
    assert "`tf.compat.v1` is not in TF 1.8" in diagnostic.message
    assert "drop the assignment" in diagnostic.message


@pytest.mark.parametrize("code", [
    # guarded picks: the test, the try, the conditional expression
    "import tensorflow as tf\nif hasattr(tf.compat, 'v1'):\n    tf = tf.compat.v1\n",
    "import tensorflow as tf\ntry:\n    tf = tf.compat.v1\nexcept AttributeError:\n    pass\n",
    "import tensorflow as tf\ntf = tf.compat.v1 if hasattr(tf.compat, 'v1') else tf\n",
    # names 1.8 has, read through the same self-rebinding
    "import tensorflow as tf\ntf = tf.contrib\n",
    "import tensorflow as tf\nnn = tf.nn\n",
    # not TensorFlow's, or rebound in a function
    "import numpy as tf\ntf = tf.compat.v1\n",
    "import tensorflow as tf\ndef f():\n    tf2 = tf.nn\n    return tf2\n",
])
def test_guarded_or_present_rebindings_stay_clean(code):
    assert lint(code, select=["CG402"]) == []


def test_a_name_bound_a_third_time_is_left_alone():
    # which binding a read sees is not decided here: as before, nothing is reported
    code = "import tensorflow as tf\ntf = tf.compat.v1\ntf = None\n"
    assert lint(code, select=["CG402"]) == []


def test_files_without_tensorflow_build_no_binder_for_it():
    # (speed: the binder is asked only where a top-level `x = x.y` stands, in TF files)
    from cglint.facts import ModuleFacts
    from cglint.parse import parse
    from cglint.rules.cg402_missing_api import MissingApi

    code = "import numpy as np\nx = np.ones(3)\nx = x.T\n"
    module = ModuleFacts("m.py", code, parse(code), (2, 7))
    assert list(MissingApi().check(module)) == []
    assert "names" not in module.__dict__


@pytest.mark.parametrize("test", [
    'tf.__version__ >= "1.13"',  # strings: "1.8.0" >= "1.13"
    "float(tf.__version__[:3]) >= 1.13",  # 1.8 >= 1.13 as floats
    'not tf.__version__.startswith("2")',
])
def test_rebinding_in_a_branch_the_target_takes(test):
    code = "import tensorflow as tf\nif %s:\n    tf = tf.compat.v1\nelse:\n    tf = tf\n" \
           "x = tf.placeholder(tf.float32)\n" % test
    assert lint(code, select=["CG402"]) == [("CG402", 3, 10)]


def test_the_taken_branch_message_blames_the_test():
    from cglint import check, engine

    code = "import tensorflow as tf\nif tf.__version__ >= '1.13':\n    tf = tf.compat.v1\n"
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG402",)))
    (diagnostic,) = result.diagnostics
    assert "the test of the `if` above holds on TF 1.8" in diagnostic.message


@pytest.mark.parametrize("test", [
    'LooseVersion(tf.__version__) >= LooseVersion("1.13")',
    'tf.__version__.startswith("2")',
    "some_flag",  # not decided
])
def test_rebinding_in_a_branch_the_target_skips_or_may_skip(test):
    code = "from distutils.version import LooseVersion\nimport tensorflow as tf\n" \
           "some_flag = True\nif %s:\n    tf = tf.compat.v1\nx = tf.placeholder(tf.float32)\n" % test
    assert lint(code, select=["CG402"]) == []
