"""A self-contained HTML report: tables, the narrative and inline SVG charts.

No script, no font, no image fetched at view time: the page is one file with
its CSS and its SVG charts inline. Charts: win rates with their 3σ bands, the
distribution of fight length, attrition per combatant (damage dealt and taken,
share of fights ended out of the fight). Same inputs, same bytes.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from harness.report import (
    UNMODELLED_INTRO,
    UNMODELLED_TITLE,
    attrition_table,
    band,
    pct,
    unmodelled_rows,
    wilson,
)

_CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; }
.analyse p { margin: .4em 0; line-height: 1.4; }
.provenance { color: #555; font-style: italic; }
svg { display: block; margin: .5em 0 1em; }
svg text { font-family: sans-serif; font-size: 12px; fill: #222; }
.legend span { display: inline-block; margin-right: 1.2em; }
.sw { display: inline-block; width: .9em; height: .9em; margin-right: .3em; vertical-align: -.1em; }
"""

#: one colour per side, in order (colour-blind-safe palette)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
DRAW_COLOUR = "#999999"
DEALT, TAKEN, DOWN = "#0072B2", "#D55E00", "#555555"


def _f(x: float) -> str:
    return f"{x:.1f}"


def win_chart(report: dict[str, Any]) -> str:
    """Horizontal bars of each side's win rate (and draws) with the 3σ band as a whisker."""
    rows = [
        (s["name"], s["rate"], s["band_3sigma"], PALETTE[i % len(PALETTE)])
        for i, s in enumerate(report["sides"])
    ]
    d = report["draws"]
    rows.append(("Nuls", d["rate"], d["band_3sigma"], DRAW_COLOUR))
    left, width, row_h = 110, 420, 30
    height = 30 + row_h * len(rows) + 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" '
        f'height="{height}" role="img" aria-label="Taux de victoire et bandes 3σ">'
    ]
    for tick in range(0, 101, 25):
        x = left + width * tick / 100
        parts.append(
            f'<line x1="{_f(x)}" y1="20" x2="{_f(x)}" y2="{height - 20}" stroke="#ddd"/>'
            f'<text x="{_f(x)}" y="{height - 5}" text-anchor="middle">{tick}%</text>'
        )
    for i, (name, rate, (lo, hi), colour) in enumerate(rows):
        y = 25 + i * row_h
        parts.append(
            f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{escape(name)}</text>'
            f'<rect x="{left}" y="{y + 4}" width="{_f(width * rate)}" height="16" '
            f'fill="{colour}"/>'
            f'<line x1="{_f(left + width * lo)}" y1="{y + 12}" x2="{_f(left + width * hi)}" '
            f'y2="{y + 12}" stroke="#000" stroke-width="2"/>'
            f'<line x1="{_f(left + width * lo)}" y1="{y + 6}" x2="{_f(left + width * lo)}" '
            f'y2="{y + 18}" stroke="#000" stroke-width="2"/>'
            f'<line x1="{_f(left + width * hi)}" y1="{y + 6}" x2="{_f(left + width * hi)}" '
            f'y2="{y + 18}" stroke="#000" stroke-width="2"/>'
            f'<text x="{left + width + 8}" y="{y + 15}">{pct(rate)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def rounds_chart(report: dict[str, Any]) -> str:
    """Bars of how many fights lasted each number of rounds."""
    dist = {int(k): v for k, v in report["rounds"]["distribution"].items()}
    if not dist:
        return ""
    last = max(dist)
    if last < 1:
        return ""
    top = max(dist.values())
    left, width, height = 50, 520, 200
    bar = width / last
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" '
        f'height="{height + 50}" role="img" aria-label="Durée des combats en rounds">'
    ]
    for frac in (0.0, 0.5, 1.0):
        y = 10 + height * (1 - frac)
        parts.append(
            f'<line x1="{left}" y1="{_f(y)}" x2="{left + width}" y2="{_f(y)}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{_f(y + 4)}" text-anchor="end">{round(top * frac)}</text>'
        )
    step = max(1, last // 15)
    # only the rounds that draw something: the bars, and about 15 labels — a loop
    # over every round up to the longest fight would never end on a huge value
    drawn = {1, *dist, *range(step, last + 1, step)}
    for r in sorted(k for k in drawn if 1 <= k <= last):
        x = left + (r - 1) * bar
        count = dist.get(r, 0)
        h = height * count / top if top else 0
        if count:
            parts.append(
                f'<rect x="{_f(x + 1)}" y="{_f(10 + height - h)}" width="{_f(max(bar - 2, 1))}" '
                f'height="{_f(h)}" fill="{PALETTE[0]}"><title>{r} rounds : {count} '
                f"combats</title></rect>"
            )
        if r % step == 0 or r == 1:
            parts.append(
                f'<text x="{_f(x + bar / 2)}" y="{height + 26}" text-anchor="middle">{r}</text>'
            )
    parts.append(
        f'<text x="{left + width / 2}" y="{height + 45}" text-anchor="middle">rounds</text></svg>'
    )
    return "".join(parts)


def attrition_chart(report: dict[str, Any]) -> str:
    """Per combatant: damage dealt and taken (means per fight), share of fights ended down."""
    rows = report["combatants"]
    if not rows:
        return ""
    top = max(max(c["damage_dealt_mean"], c["damage_taken_mean"]) for c in rows) or 1.0
    left, width, row_h, down_w = 130, 300, 44, 120
    height = 20 + row_h * len(rows) + 10
    down_x = left + width + 70
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{down_x + down_w + 60}" '
        f'height="{height}" role="img" aria-label="Attrition par combattant">',
        f'<text x="{left}" y="12">dégâts par combat</text>',
        f'<text x="{down_x}" y="12">hors de combat</text>',
    ]
    for i, c in enumerate(rows):
        y = 20 + i * row_h
        dealt = width * c["damage_dealt_mean"] / top
        taken = width * c["damage_taken_mean"] / top
        label = f"{c['id']} ({c['side']})"
        parts.append(
            f'<text x="{left - 8}" y="{y + 22}" text-anchor="end">{escape(label)}</text>'
            f'<rect x="{left}" y="{y + 4}" width="{_f(dealt)}" height="14" fill="{DEALT}"/>'
            f'<text x="{_f(left + dealt + 4)}" y="{y + 15}">{c["damage_dealt_mean"]:.1f}</text>'
            f'<rect x="{left}" y="{y + 20}" width="{_f(taken)}" height="14" fill="{TAKEN}"/>'
            f'<text x="{_f(left + taken + 4)}" y="{y + 31}">{c["damage_taken_mean"]:.1f}</text>'
            f'<rect x="{down_x}" y="{y + 10}" width="{down_w}" height="16" fill="#eee"/>'
            f'<rect x="{down_x}" y="{y + 10}" width="{_f(down_w * c["down_mean"])}" '
            f'height="16" fill="{DOWN}"/>'
            f'<text x="{down_x + down_w + 6}" y="{y + 23}">{pct(c["down_mean"])}</text>'
        )
    parts.append("</svg>")
    legend = (
        '<p class="legend">'
        f'<span><i class="sw" style="background:{DEALT}"></i>dégâts infligés</span>'
        f'<span><i class="sw" style="background:{TAKEN}"></i>dégâts subis</span>'
        f'<span><i class="sw" style="background:{DOWN}"></i>part des combats finis hors de '
        "combat</span></p>"
    )
    return "".join(parts) + legend


def _table(headers: list[str], rows: list[list[str]], numeric: set[int]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{escape(v)}</td>' if j in numeric else f"<td>{escape(v)}</td>"
            for j, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def unmodelled_html(data: dict[str, Any]) -> str:
    """The « Non modélisé » section of a page (report, sweep), or nothing when the
    object lists nothing."""
    rows = unmodelled_rows(data)
    if not rows:
        return ""
    table = _table(["Créature", "Données", "Pourquoi"], [list(r) for r in rows], set())
    return f"<h2>{UNMODELLED_TITLE}</h2><p>{escape(UNMODELLED_INTRO)}</p>{table}"


def render_html(report: dict[str, Any], narrative: Any = None) -> str:
    """The whole page (``narrative``: a :class:`harness.narrative.Narrative` or None)."""
    runs = report["runs"]
    summary = _table(
        ["Camp", "Combattants", "Victoires", "Taux", "Bande 3σ", "Wilson"],
        [
            [
                s["name"],
                str(s["combatants"]),
                str(s["wins"]),
                pct(s["rate"]),
                band(*s["band_3sigma"]),
                band(*wilson(s, "wins", runs)),
            ]
            for s in report["sides"]
        ]
        + [
            [
                "Nuls",
                "",
                str(report["draws"]["count"]),
                pct(report["draws"]["rate"]),
                band(*report["draws"]["band_3sigma"]),
                band(*wilson(report["draws"], "count", runs)),
            ]
        ],
        {1, 2, 3, 4, 5},
    )
    attrition = _table(*attrition_table(report))
    analysis = ""
    if narrative is not None:
        paragraphs = "".join(f"<p>{escape(line)}</p>" for line in narrative.lines)
        analysis = (
            f'<h2>Analyse</h2><div class="analyse">{paragraphs}'
            f'<p class="provenance">{escape(narrative.provenance())}</p></div>'
        )
    gaps = unmodelled_html(report)
    fights = "combats simulés" if runs > 1 else "combat simulé"
    cap = report["round_cap"]
    return (
        '<!DOCTYPE html>\n<html lang="fr"><head><meta charset="utf-8">'
        f"<title>Rapport d'équilibrage — {escape(report['map'])}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>Rapport d'équilibrage — {escape(report['map'])}</h1>"
        f"<p>{runs} {fights} (seed {report['seed']}, plafond {cap} "
        f"round{'s' if cap > 1 else ''}) ; rounds moyens : {report['rounds']['mean']:.1f}</p>"
        f"{analysis}"
        f"<h2>Victoires et bandes 3σ</h2>{win_chart(report)}"
        '<p class="legend">Barre : part des combats ; trait noir : bande 3σ.</p>'
        f"{summary}"
        f"<h2>Durée des combats</h2>{rounds_chart(report)}"
        f"<h2>Attrition moyenne par combat</h2>{attrition_chart(report)}{attrition}"
        f"{gaps}"
        "</body></html>\n"
    )


# -- sweeps -----------------------------------------------------------------------------

#: colour scale of the heatmap (viridis, colour-blind safe), 0 % … 100 %
_SCALE = ((0x44, 0x01, 0x54), (0x3B, 0x52, 0x8B), (0x21, 0x91, 0x8C), (0x5E, 0xC9, 0x62),
          (0xFD, 0xE7, 0x25))  # fmt: skip


def heat_colour(rate: float, low: float = 0.0, high: float = 1.0) -> tuple[str, str]:
    """Fill colour of a win rate on the scale ``low`` … ``high`` and the text colour
    readable on it."""
    x = min(1.0, max(0.0, (rate - low) / (high - low))) * (len(_SCALE) - 1)
    i = min(int(x), len(_SCALE) - 2)
    t = x - i
    r, g, b = (round(a + (b - a) * t) for a, b in zip(_SCALE[i], _SCALE[i + 1], strict=True))
    light = 0.2126 * r + 0.7152 * g + 0.0722 * b > 140
    return f"#{r:02x}{g:02x}{b:02x}", "#000" if light else "#fff"


def _text_px(text: str) -> int:
    """A generous width estimate of ``text`` at 12 px (no font metrics here)."""
    return 7 * len(text) + 10


def heat_scale(rates: list[float]) -> tuple[float, float]:
    """The colour scale of a heatmap: the range of ``rates`` widened to multiples of
    5 points, at least 10 points wide, within [0, 1]."""
    low = math.floor(min(rates) * 20 + 1e-9) / 20
    high = math.ceil(max(rates) * 20 - 1e-9) / 20
    if high - low < 0.1:
        low, high = max(0.0, high - 0.1), min(1.0, max(high, low + 0.1))
        low = min(low, high - 0.1)
    return low, high


def sweep_heatmap(data: dict[str, Any]) -> str:
    """The matrix of win rates (rows: deployments, columns: strategies) as an SVG heatmap:
    the colour is the win rate (scale: the range of the rates, see :func:`heat_scale`),
    each square gives it with its Wilson interval at z = 3 (its title adds the 3σ band);
    the best cell is framed."""
    from harness.sweep import band_text, cell_wilson

    variants = [v["name"] for v in data["variants"]]
    strategies = [s["name"] for s in data["strategies"]]
    ns = len(strategies)
    left = max(_text_px(v) for v in variants) + 10
    cw = max(150, *(_text_px(s) for s in strategies))
    ch, top = 44, 56
    low, high = heat_scale([c["rate"] for c in data["cells"]])
    key = (
        f"{100 * high:g} % — cadre rouge : meilleure case ; entre crochets : intervalle de "
        "Wilson à 3σ (en %)"
    )
    key_x = left + 50 + 8 * 21 + 6
    width = max(left + cw * ns + 20, key_x + _text_px(key))
    height = top + ch * len(variants) + 50
    label = f"Victoires {data['side']} par déploiement et stratégie"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(label)}" font-family="sans-serif" font-size="12">',
        f'<text x="10" y="18" style="font-size:14px">{escape(label)} '
        f"({data['runs']} combats par case)</text>",
    ]
    for si, name in enumerate(strategies):
        x = left + cw * si + cw / 2
        parts.append(
            f'<text x="{_f(x)}" y="{top - 10}" text-anchor="middle" fill="#222">'
            f"{escape(name)}</text>"
        )
    best = data["best"]
    frame = ""
    for vi, name in enumerate(variants):
        y = top + ch * vi
        parts.append(
            f'<text x="{left - 8}" y="{y + ch / 2 + 4:.0f}" text-anchor="end" fill="#222">'
            f"{escape(name)}</text>"
        )
        for si in range(ns):
            cell = data["cells"][vi * ns + si]
            fill, ink = heat_colour(cell["rate"], low, high)
            x = left + cw * si
            interval = band_text(cell).split(" ", 1)[1]
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" '
                f'stroke="#fff"><title>{escape(cell["variant"])} × '
                f"{escape(cell['strategy'])} : {pct(cell['rate'])} ({cell['wins']}/"
                f"{cell['runs']}), bande 3σ {band(*cell['band_3sigma'])}, "
                f"Wilson {band(*cell_wilson(cell))}</title></rect>"
                f'<text x="{_f(x + cw / 2)}" y="{y + 19}" text-anchor="middle" '
                f'style="fill:{ink};font-size:14px">{pct(cell["rate"])}</text>'
                f'<text x="{_f(x + cw / 2)}" y="{y + 35}" text-anchor="middle" '
                f'style="fill:{ink};font-size:11px">{escape(interval)}</text>'
            )
            if (cell["variant"], cell["strategy"]) == (best["variant"], best["strategy"]):
                frame = (
                    f'<rect x="{x + 1.5}" y="{y + 1.5}" width="{cw - 3}" height="{ch - 3}" '
                    'fill="none" stroke="#d00" stroke-width="3"/>'
                )
    parts.append(frame)
    y = top + ch * len(variants) + 20
    parts.append(f'<text x="{left}" y="{y + 12}" fill="#222">{100 * low:g} %</text>')
    for k in range(21):
        fill, _ = heat_colour(low + (high - low) * k / 20, low, high)
        parts.append(f'<rect x="{left + 50 + 8 * k}" y="{y}" width="8" height="16" fill="{fill}"/>')
    parts.append(f'<text x="{key_x}" y="{y + 12}" fill="#222">{escape(key)}</text></svg>')
    return "".join(parts)


def render_sweep_html(data: dict[str, Any]) -> str:
    """A self-contained HTML page of a sweep object (``pf1e-sim/sweep@1``)."""
    from harness.sweep import best_cell, cell_wilson, describe_deployment

    title = data["title"] or data["map"]
    side = data["side"]
    cells = _table(
        ["Déploiement", "Stratégie", "Victoires", "Taux", "Bande 3σ", "Wilson", "Nuls",
         "Rounds moyens"],
        [
            [
                c["variant"],
                c["strategy"],
                f"{c['wins']}/{c['runs']}",
                pct(c["rate"]),
                band(*c["band_3sigma"]),
                band(*cell_wilson(c)),
                str(c["draws"]),
                f"{c['rounds_mean']:.1f}",
            ]
            for c in data["cells"]
        ],
        {2, 3, 4, 5, 6, 7},
    )  # fmt: skip
    deployments = _table(
        ["Déploiement", "Placement", "Cases de départ"],
        [
            [
                v["name"],
                describe_deployment(v["deployment"]),
                ", ".join(f"{cid} ({rc[0]},{rc[1]})" for cid, rc in v["starts"].items()),
            ]
            for v in data["variants"]
        ],
        set(),
    )
    strategies = _table(
        ["Stratégie", "Politique"], [[s["name"], s["policy"]] for s in data["strategies"]], set()
    )
    best = data["best"]
    cap = data["round_cap"]
    top = best_cell(data)
    return (
        '<!DOCTYPE html>\n<html lang="fr"><head><meta charset="utf-8">'
        f"<title>Balayage — {escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>Balayage — {escape(title)}</h1>"
        f"<p>Carte : {escape(data['map'])}. Camp étudié : {escape(side)} (les autres camps "
        f"gardent leur zone et leur politique). {data['runs']} combats par case, mêmes graines "
        f"dans chaque case (seed {data['seed']}, plafond {cap} round{'s' if cap > 1 else ''}).</p>"
        f"<h2>Victoires {escape(side)}</h2>{sweep_heatmap(data)}"
        f"<p>Meilleure case : « {escape(best['variant'])} » × « {escape(best['strategy'])} » : "
        f"{pct(top['rate'])}, bande 3σ : {band(*top['band_3sigma'])}, Wilson : "
        f"{band(*cell_wilson(top))}. "
        "Couleur : taux de victoire (échelle des taux observés).</p>"
        f"{cells}<h2>Déploiements</h2>{deployments}<h2>Stratégies</h2>{strategies}"
        f"{unmodelled_html(data)}"
        "</body></html>\n"
    )
