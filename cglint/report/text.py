"""`path:line:col: CODE message`, the line format of flake8 and ruff that editors parse."""


def write(out, findings):
    for diagnostic, _ in findings:
        out.write(diagnostic.format_text() + "\n")
