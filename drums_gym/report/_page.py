"""The report page: one self-contained HTML file (inline CSS and JS, frames as relative files).

Everything that comes from the data (task ids, actions, model replies, errors, reasons,
paths) goes through :func:`html.escape`; the script never builds HTML from strings (it
filters rows by their ``data-`` attributes and clones nodes for the enlarged frame).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from itertools import groupby
from urllib.parse import quote

from .._version import __version__
from ._chart import success_chart
from ._data import FAILED, INVALID, SOLVED, Episode, Run, Step
from ._stats import Stats, stats_of

__all__ = ["render_page"]

OUTCOMES = (SOLVED, FAILED, INVALID)


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _src(relative: str) -> str:
    """A frame's relative path as an attribute value (percent-encoded, then escaped)."""
    return _e(quote(relative, safe="/"))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{1000 * seconds:.0f} ms"


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _tasks(run: Run) -> list[tuple[str, list[Episode]]]:
    groups: dict[str, list[Episode]] = {}
    for episode in run.episodes:
        groups.setdefault(episode.task_short, []).append(episode)
    return list(groups.items())


# ------------------------------------------------------------------------------- summary


def _reasons(stats: Stats) -> str:
    if not stats.invalid:
        return "–"
    return ", ".join(f"{_e(k)} ×{v}" for k, v in sorted(stats.invalid.items()))


def _summary(run: Run) -> str:
    groups = _tasks(run)
    rows: list[tuple[str, Stats]] = [(t, stats_of(e.row for e in eps)) for t, eps in groups]
    overall = stats_of(e.row for e in run.episodes)
    chart = success_chart([*rows, ("overall", overall)])
    body = []
    for label, stats in [*rows, ("overall", overall)]:
        ci = stats.ci95
        cls = ' class="total"' if label == "overall" and groups else ""
        body.append(
            f"<tr{cls} data-task=\"{_e(label)}\"><th scope=row>{_e(label)}</th>"
            f"<td>{stats.episodes}</td><td>{stats.valid}</td><td>{stats.success}</td>"
            f"<td class=rate>{_pct(stats.success_rate)}</td>"
            f"<td>{'–' if ci is None else f'{_pct(ci[0])} – {_pct(ci[1])}'}</td>"
            f"<td>{stats.invalid_count}</td><td class=reasons>{_reasons(stats)}</td>"
            f"<td>{'–' if stats.mean_steps is None else f'{stats.mean_steps:.1f}'}</td>"
            f"<td>{_ms(stats.mean_step_latency_s)}</td></tr>"
        )
    retried = (
        f"<p class=muted>{len(run.retried)} earlier attempt(s) of invalid episodes were "
        "retried; only the attempt that counts is shown.</p>"
        if run.retried
        else ""
    )
    return (
        '<section id="summary"><h2>Summary</h2>'
        '<p class="muted">Success is over <b>valid</b> episodes (invalid ones are counted by '
        "reason, never scored 0); bars are the success rate, whiskers the 95% Wilson "
        "interval.</p>"
        f'<div class="chart-box">{chart}</div>'
        '<table class="stats"><thead><tr><th>task</th><th>episodes</th><th>valid</th>'
        "<th>solved</th><th>success rate</th><th>95% interval</th><th>invalid</th>"
        "<th>invalid by reason</th><th>mean steps</th><th>step latency</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>{retried}</section>"
    )


# ------------------------------------------------------------------------------- table


def _verdict(episode: Episode) -> str:
    row = episode.row
    outcome = episode.outcome
    if outcome == INVALID:
        return f"invalid: {row.get('invalid_reason') or 'no reason given'}"
    score = _num(row.get("score"))
    return f"{outcome}" + ("" if score is None else f" (score {score:.2f})")


def _badge(outcome: str) -> str:
    return f'<span class="badge {outcome}">{outcome}</span>'


def _table(run: Run) -> str:
    tasks = [t for t, _ in _tasks(run)]
    options = "".join(f'<option value="{_e(t)}">{_e(t)}</option>' for t in tasks)
    outcome_options = "".join(f'<option value="{o}">{o}</option>' for o in OUTCOMES)
    rows = []
    for ep in run.episodes:
        row = ep.row
        score = _num(row.get("score"))
        rows.append(
            f'<tr class="episode" data-task="{_e(ep.task_short)}" data-outcome="{ep.outcome}">'
            f'<td><a href="#{ep.anchor}">{_e(ep.task_short)}</a></td><td>{ep.index}</td>'
            f"<td>{_badge(ep.outcome)}</td>"
            f"<td>{'–' if score is None else f'{score:.2f}'}</td>"
            f"<td class=reason>{_e(row.get('invalid_reason') or '')}</td>"
            f"<td>{_e(row.get('steps', '–'))}</td><td>{_e(row.get('action_errors', 0))}</td>"
            f"<td>{_ms(_num(row.get('step_latency_s')) if ep.outcome != INVALID else None)}</td>"
            f"<td>{_e(row.get('seed', '–'))}</td><td>{ep.attempt}</td></tr>"
        )
    return (
        '<section id="episodes"><h2>Episodes</h2><div class="filters">'
        f'<label>task <select id="filter-task"><option value="">all tasks</option>{options}'
        "</select></label>"
        '<label>outcome <select id="filter-outcome"><option value="">all outcomes</option>'
        f"{outcome_options}</select></label>"
        f'<span id="shown" class="muted">{len(run.episodes)} of {len(run.episodes)} '
        "episodes</span></div>"
        '<table id="episode-table"><thead><tr><th>task</th><th>episode</th><th>outcome</th>'
        "<th>score</th><th>invalid reason</th><th>steps</th><th>action errors</th>"
        "<th>step latency</th><th>seed</th><th>attempt</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )


# ------------------------------------------------------------------------------- trajectories


def _frame(path: str | None, size: tuple[int, int] | None, step: Step | None, alt: str) -> str:
    if path is None:
        return '<div class="frame missing">no frame recorded</div>'
    marks = []
    if step is not None and size is not None and size[0] > 0 and size[1] > 0:
        for click in step.clicks:
            left, top = 100 * click.x / size[0], 100 * click.y / size[1]
            if 0 <= left <= 100 and 0 <= top <= 100:
                marks.append(
                    f'<span class="click {_e(click.button)}" style="left:{left:.3f}%;'
                    f'top:{top:.3f}%" title="{_e(click.button)} click at ({click.x}, '
                    f'{click.y})"></span>'
                )
    return (
        f'<div class="frame" tabindex="0" role="button" title="click to enlarge">'
        f'<img src="{_src(path)}" alt="{_e(alt)}" loading="lazy" decoding="async">'
        f"{''.join(marks)}</div>"
    )


def _timings(timings: Mapping[str, float]) -> str:
    order = ("model", "action", "observe", "verify")
    keys = [k for k in order if k in timings] + sorted(k for k in timings if k not in order)
    parts = [f"{_e(k)} {_ms(timings[k])}" for k in keys if timings[k] or k != "verify"]
    return " · ".join(parts) or "–"


def _press_text(step: Step) -> str:
    """``left (142, 98)``, ``left x2 (142, 98)`` (a double click), ... for a step's presses."""
    parts = []
    for click, same in groupby(step.clicks):
        count = len(list(same))
        times = f" x{count}" if count != 1 else ""
        parts.append(f"{click.button}{times} ({click.x}, {click.y})")
    return ", ".join(parts)


def _step(step: Step) -> str:
    action = step.action
    text = "(no action)" if action is None else action if isinstance(action, str) else repr(action)
    said = step.said
    usage = [f"model {_e(said['model'])}"] if "model" in said else []
    if "prompt_tokens" in said or "completion_tokens" in said:
        usage.append(
            f"{_e(said.get('prompt_tokens', '?'))} prompt + "
            f"{_e(said.get('completion_tokens', '?'))} completion tokens"
        )
    if "retries" in said:
        usage.append(f"{_e(said['retries'])} retries")
    reply = (
        '<details class="reply" open><summary>model reply'
        + (f' <span class="muted">({" · ".join(usage)})</span>' if usage else "")
        + f'</summary><pre class="reply-text">{_e(step.reply)}</pre></details>'
        if step.reply
        else ""
    )
    if said.get("queued"):
        reply += (
            '<p class="muted reply-note">the rest of the previous reply (one action per '
            "step, as OSWorld runs a reply's actions in turn): no model call</p>"
        )
    parsed = said.get("action")
    label = "parsed action" if step.reply or parsed is not None else "action"
    errors = "".join(
        f'<p class="error"><b>{_e(kind)}:</b> {_e(message)}</p>' for kind, message in step.errors
    )
    clicks = _press_text(step)
    return (
        f'<article class="step" data-step="{step.number}">'
        f"{_frame(step.frame, step.frame_size, step, f'screen before step {step.number}')}"
        f'<div class="text"><h4>step {step.number}'
        f"{'' if not clicks else f' <span class=muted>· click {_e(clicks)}</span>'}</h4>"
        f'{reply}<p class="label">{label}</p><pre class="action">{_e(text)}</pre>{errors}'
        f'<p class="timings">{_timings(step.timings)}</p></div></article>'
    )


def _episode(ep: Episode) -> str:
    row = ep.row
    meta = [f"task {_e(ep.task)}", f"episode {ep.index}", f"attempt {ep.attempt}"]
    for key in ("seed", "policy", "steps", "action_errors", "prompt_tokens",
                "completion_tokens", "policy_errors"):
        if row.get(key) is not None:
            meta.append(f"{key.replace('_', ' ')} {_e(row[key])}")
    latency = _num(row.get("model_latency_s"))
    if latency is not None:
        meta.append(f"model latency {_ms(latency)} per call")
    instruction = row.get("instruction")
    head = (
        f'<details class="trajectory" id="{ep.anchor}" data-task="{_e(ep.task_short)}" '
        f'data-outcome="{ep.outcome}"><summary>{_badge(ep.outcome)} '
        f"<b>{_e(ep.task_short)}</b> episode {ep.index} "
        f'<span class="muted">— {_e(_verdict(ep))}; {len(ep.steps)} step(s)</span></summary>'
        f'<p class="muted">{" · ".join(meta)}</p>'
        + (f'<p class="instruction">{_e(instruction)}</p>' if instruction else "")
    )
    if ep.note:
        return head + f'<p class="muted">{_e(ep.note)}</p></details>'
    final = (
        f'<article class="step final" data-step="end">'
        f"{_frame(ep.last_frame, None, None, 'the final screen')}"
        f'<div class="text"><h4>final screen</h4><p class="verdict {ep.outcome}">'
        f"{_e(_verdict(ep))}</p>"
        + _ending_note(ep)
        + "</div></article>"
    )
    steps = "".join(_step(s) for s in ep.steps)
    return head + f'<div class="steps">{steps}{final}</div></details>'


def _ending_note(ep: Episode) -> str:
    """Why the trajectory stops where it does, when that needs saying."""
    if ep.outcome == INVALID:
        reason = ep.row.get("invalid_reason") or "no reason given"
        return (
            f'<p class="muted ending">the episode was invalid ({_e(reason)}): the host '
            "flagged it, so it was not played to its end and is not scored (it counts "
            "only in the invalid rate)</p>"
        )
    if ep.unfinished:
        return (
            '<p class="muted ending">the recording did not reach the episode\'s end '
            "(unfinished.json)</p>"
        )
    return ""


def _trajectories(run: Run) -> str:
    return (
        '<section id="trajectories"><h2>Trajectories</h2>'
        '<p class="muted">Each step shows the screen the action was chosen on, with the '
        "mouse presses marked; click a frame to enlarge it (arrow keys: the next or previous "
        "frame; Esc: close).</p>"
        f"{''.join(_episode(ep) for ep in run.episodes)}</section>"
    )


# ------------------------------------------------------------------------------- page


def _meta(run: Run) -> str:
    summary = run.summary or {}
    parts = []
    args = summary.get("args")
    if isinstance(args, Mapping):
        for key, value in args.items():
            if any(word in str(key).lower() for word in ("token", "key", "secret")):
                continue
            if isinstance(value, (str, int, float, bool)) or (
                isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value)
            ):
                shown = ", ".join(map(str, value)) if isinstance(value, list) else value
                parts.append(f"<span><b>{_e(key)}</b> {_e(shown)}</span>")
    done, total = summary.get("done"), summary.get("total")
    if isinstance(done, int) and isinstance(total, int):
        parts.append(f"<span><b>done</b> {done} of {total}</span>")
    return "".join(parts)


def render_page(run: Run, *, title: str | None = None) -> str:
    """The HTML of the report of ``run``."""
    heading = title or f"drums-gym evaluation: {run.directory.name}"
    empty = (
        "<p class=muted>No finished episode in episodes.jsonl yet.</p>" if not run.episodes else ""
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "img-src 'self' data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        f"<title>{_e(heading)}</title><style>{CSS}</style></head><body>"
        f'<header><h1>{_e(heading)}</h1><p class="meta">{_meta(run)}</p></header>'
        f"<main>{empty}{_summary(run)}{_table(run)}{_trajectories(run)}</main>"
        '<div id="lightbox" hidden><figure><div class="slot"></div>'
        "<figcaption></figcaption></figure></div>"
        f'<footer class="muted">drums-gym {_e(__version__)} · drums-gym report</footer>'
        f"<script>{JS}</script></body></html>\n"
    )


CSS = """
:root{--fg:#1d2330;--muted:#667085;--line:#e3e6ec;--bg:#f6f7f9;--ok:#1f8a4c;--bad:#c2410c;
--inv:#6b7280;--accent:#3465a4}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Ubuntu,sans-serif;color:var(--fg);
background:var(--bg)}
header{background:#2c001e;color:#fff;padding:18px 28px}
header h1{margin:0 0 6px;font-size:20px;font-weight:600}
.meta{margin:0;display:flex;flex-wrap:wrap;gap:6px 16px;font-size:13px;color:#e6d8e1}
.meta b{color:#fff;font-weight:600}
main{padding:8px 28px 28px;max-width:1400px}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 18px;
margin:16px 0}
h2{font-size:16px;margin:0 0 8px}
h4{margin:0 0 4px;font-size:13px}
.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line)}
thead th{color:var(--muted);font-weight:600;font-size:12px}
tr.total th,tr.total td{font-weight:600;border-top:2px solid var(--line)}
.chart-box{overflow-x:auto;margin:6px 0 12px}
.chart .grid{stroke:var(--line)}
.chart .tick{font-size:11px;fill:var(--muted)}
.chart .label{font-size:13px;fill:var(--fg);font-family:ui-monospace,monospace}
.chart .label.total{font-weight:700;font-family:inherit}
.chart .note{font-size:12px;fill:var(--muted)}
.chart .bar{fill:#7aa6d8}
.chart .bar.total{fill:var(--accent)}
.chart .ci line{stroke:#1d2330;stroke-width:1.6}
.filters{display:flex;gap:16px;align-items:center;margin:4px 0 10px}
select{font:inherit;padding:3px 6px;border:1px solid #c9ced8;border-radius:5px;background:#fff}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;
color:#fff}
.badge.solved{background:var(--ok)}.badge.failed{background:var(--bad)}
.badge.invalid{background:var(--inv)}
#episode-table a{color:var(--accent);font-family:ui-monospace,monospace}
details.trajectory{border-top:1px solid var(--line);padding:8px 0}
details.trajectory>summary{cursor:pointer;font-size:14px}
.steps{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px;
margin-top:10px}
.step{border:1px solid var(--line);border-radius:6px;overflow:hidden;background:#fff}
.step .text{padding:8px 10px}
.frame{position:relative;cursor:zoom-in;background:#111;line-height:0}
.frame img{width:100%;height:auto;display:block}
.frame.missing{cursor:default;color:#bbb;line-height:1.4;padding:30px;text-align:center;
font-size:12px}
.click{position:absolute;width:18px;height:18px;margin:-9px 0 0 -9px;border-radius:50%;
border:3px solid #ff2d55;box-shadow:0 0 0 2px #fff,0 0 6px rgba(0,0,0,.6);pointer-events:none}
.click.right{border-color:#ff9f0a}.click.middle{border-color:#30d158}
pre{margin:4px 0;padding:6px 8px;background:#f3f4f6;border-radius:4px;white-space:pre-wrap;
word-break:break-word;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:220px;
overflow:auto}
.reply summary{cursor:pointer;font-size:12px;color:var(--accent)}
.label{margin:6px 0 0;font-size:11px;color:var(--muted)}
.error{margin:4px 0;color:#b42318;font-size:12px}
.timings{margin:4px 0 0;font-size:12px;color:var(--muted)}
.verdict{font-weight:600}.verdict.solved{color:var(--ok)}.verdict.failed{color:var(--bad)}
.verdict.invalid{color:var(--inv)}
.instruction{font-style:italic}
#lightbox{position:fixed;inset:0;background:rgba(10,12,16,.88);display:flex;
align-items:center;justify-content:center;z-index:10;cursor:zoom-out}
#lightbox[hidden]{display:none}
#lightbox figure{margin:0;max-width:94vw}
#lightbox .frame{cursor:zoom-out}
#lightbox .frame img{max-height:86vh;width:auto;max-width:94vw}
#lightbox .click{width:28px;height:28px;margin:-14px 0 0 -14px}
#lightbox figcaption{color:#eee;margin-top:8px;font-size:13px}
footer{padding:0 28px 20px;font-size:12px}
"""

JS = """
(function(){
  var task=document.getElementById('filter-task'),outcome=document.getElementById('filter-outcome');
  var shown=document.getElementById('shown');
  function keep(el){return (!task.value||el.dataset.task===task.value)&&
    (!outcome.value||el.dataset.outcome===outcome.value);}
  function apply(){
    var rows=document.querySelectorAll('#episode-table tr.episode'),n=0;
    rows.forEach(function(r){var k=keep(r);r.hidden=!k;if(k)n++;});
    document.querySelectorAll('details.trajectory').forEach(function(d){d.hidden=!keep(d);});
    shown.textContent=n+' of '+rows.length+' episodes';
  }
  task.addEventListener('change',apply);outcome.addEventListener('change',apply);
  function openHash(){var id=decodeURIComponent(location.hash.slice(1));
    var d=id&&document.getElementById(id);if(d&&d.tagName==='DETAILS'){d.open=true;}}
  window.addEventListener('hashchange',openHash);openHash();
  var box=document.getElementById('lightbox'),slot=box.querySelector('.slot'),
      cap=box.querySelector('figcaption');
  var current=null;
  function enlarge(frame){
    current=frame;
    var copy=frame.cloneNode(true);copy.removeAttribute('tabindex');
    var img=copy.querySelector('img');if(img){img.loading='eager';}
    slot.replaceChildren(copy);
    var step=frame.closest('.step'),head=step&&step.querySelector('h4');
    cap.textContent=head?head.textContent:'';
    box.hidden=false;
  }
  document.addEventListener('click',function(ev){
    var frame=ev.target.closest('.frame');
    if(frame&&!box.contains(frame)&&!frame.classList.contains('missing')){enlarge(frame);return;}
    if(box.contains(ev.target)){box.hidden=true;}
  });
  function step(by){  // the next or previous frame of the same episode
    var frames=Array.prototype.slice.call(
      current.closest('.steps').querySelectorAll('.frame:not(.missing)'));
    var next=frames[frames.indexOf(current)+by];
    if(next){enlarge(next);}
  }
  document.addEventListener('keydown',function(ev){
    if(ev.key==='Escape'){box.hidden=true;}
    else if(!box.hidden&&current&&(ev.key==='ArrowRight'||ev.key==='ArrowLeft')){
      step(ev.key==='ArrowRight'?1:-1);ev.preventDefault();}
    else if(ev.key==='Enter'&&ev.target.classList&&ev.target.classList.contains('frame')){
      enlarge(ev.target);}
  });
})();
"""
