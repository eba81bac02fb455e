"""Gather what the checks look at, in parallel: the interpreter, its TensorFlow import, the
GPUs, the CUDA libraries, and the oracle's interpreters."""
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from cglint import interrupts
from cglint.doctor import facts, machine, probe
from cglint.doctor.checks import Inspection
from cglint.oracle import envs

# Quick questions (what is this Python?) get at most this long; importing TF gets --timeout.
DESCRIBE_TIMEOUT = 30


def resolve_python(python):
    """The interpreter to run: a path as given, a bare name looked up on PATH."""
    if os.sep in python:
        return python
    return shutil.which(python) or python


def gather(python, timeout):
    python = resolve_python(python)
    root = envs.cache_root()
    oracle_pythons = {name: envs.env_python(root, name) for name in sorted(envs.VERSIONS)}
    stems = sorted(set(facts.stem(name) for name in facts.gpu_libraries()))
    with ThreadPoolExecutor(3 + len(oracle_pythons)) as pool:
        gpus = pool.submit(machine.gpus)
        libraries = pool.submit(machine.find_libraries, stems)
        oracle = {name: pool.submit(_oracle_answer, path, timeout)
                  for name, path in oracle_pythons.items()
                  if os.path.abspath(path) != os.path.abspath(python)}
        # TF is imported only from an interpreter that answered: one that hangs costs
        # DESCRIBE_TIMEOUT, not also the import's timeout.
        described, problem = _describe(python, min(timeout, DESCRIBE_TIMEOUT))
        imported = probe.import_tensorflow(python, timeout) if described is not None else None
        answers = {name: interrupts.result(future) for name, future in oracle.items()}
        for name, path in oracle_pythons.items():
            # The inspected interpreter is this env: its answers are the env's.
            answers.setdefault(name, imported if described is not None else {"error": problem})
        return Inspection(python=python, described=described, problem=problem,
                          imported=imported, gpus=interrupts.result(gpus),
                          libraries=interrupts.result(libraries),
                          oracle={name: (path, answers[name])
                                  for name, path in oracle_pythons.items()})


def _describe(python, timeout):
    try:
        return probe.describe(python, timeout), ""
    except probe.ProbeError as error:
        return None, str(error)


def _oracle_answer(python, timeout):
    """probe.import_tensorflow's answer, or None when the env was never built."""
    if not os.path.exists(python):
        return None
    return probe.import_tensorflow(python, timeout)
