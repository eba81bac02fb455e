import ast

from cglint.rules.base import Rule

# Argument kinds that fail in both modes, and those that only graph mode converts.
_ALWAYS = ("None", "callable", "dict")


class NonTensorArgument(Rule):
    """A custom-gradient function gets a positional argument that is not a tensor.

    What: `None`, a string, a bool, an int, a dict, a function, or a Python list of tensors
    passed positionally to a `@tf.custom_gradient` function, or the decorator put on a
    method (whose `self` is then an argument).

    Why it breaks on TF 1.8: graph mode calls `convert_to_tensor` on every positional
    argument. `None` raises `ValueError: None values not supported`; a function, a dict or
    `self` raise `TypeError: Failed to convert object of type ...`; an int becomes an int32
    tensor that cannot mix with float tensors; `if flag:` on a bool tensor raises TypeError;
    a string becomes a `tf.string` tensor and `opt == "fast"` is silently False (wrong
    branch); a list of tensors is stacked into one tensor, so the function sees one input.
    Eager mode passes the raw values, so the same code works there, which hides the bug.

    Fix: pass only tensors positionally; bind configuration (strings, flags, functions) in
    a closure, or make a decorated function per configuration. For methods, decorate a
    nested function inside the method.
    """

    code = "CG108"
    name = "non-tensor-argument"

    def check(self, module):
        for site in module.sites:
            if site.is_method and site.params.names:
                yield self.at(site.func, "custom-gradient function `%s` is a method: TF 1.8 "
                              "converts `%s` to a tensor and fails; decorate a function "
                              "nested in the method instead" % (site.name,
                                                                site.params.names[0]), function=site.func)
            for call in site.calls:
                yield from self._check_call(module, call, site.name, site.func)
        for call, site in module.imported_calls:
            yield from self._check_call(module, call, site.name, None)

    def _check_call(self, module, call, name, function):
        for arg in call.args:
            kind = self._kind(module, arg)
            if kind and (kind in _ALWAYS or not module.eager):
                yield self.at(arg, "`%s` gets %s as a positional argument: %s" % (
                    name, _DESCRIPTIONS[kind][0], _DESCRIPTIONS[kind][1]), function=function)

    @staticmethod
    def _kind(module, arg):
        if isinstance(arg, ast.Constant):
            value = arg.value
            if value is None:
                return "None"
            if isinstance(value, bool):
                return "bool"
            if isinstance(value, int):
                return "int"
            if isinstance(value, (str, bytes)):
                return "str"
            return None
        if isinstance(arg, (ast.Dict, ast.DictComp)):
            return "dict"
        if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts and not all(
                isinstance(element, ast.Constant) and type(element.value) in (int, float)
                for element in arg.elts):
            return "list"  # a list of numbers is one vector, as its author means it
        if isinstance(arg, ast.Lambda):
            return "callable"
        if isinstance(arg, (ast.Name, ast.Attribute)):
            binding = module.names.definitions(arg, module.names.scope_of(arg))
            if binding is not None and binding.kind == "def":
                return "callable"
            qualname = module.resolve(arg)
            if qualname and qualname.startswith("tensorflow.") and qualname.split(".")[-1][:1].islower():
                return "callable"
        return None


_DESCRIPTIONS = {
    "None": ("None", "TF 1.8 raises `ValueError: None values not supported`"),
    "bool": ("a bool", "graph mode makes it a bool tensor, and `if` on it raises TypeError"),
    "int": ("an int", "graph mode makes it an int32 tensor, which cannot mix with float "
                      "tensors; pass a float tensor or bind it in a closure"),
    "str": ("a string", "graph mode makes it a tf.string tensor, so comparing it with `==` is "
                        "silently False"),
    "dict": ("a dict", "TF 1.8 cannot convert it to a tensor (TypeError)"),
    "list": ("a Python list", "graph mode stacks it into one tensor, so the function sees one "
                              "input, not one per element"),
    "callable": ("a function", "TF 1.8 cannot convert it to a tensor (TypeError); bind it in "
                               "a closure"),
}


RULE = NonTensorArgument
