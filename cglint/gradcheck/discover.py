"""Find the custom-gradient functions of a file, statically, with the linter's facts.

Each becomes a Target: where it is, the module attribute that calls it (the decorated
def's name, `h` for `h = tf.custom_gradient(f)`, `half` for `half = make_scaled(0.5)`
whose factory returns it, `Ops.square` for a staticmethod), its parameters and spec; or
the reason it cannot be checked (a method, a nested function, `*args`, a bad spec).
Nothing here imports or runs the user's code.
"""
import ast
from dataclasses import dataclass, field

from cglint import engine, files
from cglint.facts import CUSTOM_GRADIENT, ModuleFacts, Parameters, Site
from cglint.gradcheck import spec as specs
from cglint.names import same_scope_nodes
from cglint.parse import parse


@dataclass
class Target:
    path: str
    line: int
    function: str  # the name it is reported (and selected) by
    call: str = ""  # the module attribute to call; "" when it cannot be reached
    params: list = field(default_factory=list)  # [(name, Param or None)], None = built automatically
    spec: specs.Spec = field(default_factory=specs.Spec)
    reason: str = ""  # why it cannot be checked (status no-inputs or error)
    reason_status: str = "no-inputs"
    findings: dict = field(default_factory=dict)  # interpreter -> [(code, line)] the linter reports in it
    file_findings: dict = field(default_factory=dict)  # the same for the whole file (import errors)
    aliases: tuple = ()  # other names that select it (the def behind `h = tf.custom_gradient(f)`)
    first_line: int = 0  # of its first decorator, else `line`: code objects start there
    spec_lines: list = field(default_factory=list)  # the lines whose comments above are its spec


class FileError(Exception):
    """A file that cannot be read or parsed: reported once, for the file."""


def targets_in(path, settings_specs=None, warnings=None):
    """Targets for the custom-gradient functions of `path`, in source order.

    settings_specs maps a function name to a Spec from the settings file; it wins over the
    file's own comments, parameter by parameter. `warnings`, a list, gets a message for
    each spec comment that applies to no function.
    """
    loaded = files.load(path)
    if isinstance(loaded, files.Unreadable):
        raise FileError(loaded.message)
    parsed = parse(loaded.text, (3, 6))
    if parsed.tree is None:
        line, _, message = parsed.error
        raise FileError("cannot parse (line %d): %s" % (line, message))
    module = ModuleFacts(path, loaded.text, parsed, (3, 6))
    lines = loaded.text.splitlines()
    wrappers = _module_level_wrappers(module)
    findings = _findings(path, loaded.text)
    sites = list(module.sites)
    known = {id(site.func) for site in sites}
    for func_id, (_, _, func) in wrappers.items():
        # `f = tf.custom_gradient(f)` binds `f` twice, so the linter's facts (which follow
        # a name with one binding only) have no site for it
        if func_id not in known:
            sites.append(Site(func, func.name, module.names.scope_for_def[id(func)],
                              Parameters.of(func), False))
    factories = _factory_products(module)
    found = []
    for site in sites:
        for product in _products_of(module, site, factories) or [None]:
            found.append(_target(path, module, site, lines, wrappers, findings, settings_specs or {},
                                 product))
    if warnings is not None:
        read = {number for target in found for line in target.spec_lines
                for number, _ in specs.spec_comments(lines, line)}
        for number in specs.all_spec_comments(lines):
            if number not in read:
                warnings.append("%s:%d: this `# cglint: gradcheck` comment applies to no function: "
                                "a spec goes on the comment lines right above a custom-gradient "
                                "def or its decorators, with no blank line between" % (path, number))
    return sorted(found, key=lambda target: target.line)


def _findings(path, text):
    """interpreter -> [(code, line)]: the linter's findings for each target Python."""
    found = {}
    for interpreter, version in (("py27", (2, 7)), ("py36", (3, 6))):
        result = engine.lint_text(path, text, engine.Options(target_python=version))
        found[interpreter] = [(d.code, d.line) for d in result.diagnostics]
    return found


def _module_level_wrappers(module):
    """id(def node) -> (name, line, def node) of the first module-level
    `name = tf.custom_gradient(f)` that wraps it. `f` is the last module-level def of that
    name above the assignment, so `f = tf.custom_gradient(f)` counts too."""
    names = module.names
    # only defs and assignments count, and only they are sorted: some nodes have no
    # position (a `with` statement's withitem)
    nodes = sorted((node for node in same_scope_nodes(module.tree.body)
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign))),
                   key=lambda node: (node.lineno, node.col_offset))
    defs = {}
    wrappers = {}
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
            continue
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
            continue
        if names.resolve(call.func, names.module) not in CUSTOM_GRADIENT:
            continue
        func = defs.get(call.args[0].id)
        if func is not None:
            wrappers.setdefault(id(func), (node.targets[0].id, node.lineno, func))
    return wrappers


def _factory_products(module):
    """id(def node) -> [(name, line)] of the module-level `name = factory(...)` assignments
    that call each module-level def."""
    defs = {node.name: node for node in module.tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    products = {}
    for node in same_scope_nodes(module.tree.body):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id in defs):
            products.setdefault(id(defs[node.value.func.id]), []).append((node.targets[0].id, node.lineno))
    return products


def _products_of(module, site, factories):
    """[(name, line)] of the module-level names that hold `site`'s function, made and
    returned by a module-level factory (`half = make_scaled(0.5)`): each is a function of
    its own, with the factory's arguments, so each is checked."""
    defining = module.names.scope_of(site.func)
    if defining.kind != "function" or defining.parent.kind != "module" or isinstance(site.func, ast.Lambda):
        return []
    returned = any(isinstance(node, ast.Return) and isinstance(node.value, ast.Name)
                   and node.value.id == site.name for node in ast.walk(defining.node))
    return factories.get(id(defining.node), []) if returned else []


def _static_method_path(module, func, defining):
    """`Outer.Inner.method` for a @staticmethod of classes nested from module level (it
    needs no instance: the class's attribute is the function), else ""."""
    if not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list):
        return ""
    scope = defining
    while scope.kind == "class":
        scope = scope.parent
    return _qualified(defining) + "." + func.name if scope.kind == "module" else ""


def _qualified(scope):
    """`Outer.method` style name of a class or function scope."""
    parts = []
    while scope is not None and scope.kind != "module":
        parts.append(getattr(scope.node, "name", "<lambda>"))
        scope = scope.parent
    return ".".join(reversed(parts))


def _assigned_at_module_level(module, lambda_):
    """Whether `lambda_` is the argument of a call assigned to one name at module level."""
    call = module.parent_of(lambda_)
    assign = module.parent_of(call) if call is not None else None
    return (isinstance(assign, ast.Assign) and len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name)
            and module.names.scope_of(call).kind == "module")


def _target(path, module, site, lines, wrappers, findings, settings_specs, product=None):
    """The Target of `site`; `product`, (name, line), is the module-level name it is
    bound to by a factory."""
    func = site.func
    decorators = getattr(func, "decorator_list", [])  # a lambda has none
    first_line = min([func.lineno] + [d.lineno for d in decorators])
    end_line = getattr(func, "end_lineno", func.lineno)
    decorated = any(module.resolve(d) in CUSTOM_GRADIENT for d in decorators)
    defining = module.names.scope_of(func)
    target = Target(path, func.lineno, site.name, first_line=first_line)
    target.file_findings = findings
    target.findings = {interpreter: [(code, line) for code, line in found if first_line <= line <= end_line]
                       for interpreter, found in findings.items()}
    spec_lines = target.spec_lines = [first_line]
    if decorated and defining.kind == "module":
        target.call = site.name
    elif not decorated and id(func) in wrappers:
        target.call, assigned_line, _ = wrappers[id(func)]
        target.function = target.call
        target.aliases = (site.name,) if site.name != target.call else ()
        spec_lines.append(assigned_line)
    elif isinstance(func, ast.Lambda):
        if _assigned_at_module_level(module, func):  # h = tf.custom_gradient(lambda x: ...)
            target.call = site.name
        else:
            if defining.kind != "module":
                target.function = "%s.%s" % (_qualified(defining), site.name)
            target.reason = "a lambda not assigned to a module-level name: not reachable from module level"
    elif product is not None:
        target.call = target.function = product[0]
        target.aliases = ("%s.%s" % (_qualified(defining), site.name),)
        spec_lines.append(product[1])
    elif decorated and _static_method_path(module, func, defining):
        target.call = target.function = _static_method_path(module, func, defining)
    elif defining.kind == "class":
        target.function = "%s.%s" % (_qualified(defining), site.name)
        target.reason = "a method: gradcheck cannot build the instance it is called on"
    elif defining.kind == "function":
        target.function = "%s.%s" % (_qualified(defining), site.name)
        target.reason = "defined inside `%s`: not reachable from module level" % defining.node.name
    else:
        target.reason = "made a custom gradient inside a function: not reachable from module level"
    try:
        spec = specs.Spec()
        for line in spec_lines:
            spec = spec.merged(specs.from_comments(lines, line))
        for name in (target.function,) + target.aliases:
            if name in settings_specs:
                spec = spec.merged(settings_specs[name])
    except specs.SpecError as error:
        target.reason, target.reason_status = "bad gradcheck spec: %s" % error, "error"
        return target
    target.spec = spec
    if target.reason or spec.skip:
        return target
    params = site.params
    if params.vararg or params.kwonly:
        target.reason = "takes %s: gradcheck passes positional inputs only" % (
            "*%s" % params.vararg if params.vararg else "keyword-only parameters")
        return target
    unknown = sorted(set(spec.params) - set(params.names))
    if unknown:
        target.reason, target.reason_status = "bad gradcheck spec: `%s` takes no parameter %s" % (
            target.function, ", ".join("`%s`" % name for name in unknown)), "error"
        return target
    given = [index for index, name in enumerate(params.names) if name in spec.params]
    # Positional inputs only (graph mode rejects keywords): pass every parameter up to the
    # last one the spec names, and the required ones.
    count = max([params.required] + [index + 1 for index in given])
    for index, name in enumerate(params.names[:count]):
        if name not in spec.params and index >= params.required:
            target.reason = ("parameter `%s` has a default but a later parameter is given: "
                             "give `%s` in the spec too" % (name, name))
            return target
        target.params.append((name, spec.params.get(name)))
    if not target.params:
        target.reason = "takes no parameters: nothing to differentiate"
    return target
