"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

Escaping follows the Actions toolkit (`@actions/core` `command.ts`): `%`, CR and LF in
the message, and also `:` and `,` in property values. Other control characters (an
escape sequence in a file name) are shown escaped, as in the text format.
"""
from cglint.report.json import end_of
from cglint.report.text import printable


def _data(text):
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(text)


def _property(text):
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def write(out, findings, run=None):
    for diagnostic, _ in findings:
        end_line, end_col = end_of(diagnostic)
        out.write("::error file=%s,line=%d,endLine=%d,col=%d,endColumn=%d,title=%s::%s\n" % (
            _property(diagnostic.path), diagnostic.line, end_line, diagnostic.col, end_col,
            _property(diagnostic.code), _data(diagnostic.message)))
