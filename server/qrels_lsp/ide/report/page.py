"""The report as one self-contained HTML page: inline CSS, SVG and a few lines of script (the
table sorts when a header is clicked), nothing fetched, readable from file:// and in an editor's
webview. Everything the files' authors wrote (ids, names, questions) is HTML-escaped, and the
embedded JSON cannot close its script element. The page's Content-Security-Policy allows its own
style and script alone, by their hashes: an escaping mistake can show markup but not run it."""

from __future__ import annotations

import base64
import hashlib

from ...core.base.escape import html_text as esc
from ...core.base.escape import json_script
from ...core.compare import Comparison
from ...core.search.quality import CAUSES
from ..compare import interval_text, p_text, verdict
from .charts import PALETTE, curve_chart, histogram_chart, judged_chart, strip_chart
from .data import ReportData

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; color: #1b1f24; background: #fff; }
h1 { font-size: 22px; margin: 4px 0 2px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: #555; margin: 0 0 8px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(560px, 100%), 1fr)); gap: 16px; }
svg.chart { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; max-width: 100%; height: auto; }
svg text { font-size: 11px; fill: #1b1f24; } svg .title { font-size: 13px; font-weight: 600; }
svg .axis-label { font-size: 12px; fill: #444; } svg .tick { fill: #555; }
svg .grid { stroke: #e5e7eb; } svg .zero { stroke: #555; stroke-width: 1; }
svg .k-mark { stroke: #444; stroke-dasharray: 3 3; } svg .k-label { fill: #444; font-style: italic; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 8px; text-align: right; }
th { background: #f6f8fa; cursor: pointer; user-select: none; position: sticky; top: 0; }
th:first-child, td:first-child, td.text, table.questions th:nth-child(2) { text-align: left; }
th[aria-sort="ascending"]::after { content: " ▲"; } th[aria-sort="descending"]::after { content: " ▼"; }
td.text { color: #444; max-width: 320px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.questions { table-layout: fixed; font-size: 12px; }
table.questions th, table.questions td { padding: 3px 4px; overflow-wrap: anywhere; }
table.questions th:first-child { width: 13%; } table.questions th:nth-child(2) { width: 20%; }
table.questions td.text { max-width: none; }
table.decisions, table.tags { table-layout: fixed; font-size: 12px; }
table.decisions th, table.decisions td, table.tags th, table.tags td { padding: 3px 4px; overflow-wrap: anywhere; }
.verdict.better { color: #00734f; } .verdict.worse { color: #b34700; }
td.decision small { color: #555; display: block; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
.win { color: #00734f; } .loss { color: #b34700; }
dl.questions dt { font-weight: 600; margin-top: 6px; } dl.questions dd { margin: 0 0 0 16px; color: #333; }
dl.questions dt:target { background: #fff3bf; }
""" + "".join(f".swatch.s{i} {{ background: {c}; }}\n" for i, c in enumerate(PALETTE))

SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  var heads = table.querySelectorAll('th');
  heads.forEach(function (th, col) {
    th.addEventListener('click', function () {
      var down = th.getAttribute('aria-sort') !== 'descending';
      heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-value'), y = b.cells[col].getAttribute('data-value');
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
        return down ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def _sha256(source: str) -> str:
    """A CSP source for an inline element whose text is ``source``, exactly as written."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


CSP = (
    f"default-src 'none'; style-src {_sha256(CSS)}; script-src {_sha256(SORT_JS)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
"""The page's own style and script, each allowed by its hash (computed here, from the very text
the page holds, so they cannot drift apart) and nothing else: no inline script, handler or
``style`` attribute the data might smuggle in runs or applies (the data block's JSON is not
run). ``frame-ancestors`` is left out: a ``<meta>`` policy ignores it, and an editor's webview
frames the page."""


def report_html(d: ReportData) -> str:
    """The whole page."""
    data = json_script({"scores": d.scores, "comparisons": d.comparisons})
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>qrels-lsp report: {esc(d.golden)}</title><style>{CSS}</style></head><body>",
        f"<h1>Retrieval report: {esc(d.golden)}</h1>",
        f'<p class="sub">{_counts(d)} · k = {d.k} · runs: '
        + ", ".join(_run_label(i, r) for i, r in enumerate(d.runs))
        + (f" · compared with {esc(d.base)}" if d.base else "")
        + "</p>",
        _means(d),
        _decisions(d),
        _tags(d),
        "<h2>Curves</h2>",
        '<div class="grid">',
        curve_chart(
            "Recall at each cutoff", "recall", [(r, d.curves[r]["recall"]) for r in d.runs], d.k
        ),
        curve_chart(
            "Precision at each cutoff",
            "precision",
            [(r, d.curves[r]["precision"]) for r in d.runs],
            d.k,
        ),
        "</div>",
    ]
    if d.deltas and d.base is not None:
        parts += [
            f"<h2>Against the base, question by question ({esc(d.headline)})</h2>",
            '<div class="grid">',
        ]
        parts += [strip_chart(run, d.base, d.headline, deltas) for run, deltas in d.deltas.items()]
        parts.append("</div>")
    parts += [
        "<h2>Distribution and coverage</h2>",
        f'<p class="sub judgments">{esc(d.judgments[0].upper() + d.judgments[1:])}.</p>',
        '<div class="grid">',
        histogram_chart(d.headline, [(r, d.histograms[r]) for r in d.runs]),
        judged_chart(d.k, [(r, d.judged[r]) for r in d.runs], d.min_judged if d.gates else None),
        "</div>",
        _causes(d),
        _questions_table(d),
        _question_texts(d),
        f'<script type="application/json" id="qrels-data">{data}</script>',
        f"<script>{SORT_JS}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _counts(d: ReportData) -> str:
    """`36 questions: 33 scored, 3 unanswerable`: what every mean below is over."""
    total = len(d.questions)
    skipped = total - d.scored - d.unanswerable
    parts = [f"{d.scored} scored"]
    if d.unanswerable:
        parts.append(f"{d.unanswerable} unanswerable (not in the means)")
    if skipped > 0:
        parts.append(f"{skipped} not scored (left out of the file's judgments)")
    return f"{total} question{'s' * (total != 1)}: " + ", ".join(parts)


def _verdict_cell(c: Comparison, alpha: float) -> str:
    """One comparison's verdict, the word first, what it rests on under it, and every statistic
    labelled in the cell's title (the interval and the unadjusted p are unadjusted)."""
    title = (
        f"p (Holm) {p_text(c.p_adjusted, alpha)}; p (unadjusted) "
        f"{p_text(c.p_randomization, alpha)}; 95% interval (unadjusted) "
        f"{interval_text(c.ci95, 4)}; {c.wins}W {c.losses}L {c.ties}T over {c.n_queries}"
    )
    return (
        f'<td class="decision" data-run="{esc(c.run)}" data-metric="{esc(c.metric)}" '
        f'data-verdict="{esc(c.verdict)}" title="{esc(title)}">'
        f'<span class="verdict {esc(c.verdict.split()[0])}">{esc(verdict(c))}</span>'
        f"<small>{c.delta:+.4f} · p {p_text(c.p_adjusted, alpha)} (Holm)</small></td>"
    )


def _decisions(d: ReportData) -> str:
    """Each run against the base, a cell per metric: the verdict (docs/compare.md)."""
    family = d.decisions
    if family is None or not family.items:
        return ""
    metrics = list(dict.fromkeys(c.metric for c in family.items))
    head = "".join(f"<th>{esc(m)}</th>" for m in metrics)
    rows = []
    for run in dict.fromkeys(c.run for c in family.items):
        cells = "".join(
            _verdict_cell(c, family.alpha) for m in metrics if (c := family.get(run, m)) is not None
        )
        rows.append(f'<tr data-run="{esc(run)}"><td>{esc(run)}</td>{cells}</tr>')
    return (
        f"<h2>Against {esc(family.base)}: the verdicts</h2>"
        f'<p class="sub">Over {family.n_queries} questions, paired. Better or worse when the '
        f"randomization test's p, adjusted with Holm over the {len(family.items)} comparisons "
        f"here, is below {family.alpha:g}; otherwise no difference detected when the questions "
        "are enough to detect a difference of "
        f"{family.min_difference if family.min_difference is not None else 'the observed size'}"
        ", else too few questions to tell. Hover a cell for the unadjusted p and interval.</p>"
        f'<table class="decisions"><thead><tr><th>run</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _tags(d: ReportData) -> str:
    """Each tag's questions alone: their count, each run's headline mean, and the verdict of
    each run against the base on them (a family per tag; too few to decide short of needed)."""
    if not d.tag_sizes:
        return ""
    runs = "".join(f"<th>{esc(r)}</th>" for r in d.runs)
    others = [r for r in d.runs if r != d.base]
    verdicts = (
        "".join(f"<th>{esc(r)} vs {esc(d.base or '')}</th>" for r in others) if d.tags else ""
    )
    rows = []
    for tag, n in d.tag_sizes.items():
        means = "".join(
            f'<td data-run="{esc(r)}" data-value="{d.tag_means[tag][r]!r}">'
            f"{d.tag_means[tag][r]:.4f}</td>"
            for r in d.runs
        )
        family = d.tags.get(tag)
        cells = ""
        if family is not None:
            cells = "".join(
                _verdict_cell(c, family.alpha)
                for r in others
                if (c := family.get(r, d.headline)) is not None
            )
        rows.append(f'<tr data-tag="{esc(tag)}"><td>{esc(tag)}</td><td>{n}</td>{means}{cells}</tr>')
    return (
        f"<h2>By tag ({esc(d.headline)})</h2>"
        '<p class="sub">Each tag\'s questions alone, as if the golden set held no others; each '
        "tag's comparison is a family of its own, and says too few to decide where the tag has "
        "fewer questions than the power analysis needs.</p>"
        f'<table class="tags"><thead><tr><th>tag</th><th>questions</th>{runs}{verdicts}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _run_label(i: int, run: str) -> str:
    swatch = f"swatch s{i % len(PALETTE)}"  # the colour of style(i), by class: no style attribute
    return f'<span class="run"><span class="{swatch}"></span>{esc(run)}</span>'


def _means(d: ReportData) -> str:
    runs = d.scores["runs"]
    metrics = list(runs[0]["mean"]) if runs else []
    head = "".join(f"<th>{esc(m)}</th>" for m in metrics)
    rows = []
    for r in runs:
        cells = "".join(
            f'<td data-metric="{esc(m)}" data-value="{r["mean"][m]!r}">{r["mean"][m]:.4f}</td>'
            for m in metrics
        )
        rows.append(
            f'<tr data-run="{esc(r["name"])}"><td>{esc(r["name"])}</td>{cells}<td>{r["n_queries"]}</td></tr>'
        )
    return (
        '<h2>Means</h2><table class="means sortable"><thead><tr><th>run</th>'
        f"{head}<th>questions</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _causes(d: ReportData) -> str:
    if d.causes is None:
        return "<h2>Why relevant documents are missed</h2><p>No corpus: the causes need the documents' words.</p>"
    head = "".join(f"<th>{esc(c)}</th>" for c in CAUSES)
    rows = "".join(
        f'<tr data-run="{esc(r)}"><td>{esc(r)}</td>'
        + "".join(
            f'<td data-cause="{esc(c)}" data-value="{d.causes[r][c]}">{d.causes[r][c]}</td>'
            for c in CAUSES
        )
        + "</tr>"
        for r in d.runs
    )
    return (
        f"<h2>Why relevant documents are missed (out of each run's top {d.k}, in BM25's terms)</h2>"
        '<p class="sub">vocabulary: the document shares no content word with the question (a '
        "paraphrase); exact token: it lacks a code, number or name the question has; split answer: "
        "the answer is spread over several documents; outranked: it shares words, but others share "
        "more; not in corpus: the id names no document.</p>"
        f'<table class="causes sortable"><thead><tr><th>run</th>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )


def _questions_table(d: ReportData) -> str:
    metric = d.headline
    head = "<th>question</th><th>text</th>" + "".join(f"<th>{esc(run)}</th>" for run in d.runs)
    deltas = {run: dict(items) for run, items in d.deltas.items()}
    head += "".join(f"<th>{esc(run)} − {esc(d.base or '')}</th>" for run in deltas)
    rows = []
    for q in d.questions:
        cells = [
            f'<td data-value="{esc(q.qid)}"><a href="#q-{esc(q.qid)}">{esc(q.qid)}</a></td>',
            f'<td class="text" data-value="{esc(q.text)}" title="{esc(q.text)}">{esc(q.text)}</td>',
        ]
        for run in d.runs:
            v = d.values[run].get(q.qid)
            cells.append(
                f'<td data-run="{esc(run)}" data-metric="{esc(metric)}" data-value="{v!r}">{v:.4f}</td>'
                if v is not None
                else '<td data-value="">–</td>'
            )
        for delta in deltas.values():
            v = delta.get(q.qid)
            cls = "win" if v and v > 0 else "loss" if v and v < 0 else ""
            cells.append(
                f'<td class="{cls}" data-value="{v!r}">{v:+.4f}</td>'
                if v is not None
                else '<td data-value="">–</td>'
            )
        rows.append(f'<tr data-qid="{esc(q.qid)}">' + "".join(cells) + "</tr>")
    return (
        f"<h2>Questions ({esc(metric)} of each run, and each run minus the base)</h2>"
        '<p class="sub">Click a header to sort; a question id goes to its text.</p>'
        f'<table class="questions sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _question_texts(d: ReportData) -> str:
    items = "".join(
        f'<dt id="q-{esc(q.qid)}">{esc(q.qid)} <small>(line {q.line} of {esc(d.golden)})</small></dt>'
        f"<dd>{esc(q.text) or '<em>no question text</em>'}</dd>"
        for q in d.questions
    )
    return f'<h2>Question texts</h2><dl class="questions">{items}</dl>'
