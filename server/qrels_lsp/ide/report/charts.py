"""The report's charts as inline SVG strings: no library, no script, no network.

Every series is told apart by colour (the Okabe-Ito palette, safe for the common colour-vision
deficiencies) and by something that survives grey print: a marker shape and a dash pattern for
lines, a fill pattern for bars. Every drawn value carries its number (``data-*`` attributes and
a ``<title>`` tooltip), so the page can be read back, by a test or by a screen reader.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...core.base.escape import html_text as esc

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 4", "12 4", "1 2", "6 2 2 2")
MARKERS = ("circle", "square", "triangle", "diamond", "cross", "plus", "down", "star")
PATTERNS = ("solid", "diagonal", "dots", "cross", "vertical", "horizontal", "back", "grid")
WIN, LOSS, TIE = "#009E73", "#D55E00", "#999999"
W, H = 580, 300
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 28, 46
LEGEND = 150  # the width kept right of a plot for its legend, so that it hides no data


def style(i: int) -> tuple[str, str, str, str]:
    """Colour, dash, marker and pattern of the ``i``-th series."""
    return (
        PALETTE[i % len(PALETTE)],
        DASHES[i % len(DASHES)],
        MARKERS[i % len(MARKERS)],
        PATTERNS[i % len(PATTERNS)],
    )


def marker(shape: str, x: float, y: float, colour: str, r: float = 4.5) -> str:
    """A marker shape centred on (x, y), outlined so that it reads on any line."""
    stroke = f'fill="{colour}" stroke="#fff" stroke-width="1"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" {stroke}/>'
    if shape == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" {stroke}/>'
    if shape in ("triangle", "down"):
        s = 1 if shape == "triangle" else -1
        pts = (
            f"{x:.1f},{y - s * r * 1.2:.1f} {x - r:.1f},{y + s * r:.1f} {x + r:.1f},{y + s * r:.1f}"
        )
        return f'<polygon points="{pts}" {stroke}/>'
    if shape == "diamond":
        pts = f"{x:.1f},{y - r * 1.3:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r * 1.3:.1f} {x - r:.1f},{y:.1f}"
        return f'<polygon points="{pts}" {stroke}/>'
    if shape == "star":
        return f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="13" fill="{colour}">★</text>'
    a, b = (r, 0.0) if shape == "plus" else (r * 0.8, r * 0.8)
    lines = f'<line x1="{x - a:.1f}" y1="{y - b:.1f}" x2="{x + a:.1f}" y2="{y + b:.1f}"/>' + (
        f'<line x1="{x:.1f}" y1="{y - a:.1f}" x2="{x:.1f}" y2="{y + a:.1f}"/>'
        if shape == "plus"
        else f'<line x1="{x - a:.1f}" y1="{y + b:.1f}" x2="{x + a:.1f}" y2="{y - b:.1f}"/>'
    )
    return f'<g stroke="{colour}" stroke-width="2.5">{lines}</g>'


def patterns() -> str:
    """The fill patterns of bars, in <defs>: one per series, each in its series' colour."""
    out = []
    for i, colour in enumerate(PALETTE):
        kind = PATTERNS[i]
        body = {
            "solid": "",
            "diagonal": '<path d="M0,8 L8,0" stroke="#fff" stroke-width="2"/>',
            "dots": '<circle cx="4" cy="4" r="1.6" fill="#fff"/>',
            "cross": '<path d="M0,0 L8,8 M8,0 L0,8" stroke="#fff" stroke-width="1.5"/>',
            "vertical": '<path d="M4,0 L4,8" stroke="#fff" stroke-width="2"/>',
            "horizontal": '<path d="M0,4 L8,4" stroke="#fff" stroke-width="2"/>',
            "back": '<path d="M0,0 L8,8" stroke="#fff" stroke-width="2"/>',
            "grid": '<path d="M0,4 L8,4 M4,0 L4,8" stroke="#fff" stroke-width="1"/>',
        }[kind]
        out.append(
            f'<pattern id="p{i}" width="8" height="8" patternUnits="userSpaceOnUse">'
            f'<rect width="8" height="8" fill="{colour}"/>{body}</pattern>'
        )
    out.append(
        '<pattern id="loss" width="6" height="6" patternUnits="userSpaceOnUse">'
        f'<rect width="6" height="6" fill="{LOSS}"/>'
        '<path d="M0,6 L6,0" stroke="#fff" stroke-width="1.5"/></pattern>'
    )
    return "<defs>" + "".join(out) + "</defs>"


def _frame(title: str, xlabel: str, ylabel: str, body: str, cls: str, extra: str = "") -> str:
    return (
        f'<svg class="chart {cls}" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="{esc(title)}" xmlns="http://www.w3.org/2000/svg"{extra}>'
        f"{patterns()}<title>{esc(title)}</title>"
        f'<text class="title" x="{LEFT}" y="17">{esc(title)}</text>{body}'
        f'<text class="axis-label" x="{(LEFT + W - RIGHT) / 2}" y="{H - 8}" text-anchor="middle">{esc(xlabel)}</text>'
        f'<text class="axis-label" transform="translate(14,{(TOP + H - BOTTOM) / 2}) rotate(-90)" '
        f'text-anchor="middle">{esc(ylabel)}</text></svg>'
    )


def _y(value: float, lo: float = 0.0, hi: float = 1.0) -> float:
    span = hi - lo or 1.0
    return TOP + (H - TOP - BOTTOM) * (1 - (value - lo) / span)


def _y_axis(lo: float = 0.0, hi: float = 1.0, ticks: int = 5, right: float = W - RIGHT) -> str:
    out = []
    for i in range(ticks + 1):
        v = lo + (hi - lo) * i / ticks
        y = _y(v, lo, hi)
        label = f"{v:.0f}" if hi - lo > 2 else f"{v:.2g}"
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>'
        )
    return "".join(out)


def curve_chart(
    title: str, metric: str, series: Sequence[tuple[str, Sequence[float]]], mark: int
) -> str:
    """Mean ``metric``@i for i = 1..len(values), one line per run, the golden set's k marked."""
    depth = max((len(v) for _, v in series), default=1)
    right = W - RIGHT - LEGEND

    def x(i: int) -> float:  # i = 1..depth
        return LEFT + (right - LEFT) * (i - 1) / max(depth - 1, 1)

    body = [_y_axis(right=right)]
    for i in (1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100):
        if i <= depth:
            body.append(
                f'<text class="tick" x="{x(i):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{i}</text>'
            )
    body.append(
        f'<line class="k-mark" x1="{x(mark):.1f}" x2="{x(mark):.1f}" y1="{TOP}" y2="{H - BOTTOM}"/>'
        f'<text class="k-label" x="{x(mark) + 4:.1f}" y="{TOP + 12}">k = {mark}</text>'
    )
    shown = sorted({1, 5, 10, 20, 50, 100, mark} & set(range(1, depth + 1)))
    for n, (name, values) in enumerate(series):
        colour, dash, shape, _ = style(n)
        points = " ".join(f"{x(i + 1):.1f},{_y(v):.1f}" for i, v in enumerate(values))
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        marks = "".join(
            f'<g class="point" data-k="{i}" data-value="{values[i - 1]!r}">'
            f"<title>{esc(name)}: {metric}@{i} = {values[i - 1]:.4f}</title>"
            f"{marker(shape, x(i), _y(values[i - 1]), colour)}</g>"
            for i in shown
        )
        body.append(
            f'<g class="series" data-run="{esc(name)}" data-metric="{metric}" '
            f'data-values="{esc(json.dumps(list(values)))}">'
            f'<polyline fill="none" stroke="{colour}" stroke-width="2.2"{dashed} points="{points}"/>'
            f"{marks}</g>"
        )
    body.append(_legend([name for name, _ in series], lines=True))
    return _frame(title, "cutoff k", f"mean {metric}@k", "".join(body), f"curve curve-{metric}")


def _legend(names: Sequence[str], *, lines: bool) -> str:
    out = ['<g class="legend">']
    for n, name in enumerate(names):
        colour, dash, shape, _ = style(n)
        y = TOP + 8 + 16 * n
        x0 = W - RIGHT - LEGEND + 12
        if lines:
            dashed = f' stroke-dasharray="{dash}"' if dash else ""
            sample = (
                f'<line x1="{x0}" x2="{x0 + 26}" y1="{y}" y2="{y}" stroke="{colour}" '
                f'stroke-width="2.2"{dashed}/>{marker(shape, x0 + 13, y, colour, 3.5)}'
            )
        else:
            sample = f'<rect x="{x0 + 5}" y="{y - 6}" width="16" height="12" fill="url(#p{n % len(PALETTE)})"/>'
        label = f'<text x="{x0 + 32}" y="{y + 4}">{esc(name)}</text>'
        out.append(f'<g class="legend-item" data-run="{esc(name)}">{sample}{label}</g>')
    out.append("</g>")
    return "".join(out)


def strip_chart(run: str, base: str, metric: str, deltas: Sequence[tuple[str, float]]) -> str:
    """Each question's difference from the base, sorted: losses hatched below the line, wins
    solid above, ties as small grey ticks on it."""
    n = max(len(deltas), 1)
    lo = min([d for _, d in deltas] + [-1.0])
    hi = max([d for _, d in deltas] + [1.0])
    width = (W - LEFT - RIGHT) / n
    zero = _y(0.0, lo, hi)
    body = [
        _y_axis(lo, hi, 4),
        f'<line class="zero" x1="{LEFT}" x2="{W - RIGHT}" y1="{zero:.1f}" y2="{zero:.1f}"/>',
    ]
    wins = losses = 0
    for i, (qid, d) in enumerate(deltas):
        x = LEFT + i * width
        y = _y(d, lo, hi)
        kind = "win" if d > 0 else "loss" if d < 0 else "tie"
        wins += d > 0
        losses += d < 0
        fill = {"win": WIN, "loss": "url(#loss)", "tie": TIE}[kind]
        top, height = (y, zero - y) if d > 0 else (zero, y - zero)
        if kind == "tie":
            top, height = zero - 1.5, 3.0
        body.append(
            f'<rect class="bar {kind}" data-qid="{esc(qid)}" data-delta="{d!r}" x="{x:.2f}" '
            f'y="{top:.1f}" width="{max(width - 1, 1):.2f}" height="{max(height, 1):.1f}" fill="{fill}">'
            f"<title>{esc(qid)}: {d:+.4f}</title></rect>"
        )
    key = (
        f'<g class="legend"><rect x="{W - RIGHT - 210}" y="{TOP + 2}" width="12" height="10" fill="{WIN}"/>'
        f'<text x="{W - RIGHT - 194}" y="{TOP + 11}">▲ {wins} better</text>'
        f'<rect x="{W - RIGHT - 110}" y="{TOP + 2}" width="12" height="10" fill="url(#loss)"/>'
        f'<text x="{W - RIGHT - 94}" y="{TOP + 11}">▼ {losses} worse</text></g>'
    )
    body.append(key)
    title = f"{run} minus {base}: {metric} per question, sorted"
    extra = f' data-run="{esc(run)}" data-base="{esc(base)}"'
    return _frame(
        title,
        f"questions ({len(deltas)})",
        f"difference in {metric}",
        "".join(body),
        "strip",
        extra,
    )


def histogram_chart(metric: str, series: Sequence[tuple[str, Sequence[int]]]) -> str:
    """How many questions fall in each tenth of [0, 1], grouped bars per run, patterned."""
    bins = max((len(c) for _, c in series), default=10)
    most = max([max(c, default=0) for _, c in series] + [1])
    ticks = min(most, 5)
    top = -(-most // ticks) * ticks  # a multiple of the ticks: whole numbers on the axis
    right = W - RIGHT - LEGEND
    group = (right - LEFT) / bins
    bar = group * 0.8 / max(len(series), 1)
    body = [_y_axis(0, top, ticks, right)]
    for edge in range(bins + 1):  # ticks at the bins' edges: the last bin visibly ends at 1.0
        body.append(
            f'<text class="tick edge" x="{LEFT + edge * group:.1f}" y="{H - BOTTOM + 16}" '
            f'text-anchor="middle">{edge / bins:.1f}</text>'
        )
    for b in range(bins):
        x0 = LEFT + b * group
        for n, (name, counts) in enumerate(series):
            c = counts[b]
            y = _y(c, 0, top)
            body.append(
                f'<rect class="bin" data-run="{esc(name)}" data-bin="{b}" data-count="{c}" '
                f'x="{x0 + group * 0.1 + n * bar:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                f'height="{_y(0, 0, top) - y:.1f}" fill="url(#p{n % len(PALETTE)})" stroke="#333" stroke-width="0.4">'
                f"<title>{esc(name)}: {c} questions with {metric} in [{b / bins:.1f}, {(b + 1) / bins:.1f}{']' if b == bins - 1 else ')'}</title></rect>"
            )
    body.append(_legend([name for name, _ in series], lines=False))
    return _frame(
        f"Distribution of {metric} per question",
        f"{metric} (bins of 0.1; the last one holds 1.0)",
        "questions",
        "".join(body),
        "histogram",
    )


def judged_chart(k: int, values: Sequence[tuple[str, float]], threshold: float | None) -> str:
    """Each run's mean judged@k as a bar, the warning threshold marked (``threshold`` None:
    exhaustive judgments, where coverage is information, not a bar to clear)."""
    n = max(len(values), 1)
    step = (H - TOP - BOTTOM) / n
    scale = W - LEFT - RIGHT - 200
    body = []
    for i, (name, v) in enumerate(values):
        y = TOP + i * step + step * 0.15
        body.append(
            f'<g class="judged" data-run="{esc(name)}" data-value="{v!r}">'
            f'<text x="{LEFT + 110}" y="{y + step * 0.45:.1f}" text-anchor="end">{esc(name)}</text>'
            f'<rect x="{LEFT + 116}" y="{y:.1f}" width="{scale * v:.1f}" height="{step * 0.7:.1f}" '
            f'fill="url(#p{i % len(PALETTE)})"/>'
            f'<text x="{LEFT + 122 + scale * v:.1f}" y="{y + step * 0.45:.1f}">{v:.2f}</text>'
            f"<title>{esc(name)}: judged@{k} = {v:.4f}</title></g>"
        )
    if threshold is not None:
        tx = LEFT + 116 + scale * threshold
        body.append(
            f'<line class="k-mark" x1="{tx:.1f}" x2="{tx:.1f}" y1="{TOP}" y2="{H - BOTTOM}"/>'
            f'<text class="k-label" x="{tx + 4:.1f}" y="{H - BOTTOM - 4}">min_judged {threshold:g}</text>'
        )
    return _frame(
        f"judged@{k}: the share of each run's top {k} that is judged",
        f"judged@{k}",
        "",
        "".join(body),
        "coverage",
    )
