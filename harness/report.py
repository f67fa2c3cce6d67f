"""Terminal renderings of the report object and of a fight transcript.

The report reproduces the seed's layout line by line, then adds the attrition
table. Attrition columns (means per fight, over every fight, draws included):

* **Touches** — attacks that hit; **Critiques** — confirmed critical hits;
* **Dégâts infligés** / **Dégâts subis** — lethal damage dealt / taken (damage
  taken is not capped: the killing blow counts in full);
* **Soins prodigués** — hit points the combatant actually restored, itself included
  (:func:`engine.rules.healing.heal`: capped at each target's maximum, the overheal
  not counted, never counted as damage);
* **Hors de combat** — share of fights the combatant ended unable to act
  (dying, stable, dead); **Morts** — share of fights it ended dead;
* when some combatant cast a spell or inflicted a condition (else the table keeps
  its layout): **Sorts lancés** — spells it began to cast, lost ones included;
  **Emplacements dépensés** — spell slots spent (cantrips are free);
  **États infligés** — table conditions it gave other creatures that took hold
  (a save, an immunity or a worse condition already held gives none).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from engine.core.events import Event
from engine.run.stats import wilson_band

if TYPE_CHECKING:
    from engine.state.encounter import Encounter
from harness.text import display_width, pad, table
from harness.transcript import lines


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def band(lo: float, hi: float) -> str:
    """``[lo%, hi%]`` as the reports print an interval."""
    return f"[{pct(lo)}, {pct(hi)}]"


def wilson(row: dict[str, Any], count_key: str, runs: int) -> tuple[float, float]:
    """A side's (or the draws') Wilson interval at z = 3: the row's own
    ``wilson_3sigma``, or computed from its count for reports written before it."""
    stored = row.get("wilson_3sigma")
    if stored is not None:
        return stored[0], stored[1]
    return wilson_band(row[count_key], runs)


def render_report(report: dict[str, Any]) -> str:
    """The French balance report (plain text, ends with a newline)."""
    lines = ["=== Rapport d'équilibrage ===", f"Carte : {report['map']}"]
    for side in report["sides"]:
        n = side["combatants"]
        lines.append(f"{side['name']} : {n} combattant{'s' if n > 1 else ''}")
    policies = _policy_line(report)
    if policies:
        lines.append(policies)
    runs = report["runs"]
    fights = "combats simulés" if runs > 1 else "combat simulé"
    lines.append(
        f"{runs} {fights} (seed {report['seed']}, "
        f"plafond {report['round_cap']} round{'s' if report['round_cap'] > 1 else ''})"
    )
    lines.append("")
    for side in report["sides"]:
        lines.append(
            f"Victoires {side['name']} : {pct(side['rate'])} ({side['wins']}) — "
            f"bande 3σ : {band(*side['band_3sigma'])}, "
            f"Wilson : {band(*wilson(side, 'wins', runs))}"
        )
    draws = report["draws"]
    lines.append(f"Nuls : {pct(draws['rate'])} ({draws['count']})")
    lines.append(f"Rounds moyens : {report['rounds']['mean']:.1f}")
    lines.append("")
    lines.append("=== Attrition moyenne par combat ===")
    headers, rows, numeric = attrition_table(report)
    lines += table(headers, rows, right=numeric)
    lines += unmodelled_lines(report)
    llm = report.get("llm")
    if llm:
        lines += ["", f"=== Télémétrie LLM ({llm['model']}) ==="]
        fallbacks = ", ".join(f"{k} {v}" for k, v in llm["fallbacks"].items()) or "aucun"
        lines.append(
            f"Décisions : {llm['decisions']} ; appels au modèle : {llm['model_calls']} ; "
            f"cache : {llm['cache_hits']} ; relances : {llm['retries']} ; replis : {fallbacks}"
        )
        reused = llm.get("tokens_reused", 0)
        kept = f" (dont {reused} repris du cache KV)" if reused else ""
        lines.append(f"Jetons : {llm['tokens_in']} en entrée{kept}, {llm['tokens_out']} en sortie")
        if llm["latency_p50_s"] is not None:
            lines.append(
                f"Latence par appel (mesurée) : médiane {llm['latency_p50_s']:.2f} s, "
                f"p95 {llm['latency_p95_s']:.2f} s"
            )
    return "\n".join(lines) + "\n"


#: the « Non modélisé » section's heading and its first line (terminal and HTML reports)
UNMODELLED_TITLE = "Non modélisé"
UNMODELLED_INTRO = (
    "Données des fichiers de créatures que le moteur accepte sans les jouer (aucun effet "
    "sur ces combats) :"
)


def encounter_unmodelled(encounter: Encounter) -> list[dict[str, str]]:
    """What the encounter's creature files hold that no rule plays, as the report
    objects list it (:func:`engine.content.modelled.unmodelled`)."""
    from engine.content.modelled import unmodelled

    placements = encounter.placements
    return [
        u.to_dict()
        for u in unmodelled((p.profile for p in placements), (p.spellbook for p in placements))
    ]


def unmodelled_rows(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The report's unmodelled data as ``(creature, data, why)``: a field as it is, a
    feature quoted, and the data of one creature that follow each other with the same
    reason on one row (none for a report written before the list existed).

    >>> unmodelled_rows({"unmodelled": [
    ...     {"creature": "Orc", "kind": "field", "name": "spells", "why": "pas de sorts"},
    ...     {"creature": "Orc", "kind": "field", "name": "spell_slots", "why": "pas de sorts"},
    ...     {"creature": "Orc", "kind": "feature", "name": "Power Attack", "why": "rien"}]})
    [('Orc', 'spells, spell_slots', 'pas de sorts'), ('Orc', '« Power Attack »', 'rien')]
    """
    out: list[tuple[str, str, str]] = []
    row: dict[str, str]
    for row in report.get("unmodelled") or []:
        name = f"« {row['name']} »" if row["kind"] == "feature" else row["name"]
        if out and out[-1][0] == row["creature"] and out[-1][2] == row["why"]:
            out[-1] = (row["creature"], f"{out[-1][1]}, {name}", row["why"])
        else:
            out.append((row["creature"], name, row["why"]))
    return out


def unmodelled_lines(report: dict[str, Any]) -> list[str]:
    """The « Non modélisé » section (with the blank line before it), or nothing when
    the report lists nothing."""
    rows = unmodelled_rows(report)
    if not rows:
        return []
    out = ["", f"=== {UNMODELLED_TITLE} ===", UNMODELLED_INTRO]
    out += [f"- {creature}, {data} — {why}" for creature, data, why in rows]
    return out


def _policy_line(report: dict[str, Any]) -> str | None:
    """``Politiques : …`` when some combatant does not play the heuristic policy."""
    chosen: dict[str, str] = report.get("options", {}).get("policies", {})
    if not chosen or all(v == "heuristic" for v in chosen.values()):
        return None
    parts: list[str] = []
    for side in report["sides"]:
        ids = [c["id"] for c in report["combatants"] if c["side"] == side["name"]]
        specs = {chosen.get(i, "heuristic") for i in ids}
        if len(specs) == 1:
            parts.append(f"{side['name']} {specs.pop()}")
        else:
            parts += [f"{i} {chosen.get(i, 'heuristic')}" for i in ids]
    return "Politiques : " + ", ".join(parts)


def render_transcript(events: Iterable[Event], title: str = "Déroulé du premier combat") -> str:
    """The three-column transcript of a fight's events: Round / Combattant / Message.

    Turn lines go in the table; other lines (initiative, end of fight) are kept
    raw at their original position. Widths follow the display width of the
    content; nothing is truncated.
    """
    log = lines(events)
    headers = ["Round", "Combattant", "Message"]
    widths = [len(h) for h in headers]
    for rnd, actor, message, _rolls in log:
        if rnd is not None and actor is not None:
            widths[0] = max(widths[0], len(str(rnd)))
            widths[1] = max(widths[1], display_width(actor))
            widths[2] = max(widths[2], display_width(message))
    out = [f"=== {title} ===", "  ".join(pad(h, widths[i]) for i, h in enumerate(headers)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    for rnd, actor, message, _rolls in log:
        if rnd is None or actor is None:
            out.append(message)
        else:
            head = f"{pad(str(rnd), widths[0], right=True)}  {pad(actor, widths[1])}"
            out.append(f"{head}  {message}".rstrip())
    return "\n".join(out) + "\n"


#: the attrition table's columns (terminal and HTML reports)
ATTRITION_HEADERS = (
    "Combattant",
    "Camp",
    "Touches",
    "Critiques",
    "Dégâts infligés",
    "Dégâts subis",
    "Soins prodigués",
    "Hors de combat",
    "Morts",
)
#: its right-aligned (numeric) columns
ATTRITION_NUMERIC = frozenset(range(2, 9))
#: the columns added when a combatant cast a spell or inflicted a condition:
#: (header, counter)
MAGIC_COLUMNS = (
    ("Sorts lancés", "spells_cast"),
    ("Emplacements dépensés", "slots_spent"),
    ("États infligés", "conditions_inflicted"),
)


def shows_magic(report: dict[str, Any]) -> bool:
    """Whether the attrition table shows the spell columns: some combatant cast a
    spell or inflicted a condition (a report without casters keeps its layout)."""
    return any(
        c.get(f"{key}_total") for c in report["combatants"] for _header, key in MAGIC_COLUMNS
    )


def attrition_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]], set[int]]:
    """The attrition table: its headers, rows (formatted as the reports print
    them) and right-aligned columns."""
    headers: list[str] = list(ATTRITION_HEADERS)
    rows = attrition_rows(report)
    numeric = set(ATTRITION_NUMERIC)
    if shows_magic(report):
        for header, key in MAGIC_COLUMNS:
            numeric.add(len(headers))
            headers.append(header)
            for row, c in zip(rows, report["combatants"], strict=True):
                row.append(f"{c.get(f'{key}_mean') or 0.0:.2f}")
    return headers, rows, numeric


def attrition_rows(report: dict[str, Any]) -> list[list[str]]:
    """The attrition table's rows, formatted as the reports print them."""
    return [
        [
            c["id"],
            c["side"],
            f"{c['hits_mean']:.2f}",
            f"{c['crits_mean']:.2f}",
            f"{c['damage_dealt_mean']:.1f}",
            f"{c['damage_taken_mean']:.1f}",
            f"{c['healing_given_mean']:.1f}",
            pct(c["down_mean"]),
            pct(c["dead_mean"]),
        ]
        for c in report["combatants"]
    ]
