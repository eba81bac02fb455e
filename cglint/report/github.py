"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

Escaping follows the Actions toolkit (`@actions/core` `command.ts`): `%`, CR and LF in
the message, and also `:` and `,` in property values.
"""


def _data(text):
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text):
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def write(out, findings):
    for diagnostic, _ in findings:
        out.write("::error file=%s,line=%d,col=%d,title=%s::%s\n" % (
            _property(diagnostic.path), diagnostic.line, diagnostic.col,
            _property(diagnostic.code), _data(diagnostic.message)))
