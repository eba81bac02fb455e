"""facts.count_values through names bound by a chained assignment (`ga = gb = ...`) or
unpacked from a list or tuple display or from a helper of the module returning one
(`ga, gb = _pair(dy)`): each name is the item it gets. Unknowns stay unknown. Every
reported case measured on TF 1.8 (py27 and py36): `Num gradients 4 generated for op name:
"IdentityN"` for three gradients of two inputs; the clean ones run."""
import pytest

from conftest import lint

AVERAGE = """
import tensorflow as tf


def _pair(dy):
    return dy * 0.5, dy * 0.5


def _pair_list(dy):
    return [dy * 0.5, dy * 0.5]


def _same(g):
    return g, g


def _grads(dy):
    ga, gb = _pair(dy)
    return ga, gb, dy


@tf.custom_gradient
def average(a, b):
    def grad(dy):
        BODY
    return (a + b) * 0.5, grad
"""


def _cg103(body, target_python=(2, 7)):
    code = AVERAGE.replace("BODY", body.replace("\n", "\n        "))
    return [line for code_, line, _ in lint(code, select=["CG103"],
                                            target_python=target_python)]


def _return_line(body):
    """The line of the body's `return` in AVERAGE (the body starts on line 25)."""
    return 25 + next(i for i, line in enumerate(body.split("\n")) if line.startswith("return"))


@pytest.mark.parametrize("body", [
    "ga, gb = dy * 0.5, dy * 0.5\nreturn ga, gb, dy",
    "ga = gb = dy * 0.5\nreturn ga, gb, dy",
    "ga, gb = [dy * 0.5, dy * 0.5]\nreturn ga, gb, dy",
    "[ga, gb] = dy * 0.5, dy * 0.5\nreturn ga, gb, dy",
    "(ga, gb), gc = (dy, dy), dy\nreturn ga, gb, gc",
    "ga, gb = _pair(dy)\nreturn ga, gb, dy",
    "ga, gb = _pair_list(dy)\nreturn ga, gb, dy",
    "ga, gb = _same(dy)\nreturn ga, gb, dy",  # the helper's parameter: what was passed
    "return _grads(dy)",  # two helpers deep
    "ga, gb = [dy, dy], dy\nreturn ga, gb",  # `ga` is a list of two
    "ga, gb = dy, dy\nreturn ga * 2, gb * 2, dy",  # an int operand: one tensor each
    "ga, gb = _grads(dy)[:2]\nreturn ga, gb, dy",  # a constant slice of a known list
])
def test_cg103_counts_names_unpacked_or_chained(body):
    assert _cg103(body) == [_return_line(body)]


@pytest.mark.parametrize("body", [
    # one gradient per input
    "ga, gb = dy * 0.5, dy * 0.5\nreturn ga, gb",
    "ga = gb = dy * 0.5\nreturn ga, gb",
    "ga, gb = _pair(dy)\nreturn [ga, gb]",
    "ga, gb = _same(dy)\nreturn ga, gb",
    "ga, gb = _same([dy])\nreturn ga, gb",
    # unknown: not a display, a loop, a helper that may return anything
    "ga, gb = tuple(dy_pair)\nreturn ga, gb, dy",
    "for ga, gb in [(dy, dy)]:\n    pass\nreturn ga, gb, dy",
    "ga, gb = _unknown(dy)\nreturn ga, gb, dy",
    "ga, gb = _grads(dy)[:n]\nreturn ga, gb, dy",
    # lengths that do not match (a Python ValueError, not a count)
    "ga, gb = dy, dy, dy\nreturn ga, gb, dy",
    # `ga` and `gb` are one list, filled through `ga` (measured: two gradients, runs)
    "ga = gb = []\nga.append(dy * 0.5)\nga.append(dy * 0.5)\nreturn gb",
])
def test_cg103_near_misses_of_unpacked_names(body):
    assert _cg103(body) == []


def test_cg103_a_star_target_leaves_the_names_unknown():
    assert _cg103("ga, *rest = dy, dy\nreturn [ga] + rest", target_python=(3, 6)) == []
    assert _cg103("ga, gb, gc = dy, dy, dy\nreturn ga, dy, dy", target_python=(3, 6)) == [26]


def test_cg103_a_helper_returning_pairs_of_other_lengths_is_unknown():
    code = AVERAGE.replace("    return dy * 0.5, dy * 0.5\n",
                           "    if dy is None:\n        return dy, dy, dy\n"
                           "    return dy * 0.5, dy * 0.5\n", 1)
    code = code.replace("BODY", "ga, gb = _pair(dy)\n        return ga, gb, dy")
    assert lint(code, select=["CG103"]) == []


@pytest.mark.parametrize("bind, returned", [
    ("a{level}, b{level} = {inner}", "a{last}, b{last}, dy"),  # unpacked
    ("a{level}, b{level} = {inner}", "a{last} * 2.0, b{last} * 2.0, dy"),  # tensors
    ("a{level} = a{below}\nb{level} = b{below}", "a{last}, b{last}, dy"),  # assigned
])
def test_names_bound_many_times_to_names_bound_many_times_are_followed_once(
        monkeypatch, bind, returned):
    # k copies of each binding, L levels: each name was followed once per way of reaching
    # it, k ** L times (unpacked, k=20, L=4: 3.3 s; assigned, k=12, L=5: 5.8 s).
    from cglint.facts import ModuleFacts

    followed = []
    follow = ModuleFacts._follow

    def counted(self, kind, name, *rest):
        followed.append(name.id)
        return follow(self, kind, name, *rest)

    monkeypatch.setattr(ModuleFacts, "_follow", counted)
    copies, levels = 8, 4
    lines = ["a0, b0 = dy, dy"] * copies
    for level in range(1, levels):
        inner = "a%d, b%d" % (level - 1, level - 1)
        lines += bind.format(level=level, below=level - 1, inner=inner).split("\n") * copies
    body = "\n".join(lines) + "\nreturn " + returned.format(last=levels - 1)
    assert _cg103(body) == [_return_line(body)]
    assert len(followed) <= 2 * 2 * levels  # each name once (8 ** 3 ways to reach a0)
