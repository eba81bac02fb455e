"""Run the driver for each target through the oracle and turn its answers into verdicts.

One oracle job per function, interpreter and mode (graph; eager in a process of its own,
since TF 1.8 chooses eager mode at start-up), so a module that hangs, crashes or floods
output costs only its own verdict.
"""
import json
import math
import os
from dataclasses import dataclass, field

from cglint import project
from cglint.gradcheck import predictions
from cglint.oracle.runner import Job, run_fixtures

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver.py")
SEVERITY = ("ok", "skipped", "no-inputs", "mismatch", "error")
# An eager run that fails this early means the function does not run eagerly at all (it
# builds placeholders, tf.Variable, ...): said in the message, not held against it.
EAGER_UNSUPPORTED = ("import", "call", "forward")


@dataclass
class CheckOptions:
    """How a function is checked: tolerances, the seed of inputs and r, probes per input."""

    atol: float = 0.0
    rtol: float = 1e-3
    seed: int = 0
    max_probes: int = 200


@dataclass
class Verdict:
    path: str
    line: int
    function: str
    interpreter: str
    status: str
    message: str = ""
    max_abs_error: float = None
    max_rel_error: float = None  # of the same input
    worst_input: str = None
    confirms: list = field(default_factory=list)  # codes of the static findings it confirms
    modes: dict = field(default_factory=dict)  # mode -> the driver's answer (or a failure)
    seconds: float = 0.0

    def to_json(self):
        return json_safe({"path": self.path, "line": self.line, "function": self.function,
                          "interpreter": self.interpreter, "status": self.status,
                          "max_abs_error": self.max_abs_error, "max_rel_error": self.max_rel_error,
                          "worst_input": self.worst_input,
                          "message": self.message, "confirms": self.confirms,
                          "seconds": round(self.seconds, 3), "modes": self.modes})


def json_safe(value):
    """`value` with NaN and infinities as None: JSON has no such numbers (Python writes
    a bare NaN, which JSON.parse and strict readers reject)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def job_for(target, interpreter, mode, options):
    params = [dict(name=name, **(param.to_json() if param else {"kind": "auto"}))
              for name, param in target.params]
    request = {"module": os.path.abspath(target.path), "call": target.call, "params": params,
               "lines": [target.first_line or target.line, target.line], "mode": mode,
               "seed": options.seed, "atol": options.atol, "rtol": options.rtol,
               "max_probes": options.max_probes}
    return Job(DRIVER, interpreter, mode, argv=(json.dumps(request),),
               module=request["module"], shows=(shown_as(request["module"]),))


# Files that mark a project's root folder, which its modules may import from (a sys.path
# entry of `..`, as scripts in a src/ folder often make).
PROJECT_MARKERS = ("setup.py", "setup.cfg", "pyproject.toml", "tox.ini", ".git")


def shown_as(module):
    """A path whose folder the oracle's sandbox is to show (read-only) where it hides the
    rest (under /tmp): the module itself, or, for a module in a package or a project, a
    path right inside the folder above its outermost package or the project's root
    folder, the outer of the two, so that the driver can import it as the project does."""
    folder, root = os.path.dirname(module), project.package_root(module)
    above = folder
    while os.path.dirname(above) != above:
        if any(os.path.exists(os.path.join(above, marker)) for marker in PROJECT_MARKERS):
            if above != os.path.dirname(above) and len(above) < len(root):
                root = above
            break
        above = os.path.dirname(above)
    if root == folder:
        return module
    return os.path.join(root, os.path.relpath(module, root).split(os.sep)[0])


def answer_of(result):
    """The driver's answer, or an error saying why there is none and how far it got."""
    payload = result.payload if isinstance(result.payload, dict) else {}
    if payload.get("done"):
        return payload
    stage = payload.get("stage")
    during = " during %s" % stage if stage and stage != "start" else ""
    if result.outcome is None:
        why = result.failure
        if why.startswith("crashed"):
            why = "the interpreter " + why
        elif why.startswith("exited with status"):  # os._exit() in the user's code
            why = "the process " + why.replace(" without a result", "")
    elif result.outcome != "ok":
        why = "stopped by %s" % result.describe()
    else:
        why = result.payload_error or "the run ended without an answer"
    return {"status": "error", "stage": stage, "message": why + during, "exception": ""}


def combine(target, interpreter, answers, seconds):
    """One Verdict from the graph answer and the eager one (when eager ran)."""
    graph, eager = answers.get("graph"), answers.get("eager")
    if graph is not None and graph.get("mode") == "eager":
        # The module enables eager execution itself: its "graph" run was the eager check,
        # and the eager run (TF refuses a second enable) has nothing to add.
        eager = None
    verdict = Verdict(target.path, target.line, target.function, interpreter, "ok",
                      modes=answers, seconds=seconds)
    counted = [graph] if graph else []
    notes = []
    if eager is not None:
        unsupported = (eager["status"] == "error" and eager.get("stage") in EAGER_UNSUPPORTED
                       and graph is not None and graph["status"] != "error")
        if unsupported:
            notes.append("eager: not supported (%s)" % eager["message"].splitlines()[0])
        else:
            counted.append(eager)
    verdict.status = max((answer["status"] for answer in counted), key=SEVERITY.index,
                         default="ok")
    labelled = [(mode, answer) for mode, answer in (("graph", graph), ("eager", eager))
                if answer in counted]
    problems = [(mode, answer) for mode, answer in labelled if answer["status"] != "ok"]
    # TF's messages go on with whole node_defs: the verdict keeps their first line (the
    # answers in `modes` keep them whole).
    texts = {mode: first_line(answer["message"]) for mode, answer in problems}
    if len(set(texts.values())) == 1 and len(problems) == len(labelled):
        parts = [texts[problems[0][0]]]
    else:
        parts = ["%s: %s" % (mode, texts[mode]) for mode, _ in problems]
    if graph and graph["status"] == "error":
        # an import error comes from anywhere in the file; any other from the function
        scope = target.file_findings if graph.get("stage") == "import" else target.findings
        verdict.confirms = predictions.confirmed(scope.get(interpreter, []),
                                                 graph.get("exception", ""), graph["message"])
        if verdict.confirms:
            parts[0] += " (confirms %s)" % ", ".join(verdict.confirms)
    elif graph and graph.get("ungraded"):
        # a variable made inside the function (CG101) or read by closure (CG102) that the
        # run showed gets no gradient
        found = [code for code, _ in target.findings.get(interpreter, [])]
        verdict.confirms = [code for code, where in (("CG101", "inside"), ("CG102", "outside"))
                            if code in found and graph["ungraded"].get(where)]
        if verdict.confirms:
            parts[-1] += " (confirms %s)" % ", ".join(verdict.confirms)
    notes += note_parts(counted)
    verdict.message = "; ".join(parts + notes)
    # the error shown is one the verdict is about: not an ok eager run's next to a graph error
    _errors(verdict, [answer for answer in counted if answer["status"] == verdict.status])
    return verdict


def note_parts(answers):
    """The parts of the answers' notes, each said once: both modes mostly note the same
    things, and the float64 failure that made both check at float32 is told in TF's words
    of the first mode only (each mode words it its own way)."""
    parts, said = [], set()
    for answer in answers:
        for part in filter(None, answer.get("note", "").split("; ")):
            key = part.split(" (at float64: ")[0]
            if key not in said:
                said.add(key)
                parts.append(part)
    return parts


def first_line(text):
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _errors(verdict, answers):
    """The largest absolute error over the compared inputs, and the input it is in."""
    best = None
    for answer in answers:
        for entry in answer.get("inputs", []):
            if entry.get("none_accepted"):  # a None gradient accepted: nothing was compared
                continue
            error = entry.get("max_abs_error")
            key = (bool(entry.get("message")), float("inf") if error is None else error)
            if best is None or key > best[0]:
                best = (key, entry)
    if best is not None:
        verdict.max_abs_error = best[1].get("max_abs_error")
        verdict.max_rel_error = best[1].get("max_rel_error")
        verdict.worst_input = best[1]["name"]


def static_verdict(target, interpreter):
    """The verdict of a target that needs no run: skipped, or no inputs to give it."""
    if target.spec.skip:
        message = "skipped by its spec" + (": %s" % target.spec.reason if target.spec.reason else "")
        return Verdict(target.path, target.line, target.function, interpreter, "skipped", message)
    return Verdict(target.path, target.line, target.function, interpreter, target.reason_status,
                   target.reason)


def check(targets, interpreters, selected, modes=("graph", "eager"), options=None,
          workers=2, timeout=60.0):
    """Verdicts for every target on every selected interpreter, in order."""
    options = options or CheckOptions()
    verdicts, jobs, owners = [], [], []
    for target in targets:
        for interpreter in selected:
            if target.spec.skip or target.reason:
                verdicts.append(static_verdict(target, interpreter))
                continue
            verdicts.append(None)
            for mode in modes:
                jobs.append(job_for(target, interpreter, mode, options))
                owners.append((len(verdicts) - 1, target, interpreter, mode))
    results = run_fixtures(jobs, interpreters, workers, timeout) if jobs else []
    gathered = {}
    for (index, target, interpreter, mode), result in zip(owners, results):
        answers, seconds = gathered.setdefault(index, (target, interpreter, {}, [0.0]))[2:]
        answers[mode] = dict(answer_of(result), seconds=result.seconds)
        seconds[0] += result.seconds
    for index, (target, interpreter, answers, seconds) in gathered.items():
        verdicts[index] = combine(target, interpreter, answers, seconds[0])
    return verdicts
