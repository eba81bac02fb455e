"""The .cglint_cache folder: hits on unchanged files, misses on any change, no harm when
damaged, and the speed-up on a 1,000-file tree."""
import os
import time

import pytest

from cglint import cache as cache_module
from cglint import cli
from cglint.cli import main

from snippets import BAD
MODULE = '''"""Module {i}: a layer with a custom gradient."""
import tensorflow as tf


def helper_{i}(x, scale=2.0):
    return tf.clip_by_value(x * scale, -1.0, 1.0)


@tf.custom_gradient
def op_{i}(x, w):
    y = tf.matmul(x, w)

    def grad(dy):
        dx = tf.matmul(dy, w, transpose_b=True)
        dw = tf.matmul(x, dy, transpose_a=True)
        return {returned}

    return y, grad


class Layer{i}(object):
    def __init__(self, units):
        self.units = units

    def __call__(self, x):
        w = tf.get_variable("w_{i}", [int(x.shape[-1]), self.units])
        return op_{i}(helper_{i}(x), w)
'''


@pytest.fixture
def caches(monkeypatch, tmp_path):
    """Run in tmp_path, and record the Cache of each run to read its hit count."""
    monkeypatch.chdir(tmp_path)
    made = []

    class Recorded(cache_module.Cache):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(cli, "Cache", Recorded)
    return made


def run(capsys, *args):
    code = main(list(args))
    return code, capsys.readouterr().out


def entries(folder):
    return sorted(os.path.join(top, name) for top, _, names in os.walk(folder)
                  for name in names if name.endswith(".json"))


def test_second_run_is_served_from_the_cache(caches, tmp_path, capsys):
    for name in "abc":
        (tmp_path / (name + ".py")).write_text(BAD)
    first = run(capsys, ".")
    second = run(capsys, ".")
    assert first == second and first[0] == 1
    assert (caches[0].hits, caches[0].misses) == (0, 3)
    assert (caches[1].hits, caches[1].misses) == (3, 0)
    assert len(entries(".cglint_cache")) == 3
    assert open(".cglint_cache/.gitignore").read().splitlines()[-1] == "*"


def test_a_change_to_a_file_or_the_options_misses(caches, tmp_path, capsys):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(BAD)
    run(capsys, ".")
    (tmp_path / "b.py").write_text(BAD.replace("(dy, dy)", "dy"))
    code, out = run(capsys, ".")
    assert (caches[1].hits, caches[1].misses) == (1, 1)
    assert "b.py" not in out and code == 1
    run(capsys, ".", "--select", "CG1")
    assert caches[2].hits == 0  # other options, other findings: other entries
    run(capsys, ".", "--target-python", "3.6")
    assert caches[3].hits == 0


OPS = """import tensorflow as tf


@tf.custom_gradient
def scale_grad(x, factor=1.0):
    def grad(dy):
        return dy * factor
    return tf.identity(x), grad
"""
MODEL = """import tensorflow as tf
from ops import scale_grad

y = scale_grad(tf.constant([1.0]), factor=0.5)
"""


def test_editing_an_imported_module_rechecks_its_users(caches, tmp_path, capsys):
    # model.py's finding comes from ops.py: checked alone, as pre-commit does
    (tmp_path / "ops.py").write_text(OPS)
    (tmp_path / "model.py").write_text(MODEL)
    first = run(capsys, "model.py")
    assert first[0] == 1 and "CG105" in first[1]
    assert run(capsys, "model.py") == first and caches[1].hits == 1
    # ops.py no longer makes a custom gradient: model.py's cached finding must not stay
    (tmp_path / "ops.py").write_text(OPS.replace("@tf.custom_gradient\n", ""))
    code, out = run(capsys, "model.py")
    assert (caches[2].hits, caches[2].misses) == (0, 1)
    assert code == 0 and "CG105" not in out
    # and back: the new text is a miss again, then a hit
    (tmp_path / "ops.py").write_text(OPS)
    assert run(capsys, "model.py") == first and caches[3].misses == 1


GRADS = """import tensorflow as tf


@tf.RegisterGradient("ClipGrad")
def _clip(op, grad):
    return tf.clip_by_value(grad, -1.0, 1.0)
"""
OVERRIDE = """import tensorflow as tf
import grads

with tf.get_default_graph().gradient_override_map({"Relu": "ClipGrad"}):
    y = tf.nn.relu(tf.constant([1.0]))
"""


def test_a_registration_added_to_an_imported_module_rechecks_its_users(caches, tmp_path, capsys):
    (tmp_path / "grads.py").write_text("import tensorflow as tf\n")
    (tmp_path / "model.py").write_text(OVERRIDE)
    code, out = run(capsys, "model.py")
    assert code == 1 and "CG202" in out
    (tmp_path / "grads.py").write_text(GRADS)
    code, out = run(capsys, "model.py")
    assert caches[1].misses == 1 and code == 0, out


def test_damaged_entries_are_misses_and_are_rewritten(caches, tmp_path, capsys):
    for name in "abcd":
        (tmp_path / (name + ".py")).write_text(BAD.replace("def f", "def " + name))
    expected = run(capsys, ".")
    damage = [b"", b"{not json", b'{"diagnostics": [[1, "x"]], "fixes": []}',
              b'{"diagnostics": [["1", 1, "CG103", "m", 0, 0, []]], "fixes": []}']
    for path, data in zip(entries(".cglint_cache"), damage):
        with open(path, "wb") as handle:
            handle.write(data)
    assert run(capsys, ".") == expected
    assert (caches[1].hits, caches[1].misses) == (0, 4)
    assert run(capsys, ".") == expected
    assert caches[2].hits == 4


def test_no_cache_reads_and_writes_nothing(caches, tmp_path, capsys):
    (tmp_path / "a.py").write_text(BAD)
    run(capsys, ".", "--no-cache")
    assert not caches and not os.path.exists(".cglint_cache")


def test_cached_findings_carry_the_path_they_are_shown_under(caches, tmp_path, capsys):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(BAD)
    run(capsys, "pkg")
    _, out = run(capsys, "./pkg/a.py")
    assert out.startswith("pkg/a.py:5:26: CG103")


def test_entries_of_another_cglint_version_are_removed(caches, tmp_path, capsys):
    stale = tmp_path / ".cglint_cache" / "0123456789abcdef" / "ab"
    stale.mkdir(parents=True)
    (stale / "cdef.json").write_text("{}")
    (tmp_path / "a.py").write_text(BAD)
    run(capsys, ".")
    assert not (tmp_path / ".cglint_cache" / "0123456789abcdef").exists()
    assert not [name for _, _, names in os.walk(".cglint_cache") for name in names
                if name.endswith(".tmp")]


def test_internal_errors_are_not_cached(caches, tmp_path, capsys, monkeypatch):
    from cglint import engine
    (tmp_path / "a.py").write_text(BAD)

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(engine, "_lint", broken)
    assert run(capsys, ".", "--jobs", "1")[0] == 2
    assert entries(".cglint_cache") == []


def test_second_run_over_1000_unchanged_files(caches, tmp_path, capsys):
    for number in range(1000):
        folder = tmp_path / "src" / ("pkg%02d" % (number // 50))
        folder.mkdir(parents=True, exist_ok=True)
        returned = "dx" if number % 7 == 0 else "dx, dw"
        (folder / ("mod%04d.py" % number)).write_text(
            MODULE.format(i=number, returned=returned))
    started = time.perf_counter()
    first = run(capsys, "src")
    cold = time.perf_counter() - started
    started = time.perf_counter()
    second = run(capsys, "src")
    warm = time.perf_counter() - started
    assert first == second
    assert first[1].endswith("Found 143 findings in 1000 files checked.\n")
    assert (caches[1].hits, caches[1].misses) == (1000, 0)
    print("1,000 files: %.2f s cold, %.2f s from the cache (%.0fx)" % (cold, warm, cold / warm))
    assert warm < cold / 3  # loose: shared CI machines are noisy; measured 10-20x
