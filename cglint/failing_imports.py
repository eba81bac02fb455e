"""Does an import statement fail on the target release, and does a name come from one?

For TF 1.8 the answer comes from its wheels (cglint.tfimports: every module file of the
CPU and GPU wheels, what the 1.8 interpreter could import and what the modules hold);
where that model does not know, and for other releases, from the version table
(cglint.tfapi). A use of a name bound by a failing import (`import tensorflow.compat.v1
as tf`, then `tf.X`) has the same cause as the import: rules report the import once.
"""
import ast
import functools

from cglint import tfapi, tfimports

# The release whose wheels tools/gen_tf18_imports.py reads (cglint.tfimports).
WHEELS_TARGET = "1.8"
# Alias assignments followed back to an import (as cglint.names resolves them).
_MAX_ALIASES = 8


def fails(use, target):
    """(fails, why) for one import statement's name in target."""
    return _fails(use.module, use.name, target)


def fails_on(module, name, target):
    """Whether `from module import name` (name None: `import module`) fails in target:
    True, False, or None when unknown."""
    return _fails(module, name, target)[0]


@functools.lru_cache(maxsize=4096)  # a tree imports the same modules in every file
def _fails(module, name, target):
    if tfapi.normalize_version(target) == WHEELS_TARGET:
        verdict, why = tfimports.import_fails(module, name)
        if verdict is not None:
            return verdict, why
    return tfapi.import_fails(module, target, name), None


def through_failing_import(module, use, target):
    """Is the chain's first name bound by an import that fails in target, directly or
    through aliases (`FLAGS = tf.flags.FLAGS` after `import tensorflow.compat.v1 as
    tf`)? Its import is the finding: the names reached through it are not judged."""
    return _bound_by_failing_import(module, use.node, target, 0, set())


def _bound_by_failing_import(module, chain, target, depth, followed):
    root = chain
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or depth > _MAX_ALIASES:
        return False
    never_bound = module.names.never_bound
    for binding in module.names.lookup(root.id, module.names.scope_of(root)):
        if binding.kind == "assign" and isinstance(binding.node, (ast.Name, ast.Attribute)):
            # Each alias once (`tf = tf.compat.v1` bound ten times asks ten, not 10**8);
            # one in a branch the target never takes binds nothing there.
            if id(binding.node) in followed or id(binding.node) in never_bound:
                continue
            followed.add(id(binding.node))
            if _bound_by_failing_import(module, binding.node, target, depth + 1, followed):
                return True
            continue
        if binding.kind != "import" or not binding.qualname.startswith("tensorflow") or \
                id(binding.node) in never_bound:
            continue  # (a failing import with a fallback binds the fallback's module)
        statement = binding.node
        if isinstance(statement, ast.ImportFrom):
            module_path, name = binding.qualname.rsplit(".", 1)
        else:
            module_path, name = binding.qualname, None
        if fails(Imported(module_path, name), target)[0]:
            return True
    return False


class Imported:
    """An import of `module` (`from module import name`), for the checks above."""

    def __init__(self, module, name, node=None):
        self.module, self.name, self.node = module, name, node
