"""The shape every rule has: a stable code, a name, docs, and a check over facts."""
import inspect

# Rules build their findings and fixes from these.
from cglint.diagnostics import Edit, Finding, is_safe  # noqa: F401
from cglint.source import Span  # noqa: F401


class Rule:
    """Subclasses set `code` and `name`; their docstring is the user documentation:
    first line the summary, then what, why it breaks on TF 1.8, how to fix."""

    code = ""
    name = ""
    # Rules about TensorFlow need the names resolved; Python-syntax rules do not.
    needs_tensorflow = True
    # Rules that judge calls of custom-gradient functions of other project modules: those
    # reach a file that never names tensorflow (`from .ops import mix; mix(x, y=x)`).
    judges_project_calls = False

    @classmethod
    def summary(cls):
        return inspect.getdoc(cls).splitlines()[0]

    @classmethod
    def documentation(cls):
        return inspect.getdoc(cls)

    def check(self, module):
        """Yield Finding for one module's facts (cglint.facts.ModuleFacts)."""
        raise NotImplementedError

    # Rules that need a whole-run view (a name registered in one file, used in another)
    # also summarize each module into small picklable data, and judge all summaries at
    # the end. Memory stays flat: no tree outlives its file.
    def summarize(self, module):
        """Picklable data about one module for check_run, or None."""
        return None

    def check_run(self, summaries):
        """Yield Finding, each with its path and Span, from {path: summary} of every
        module in the run (a summary holds Spans made by ModuleFacts.span, never nodes)."""
        return ()

    @staticmethod
    def at(node, message, fix=None, function=None):
        """A Finding at `node`; `function` (a def) lets `# noqa` on its def line apply."""
        return Finding(message, node=node, fix=fix, noqa_lines=_definition_lines(function)
                       if function is not None else ())


def _definition_lines(function):
    lines = [decorator.lineno for decorator in getattr(function, "decorator_list", ())]
    return tuple(lines) + (function.lineno,)
