"""Print the doctor's rows as text (one block per check) or as a JSON array."""
import json
from collections import Counter

from cglint.doctor.checks import STATUSES


def write(out, rows, format_name):
    if format_name == "json":
        json.dump([row.as_dict() for row in rows], out, indent=1)
        out.write("\n")
        return
    width = max([len(row.check) for row in rows] + [6])
    for row in rows:
        out.write("%-4s  %-*s  %s\n" % (row.status, width, row.check, row.found))
        indent = " " * (width + 8)
        out.write("%sneeded: %s\n" % (indent, row.needed))
        if row.fix:
            out.write("%sfix: %s\n" % (indent, row.fix))
    counts = Counter(row.status for row in rows)
    out.write("%s.\n" % ", ".join("%d %s" % (counts[status], status) for status in STATUSES))
    out.flush()
