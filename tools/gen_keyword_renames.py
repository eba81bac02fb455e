#!/usr/bin/env python3
"""Generate cglint/data/tf_keyword_renames.json: keyword arguments TensorFlow renamed
after 1.8 without changing what they mean, per function, as new name -> old name.

CG403 uses it to give a keyword that TF 1.8 does not take its 1.8 spelling
(`tf.nn.moments(x, axes, keepdims=True)` -> `keep_dims=True`). The source is TF's own
upgrade script: `function_keyword_renames` in tf_upgrade_v2.py, the renames it applies
to 1.x code without asking (old -> new, keyed by the 1.x function name). It is read
with `ast` out of every TensorFlow wheel of tools/gen_tf_api.py's VERSIONS that ships
the script (2.2 on), downloaded into the same cache (never installed, never imported),
and merged: a later release's pair wins over an earlier one's. Pairs whose new name is
None (a keyword dropped, not renamed) and wildcard method keys (`*.minimize`) are left
out. Whether the target takes the old spelling is asked at lint time, from the TF 1.8
argspecs.

    python3 tools/gen_keyword_renames.py [--cache DIR] [--offline] [--out FILE]
"""
import argparse
import ast
import json
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # cglint
import gen_tf_api  # noqa: E402 (the wheel list and the downloader are shared)

SCRIPT = "tensorflow/tools/compatibility/tf_upgrade_v2.py"
FIELD = "function_keyword_renames"
# Its hand-made symbol renames: `tf.batch_to_space_nd` became TF 2's `tf.batch_to_space`.
SYMBOLS = "tensorflow/tools/compatibility/all_renames_v2.py"
SYMBOLS_FIELD = "manual_symbol_renames"


def literal_dicts(source, name):
    """The literal dicts assigned to `name` (`x = {...}`) or to an attribute of that name
    (`self.x = {...}`) in a module's text."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if getattr(target, "attr", None) != name and getattr(target, "id", None) != name:
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def renames_in(source):
    """{1.x function name: {old keyword: new keyword}} from tf_upgrade_v2.py's text: the
    largest literal dict assigned to `self.function_keyword_renames` (a subclass may
    assign an empty one)."""
    return max(literal_dicts(source, FIELD), key=len, default={})


def taken_over(source):
    """{TF 2 name: the 1.x names TF 2 gave it} from the hand-made symbol renames
    (`tf.batch_to_space` is TF 2's name for 1.x `tf.batch_to_space_nd`)."""
    found = {}
    for value in literal_dicts(source, SYMBOLS_FIELD):
        for old, new in value.items():
            if isinstance(new, str) and new.startswith("tf.") and old != new:
                found.setdefault("tensorflow." + new[3:], set()).add("tensorflow." + old[3:])
    return found


def meant_otherwise(function, pairs, sources):
    """Whether a TF 2 keyword of `function` is the parameter of another 1.x function that
    TF 2 gave the name to, not a renamed one: that 1.8 function has the keyword and the
    1.8 function of the name does not (TF 2's `batch_to_space` is 1.x
    `batch_to_space_nd`, whose `block_shape` is a list; 1.x `batch_to_space` takes an int
    `block_size`). From the 1.8 argspecs (tools/gen_tf_api.py's output)."""
    from cglint import tfapi

    own = tfapi.signature(function)
    for source in sources:
        signature = tfapi.signature(source)
        if signature is not None and any(
                new in signature[0] and (own is None or new not in own[0]) for new in pairs):
            return True
    return False


def reversed_renames(renames):
    """{tensorflow.<name>: {new keyword: old keyword}}, renames only."""
    out = {}
    for function, pairs in sorted(renames.items()):
        if not function.startswith("tf.") or not isinstance(pairs, dict):
            continue
        kept = {new: old for old, new in sorted(pairs.items())
                if isinstance(old, str) and isinstance(new, str) and old != new}
        if kept:
            out["tensorflow." + function[len("tf."):]] = kept
    return out


def main(argv=None):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default="~/.cache/cglint/wheels",
                        help="wheel cache, shared with gen_tf_api.py")
    parser.add_argument("--offline", action="store_true", help="use only a cached wheel")
    parser.add_argument("--out", default=os.path.join(repo, "cglint", "data",
                                                      "tf_keyword_renames.json"))
    args = parser.parse_args(argv)
    downloader = gen_tf_api.Downloader(os.path.expanduser(args.cache), offline=args.offline)
    renames, read, other_functions = {}, [], {}
    for label, requirement, python in gen_tf_api.VERSIONS:  # oldest first: later ones win
        with zipfile.ZipFile(downloader.get(requirement, python)) as archive:
            if SCRIPT not in archive.namelist():
                continue
            source = archive.read(SCRIPT).decode("utf-8")
            if SYMBOLS in archive.namelist():
                for name, sources in taken_over(archive.read(SYMBOLS).decode("utf-8")).items():
                    other_functions.setdefault(name, set()).update(sources)
        for function, pairs in reversed_renames(renames_in(source)).items():
            renames.setdefault(function, {}).update(pairs)
        read.append(label)
    if not renames:
        raise SystemExit("no %s found in any wheel's %s" % (FIELD, SCRIPT))
    dropped = sorted(function for function in renames if meant_otherwise(
        function, renames[function], other_functions.get(function, ())))
    for function in dropped:
        del renames[function]
    gen_tf_api.log("left out (TF 2 gave the name to another function): %s" % dropped)
    data = {
        "format": 1,
        "doc": "Generated by tools/gen_keyword_renames.py; do not edit. Keyword arguments "
               "TensorFlow renamed after 1.8 without changing their meaning: "
               "{function: {new name: 1.8 name}}, reversed from %s in tf_upgrade_v2.py of "
               "TensorFlow %s (a later release's pair wins), less the functions whose name "
               "TF 2 gave to another 1.x function whose own parameter the keyword is (%s)." % (FIELD, ", ".join(read),
                                                            SYMBOLS_FIELD),
        "renames": {function: renames[function] for function in sorted(renames)},
    }
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    gen_tf_api.log("wrote %s: %d functions, %d keywords" % (
        args.out, len(renames), sum(len(pairs) for pairs in renames.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
