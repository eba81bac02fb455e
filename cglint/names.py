"""What names refer to: scopes, bindings, and qualified names through imports and aliases.

One walk of the tree records every scope (module, class, function, lambda, comprehension)
and what each name is bound to in it, the way pyflakes does. `resolve(expr, scope)` then
turns `tf.contrib.eager.custom_gradient`, `tfe.custom_gradient` or `cg` into
`tensorflow.contrib.eager.custom_gradient` by following real bindings, never by matching
the text `tf.`. Anything it cannot be sure of resolves to None: unknown is not wrong.
"""
import ast
import functools
import re
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional

from cglint.tfpublic import public_name

_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_MAX_ALIAS_DEPTH = 8
# The node kinds whose scope facts ask for (recording every node's costs a quarter of
# the walk): names and calls are resolved, definitions located.
_LOOKED_UP = frozenset((ast.Name, ast.Attribute, ast.Call, ast.FunctionDef,
                        ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))


class Binding:
    """What one statement binds a name to, and the scope it binds it in."""

    __slots__ = ("kind", "node", "qualname", "_scope")

    def __init__(self, kind, node=None, qualname=None):
        self.kind = kind  # import | def | class | assign | param | other
        self.node = node  # FunctionDef/ClassDef, or the assigned value
        self.qualname = qualname  # for imports: the dotted module path
        self._scope = None

    # A weak reference: the scope holds its bindings, and a binding that held its scope
    # would make every module's scopes a reference cycle, which only the slow cyclic
    # garbage collector frees (with the whole tree they point into).
    @property
    def scope(self):
        return self._scope()


@dataclass(eq=False)
class Scope:
    kind: str  # module | class | function | comprehension
    node: ast.AST
    parent: Optional["Scope"]
    bindings: dict = field(default_factory=dict)  # name -> [Binding]
    globals: set = field(default_factory=set)
    nonlocals: set = field(default_factory=set)

    def bind(self, name, binding):
        binding._scope = weakref.ref(self)
        self.bindings.setdefault(name, []).append(binding)
        if name in self.nonlocals:
            # `nonlocal k; k = ...` rebinds the enclosing function's `k`: that one now
            # has this value too (lookups skip this scope's binding of a nonlocal name).
            owner = self._nonlocal_owner(name)
            if owner is not None:
                owner.bindings.setdefault(name, []).append(binding)

    def _nonlocal_owner(self, name):
        """The enclosing function scope whose `name` a `nonlocal name` here means."""
        scope = self.parent
        while scope is not None and scope.kind != "module":
            if scope.kind == "function" and name in scope.bindings and (
                    name not in scope.nonlocals):
                return scope
            scope = scope.parent
        return None


class Names:
    """Scopes of one module and the lookups over them."""

    def __init__(self, tree):
        self.module = Scope("module", tree, None)
        self.scope_of_node = {}  # id(node) -> innermost enclosing Scope
        self.scope_for_def = {}  # id(FunctionDef/Lambda/ClassDef) -> its own Scope
        self.index = defaultdict(list)  # node type -> nodes, for facts to use without a walk
        self._resolved = {}  # (name, id(scope)) -> qualified name or None
        # Names bound somewhere by an import or an alias assignment (`x = a.b`): no other
        # name can resolve, so resolve() answers None for them without a lookup.
        self.resolvable = set()
        # ids of import statements that never bind on the target (a `try` importing what
        # its TensorFlow lacks, before an `except ImportError:` fallback), and of assigned
        # values in a branch it never takes: resolve() skips their bindings. Set by the
        # facts, which know the target.
        self.never_bound = frozenset()
        # Set by cglint.rebindings for the top-level tests the target decides: the branch
        # a conditional expression takes there, {id(IfExp): expr}, and the statement
        # lists it never runs.
        self.chosen = {}
        self.untaken = []
        _Binder(self).run(tree)

    def scope_of(self, node):
        """The scope a Name, Attribute, Call, def, lambda or class is evaluated in."""
        return self.scope_of_node.get(id(node), self.module)

    def lookup(self, name, scope):
        """The bindings `name` has where `scope` reads it (Python's LEGB, classes skipped)."""
        start = scope
        while scope is not None:
            if name in scope.globals:
                return self.module.bindings.get(name, [])
            if scope.kind == "class" and scope is not start:
                scope = scope.parent
                continue
            if name in scope.bindings and name not in scope.nonlocals:
                return scope.bindings[name]
            scope = scope.parent
        return []

    def resolve(self, expr, scope, _depth=0):
        """Dotted qualified name of `expr` (a Name/Attribute chain), or None; a TF 1.8
        function or class written through TF's own modules by its public name
        (cglint.tfpublic: `vs.get_variable` is `tensorflow.get_variable`)."""
        if _depth > _MAX_ALIAS_DEPTH:
            return None
        attributes = []
        while type(expr) is ast.Attribute:  # iterative: the linter's most frequent question
            attributes.append(expr.attr)
            expr = expr.value
        if type(expr) is not ast.Name or expr.id not in self.resolvable:
            return None  # `self.x`, `f().y`, a name no import or alias binds
        key = (expr.id, id(scope))
        if key not in self._resolved:  # a name bound thousands of times stays linear
            # Unknown while it is worked out: an alias of itself (`tf = tf.compat.v1`,
            # bound ten times) is asked once, not ten times per level.
            self._resolved[key] = None
            self._resolved[key] = self._resolve_name(expr, scope, _depth)
        base = self._resolved[key]
        if not base or not attributes:
            return public_name(base) if base else base
        attributes.append(base)
        return public_name(".".join(reversed(attributes)))

    def _resolve_name(self, expr, scope, _depth):
        names = set()
        for binding in self.lookup(expr.id, scope):
            if binding.kind == "import":
                if id(binding.node) not in self.never_bound:
                    names.add(binding.qualname)
            elif binding.kind == "assign" and (is_none(binding.node)
                                               or id(binding.node) in self.never_bound):
                continue  # `try: import tensorflow as tf / except: tf = None`
            elif binding.kind == "assign" and id(binding.node) in self.chosen:
                value = self.chosen[id(binding.node)]
                if isinstance(value, ast.Name) and value.id == expr.id:
                    continue  # `tf = tf.compat.v1 if ... else tf`: unchanged there
                if not isinstance(value, (ast.Name, ast.Attribute)):
                    return None
                names.add(self.resolve(value, binding.scope, _depth + 1))
            elif binding.kind == "assign" and isinstance(binding.node, (ast.Name, ast.Attribute)):
                names.add(self.resolve(binding.node, binding.scope, _depth + 1))
            else:
                return None
        if len(names) != 1:
            return None
        return names.pop()

    def is_builtin(self, name):
        """Whether a Name reads Python's builtin: nothing binds it where it is read."""
        return not self.lookup(name.id, self.scope_of(name))

    def declared_global(self, name):
        """Whether some def declares `global name` (and may bind the module's name)."""
        return any(name in scope.globals for scope in self.scope_for_def.values())

    def definitions(self, expr, scope):
        """The single def/lambda/assignment `expr` (a Name) is bound to, or None."""
        if not isinstance(expr, ast.Name):
            return None
        bindings = self.lookup(expr.id, scope)
        if len(bindings) != 1:
            return None
        return bindings[0]


def within(scope, outer):
    """Whether `scope` is `outer` or nested in it."""
    while scope is not None:
        if scope is outer:
            return True
        scope = scope.parent
    return False


def dotted(node):
    """`params.w` of a Name/Attribute chain, else None. (Not ast.dump: its recursive
    helper leaves a reference cycle per call, and runs keep the collector paused.)"""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


class _Binder:
    """Walks the tree once, creating scopes and bindings. Iterative: deep trees are fine."""

    def __init__(self, names):
        self.names = names

    def run(self, tree):
        # Function bodies are walked after their enclosing scope, like pyflakes defers them,
        # so that a body sees every binding of the scopes around it.
        pending = [(tree, self.names.module)]
        while pending:
            node, scope = pending.pop()
            self._walk_body(node, scope, pending)

    def _walk_body(self, root, scope, pending):
        # The hot loop of the linter: one visit per node, dispatch by exact type.
        index = self.names.index
        scope_of_node = self.names.scope_of_node
        special = self._special
        child_fields = _REVERSED_CHILD_FIELDS
        looked_up = _LOOKED_UP
        name_kind, constant_kind = ast.Name, ast.Constant
        stack = list(_children_of_scope_root(root))
        stack.reverse()
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            if node is None:
                continue
            kind = type(node)
            index[kind].append(node)
            if kind is name_kind:  # the commonest node, and a leaf
                scope_of_node[id(node)] = scope
                continue
            if kind is constant_kind:  # the next commonest, a leaf too
                continue
            if kind in looked_up:
                scope_of_node[id(node)] = scope
            handler = special.get(kind)
            if handler is not None and handler(self, node, scope, stack, pending):
                continue  # it queued the children itself
            fields = child_fields.get(kind)
            if fields is None:
                fields = child_fields[kind] = tuple(reversed(_child_fields(kind)))
            # Pushed last field first, each list reversed: popped in source order.
            for name, many in fields:
                value = getattr(node, name, None)
                if many:
                    if value:
                        extend(reversed(value))  # may hold None: skipped when popped
                elif many is None:  # a field of unknown type: judge by its value
                    extend(reversed(_nodes_in(value)))
                elif value is not None:
                    push(value)

    # Handlers of the node kinds that bind names or open scopes. Each returns True when it
    # queued the node's children itself (or they belong to a scope walked later).

    def _open_function(self, node, scope, stack, pending):
        scope.bind(node.name, Binding("def", node))
        outer = list(node.decorator_list) + _argument_defaults(node.args)
        outer += [node.returns] if node.returns else []
        stack.extend(reversed(outer))
        pending.append((node, self._new_scope("function", node, scope)))
        return True

    def _open_lambda(self, node, scope, stack, pending):
        stack.extend(reversed(_argument_defaults(node.args)))
        pending.append((node, self._new_scope("function", node, scope)))
        return True

    def _open_class(self, node, scope, stack, pending):
        scope.bind(node.name, Binding("class", node))
        outer = list(node.decorator_list) + list(node.bases)
        outer += [keyword.value for keyword in node.keywords]
        stack.extend(reversed(outer))
        pending.append((node, self._new_scope("class", node, scope)))
        return True

    def _open_comprehension(self, node, scope, stack, pending):
        # The first iterable is evaluated outside; the rest has its own scope.
        stack.append(node.generators[0].iter)
        pending.append((node, self._new_scope("comprehension", node, scope)))
        return True

    def _visit_comprehension(self, node, scope, stack, pending):
        self._bind_loop_target(node, scope)
        stack.append(node.target)  # its iterables and conditions are queued already
        return True

    def _new_scope(self, kind, node, parent):
        scope = Scope(kind, node, parent)
        self.names.scope_for_def[id(node)] = scope
        self.names.scope_of_node[id(node)] = parent
        if kind == "function":
            arguments = node.args
            for arg in _all_arguments(arguments):
                scope.bind(arg.arg, Binding("param", arg))
        return scope

    def _bind(self, scope, name, binding):
        """Bind in `scope`, and note the names that resolve() can follow (an import, or an
        alias assignment such as `x = a.b`)."""
        scope.bind(name, binding)
        if binding.kind == "import" or (
                binding.kind == "assign" and isinstance(binding.node, (ast.Name, ast.Attribute))):
            self.names.resolvable.add(name)

    def _bind_import(self, node, scope):
        for alias in node.names:
            if alias.asname:
                self._bind(scope, alias.asname, Binding("import", node, alias.name))
            else:
                top = alias.name.split(".")[0]
                self._bind(scope, top, Binding("import", node, top))

    def _bind_import_from(self, node, scope):
        if node.level or not node.module:
            for alias in node.names:
                scope.bind(alias.asname or alias.name, Binding("other", node))
            return
        for alias in node.names:
            if alias.name != "*":
                self._bind(scope, alias.asname or alias.name,
                           Binding("import", node, node.module + "." + alias.name))

    def _bind_assign(self, node, scope):
        simple = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        for target in node.targets:
            self._bind_target(target, scope, node.value if simple else None)

    def _bind_annotated(self, node, scope):
        self._bind_target(node.target, scope, node.value)

    def _bind_loop_target(self, node, scope):
        self._bind_target(node.target, scope, None)

    def _bind_with(self, node, scope):
        for item in node.items:
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, scope, None)

    def _bind_handler(self, node, scope):
        if node.name:
            scope.bind(node.name, Binding("other", node))

    def _bind_global(self, node, scope):
        scope.globals.update(node.names)

    def _bind_nonlocal(self, node, scope):
        scope.nonlocals.update(node.names)

    def _bind_walrus(self, node, scope):
        self._bind_target(node.target, scope, node.value)

    def _bind_delete(self, node, scope):
        for target in node.targets:
            self._bind_target(target, scope, None)

    def _bind_target(self, target, scope, value):
        if isinstance(target, ast.Name):
            if value is not None:
                self._bind(scope, target.id, Binding("assign", value))
            else:
                scope.bind(target.id, Binding("other", target))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind_target(element, scope, None)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, scope, None)


# Which fields of each node type hold nodes to visit, read from the grammar signature the
# ast module gives every node class as its docstring ("Call(expr func, expr* args,
# keyword* keywords)"). Contexts (Load, Store) and operators are leaves no fact asks for:
# skipping them spares a visit per Name and per operation. Without a signature (an
# unknown node type) every field is a candidate.
_LEAF_TYPES = frozenset(("identifier", "int", "string", "constant", "expr_context",
                         "operator", "unaryop", "cmpop", "boolop", "type_ignore"))
_SIGNATURE_FIELD = re.compile(r"(\w+)([*?]?) (\w+)")
_REVERSED_CHILD_FIELDS = {}  # the walk's own copy, last field first


def children(node):
    """The child nodes of `node` that hold code, in field order: ast.iter_child_nodes
    without contexts and operators, and several times faster."""
    found = []
    for name, many in _child_fields(type(node)):
        value = getattr(node, name, None)
        if many:
            found.extend([item for item in value if item is not None])
        elif many is None:
            found.extend(_nodes_in(value))
        elif value is not None:
            found.append(value)
    return found


_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def same_scope_nodes(start):
    """The `start` nodes and every node under them evaluated in the same scope: nested
    defs, lambdas and classes are yielded but not entered. Iterative, and last first."""
    stack = list(start)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(children(node))


@functools.lru_cache(maxsize=None)  # one entry per node type
def _child_fields(kind):
    """((field name, holds a list), ...) of the fields of `kind` that hold nodes."""
    declared = dict((name, (type_, mark)) for type_, mark, name in
                    _SIGNATURE_FIELD.findall((kind.__doc__ or "").split("\n")[0]))
    fields = []
    for name in kind._fields:
        if name not in declared:
            return _generic_fields(kind._fields)
        type_, mark = declared[name]
        if type_ not in _LEAF_TYPES:
            fields.append((name, mark == "*"))
    return tuple(fields)


def _generic_fields(names):
    """Fields of a node type without a usable signature: each one judged by its value."""
    return tuple((name, None) for name in names)


def _nodes_in(value):
    if isinstance(value, ast.AST):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, ast.AST)]
    return []


def _children_of_scope_root(root):
    """The nodes evaluated inside the scope that `root` opens."""
    if isinstance(root, ast.Module):
        return list(root.body)
    if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return list(root.body)
    if isinstance(root, ast.Lambda):
        return [root.body]
    if isinstance(root, COMPREHENSIONS):
        nodes = []
        for index, generator in enumerate(root.generators):
            nodes.append(generator)
            if index:
                nodes.append(generator.iter)
            nodes.extend(generator.ifs)
        if isinstance(root, ast.DictComp):
            nodes += [root.key, root.value]
        else:
            nodes.append(root.elt)
        return nodes
    return []


def _argument_defaults(arguments):
    defaults = list(arguments.defaults) + [d for d in arguments.kw_defaults if d is not None]
    annotations = [a.annotation for a in _all_arguments(arguments) if a.annotation]
    return defaults + annotations


def _all_arguments(arguments):
    found = list(getattr(arguments, "posonlyargs", [])) + list(arguments.args)
    if arguments.vararg:
        found.append(arguments.vararg)
    found += list(arguments.kwonlyargs)
    if arguments.kwarg:
        found.append(arguments.kwarg)
    return found


def _binding_only(bind):
    """A handler that binds names, then lets the walk queue the node's children."""
    def handler(self, node, scope, stack, pending):
        bind(self, node, scope)
        return False
    return handler


_Binder._special = {
    ast.FunctionDef: _Binder._open_function,
    ast.AsyncFunctionDef: _Binder._open_function,
    ast.Lambda: _Binder._open_lambda,
    ast.ClassDef: _Binder._open_class,
    ast.ListComp: _Binder._open_comprehension,
    ast.SetComp: _Binder._open_comprehension,
    ast.DictComp: _Binder._open_comprehension,
    ast.GeneratorExp: _Binder._open_comprehension,
    ast.comprehension: _Binder._visit_comprehension,
    ast.Import: _binding_only(_Binder._bind_import),
    ast.ImportFrom: _binding_only(_Binder._bind_import_from),
    ast.Assign: _binding_only(_Binder._bind_assign),
    ast.AnnAssign: _binding_only(_Binder._bind_annotated),
    ast.AugAssign: _binding_only(_Binder._bind_loop_target),  # a rebinding of unknown value
    ast.For: _binding_only(_Binder._bind_loop_target),
    ast.AsyncFor: _binding_only(_Binder._bind_loop_target),
    ast.With: _binding_only(_Binder._bind_with),
    ast.AsyncWith: _binding_only(_Binder._bind_with),
    ast.ExceptHandler: _binding_only(_Binder._bind_handler),
    ast.Global: _binding_only(_Binder._bind_global),
    ast.Nonlocal: _binding_only(_Binder._bind_nonlocal),
    ast.NamedExpr: _binding_only(_Binder._bind_walrus),
    ast.Delete: _binding_only(_Binder._bind_delete),
}
