from cglint.rules.base import Rule


class KeywordArguments(Rule):
    """A custom-gradient function is called with keyword arguments.

    What: `f(x, scale=3.0)` or `f(x, **options)` where `f` is decorated with
    `@tf.custom_gradient`, or `f` has a keyword-only parameter that can only be passed by
    keyword.

    Why it breaks on TF 1.8: in graph mode (the default) the call raises
    `ValueError: The custom_gradient decorator currently supports keywords arguments only
    when eager execution is enabled.` In eager mode it runs, but a tensor passed by keyword
    is not a recorded input, so its gradient is silently None.

    Fix: pass it positionally (and return a gradient for it), or keep it a Python constant by
    binding it in a closure or a default value that callers do not override.
    """

    code = "CG105"
    name = "keyword-arguments"

    def check(self, module):
        if not module.sites or module.eager:
            return
        for site in module.sites:
            for arg in site.params.kwonly:
                if site.func.args.kw_defaults[site.params.kwonly.index(arg)] is None:
                    yield self.at(arg, "custom-gradient function `%s` has a required "
                                  "keyword-only parameter `%s`: TF 1.8 graph mode raises "
                                  "ValueError on any keyword argument" % (site.name, arg.arg), function=site.func)
            for call in site.calls:
                if call.keywords:
                    names = ", ".join("`%s`" % k.arg if k.arg else "`**%s`" % _text(k.value)
                                      for k in call.keywords)
                    yield self.at(call, "`%s` is called with keyword argument %s: TF 1.8 "
                                  "graph mode raises ValueError; pass it positionally"
                                  % (site.name, names), function=site.func)


def _text(node):
    return getattr(node, "id", "...")


RULE = KeywordArguments
