"""What list, set and dict methods do to the container they are called on: data for
site_variables (what a module puts in a list or dict of variables) and overrides (what a
run-once guard's container holds)."""

# Methods that put one element in: {name: (the argument that becomes a member, as `in`
# tests it; the argument stored)}: `done.add(name)`, `layers.append(v)`,
# `layers.insert(0, v)`, `cache.setdefault(key, f)`.
ADDING_METHODS = {"add": (0, 0), "append": (0, 0), "insert": (1, 1), "setdefault": (0, 1)}
# Methods that put in every element of their arguments: `layers.extend([v, u])`,
# `weights.update({'h1': v}, h2=u)`.
FILLING_METHODS = frozenset(("extend", "update"))
# Methods that read a list or dict and change nothing in it.
READING_METHODS = frozenset(("get", "keys", "values", "items", "copy", "index", "count"))
