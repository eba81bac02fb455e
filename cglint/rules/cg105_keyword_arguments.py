import ast

from cglint.facts import keyword_reads
from cglint.rules.base import Rule
from cglint.wording import TRACED, tf_name


class KeywordArguments(Rule):
    """A custom-gradient function is called with keyword arguments.

    What: `f(x, scale=3.0)` or `f(x, **options)` where `f` is decorated with
    `@tf.custom_gradient` (also called by a plain alias, `clip = f; clip(x, limit=2.0)`, or
    kept on `self`, `self.act = f; self.act(x, limit=2.0)`; a staticmethod stacked over the
    decorator, called as `Ops.f(...)`, `Ops().f(...)`, `self.f(...)` or `cls.f(...)`; the
    function a factory returns, `make_clip("c")(x, limit=2.0)`; `self._rev =
    tf.custom_gradient(self._forward)` called as `self._rev(x, alpha=0.5)`; and any of
    these imported from another module of the project);
    `functools.partial(f, scale=3.0)`, which passes the keyword on each call; or `f` has a keyword-only parameter, or reads `kwargs["scale"]` from its
    `**kwargs`, which can only be filled by keyword. `**options` of a dict that stays empty
    (`{}`, only ever unpacked) passes no keyword and is not reported.

    Why it breaks on TF 1.8: in graph mode (the default) the call raises
    `ValueError: The custom_gradient decorator currently supports keywords arguments only
    when eager execution is enabled.` In eager mode it runs, but a tensor passed by keyword
    is not a recorded input, so its gradient is silently None. Not reported in a module
    that turns eager execution on, or imports a project module whose top level does, or is
    imported by a project module (or one importing that) that turns it on anywhere (an
    entry script's `tf.enable_eager_execution()` under `if __name__ == "__main__":`), nor
    for a call that runs only eagerly (in the branch of `if tf.executing_eagerly():`);
    but reported there too inside what TF 1.8 traces into a graph even under eager
    execution: a `tfe.defun` function, and the function of a tf.data pipeline's `.map`,
    `.flat_map`, `.filter` or `.interleave` (or `tf.contrib.data.map_and_batch` and
    `parallel_interleave`), where the same ValueError is raised.

    Fix: pass it positionally (and return a gradient for it), or keep it a Python constant by
    binding it in a closure or a default value that callers do not override.
    """

    code = "CG105"
    name = "keyword-arguments"
    judges_project_calls = True  # imported_calls

    def check(self, module):
        if not (module.sites or module.imported_calls or module.imported_partials) \
                or (module.eager and not module.graph_traced):
            return  # (eager asked last: it may look at the modules this one imports)
        findings = list(self._findings(module))
        # Whether a program importing the module turns eager execution on: a search of
        # the project, made only for a module that has something to report
        if findings and (module.graph_traced or not module.may_run_eager):
            yield from findings

    def _findings(self, module):
        known = {}

        def passed(call):
            """The keywords the call may pass (module.passed_keywords), once per call: the
            test and the message ask alike. None where keywords are taken: under `if
            tf.executing_eagerly():`, and in an eager module but in what TF traces."""
            if id(call) not in known:
                known[id(call)] = module.runs_in_graph(call) and module.passed_keywords(call)
            return known[id(call)]

        # In an eager module only code TF traces takes no keywords: say why.
        traced = TRACED if module.eager else ""
        for site in module.sites:
            for arg in site.params.kwonly if not module.eager else ():
                # (a definition's keywords are taken eagerly)
                if site.func.args.kw_defaults[site.params.kwonly.index(arg)] is None:
                    yield self.at(arg, "custom-gradient function `%s` has a required "
                                  "keyword-only parameter `%s`: TF 1.8 graph mode raises "
                                  "ValueError on any keyword argument" % (site.name, arg.arg), function=site.func)
            if site.params.kwarg is not None and not module.eager:
                for read in keyword_reads(site.func, site.params.kwarg):
                    if read.required:
                        yield self.at(read.node, "custom-gradient function `%s` needs keyword "
                                      "argument %s from `**%s`: TF 1.8 graph mode raises "
                                      "ValueError on any keyword argument, so it can never "
                                      "arrive" % (site.name, _key(read), site.params.kwarg),
                                      function=site.func)
            for call in site.partials:
                if passed(call):
                    yield self.at(call, "`functools.partial` binds keyword argument %s to "
                                  "custom-gradient function `%s`: TF 1.8 graph mode raises "
                                  "ValueError when the partial is called; bind it positionally "
                                  "or in a closure%s" % (_keywords(passed(call)), site.name,
                                                         traced), function=site.func)
            for call in site.calls:
                if passed(call):
                    yield self.at(call, "`%s` is called with keyword argument %s: TF 1.8 "
                                  "graph mode raises ValueError; pass it positionally%s"
                                  % (site.name, _keywords(passed(call)), traced),
                                  function=site.func)
        if not module.eager:  # (Keras layers run eagerly there)
            yield from self._keras_lambdas(module)
        for call, site in module.imported_calls:
            if passed(call):
                yield self.at(call, "`%s` (a custom-gradient function of %s) is called with "
                              "keyword argument %s: TF 1.8 graph mode raises ValueError; pass "
                              "it positionally%s" % (site.name, _where(module, site),
                                                     _keywords(passed(call)), traced))
        for call, site in module.imported_partials:
            if passed(call):
                yield self.at(call, "`functools.partial` binds keyword argument %s to "
                              "custom-gradient function `%s` of %s: TF 1.8 graph mode raises "
                              "ValueError when the partial is called; bind it positionally "
                              "or in a closure%s" % (_keywords(passed(call)), site.name,
                                                     _where(module, site), traced))

    def _keras_lambdas(self, module):
        """`tf.keras.layers.Lambda(f, arguments={"lam": 0.5})`: the layer calls `f(x,
        **arguments)`, so the arguments arrive as keywords."""
        if "Lambda" not in module.text or not module.sites:
            return
        by_def = {id(site.func): site for site in module.sites}
        for call, qualname in module.calls:
            if qualname not in _KERAS_LAMBDAS or not call.args:
                continue
            arguments = next((k.value for k in call.keywords if k.arg == "arguments"), None)
            if arguments is None or (isinstance(arguments, ast.Dict) and not arguments.keys) \
                    or (isinstance(arguments, ast.Constant) and arguments.value is None):
                continue  # 1.8's Lambda calls with `**(arguments or {})`
            function = call.args[0]
            binding = module.names.definitions(function, module.names.scope_of(function)) \
                if isinstance(function, ast.Name) else None
            site = by_def.get(id(binding.node)) if binding is not None else None
            if site is not None and module.runs_in_graph(call):
                yield self.at(call, "`%s` passes its `arguments` to custom-gradient function "
                              "`%s` as keyword arguments: TF 1.8 graph mode raises "
                              "ValueError; bind them in a closure" % (
                                  tf_name(qualname), site.name), function=site.func)


# Keras's Lambda layer, which calls its function with `**arguments`.
_KERAS_LAMBDAS = frozenset(("tensorflow.keras.layers.Lambda",
                            "tensorflow.contrib.keras.layers.Lambda",
                            "tensorflow.compat.v1.keras.layers.Lambda",
                            # standalone Keras (2.1, on the TF backend), as most code then
                            "keras.layers.Lambda", "keras.layers.core.Lambda"))


def _keywords(keywords):
    return ", ".join("`%s`" % k.arg if k.arg else "`**%s`" % _shown(k.value)
                     for k in keywords)


def _shown(value):
    """`kw`, `self.kwargs`, `params["act"]` as written; `...` for a longer expression."""
    text = ast.unparse(value)
    return text if len(text) <= 40 and "\n" not in text else "..."


def _where(module, site):
    """`ops.py:12`, relative to the checked file's folder when that is shorter."""
    import os
    here = os.path.dirname(os.path.abspath(module.path))
    shown = os.path.relpath(site.path, here)
    if shown.startswith(".." + os.sep + ".."):
        shown = site.path
    return "`%s:%d`" % (shown, site.line)


def _key(read):
    return "`%s`" % read.key if read.key is not None else "a key"


RULE = KeywordArguments
