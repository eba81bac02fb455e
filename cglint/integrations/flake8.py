"""A flake8 plugin, so every editor and CI job that already runs flake8 shows CG findings.

Registered as the `flake8.extension` entry point `CG`. It lints the text flake8 read and
applies the project's cglint settings and `# noqa` comments (including the `def` and
decorator lines of a function finding, which flake8 alone does not know about); flake8's
own `--select`/`--extend-ignore` then filter as for any plugin.

Settings cglint cannot use (a bad code, broken TOML) do not stop flake8: an exception from
a plugin ends flake8's whole run, with every other plugin's findings. Each file gets one
CG000 finding on its first line that names the problem instead, and no other CG finding,
as the command line would refuse to check it.
"""
from cglint import __version__, check, config, files

SETTINGS_CODE = "CG000"


class CglintChecker:
    name = "cglint"
    version = __version__

    # flake8 passes arguments by name; `tree` marks this as a whole-file plugin.
    def __init__(self, tree, lines, filename):
        self.lines = lines
        self.filename = filename

    def run(self):
        try:
            settings = config.settings_for(self.filename)
        except config.ConfigError as error:
            # (one line: a parser's message may span several, which flake8 prints as is)
            yield (1, 0, "%s cglint settings unusable, no CG checks run: %s"
                   % (SETTINGS_CODE, " ".join(str(error).split())), type(self))
            return
        if settings.excluded(self.filename):
            return
        result = check.check_alone(self.filename, "".join(self.lines),
                                   settings.options_for(self.filename),
                                   files.starts_with_bom(self.filename))
        for diagnostic in result.diagnostics:
            # flake8 columns are 0-based offsets; it adds 1 when it prints them.
            yield (diagnostic.line, diagnostic.col - 1,
                   "%s %s" % (diagnostic.code, diagnostic.message), type(self))
