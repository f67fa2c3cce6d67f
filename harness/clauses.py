"""The catalogue of vetted French continuations of the narrative's facts.

Each fact of :func:`harness.analysis.analyse` has a *clause type* (``Fact.clause``):
its kind and its direction (``verdict:nette``, ``nuls:plafond``, ``porteur:perdant``…).
The model never writes text: for each fact it picks one clause of that fact's
type, which ends the fact's sentence after « , ce qui ». Every clause of a type
was written to be true whenever the analysis emits a fact of that type: it says
what the fact means for a game master preparing the session, with no number, no
comparison the fact does not establish, and no side or combatant named (it
refers to the fact's own subject: « ce camp », « son camp », « ce combattant »).

Ids are short (a few tokens of the model's answer each) and unique; texts are
unique too, so two lines of a report never end alike.

>>> CLAUSES["duree:courts"][0]
('DC1', 'laisse peu de temps pour corriger une erreur de placement')
>>> len(BY_ID) == sum(len(v) for v in CLAUSES.values())
True
"""

from __future__ import annotations

#: clause type → ``(id, text)`` of each vetted continuation, in the template's order of
#: preference (the first is the template's when it needs one)
CLAUSES: dict[str, tuple[tuple[str, str], ...]] = {
    # -- the verdict (balanced, unbalanced by degree, or undecided) ----------------------
    "verdict:equilibre": (
        ("VE1", "laisse l'issue des combats ouverte"),
        ("VE2", "ne désigne aucun favori à l'avance"),
        ("VE3", "invite le maître de jeu à se préparer à plusieurs issues"),
        ("VE4", "rend l'issue de la rencontre incertaine"),
        ("VE5", "ne sépare aucun camp au-delà du hasard"),
    ),
    # no side ahead of all the others, and no balance shown: the intervals are wide, or
    # some sides are apart from others
    "verdict:indecis": (
        ("VI1", "ne permet pas de désigner un favori unique"),
        ("VI2", "ne suffit pas à conclure que la rencontre est équilibrée"),
        ("VI3", "laisse incertain le camp qui gagnerait le plus souvent"),
        ("VI4", "invite à lire le taux de chaque camp avant de conclure"),
    ),
    "verdict:legere": (
        ("VL1", "donne un favori sans rendre l'issue certaine"),
        ("VL2", "penche la rencontre d'un côté sans la décider"),
        ("VL3", "laisse l'issue de chaque combat encore ouverte"),
        ("VL4", "suggère un léger réglage si l'on vise un combat serré"),
        ("VL5", "mérite d'être gardé en tête pendant la préparation"),
    ),
    "verdict:nette": (
        ("VN1", "donne un favori clair à la rencontre"),
        ("VN2", "rend la rencontre rude pour tout autre camp"),
        ("VN3", "appelle un réglage si l'on vise un combat serré"),
        ("VN4", "oriente nettement l'issue des combats"),
        ("VN5", "mérite d'être corrigé avant la séance si l'on veut un combat disputé"),
    ),
    "verdict:ecrasante": (
        ("VC1", "appelle un réglage avant de jouer la rencontre"),
        ("VC2", "rend la rencontre très rude pour tout autre camp"),
        ("VC3", "installe un favori très net"),
        ("VC4", "demande de revoir la composition des camps si l'on vise un combat disputé"),
        ("VC5", "appelle des changements nets pour rééquilibrer la rencontre"),
    ),
    # -- a side clearly behind every other (three sides or more) --------------------------
    "outsider": (
        ("OU1", "le place derrière chacun des autres camps"),
        ("OU2", "en fait le camp le moins souvent victorieux"),
        ("OU3", "invite à le renforcer si l'on veut lui donner sa chance"),
        ("OU4", "mérite l'attention du maître de jeu pendant la préparation"),
    ),
    # -- wide intervals ------------------------------------------------------------------------
    "precision": (
        ("PR1", "invite à simuler davantage de combats avant de conclure"),
        ("PR2", "appelle à la prudence avant de modifier la rencontre"),
        ("PR3", "laisse une large part d'incertitude sur le verdict"),
        ("PR4", "demande de confirmer le verdict avec plus de combats"),
        ("PR5", "conseille de ne pas tirer de conclusion hâtive"),
    ),
    # -- draws -----------------------------------------------------------------------------------
    "nuls:aucun": (
        ("NA1", "garantit une issue nette à chaque combat"),
        ("NA2", "épargne à la table les combats sans vainqueur"),
        ("NA3", "évite les fins de combat sans issue"),
        ("NA4", "ne demande aucun réglage du plafond de rounds"),
    ),
    "nuls:rares": (
        ("NR1", "laisse presque toujours un vainqueur"),
        ("NR2", "compte peu pour la préparation"),
        ("NR3", "pèse peu sur le déroulement de la séance"),
        ("NR4", "permet d'attendre un vainqueur dans la plupart des combats"),
    ),
    "nuls:plafond": (
        ("NP1", "laisse beaucoup de combats sans vainqueur"),
        ("NP2", "signale des combats qui s'enlisent jusqu'au plafond"),
        ("NP3", "invite à revoir le plafond de rounds"),
        ("NP4", "rend l'issue de nombreux combats indécise"),
    ),
    "nuls:ko": (
        ("NK1", "montre des camps qui peuvent tomber ensemble"),
        ("NK2", "prive de nombreux combats de vainqueur"),
        ("NK3", "rend fréquentes les fins de combat sans combattant debout"),
        ("NK4", "demande de prévoir des combats qui laissent tous les camps à terre"),
    ),
    # -- length ----------------------------------------------------------------------------------
    "duree:courts": (
        ("DC1", "laisse peu de temps pour corriger une erreur de placement"),
        ("DC2", "donne beaucoup de poids aux premiers rounds"),
        ("DC3", "rend la rencontre rapide à jouer à la table"),
        ("DC4", "demande une préparation soignée du placement initial"),
    ),
    "duree:moyens": (
        ("DM1", "laisse le temps aux tactiques de se mettre en place"),
        ("DM2", "tient dans une portion raisonnable de la séance"),
        ("DM3", "ne demande pas de prévoir un temps de jeu particulier"),
        ("DM4", "donne une rencontre de durée ordinaire à la table"),
    ),
    "duree:longs": (
        ("DL1", "demande de prévoir du temps de jeu pour cette rencontre"),
        ("DL2", "fait de la rencontre un morceau important de la séance"),
        ("DL3", "invite à garder un rythme soutenu à la table"),
        ("DL4", "laisse le temps aux tactiques de chaque camp de peser"),
    ),
    "duree:plafonnes": (
        ("DP1", "laisse inconnue la durée réelle d'une partie des combats"),
        ("DP2", "invite à relever le plafond pour mesurer ces combats"),
        ("DP3", "signale des combats qui s'arrêtent sans vainqueur"),
        ("DP4", "demande de prévoir des combats qui vont jusqu'au bout du temps imparti"),
    ),
    # -- who carries the fight: its own side favoured, behind, or a balanced report -------
    "porteur:favori": (
        ("CF1", "en fait un pilier du camp favori"),
        ("CF2", "en fait une cible prioritaire pour ses adversaires"),
        ("CF3", "rend sa survie précieuse pour son camp"),
        ("CF4", "désigne le combattant à surveiller en premier"),
    ),
    "porteur:perdant": (
        ("CP1", "ne suffit pas à faire gagner son camp"),
        ("CP2", "en fait la principale menace d'un camp qui n'est pas favori"),
        ("CP3", "en fait une cible de premier ordre pour ses adversaires"),
        ("CP4", "désigne le combattant à observer en premier"),
    ),
    "porteur:equilibre": (
        ("CE1", "pèse dans une rencontre qu'aucun camp ne domine"),
        ("CE2", "en fait une cible de choix pour ses adversaires"),
        ("CE3", "rend sa survie importante pour son camp"),
        ("CE4", "désigne le combattant à suivre de près"),
    ),
    # -- a combatant of the leading side that falls often ---------------------------------
    "expose": (
        ("EX1", "en fait le point faible de son camp"),
        ("EX2", "invite ses alliés à le protéger"),
        ("EX3", "invite à prévoir des soins pour ce combattant"),
        ("EX4", "demande de soigner son placement"),
    ),
    # -- one-sided attrition ---------------------------------------------------------------------
    "sens_unique": (
        ("SU1", "laisse ce camp sans vraie menace pour ses adversaires"),
        ("SU2", "invite à revoir l'armement ou la tactique de ce camp"),
        ("SU3", "rend ce camp peu dangereux à la table"),
        ("SU4", "épargne largement ses adversaires"),
    ),
    # -- a combatant that never hits -------------------------------------------------------------
    "inactif": (
        ("IN1", "invite à vérifier ses armes, sa portée ou sa politique"),
        ("IN2", "peut signaler une erreur dans sa fiche ou sa politique"),
        ("IN3", "mérite un contrôle avant de se fier au rapport"),
        ("IN4", "demande de relire sa fiche de combattant"),
        ("IN5", "appelle une vérification de ce combattant avant la séance"),
        ("IN6", "invite à contrôler son équipement"),
    ),
    # -- a side that never, or almost never, reaches melee --------------------------------
    "contact:jamais": (
        ("MJ1", "invite à vérifier ses armes, le terrain ou sa politique"),
        ("MJ2", "prive ce camp de toute attaque au contact"),
        ("MJ3", "mérite un contrôle de la carte et des déplacements"),
        ("MJ4", "demande de relire la politique de ce camp"),
    ),
    "contact:presque_jamais": (
        ("MP1", "invite à contrôler ses armes, le terrain ou sa politique"),
        ("MP2", "prive presque toujours ce camp d'attaque au contact"),
        ("MP3", "mérite une vérification de la carte et des déplacements"),
        ("MP4", "demande de relire la tactique de ce camp"),
    ),
    # -- levers ------------------------------------------------------------------------------------
    "levier:effectif": (
        ("LE1", "offre un réglage simple à essayer"),
        ("LE2", "change directement le rapport de forces"),
        ("LE3", "se vérifie en simulant la rencontre modifiée"),
        ("LE4", "reste à confirmer par une nouvelle simulation"),
    ),
    "levier:porteur": (
        ("LP1", "vise le combattant qui inflige le plus de dégâts dans le camp favori"),
        ("LP2", "laisse le reste de la rencontre intact"),
        ("LP3", "demande peu de changements à une seule fiche"),
        ("LP4", "se contrôle par une nouvelle simulation"),
    ),
    "levier:aucun": (
        ("LA1", "facilite la préparation de la séance"),
        ("LA2", "laisse le maître de jeu se concentrer sur la mise en scène"),
        ("LA3", "évite de retoucher les fiches des combattants"),
        ("LA4", "permet de jouer la rencontre sans délai"),
    ),
    "levier:runs": (
        ("LR1", "coûte seulement un peu de temps de calcul"),
        ("LR2", "donnera un verdict plus fiable"),
        ("LR3", "se fait sans toucher à la rencontre"),
        ("LR4", "précisera les taux de victoire de chaque camp"),
    ),
    "levier:plafond": (
        ("LC1", "peut réduire le nombre de nuls"),
        ("LC2", "peut montrer la durée réelle de ces combats"),
        ("LC3", "se fait sans toucher aux combattants"),
        ("LC4", "demande seulement une nouvelle simulation"),
    ),
}

#: clause id → ``(type, text)``
BY_ID: dict[str, tuple[str, str]] = {
    cid: (kind, text) for kind, options in CLAUSES.items() for cid, text in options
}


def offers(types: list[str]) -> list[tuple[tuple[str, str], ...]]:
    """The clauses offered to each fact of a report, given the facts' clause types.

    Facts of the same type (two combatants that never hit…) share its clauses out
    in turn, so that no two lines of a report can end alike; a type with fewer
    clauses than facts gives some facts one clause twice over, never none.

    >>> [tuple(c for c, _ in o) for o in offers(["expose", "inactif", "inactif"])]
    [('EX1', 'EX2', 'EX3', 'EX4'), ('IN1', 'IN3', 'IN5'), ('IN2', 'IN4', 'IN6')]
    """
    count = {t: types.count(t) for t in types}
    seen: dict[str, int] = {}
    out: list[tuple[tuple[str, str], ...]] = []
    for t in types:
        i = seen.get(t, 0)
        seen[t] = i + 1
        options = CLAUSES[t]
        n = count[t]
        mine = options[i::n] if n <= len(options) else (options[i % len(options)],)
        out.append(mine)
    return out
