import ast
import difflib
import functools
import re

from cglint import overrides, project
from cglint.ops import load as load_ops
from cglint.rules.base import Finding, Rule, Span


class OverrideGradientNotRegistered(Rule):
    """A gradient_override_map value that no `tf.RegisterGradient` registers.

    What: `graph.gradient_override_map({"Relu": "ClippedReluGrad"})` where no file of the
    run registers `ClippedReluGrad` (`@tf.RegisterGradient("ClippedReluGrad")`, or
    `tf.NotDifferentiable`), and TF 1.8 has no gradient of that name either; often a typo
    or a case mismatch (`"clippedrelugrad"`). The map may be a module constant bound once
    (`OVERRIDES = {...}`), a class attribute bound once in the class body and only read
    (`self.OVERRIDES`), or `dict(Relu=...)`, and names may be built from constants or read
    from a module constant dict (`GRADS["relu"]`)
    (`"Guided_%s" % LAYER`, `"Scaled{}".format(IDX)`, `f"Guided_{LAYER}"`), constants of
    other project modules (`from names import GRAD`, `names.GRAD`, found on disk, so a
    file checked alone is judged alike) or class attributes bound once in the class body
    (`self.GRAD_NAME`, `cls.GRAD_NAME`, `GuidedBackprop.GRAD_NAME`; not when the module
    assigns the attribute elsewhere or a subclass binds it again). A loop over a literal
    table registers the table's names (`for name, f in GRADIENTS.items():`, over a list,
    a dict's keys or items, `zip` or `enumerate` of lists, also as parts of a name:
    `op_type + "STE"`), unless the module may change the table (an item assigned, the
    table handed to a function). A map whose name is a parameter of the def holding it
    (`def modify_backprop(model, name)`, `{"Relu": name}`) is checked with each known
    string the module's calls of the def pass (reported at the argument). Names built at
    run time (uuid, counters, f-strings of other values) cannot be checked and are left
    alone; so is a run where some helper registers names passed in by its callers. A module
    loaded by a literal name (`importlib.import_module("plugins.guided")`,
    `__import__("grads")`) counts as imported, and so does one found in a folder the
    program adds to `sys.path` (`sys.path.insert(0, os.path.join(os.path.dirname(__file__),
    "lib"))`); a program that changes `sys.path` in a way cglint cannot work out, or loads
    modules or code by a name or path built at run time (`importlib.import_module(name)`, `imp.load_source`,
    `importlib.util.spec_from_file_location`, `runpy`, `exec`, `execfile`) may register any
    name there, and is left alone too. Also `tf.RegisterGradient` given no name: written
    as a bare decorator (`@tf.RegisterGradient` over the gradient function), or called
    with the function (`tf.RegisterGradient(_guided)`), a lambda or anything else surely
    not a string; the same for `tf.NotDifferentiable`.

    Why it breaks on TF 1.8: building the graph works, but `tf.gradients` raises
    `LookupError: No gradient defined for operation 'Relu' (op type: Relu)`. The message
    names the op, not the missing registration, so it reads as if ReLU had no gradient.
    Under eager execution the map is ignored instead (see CG201). A registration given no
    name fails earlier, in graph and eager mode alike: `TypeError: op_type must be a
    string` at the decorator (or the call), when its module is imported, and the name the
    map uses is never registered.

    An entry whose key is no TF 1.8 op type (`{"ReLU": "GuidedReluTypo"}`) is CG201's:
    no op has that type, so TF 1.8 never looks its value up and raises nothing; once the
    key is fixed, an unregistered value is reported here.

    Fix: register the gradient under exactly the name the map uses (names are
    case-sensitive), in a module that is imported before `tf.gradients` runs:
    `@tf.RegisterGradient("ClippedReluGrad")`, or `tf.RegisterGradient("ClippedReluGrad")(f)`.
    """

    code = "CG202"
    name = "override-not-registered"

    def check(self, module):
        # The rest is judged over the whole run: the registration may be in another file.
        for wrong in module.overrides.misregistrations:
            yield self.at(wrong.node, _misregistration(wrong))

    def summarize(self, module):
        facts = module.overrides
        if not facts.maps and not facts.registrations and not facts.unresolved_registrations:
            return None
        ops = load_ops()
        uses = []
        if facts.maps and not module.eager:
            custom_ops = []  # whether the program loads op types of its own, once asked
            for found in facts.maps:
                for entry in found.entries:
                    for value in (entry.value,) + entry.passed:  # (and its callers' names)
                        if value.value is not None and value.value not in ops.registered \
                                and not overrides.key_matches_no_op(module, entry.key, ops,
                                                                    custom_ops):
                            uses.append((value.value, entry.key,
                                         tuple(module.span(value.node))))
        own = overrides.registered_names(facts)
        registered = sorted(own.names.items())
        # Code loaded by a name or path cglint cannot know may register any name.
        any_name, imported, patterns = own.any_name or facts.loads_unknown, [], list(
            own.patterns)
        if any(value not in own.names for value, *_ in uses):
            # The registration may be in a project module this file imports, checked in
            # this run or not: a file checked alone must be judged like the whole tree.
            names, more, anything, dependencies = project.current().registrations(
                module.path, namespaces=module.target_python >= overrides.NAMESPACE_PACKAGES)
            module.dependencies.update(dependencies)
            imported = [(name, project.shown_path(where, module.path), line)
                        for name, (where, line) in names.items()]
            patterns = patterns + more
            any_name = any_name or anything
        # Plain data (it is cached as JSON and crosses processes), read by position below.
        return uses, registered, any_name, imported, patterns, facts.components, facts.imports

    def check_run(self, summaries):
        # Each file by what a process running it loads: its own registrations and those
        # of the project modules it imports or is imported by (found on disk), never
        # another checked file it is not loaded with. So a file checked alone and in its
        # whole tree gets the same findings.
        # Checked files loaded with it count too (files given as texts are on no disk).
        together = overrides.loaded_together(
            {path: (summary[5], summary[6]) for path, summary in summaries.items()},
            set(summaries))
        for path in sorted(path for path, summary in summaries.items() if summary[0]):
            uses, own, any_name, imported, patterns = summaries[path][:5]
            if any_name or any(summaries[other][2] for other in together[path]):
                continue  # some registration's name comes from its callers: any may match
            registered = {}  # name -> {path: first line registering it there}
            for name, line in own:
                registered.setdefault(name, {}).setdefault(path, line)
            for other in sorted(together[path]):
                for name, line in summaries[other][1]:
                    registered.setdefault(name, {}).setdefault(other, line)
            for name, where, line in imported:
                registered.setdefault(name, {}).setdefault(where, line)
            # (a new list: the summaries' own lists stay as they are, for the next file)
            patterns = [_compiled(pattern) for pattern in sorted(set(patterns).union(
                pattern for other in together[path] for pattern in summaries[other][4]))]
            names = _Names(registered)
            for value, key, place in uses:
                if value in registered or any(p.fullmatch(value) for p in patterns):
                    continue
                override = " (the override for `%s`)" % key if key else ""
                op_type = " (op type: %s)" % key if key else ""
                yield Finding(
                    "gradient `%s`%s is never registered with `tf.RegisterGradient` in this "
                    "file or the project modules loaded with it: `tf.gradients` raises "
                    "`LookupError: No gradient defined for operation ...%s`%s"
                    % (value, override, op_type, names.did_you_mean(value, path)),
                    span=Span(*place), path=path)


def _misregistration(wrong):
    """The message of a Misregistration."""
    called = ast.unparse(wrong.node if wrong.decorator else wrong.node.func)
    registers = wrong.qualname in overrides.REGISTER_GRADIENT
    error = "TF 1.8 raises `TypeError: op_type must be a string` at %s and registers " \
        "nothing" % ("the decorator" if wrong.decorator else "this call")
    if wrong.decorator:
        return "`@%s` has no gradient name, so it is called with %s: %s; give it the name " \
            "the override map uses: `@%s(\"%s\")`" % (
                called, wrong.given.what, error, called, wrong.given.function.name)
    if registers:
        fix = "the name the override map uses first, as a string: `%s(\"Name\")(%s)`" % (
            called, ast.unparse(wrong.given.node))
    else:
        fix = "the op type's name, as a string: `%s(\"OpType\")`" % called
    return "`%s` is given %s, not %s: %s; give it %s" % (
        called, wrong.given.what, "a gradient name" if registers else "an op type", error,
        fix)


@functools.lru_cache(maxsize=1024)  # one pattern per registration site, asked per file
def _compiled(pattern):
    return re.compile(pattern)


# Past this many suggestions in a file, the rest are not looked for: each compares the
# value with every registered name, and a generated file may hold thousands of both.
_MAX_SUGGESTIONS = 50


class _Names:
    """The registered names of one file's program, for "did you mean" suggestions: sorted
    and lowered once, not once per unregistered use."""

    def __init__(self, registered):
        self.registered = registered
        self.sorted = sorted(registered)
        self.by_lower = {}
        for name in self.sorted:
            self.by_lower.setdefault(name.lower(), name)
        for name in sorted(load_ops().registered):
            self.by_lower.setdefault(name.lower(), name)
        self.looked_for = 0

    def did_you_mean(self, value, path):
        match = self.by_lower.get(value.lower())
        if match is None and self.looked_for < _MAX_SUGGESTIONS:
            self.looked_for += 1
            close = difflib.get_close_matches(value, self.sorted, n=1, cutoff=0.8)
            match = close[0] if close else None
        if match is None:
            return ""
        if match not in self.registered:
            return "; did you mean TF's own `%s`?" % match
        places = self.registered[match]
        if path in places:
            place = "line %d" % places[path]
        else:
            where = min(places)
            place = "%s:%d" % (where, places[where])
        return "; did you mean `%s` (registered at %s)?" % (match, place)


RULE = OverrideGradientNotRegistered
