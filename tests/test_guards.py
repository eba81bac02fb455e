"""Guards: names used only where a feature test or a version test has passed are not
findings; the fallback branch is checked as usual."""
from conftest import lint as lint_target


def lint(code, select=(), target_python=(3, 6)):
    # Python 3 by default: on 2.7 a guarded `tf.print` does not even parse (the last test).
    return lint_target(code, select, target_python)


def test_hasattr_guards_the_body_not_the_else():
    code = """
    import tensorflow as tf
    if hasattr(tf, "print"):
        tf.print(1)
    else:
        tf.Print(1, [1])
    if hasattr(tf, "print"):
        pass
    else:
        tf.print(2)
    if not hasattr(tf, "function"):
        f = tf.function
    else:
        f = tf.function
    """
    assert lint(code) == [("CG401", 10, 5), ("CG402", 12, 9)]


def test_a_test_the_target_fails_guards_its_whole_branch():
    # TF 1.8 has no tf.print: the branch never runs there, whatever else it uses
    # (tensorflow/graphics' `if hasattr(tf, "batch_gather"):` around tf.broadcast_to).
    code = """
    import tensorflow as tf
    HAS_SORT = hasattr(tf, "sort")
    if hasattr(tf, "print"):
        tf.print(1)
        y = tf.math.log(1.0)
    if "sort" in dir(tf):
        y = tf.math.log(1.0)
    if getattr(tf, "sort", None) is not None and y:
        y = tf.math.log(1.0)
    if not hasattr(tf, "sort"):
        y = tf.log(1.0)
    else:
        y = tf.math.log(1.0)
    if HAS_SORT:
        y = tf.math.log(1.0)
    z = tf.math.log(1.0) if hasattr(tf, "sort") else tf.log(1.0)
    """
    assert lint(code) == []


def test_a_test_the_target_may_pass_guards_only_the_tested_name():
    code = """
    import tensorflow as tf
    if hasattr(tf, "print") or hasattr(tf, "nn"):
        tf.print(1)
        y = tf.math.log(1.0)
    if hasattr(tf, "nn"):
        y = tf.math.log(1.0)
    if not hasattr(tf, "print"):
        y = tf.math.log(1.0)
    """
    # (either operand of `or` may pass: tf.print is guarded, tf.math.log is judged)
    assert lint(code) == [("CG402", 5, 9), ("CG402", 7, 9), ("CG402", 9, 9)]


def test_getattr_with_a_default_and_conditional_expressions():
    code = """
    import tensorflow as tf
    if getattr(tf, "print", None) is not None:
        tf.print(3)
    if getattr(tf, "function", None):
        f = tf.function
    tf1 = tf.compat.v1 if hasattr(tf.compat, "v1") else tf
    tf2 = tf if hasattr(tf.compat, "v1") else tf.compat.v1
    """
    assert lint(code) == [("CG402", 8, 43)]


def test_try_bodies_whose_handlers_catch_the_error():
    code = """
    import tensorflow as tf
    try:
        normal = tf.random.normal
    except AttributeError:
        normal = tf.random_normal
    try:
        from tensorflow.keras.layers import Dense
    except ImportError:
        Dense = tf.keras.layers.Dense
    try:
        gelu = tf.nn.gelu
    except Exception:
        gelu = None
    try:
        gelu = tf.nn.gelu
    except:
        gelu = None
    try:
        s = tf.reduce_sum(1.0, foo=1)
    except TypeError:
        pass
    """
    assert lint(code) == []


def test_try_whose_handler_catches_something_else_still_flags():
    code = """
    import tensorflow as tf
    try:
        normal = tf.random.normal
    except ValueError:
        normal = tf.random_normal
    try:
        from tensorflow.keras.layers import Dense
    except AttributeError:
        Dense = tf.random.normal
    """
    assert lint(code) == [("CG402", 4, 14), ("CG402", 8, 5), ("CG402", 10, 13)]


def test_version_tests_check_the_branch_the_target_takes():
    code = """
    import tensorflow as tf
    from distutils.version import LooseVersion, StrictVersion
    if LooseVersion(tf.__version__) >= LooseVersion("1.13"):
        x = tf.compat.v1.Session
    else:
        x = tf.math.log
    if tf.__version__.startswith("2"):
        y = tf.function
    else:
        y = tf.math.log
    if tuple(map(int, tf.__version__.split(".")[:2])) < (1, 13):
        z = tf.nn.gelu
    else:
        z = tf.nn.gelu
    if int(tf.__version__.split(".")[0]) >= 2:
        w = tf.nn.gelu
    TF2 = StrictVersion(tf.__version__) >= StrictVersion("2.0.0")
    if TF2:
        v = tf.nn.gelu
    """
    assert lint(code) == [("CG402", 7, 9), ("CG402", 11, 9), ("CG402", 13, 9)]


def test_a_version_test_that_cannot_be_evaluated_guards_both_branches():
    code = """
    import tensorflow as tf
    if tf.__version__ in SUPPORTED:
        x = tf.nn.gelu
    else:
        x = tf.math.log
    """
    assert lint(code) == []


def test_an_early_exit_guards_the_statements_after_it():
    code = """
    import tensorflow as tf
    from distutils.version import LooseVersion
    def debug(x):
        if not hasattr(tf, "print"):
            return x
        tf.print(x)
        return x
    def new_only():
        if LooseVersion(tf.__version__) < LooseVersion("1.13"):
            raise ImportError("needs TF 1.13")
        return tf.compat.v1.Session
    def wrong_way(x):
        if hasattr(tf, "print"):
            return x
        tf.print(x)
    def does_not_leave(x):
        if not hasattr(tf, "print"):
            x = x + 1
        tf.print(x)
    """
    assert lint(code) == [("CG401", 16, 5), ("CG401", 20, 5)]


def test_version_strings_compare_as_strings_as_they_do_at_run_time():
    # "1.8.0" < "1.13" is False: on 1.8 this raise never happens and the name is reached.
    code = """
    import tensorflow as tf
    if tf.__version__ < "1.13":
        raise ImportError("needs TF 1.13")
    s = tf.compat.v1.Session
    """
    assert lint(code) == [("CG402", 5, 5)]


def test_the_handler_of_a_try_that_cannot_fail_on_18_never_runs_there():
    code = """
    import tensorflow as tf
    try:
        from tensorflow.contrib.slim.nets import resnet_v1
        HAVE = True
    except ImportError:
        from tensorflow.contrib.slim.python.slim.nets.no_such import resnet_v1
        resnet_v1 = tf.nn.gelu
    try:
        from tensorflow.contrib.slim.nets import no_such_net
    except ImportError:
        no_such_net = tf.nn.gelu
    """
    # The first handler is for older releases; the second one runs on 1.8.
    assert lint(code) == [("CG402", 12, 19)]


def test_a_try_of_18_names_makes_the_older_fallback_unreachable():
    code = """
    import tensorflow as tf
    try:
        writer = tf.summary.FileWriter
        merge = tf.summary.merge
    except Exception:
        writer = tf.train.SummaryWriter
        merge = tf.merge_summary
    try:
        writer = tf.summary.FileWriter
        log = tf.math.log
    except AttributeError:
        log = tf.no_such_log
    """
    # The second body needs tf.math.log, which 1.8 lacks: its handler runs and is checked.
    assert lint(code) == [("CG402", 13, 11)]


def test_a_name_listed_by_dir_guards_like_hasattr():
    code = """
    import tensorflow as tf
    if "concat_v2" in dir(tf):
        a = tf.concat_v2([1], 0)
        b = tf.math.log(1.0)
    if "concat_v2" not in dir(tf):
        c = tf.concat([1], 0)
    else:
        c = tf.concat_v2([1], 0)
    names = dir(tf)
    if "concat_v2" in names:
        d = tf.concat_v2([1], 0)
    if "concat_v2" in dir(tf, "nn"):
        e = tf.concat_v2([1], 0)
    """
    # 1.8 has no concat_v2: the first branch never runs there (tf.math.log too); a listing
    # kept in a variable, or a call that is not plain dir(x), is no test cglint reads.
    assert lint(code) == [("CG402", 12, 9), ("CG402", 14, 9)]


def test_the_fallback_of_a_tf_call_that_18_takes_never_runs_there():
    code = """
    import tensorflow as tf
    def deconv(x, w, shape):
        try:
            deconv = tf.nn.conv2d_transpose(x, w, output_shape=shape, strides=[1, 2, 2, 1])
        except AttributeError:
            deconv = tf.nn.deconv2d(x, w, output_shape=shape, strides=[1, 2, 2, 1])
        return deconv
    def xent(x, y):
        try:
            return tf.nn.sigmoid_cross_entropy_with_logits(logits=x, labels=y)
        except:
            return tf.nn.sigmoid_cross_entropy_with_logits(logits=x, targets=y)
    def run(x):
        try:
            tf.summary.scalar("x", tf.reduce_mean(x * 2))
        except TypeError:
            tf.scalar_summary("x", x, no_such_keyword=1)
    """
    assert lint(code) == []


def test_the_fallback_runs_when_the_try_body_may_fail_on_18():
    code = """
    import tensorflow as tf
    def a(x, y):
        try:
            return tf.nn.sigmoid_cross_entropy_with_logits(logits=x, targets=y)
        except TypeError:
            return tf.nn.gelu(x)
    def b(x, f):
        try:
            return tf.nn.relu(f(x))
        except AttributeError:
            return tf.nn.gelu(x)
    def c(x, **kwargs):
        try:
            return tf.nn.relu(x, **kwargs)
        except TypeError:
            return tf.nn.gelu(x)
    def d(x):
        try:
            return load(x)
        except AttributeError:
            return tf.nn.gelu(x)
    def e(x):
        try:
            return tf.nn.relu(x, tf.math.log(x))
        except AttributeError:
            return tf.nn.gelu(x)
    """
    # A keyword 1.8 does not take, a call of anything but TF, `**` and a name 1.8 lacks:
    # each body may raise on 1.8, so each handler is checked (and only the names there).
    assert lint(code) == [("CG402", line, 16) for line in (7, 12, 17, 22, 27)]


def test_a_handler_of_what_a_call_raises_on_any_release_is_judged():
    code = """
    import tensorflow as tf
    def join(a, b):
        try:
            return tf.concat([a, b], 1)
        except ValueError:
            return tf.concat_v2([a, b], 0)
    try:
        from tensorflow.contrib import slim
    except ValueError:
        slim = tf.no_such_slim
    """
    # A shape error reaches the first handler on 1.8; the import raises no ValueError.
    assert lint(code) == [("CG402", 7, 16)]


def test_a_try_body_of_tf_expressions_makes_its_fallback_unreachable():
    code = """
    import tensorflow as tf
    class Layer(object):
        def resize(self, size):
            try:
                self.outputs = tf.image.resize_images(
                    self.inputs, size=size, method=tf.image.ResizeMethod.BILINEAR)
            except Exception:
                self.outputs = tf.image.resize_images(self.inputs, new_height=size[0],
                                                      new_width=size[1])
        def prelu(self, alphas):
            try:
                y = tf.nn.relu(self.inputs) + tf.multiply(alphas, self.inputs) * 0.5
            except Exception:
                y = tf.nn.relu(self.inputs) + tf.mul(alphas, self.inputs) * 0.5
            return y
    def stacked(inputs):
        try:
            return tf.reduce_sum(inputs if isinstance(inputs, tf.Tensor) else tf.stack(inputs))
        except Exception:
            return tf.reduce_sum(tf.pack(inputs))
    def mixed(x, f):
        try:
            y = tf.nn.relu(x) + f(x)
        except Exception:
            y = tf.mul(x, x)
        return y
    """
    # Attribute targets, class constants, arithmetic and conditions of TF calls: 1.8 runs
    # them, so their fallbacks are for older releases. A call of anything else may raise:
    # the last fallback runs on 1.8 and is judged.
    assert lint(code) == [("CG402", 26, 13)]


def test_a_try_body_of_builtins_alone_is_no_tf_fallback():
    code = """
    import tensorflow as tf
    def size(x):
        try:
            n = len(x)
        except TypeError:
            n = tf.size_v2(x)
        return n
    """
    assert lint(code) == [("CG402", 7, 13)]


def test_version_parts_unpacked_into_names_are_evaluated():
    code = """
    import tensorflow as tf
    _MAJOR, _MINOR = [int(v) for v in tf.__version__.split(".")[:2]]
    A, B, _ = tf.__version__.split(".")
    *_, LAST = tf.__version__.split(".")
    def f(x):
        if (_MAJOR, _MINOR) >= (1, 13):
            x = tf.math.log(x)
        if (_MAJOR, _MINOR) < (1, 13):
            x = tf.math.log(x)
        if int(B) >= 13:
            x = tf.nn.gelu(x)
        if int(LAST) >= 0:
            x = tf.nn.gelu(x)
        return x
    """
    # A name from a starred unpacking is not followed: its test is not known as a
    # version test, and what it guards is checked.
    assert lint(code) == [("CG402", 10, 13), ("CG402", 14, 13)]


def test_a_flag_holding_a_feature_test_guards_like_the_test():
    code = """
    import tensorflow as tf
    _HAS_PRINT = hasattr(tf, "print")
    _NO_GELU = getattr(tf.nn, "gelu", None) is None
    _HAS_PRINT_TWICE = True
    _HAS_PRINT_TWICE = hasattr(tf, "print")
    def show(x):
        if _HAS_PRINT:
            tf.print(x)
        if not _NO_GELU:
            x = tf.nn.gelu(x)
        if _NO_GELU:
            x = tf.nn.gelu(x)
        if _HAS_PRINT_TWICE:
            tf.print(x)
        return x
    def early(x):
        if not _HAS_PRINT:
            return x
        tf.print(x)
        return tf.math.log(x)
    """
    # A flag bound twice is no test; the flag guards the name it tests, and, as 1.8 has
    # no tf.print, `early` never gets past its test there (no tf.math.log finding).
    assert lint(code, target_python=(3, 6)) == [("CG402", 13, 13), ("CG401", 15, 9)]


def test_a_guarded_tf_print_still_does_not_parse_on_python_27():
    code = """
    import tensorflow as tf
    if hasattr(tf, "print"):
        tf.print(1)
    """
    assert lint(code, target_python=(2, 7)) == [("CG401", 4, 5)]
    assert lint(code) == []
    assert lint("from __future__ import print_function\n" + code.replace("\n    ", "\n")) == []


def test_a_version_helper_of_the_module_is_evaluated_as_it_returns():
    code = """
    import tensorflow as tf
    def tf_version():
        \"\"\"The version as a tuple.\"\"\"
        return tuple(map(int, tf.__version__.split(".")[:2]))
    def tf_number():
        return float(".".join(tf.VERSION.split(".")[:2]))
    def takes_a_part(part):
        return int(tf.__version__.split(".")[part])
    def f(x):
        if tf_version() >= (1, 13):
            x = tf.math.log(x)
        if tf_version() < (1, 13):
            x = tf.math.log(x)
        if tf_number() >= 1.13:
            x = tf.nn.gelu(x)
        if takes_a_part(1) >= 13:
            x = tf.nn.gelu(x)
        return x
    """
    # "1.8" as a float is more than 1.13; a helper is run with the constants it is
    # given (takes_a_part(1) is 8 on 1.8).
    assert lint(code) == [("CG402", 14, 13), ("CG402", 16, 13)]


def test_a_test_of_a_name_the_target_has_guards_nothing():
    code = """
    import sys
    import numpy as np
    import tensorflow as tf
    tf1 = tf.compat.v1 if hasattr(tf, "compat") else tf
    log = tf.math.log if hasattr(tf, "math") else tf.log
    exp = tf.math.exp if getattr(tf.math, "exp", None) is not None else tf.exp
    if hasattr(sys, "getdlopenflags") and hasattr(np, "float128"):
        x = tf.nn.gelu
    if not hasattr(tf, "math"):
        log = tf.log
    else:
        log = tf.math.log
    """
    assert lint(code) == [("CG402", 5, 7), ("CG402", 6, 7), ("CG402", 9, 9), ("CG402", 13, 11)]


def test_a_helper_that_tries_a_tf2_import_is_evaluated_as_it_runs_on_the_target():
    code = """
    import tensorflow as tf
    def is_tfv2():
        try:
            from tensorflow.python import tf2
            return tf2.enabled()
        except Exception:
            return False
    def is_tf1():
        try:
            from tensorflow.python import tf2
        except ImportError:
            return True
        return not tf2.enabled()
    def has_math_ops():
        try:
            from tensorflow.python.ops import math_ops
            return True
        except ImportError:
            return False
    a = tf.compat.v1 if is_tfv2() else tf
    if not is_tf1():
        b = tf.compat.v1.layers
    if is_tf1():
        c = tf.math.log
    if has_math_ops():
        d = tf.math.log
    """
    # On 1.8 is_tfv2() is False and is_tf1() True; math_ops is there, so has_math_ops()
    # is True: the last two branches run.
    assert lint(code) == [("CG402", 25, 9), ("CG402", 27, 9)]


def test_the_fallback_of_a_try_calling_a_helper_that_surely_runs_never_runs():
    code = """
    import tensorflow as tf
    def length(x):
        \"\"\"Lengths.\"\"\"
        return tf.reduce_sum(tf.sign(x), 1)
    def risky(x):
        return tf.nn.gelu(x)
    def f(xs):
        try:
            return length(tf.stack(xs))
        except Exception:
            return length(tf.pack(xs))
    def g(xs):
        try:
            return risky(tf.stack(xs))
        except Exception:
            return length(tf.pack(xs))
    """
    assert lint(code) == [("CG402", 7, 12), ("CG402", 17, 23)]


def test_a_helper_opening_a_scope_around_what_surely_runs_surely_runs():
    # tensorlayer 1.8.5's recurrent.py: the helper names its ops in a name scope
    code = """
    import tensorflow as tf
    def length(data):
        with tf.name_scope("GetLength"):
            used = tf.sign(tf.reduce_max(tf.abs(data), 2))
            length = tf.cast(tf.reduce_sum(used, 1), tf.int32)
        return length
    def scoped(data):
        with tf.variable_scope("s") as scope:
            return tf.identity(data, name=scope.name)
    def lengths(xs):
        try:
            n = length(tf.stack(xs))
        except Exception:
            n = length(tf.pack(xs))
        try:
            n = scoped(tf.stack(xs))
        except Exception:
            n = scoped(tf.pack(xs))
        return n
    """
    assert lint(code) == []
    # near-misses: a scope of a name 1.8 lacks, something else in the `with`, a call in
    # the body that may fail
    for changed in ('tf.name_scope("GetLength")', 'open("GetLength")'):
        bad = code.replace('tf.name_scope("GetLength")', changed.replace("name_scope",
                                                                         "name_scopes"))
        assert ("CG402", 15, 20) in lint(bad)
    bad = code.replace("tf.cast(tf.reduce_sum(used, 1), tf.int32)", "tf.gelu(used)")
    assert ("CG402", 15, 20) in lint(bad)


def test_what_follows_an_operand_that_decides_on_the_target_never_runs():
    code = """
    import tensorflow as tf
    IS_TF2 = tf.__version__.startswith("2")
    def f(opt, x):
        if IS_TF2 and isinstance(opt, tf.optimizers.Optimizer):
            x = tf.math.log(x)
        if IS_TF2 or isinstance(opt, tf.optimizers.Optimizer):
            x = tf.math.log(x)
        if not IS_TF2 or isinstance(opt, tf.optimizers.Optimizer):
            x = tf.math.log(x)
        return x
    """
    # The second test runs its isinstance on 1.8 (unknown: both branches are guarded);
    # the third is decided by its first operand, and takes the branch.
    assert lint(code) == [("CG402", 7, 34), ("CG402", 10, 13)]


def test_a_helper_is_run_with_its_constant_arguments_locals_and_failing_names():
    code = """
    import tensorflow as tf
    from distutils.version import LooseVersion
    def version_greater_or_equal(semver):
        try:
            tf_version = tf.version.VERSION
        except AttributeError:
            tf_version = tf.VERSION
        return LooseVersion(tf_version) >= LooseVersion(semver)
    def at_least(minor, major=1):
        return (int(tf.VERSION.split(".")[0]), int(tf.VERSION.split(".")[1])) >= (major, minor)
    def f(x):
        if version_greater_or_equal("1.13.0"):
            x = tf.keras.metrics.Mean("m")
        if version_greater_or_equal("1.4"):
            x = tf.math.log(x)
        if at_least(13):
            x = tf.nn.gelu(x)
        if at_least(minor=4):
            x = tf.nn.gelu(x)
        if at_least(unknown):
            x = tf.nn.gelu(x)
        return x
    """
    # A helper given a name, not a constant, is not run: its test is not a version test.
    assert lint(code) == [("CG402", 16, 13), ("CG402", 20, 13), ("CG402", 22, 13)]


def test_the_projects_feature_test_helper_guards_like_hasattr():
    code = """
    import tensorflow as tf
    def tf_supports(name):
        return getattr(tf, name, None) is not None
    def unrelated(name):
        return name in ("py_function",)
    def f(x):
        if tf_supports("py_function"):
            x = tf.py_function(len, [x], tf.int64)
        if tf_supports("math"):
            x = tf.math.log(x)
        if unrelated("py_function"):
            x = tf.py_function(len, [x], tf.int64)
        if tf_supports("strings") and hasattr(tf.strings, "split"):
            x = tf.strings.split(x)
        return x
    """
    # tf.math exists in 1.8: that test passes and guards nothing; `unrelated` looks
    # nothing up.
    assert lint(code) == [("CG402", 11, 13), ("CG402", 13, 13)]


def test_review_cases_of_the_helpers_and_object_guards():
    code = """
    import tensorflow as tf
    from distutils.version import LooseVersion
    def log_it(x):
        tf.summary.histogram("x", x)
        return
    def f(x):
        try:
            y = log_it(x)
        except AttributeError:
            y = tf.math.log(x)
        return y
    class Model(object):
        def at_least(self, version="1.13.0"):
            return LooseVersion(tf.__version__) >= LooseVersion(version)
        def build(self, c, x, y):
            if self.at_least("1.0"):
                return tf.where(c, x, y)
            return tf.select(c, x, y)
        def grads(self, y, x):
            if not hasattr(self, "loss"):
                raise ValueError("no loss")
            return tf.gradients(y, x, unconnected_gradients="zero")
    def tf_major():
        try:
            import tensorflow.contrib
        except ImportError:
            pass
        else:
            return 1
        return 2
    def g(c, x, y):
        if tf_major() >= 2:
            return tf.math.log(x)
        return tf.select(c, x, y)
    """
    # A bare `return` surely runs (log_it's fallback is unreachable); a method's `self`
    # is not its first argument (at_least("1.0") is true on 1.8); hasattr on the code's
    # own object guards no TF keyword; a try's else runs after its body.
    assert lint(code) == [("CG403", 23, 35), ("CG402", 35, 12)]


def test_flags_of_flags_and_self_holding_values_are_followed_a_bounded_number_of_times(
        monkeypatch):
    from cglint import guards

    lookups = []
    original = guards._Finder._single_value

    def counted(self, name):
        lookups.append(name.id)
        return original(self, name)

    monkeypatch.setattr(guards._Finder, "_single_value", counted)
    code = "import tensorflow as tf\nx = x or x or x or x or x or x or x or x\n" \
           "t = (%s)\nif x:\n    tf.print(1)\nif t:\n    tf.print(2)\n" % ", ".join(["t"] * 200)
    assert [c for c, _, _ in lint(code)] == ["CG401", "CG401"]
    # Each name's value is looked into a few times, not once per path to it (8^20 and
    # 200^3 lookups before).
    assert len(lookups) < 5000


def test_what_follows_an_exit_the_target_always_takes_never_runs_there():
    code = """
    import tensorflow as tf
    HAS_SORT = hasattr(tf, "sort")

    def safe_log(x):
        if not HAS_SORT:
            return tf.log(x)
        return tf.math.log(x)

    def other_log(x):
        if not hasattr(tf, "nn"):
            return tf.log(x)
        return tf.math.log(x)
    """
    # 1.8 has tf.nn: the second test may fail, and what follows it is judged.
    assert lint(code) == [("CG402", 13, 12)]


def test_a_test_that_may_pass_on_the_target_after_all_guards_only_its_name():
    code = """
    import tensorflow as tf
    if not hasattr(tf, "sort"):
        tf.sort = lambda values: values
    def smallest(x):
        if getattr(tf, "argsort", tf.nn.top_k):  # a true default: the branch runs
            x = tf.math.log(x)
        if hasattr(tf, "sort"):  # backported above: the branch runs
            x = tf.math.log(tf.sort(x))
        return x
    """
    assert lint(code) == [("CG402", 7, 13), ("CG402", 9, 13)]


def test_what_follows_an_import_18_fails_in_a_try_never_runs_there():
    code = """
    try:
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
    except ImportError:
        import tensorflow as tf
    try:
        import tensorflow as tf2
        y = tf2.math.log(1.0)  # the import works: this runs, and is judged
    except ImportError:
        pass
    """
    assert lint(code) == [("CG402", 9, 9)]


def test_callable_getattr_and_a_lone_and_guard_like_hasattr():
    code = """
    import tensorflow as tf
    t = tf.constant(1.0)
    if callable(getattr(tf, "print", None)):
        tf.print(t)
    hasattr(tf, "print") and tf.print(t)
    hasattr(tf, "nn") and tf.print(t)  # tf.nn is no test for tf.print
    """
    assert lint(code) == [("CG401", 7, 23)]


def test_the_body_of_a_registration_the_target_refuses_never_runs():
    # `MaxPoolGrad` and `Shape` are registered by TF 1.8 itself: the decorator raises
    # KeyError (CG203) and the body never runs; a name of the code's own registers, and a
    # function registered by a call stays callable by its name (probe V: maml).
    code = """
    import tensorflow as tf

    @tf.RegisterGradient("MaxPoolGrad")
    def _max_pool_grad_grad(op, grad):
        return tf.math.multiply(grad, 2.0), None, None

    @tf.RegisterGradient("Shape")
    def _shape_grad(op, grad):
        return tf.math.multiply(grad, 2.0)

    @tf.RegisterGradient("MyMaxPoolGradGrad")
    def _own(op, grad):
        return tf.math.multiply(grad, 2.0), None, None

    def _called(op, grad):
        return tf.math.multiply(grad, 2.0), None, None
    tf.RegisterGradient("MaxPoolGrad")(_called)
    """
    assert lint(code, select=["CG402"]) == [("CG402", 14, 12), ("CG402", 17, 12)]
