from cglint.rules.base import Rule


class UnusedNoqaRule(Rule):
    """A `# noqa` comment names a cglint code that silences nothing there.

    What: with `--report-unused-noqa`, every `CG` code in a `# noqa: ...` comment that no
    finding on that line (or, for a finding about a function, on its `def` or decorator
    lines) used. Codes of rules that did not run (`--select`, `ignore`) are not judged;
    codes of other tools (`E501`) and bare `# noqa` are left alone.

    Why it matters: a stale `noqa` hides the next real finding on that line. When the code
    it silenced was fixed or moved, a new mistake on the same line (a second gradient
    dropped, a variable created inside) would go unreported, and TF 1.8 would raise it at
    `tf.gradients` time instead.

    Fix: remove the unused codes (`--fix` does it), or the whole comment when none is left.
    """

    code = "CG003"
    name = "unused-noqa"
    needs_tensorflow = False

    def check(self, module):
        return ()  # reported by cglint.suppress, which reads the noqa comments


RULE = UnusedNoqaRule
