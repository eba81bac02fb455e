"""Which static finding predicts which TF 1.8 error, so a gradcheck error can say
"confirms CG103". From the rule catalogue (shared/tf18-facts.md): the exception and a
fragment of its message that the hazard raises under graph mode.
"""
PREDICTS = {
    "CG001": ("SyntaxError", ""),
    "CG103": ("ValueError", "Num gradients"),
    "CG104": ("TypeError", "argument"),
    "CG105": ("ValueError", "keywords arguments"),
    "CG106": ("", ""),  # TypeError or ValueError at the call, worded many ways
    "CG107": ("ValueError", "Num gradients"),
    "CG108": ("", ""),
    "CG110": ("AttributeError", "has no attribute 'name'"),
    "CG111": ("ValueError", "Incompatible shapes"),
    "CG202": ("LookupError", "No gradient defined"),
    "CG301": ("SyntaxError", ""),
    "CG302": ("SyntaxError", ""),
    "CG401": ("AttributeError", "has no attribute"),
    "CG402": ("AttributeError", "has no attribute"),
    "CG403": ("TypeError", "unexpected keyword argument"),
}


def confirmed(findings, kind, text):
    """The codes among `findings` ([(code, line)]) that predict an error of class `kind`
    whose message contains `text`, in order of first appearance."""
    codes = []
    for code, _ in findings:
        predicted = PREDICTS.get(code)
        if predicted is None or code in codes:
            continue
        exception, fragment = predicted
        if exception and exception != kind:
            continue
        if exception == "" and kind not in ("TypeError", "ValueError"):
            continue
        if fragment in text:
            codes.append(code)
    return codes
