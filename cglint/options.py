"""What one file is checked for: which codes, which Python and TensorFlow it must run on."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    select: tuple = ()  # code prefixes to report; () for all
    ignore: tuple = ()  # code prefixes not to report
    target_python: tuple = (2, 7)
    target_tf: str = "1.8"
    report_unused_noqa: bool = False  # report `# noqa` codes that silence nothing (CG003)

    def selected(self, code):
        if self.select and not code.startswith(tuple(self.select)):
            return False
        return not code.startswith(tuple(self.ignore)) if self.ignore else True
