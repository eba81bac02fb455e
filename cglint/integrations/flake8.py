"""A flake8 plugin, so every editor and CI job that already runs flake8 shows CG findings.

Registered as the `flake8.extension` entry point `CG`. It lints the text flake8 read and
applies the project's cglint settings and `# noqa` comments (including the `def` and
decorator lines of a function finding, which flake8 alone does not know about); flake8's
own `--select`/`--extend-ignore` then filter as for any plugin.
"""
from cglint import __version__, check, config, files


class CglintChecker:
    name = "cglint"
    version = __version__

    # flake8 passes arguments by name; `tree` marks this as a whole-file plugin.
    def __init__(self, tree, lines, filename):
        self.lines = lines
        self.filename = filename

    def run(self):
        settings = config.settings_for(self.filename)
        if settings.excluded(self.filename):
            return
        result = check.check_alone(self.filename, "".join(self.lines),
                                   settings.options_for(self.filename),
                                   files.starts_with_bom(self.filename))
        for diagnostic in result.diagnostics:
            # flake8 columns are 0-based offsets; it adds 1 when it prints them.
            yield (diagnostic.line, diagnostic.col - 1,
                   "%s %s" % (diagnostic.code, diagnostic.message), type(self))
