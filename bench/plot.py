"""Draw bench/results.png (time per tool), bench/scaling.png and bench/jobs.png (the
`--jobs` scaling) from bench/results.json.

Run by bench/run with the bench venv's Python (which has matplotlib):
    python bench/plot.py bench/results.json bench/
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"reference": "#7f7f7f", "cglint": "#d62728", "peer": "#1f77b4"}
GOAL = 1.5  # cglint cold's goal in floor CPU (issue 20), as bench/run's GOAL_RATIO


def time_per_tool(data, out):
    rows = [r for r in data["rows"] if r["name"] not in ("python", "cglint-startup")]
    floor = next(r for r in data["rows"] if r["name"] == "floor")
    rows.sort(key=lambda r: r["wall_scaled"])
    labels = []
    for r in rows:
        label = r["label"].replace("**", "").replace("`", "")
        if r["scale"] != 1.0:
            label += " (scaled ×%.0f)" % r["scale"]
        labels.append(label)
    fig, ax = plt.subplots(figsize=(11, 0.45 * len(rows) + 1.8))
    y = range(len(rows))
    height = 0.38
    ax.barh([i + height / 2 for i in y], [r["wall_scaled"] for r in rows], height,
            color=[COLORS.get(r["group"], "#444") for r in rows], label="wall (median)")
    ax.barh([i - height / 2 for i in y], [r["cpu_scaled"] for r in rows], height,
            color=[COLORS.get(r["group"], "#444") for r in rows], alpha=0.45,
            label="CPU user+sys (median)")
    for i, r in enumerate(rows):
        ax.text(max(r["wall_scaled"], r["cpu_scaled"]) * 1.08, i,
                "%.2f s wall, %.1f× floor CPU" % (r["wall_scaled"],
                                                   r["cpu_scaled"] / floor["cpu"]),
                va="center", fontsize=8)
    ax.axvline(floor["cpu"], color="k", linestyle="--", linewidth=0.8)
    ax.axvline(GOAL * floor["cpu"], color="k", linestyle=":", linewidth=0.8)
    ax.text(floor["cpu"], -0.95, " floor CPU", fontsize=8)
    ax.text(GOAL * floor["cpu"], -0.95, " %g× floor (goal)" % GOAL, fontsize=8)
    ax.set_ylim(-1.2, len(rows) - 0.4)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_xscale("log")
    xmax = max(max(r["wall_scaled"], r["cpu_scaled"]) for r in rows)
    ax.set_xlim(right=xmax * 8)
    ax.set_xlabel("seconds for the whole corpus (log scale; lower is better)")
    meta = data["meta"]
    ax.set_title("%d files, %s lines; %s cores, load avg median %.1f; %s" % (
        meta["corpus"]["files"], "{:,}".format(meta["corpus"]["lines"]),
        meta["machine"]["cores"], meta["load"]["median"], meta["date"]), fontsize=10)
    from matplotlib.patches import Patch

    handles = [Patch(color="#555555", label="wall (median)"),
               Patch(color="#555555", alpha=0.45, label="CPU user+sys (median)")]
    handles += [Patch(color=color, label=group) for group, color in COLORS.items()]
    ax.legend(handles=handles, loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "results.png"), dpi=110)
    plt.close(fig)


def scaling(data, out):
    points = data["scaling"]
    if not points:
        return
    x = [p["multiple"] for p in points]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    base = points[0]
    left.plot(x, [p["wall"] for p in points], "o-", color="#d62728", label="wall")
    left.plot(x, [p["cpu"] for p in points], "s-", color="#1f77b4", label="CPU user+sys")
    left.plot(x, [base["cpu"] * m / base["multiple"] for m in x], "--", color="#1f77b4",
              alpha=0.5, label="linear from 1× CPU")
    left.set_xlabel("copies of the corpus (%d files each)" % (base["files"] // base["multiple"]))
    left.set_ylabel("seconds")
    left.set_title("cglint cold, 1 process: time")
    left.set_ylim(bottom=0)
    left.set_xticks(x)
    left.legend(fontsize=8)
    right.plot(x, [p["rss_mib"] for p in points], "o-", color="#2ca02c", label="peak RSS")
    right.axhline(base["rss_mib"], linestyle="--", color="#2ca02c", alpha=0.5,
                  label="flat at 1×")
    right.set_ylim(bottom=0)
    right.set_xlabel("copies of the corpus")
    right.set_ylabel("MiB")
    right.set_title("cglint cold, 1 process: peak memory")
    right.set_xticks(x)
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=110)
    plt.close(fig)


def jobs(data, out):
    section = data.get("jobs_scaling") or {}
    rows = section.get("rows")
    if not rows:
        return
    x = range(len(rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.38
    left.bar([i - width / 2 for i in x], [r["wall"] for r in rows], width, color="#d62728",
             label="wall (median)")
    left.bar([i + width / 2 for i in x], [r["cpu"] for r in rows], width, color="#1f77b4",
             alpha=0.6, label="CPU user+sys (median)")
    base = rows[0]["wall"]
    for i, r in enumerate(rows):
        left.text(i - width / 2, r["wall"], "%.2f×" % (base / r["wall"]), ha="center",
                  va="bottom", fontsize=8)
    left.set_xticks(list(x))
    left.set_xticklabels(["--jobs %d" % r["jobs"] for r in rows])
    left.set_ylabel("seconds")
    left.set_title("cglint cold on %d× the corpus (%d files), %s cores: time" % (
        section["multiple"], section["files"], section.get("cores", "?")), fontsize=10)
    left.legend(fontsize=8)
    right.bar(list(x), [r["rss_mib"] for r in rows], 0.5, color="#2ca02c")
    right.set_xticks(list(x))
    right.set_xticklabels(["--jobs %d" % r["jobs"] for r in rows])
    right.set_ylabel("MiB")
    right.set_title("peak RSS of the largest process", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "jobs.png"), dpi=110)
    plt.close(fig)


def main():
    with open(sys.argv[1]) as handle:
        data = json.load(handle)
    out = sys.argv[2]
    time_per_tool(data, out)
    scaling(data, out)
    jobs(data, out)


if __name__ == "__main__":
    main()
