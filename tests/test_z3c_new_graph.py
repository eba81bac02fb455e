"""CG201 for a map opened on a `tf.Graph()` that is never made the default (probe z3c
j03): the block's ops go to the default graph, and the override never applies."""
import textwrap

import pytest

from cglint import check, engine

CODE = """
import tensorflow as tf

def build():
    g = tf.Graph()
    SETUP
    with OPEN:
        y = tf.round(tf.constant([0.4, 1.6]))
    return y
"""


@pytest.mark.parametrize("setup, opened, reported", [
    ("pass", 'g.gradient_override_map({"Round": "Identity"})', True),
    ("sess = tf.Session(graph=g)", 'g.gradient_override_map({"Round": "Identity"})', True),
    ("pass", 'g.as_default(), g.gradient_override_map({"Round": "Identity"})', False),
    ("g.as_default().__enter__()", 'g.gradient_override_map({"Round": "Identity"})', False),
    ("use(g)", 'g.gradient_override_map({"Round": "Identity"})', False),
    ("g = tf.get_default_graph()", 'g.gradient_override_map({"Round": "Identity"})', False),
])
def test_a_map_on_a_graph_never_made_the_default(setup, opened, reported):
    code = textwrap.dedent(CODE).replace("SETUP", setup).replace("OPEN", opened)
    results = check.check_texts({"snippet.py": code}, engine.Options(select=("CG201",)))
    found = [d for result in results for d in result.diagnostics]
    assert bool(found) is reported, [d.message for d in found]


def test_the_map_inside_the_graphs_as_default_block():
    code = """
    import tensorflow as tf
    g = tf.Graph()
    with g.as_default():
        with g.gradient_override_map({"Round": "Identity"}):
            y = tf.round(tf.constant([0.4, 1.6]))
    """
    results = check.check_texts({"snippet.py": textwrap.dedent(code)},
                                engine.Options(select=("CG201",)))
    assert [d for result in results for d in result.diagnostics] == []
