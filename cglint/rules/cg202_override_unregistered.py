import difflib
import os
import re

from cglint import overrides, project
from cglint.ops import load as load_ops
from cglint.rules.base import Finding, Rule, Span


class OverrideGradientNotRegistered(Rule):
    """A gradient_override_map value that no `tf.RegisterGradient` registers.

    What: `graph.gradient_override_map({"Relu": "ClippedReluGrad"})` where no file of the
    run registers `ClippedReluGrad` (`@tf.RegisterGradient("ClippedReluGrad")`, or
    `tf.NotDifferentiable`), and TF 1.8 has no gradient of that name either; often a typo
    or a case mismatch (`"clippedrelugrad"`). Names built at run time (uuid, counters,
    f-strings) cannot be checked and are left alone; so is a run where some helper
    registers names passed in by its callers.

    Why it breaks on TF 1.8: building the graph works, but `tf.gradients` raises
    `LookupError: No gradient defined for operation 'Relu' (op type: Relu)`. The message
    names the op, not the missing registration, so it reads as if ReLU had no gradient.
    Under eager execution the map is ignored instead (see CG201).

    Fix: register the gradient under exactly the name the map uses (names are
    case-sensitive), in a module that is imported before `tf.gradients` runs.
    """

    code = "CG202"
    name = "override-not-registered"

    def check(self, module):
        return ()  # a whole-run rule: the registration may be in another file

    def summarize(self, module):
        facts = module.overrides
        if not facts.maps and not facts.registrations and not facts.unresolved_registrations:
            return None
        ops = load_ops()
        uses = []
        if not module.eager:
            for found in facts.maps:
                for entry in found.entries:
                    value = entry.value
                    if value.value is not None and value.value not in ops.registered:
                        uses.append((value.value, entry.key, tuple(module.span(value.node))))
        own = overrides.registered_names(facts)
        registered = sorted(own.names.items())
        any_name, imported, patterns = own.any_name, [], list(own.patterns)
        if any(value not in own.names for value, *_ in uses):
            # The registration may be in a project module this file imports, checked in
            # this run or not: a file checked alone must be judged like the whole tree.
            names, more, anything, dependencies = project.current().registrations(module.path)
            module.dependencies.update(dependencies)
            imported = [(name, _shown(where), line) for name, (where, line) in names.items()]
            patterns = patterns + more
            any_name = any_name or anything
        # Plain data (it is cached as JSON and crosses processes), read by position below.
        return uses, registered, any_name, imported, patterns

    def check_run(self, summaries):
        if any(any_name for _, _, any_name, _, _ in summaries.values()):
            return  # some registration's name comes from its callers: any name may match
        registered = {}  # name -> {path: first line registering it there}
        for path in sorted(summaries):
            for name, line in summaries[path][1]:
                registered.setdefault(name, {}).setdefault(path, line)
        for path in sorted(summaries):
            for name, where, line in summaries[path][3]:
                registered.setdefault(name, {}).setdefault(where, line)
        patterns = [re.compile(p) for summary in summaries.values() for p in summary[4]]
        for path in sorted(summaries):
            for value, key, place in summaries[path][0]:
                if value in registered or any(p.fullmatch(value) for p in patterns):
                    continue
                override = " (the override for `%s`)" % key if key else ""
                op_type = " (op type: %s)" % key if key else ""
                yield Finding(
                    "gradient `%s`%s is never registered with `tf.RegisterGradient` in the "
                    "checked files or the project modules they import: `tf.gradients` "
                    "raises `LookupError: No gradient defined for operation ...%s`%s"
                    % (value, override, op_type, _did_you_mean(value, registered, path)),
                    span=Span(*place), path=path)


def _shown(path):
    """A project file as a run would show it: relative to the working folder if inside."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir + os.sep) else relative


def _did_you_mean(value, registered, path):
    by_lower = {}
    for name in sorted(registered):
        by_lower.setdefault(name.lower(), name)
    for name in sorted(load_ops().registered):
        by_lower.setdefault(name.lower(), name)
    match = by_lower.get(value.lower())
    if match is None:
        close = difflib.get_close_matches(value, sorted(registered), n=1, cutoff=0.8)
        match = close[0] if close else None
    if match is None:
        return ""
    if match not in registered:
        return "; did you mean TF's own `%s`?" % match
    places = registered[match]
    if path in places:
        place = "line %d" % places[path]
    else:
        where = min(places)
        place = "%s:%d" % (where, places[where])
    return "; did you mean `%s` (registered at %s)?" % (match, place)


RULE = OverrideGradientNotRegistered
