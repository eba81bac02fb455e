"""The host side of the oracle, with interpreters that cannot run TensorFlow."""
import sys

import pytest

from cglint.oracle.runner import Job, result_from, run_fixtures


@pytest.mark.parametrize("reply, described", [
    ({"result": {"outcome": "ok"}, "status": 0}, "ok"),
    ({"result": {"outcome": "ValueError", "message": "Num gradients 3\nmore"}, "status": 0},
     "ValueError: Num gradients 3"),
    ({"result": None, "status": None, "signal": 9, "timed_out": True}, "timeout after 60s"),
    ({"result": None, "status": None, "signal": 11}, "crashed: signal 11 (SIGSEGV)"),
    ({"result": None, "status": 3, "signal": None}, "exited with status 3 without a result"),
    ({"result": {"harness_error": "Traceback ...\nOSError: boom\n"}, "status": 0}, "harness error: OSError: boom"),
])
def test_harness_replies(reply, described):
    assert result_from(Job("f.py", "py36"), reply, timeout=60).describe() == described


def test_an_interpreter_without_tensorflow_fails_all_its_jobs(tmp_path):
    fixture = tmp_path / "f.py"
    fixture.write_text("print('never runs')\n")
    jobs = [Job(str(fixture), "py36"), Job(str(fixture), "py36"), Job(str(fixture), "py27")]
    # The host's own Python has no tensorflow: the harness says so and exits.
    first, second, third = run_fixtures(jobs, {"py36": sys.executable}, workers=2, timeout=10)
    assert first.failure == second.failure
    assert first.failure.startswith("import tensorflow failed: ModuleNotFoundError")
    assert third.failure == "no py27 interpreter"


def test_an_interpreter_that_cannot_start(tmp_path):
    (result,) = run_fixtures([Job("f.py", "py36")], {"py36": str(tmp_path / "missing")})
    assert result.failure.startswith("cannot start %s" % (tmp_path / "missing"))


def test_only_graph_mode_contrib_fixtures_share_a_contrib_server(tmp_path):
    from cglint.oracle.runner import Job, wants_contrib
    paths = {}
    for name, source in {
        "contrib.py": "import tensorflow as tf\nx = tf.contrib.layers.flatten\n",
        "plain.py": "import tensorflow as tf\nx = tf.ones([1])\n",
        "eager.py": "import tensorflow as tf\ntf.enable_eager_execution()\ntf.contrib.eager\n",
    }.items():
        paths[name] = str(tmp_path / name)
        (tmp_path / name).write_text(source)
    assert wants_contrib(Job(paths["contrib.py"], "py36"))
    assert not wants_contrib(Job(paths["contrib.py"], "py36", "eager"))
    assert not wants_contrib(Job(paths["plain.py"], "py36"))
    assert not wants_contrib(Job(paths["eager.py"], "py36"))
    # a driver program: the user module it imports decides
    assert wants_contrib(Job(paths["plain.py"], "py36", module=paths["contrib.py"]))
    assert not wants_contrib(Job(paths["contrib.py"], "py36", module=paths["plain.py"]))


def test_a_payload_and_its_error_reach_the_result():
    reply = {"result": {"outcome": "ok"}, "status": 0, "payload": {"verdict": [1, 2]}}
    assert result_from(Job("f.py", "py36"), reply, timeout=60).payload == {"verdict": [1, 2]}
    reply = {"result": {"outcome": "ok"}, "status": 0, "payload_error": "payload is not JSON"}
    result = result_from(Job("f.py", "py36"), reply, timeout=60)
    assert result.payload is None and result.payload_error == "payload is not JSON"
