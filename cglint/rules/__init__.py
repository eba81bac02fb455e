"""The rule registry: every rule module is listed here, in code order
(tests/test_registry.py checks that none is missing and that each file's code is its
rule's)."""
import functools
import importlib

_MODULES = (
    "cg001_syntax_error",
    "cg002_unreadable",
    "cg003_unused_noqa",
    "cg101_variable_created_inside",
    "cg102_variable_read_by_closure",
    "cg103_gradient_count",
    "cg104_grad_parameter_count",
    "cg105_keyword_arguments",
    "cg106_forward_return",
    "cg107_variables_protocol",
    "cg108_non_tensor_argument",
    "cg109_gradient_tape_in_graph",
    "cg110_number_as_gradient",
    "cg111_unreduced_scalar_gradient",
    "cg112_defun_gradient_reads_call_values",
    "cg201_override_key",
    "cg202_override_unregistered",
    "cg203_gradient_registered_twice",
    "cg204_registered_gradient_count",
    "cg301_fstring",
    "cg302_newer_syntax",
    "cg401_tf_print",
    "cg402_missing_api",
    "cg403_unknown_keyword",
)


@functools.lru_cache(maxsize=None)
def all_rules():
    """The one instance of every rule, keyed by code, in code order."""
    rules = {}
    for name in _MODULES:
        module = importlib.import_module("cglint.rules." + name)
        rules[module.RULE.code] = module.RULE()
    return dict(sorted(rules.items()))
