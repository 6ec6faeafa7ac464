"""The board's scores and its reference panel.

- **Scores.** A model's score on a task is its field score (`stats.field`): the share of
  the other published models whose task score its own beats (equal: half), a family of
  near-copies (`stats.field.near_copies`) counting as one model (its medoid), flagged
  models not at all. Category and overall scores are means, as always
  (`ranking.scores_from_win_scores`). It is defined directly from the task scores of the
  set of models: one answer, whatever the order of publication; raising a model's own
  task score never lowers its score or its rank; copies of a model add no weight.
- **The reference panel** holds the opponents every model duels: the K best models by
  overall score (K: the benchmark's `top_opponents`), at most one seat per family of
  near-copies, flagged models never, ties to the smaller submission id. (Not one per
  team: distinct models of one team are distinct opponents, and a team name is typed.) It
  depends on no duel, so it is settled in one pass. Every model duels every member, both
  directions: when a model enters the panel, the models that have not dueled it do so
  then (one vectorized pass per task, `tournament.duel_rows`). A model's **duel wins**
  on a task are the share of the members (other than itself) it beats there (a
  significant duel): evidence shown beside the score, not what the board ranks by.

A duel's verdict depends only on the pair (the tests are seeded per task), so the panel,
every score, every duel win and every rank are the same whatever order the models were
published in.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Collection, Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from leaderboard.config.tasks import Benchmark
from leaderboard.engine import ranking
from leaderboard.engine.board_model import BoardModel
from leaderboard.engine.tournament import DuelRows, ModelResults, Tournament, duel_rows, rules_description, rules_id
from stats import field
from stats.arrays import FloatArray


@dataclass(frozen=True)
class Standing:
    """What the scores and the panel's seats are made of, kept with a settled panel so
    that a pre-submission's model is counted in alone (`with_model`).

    signed: (n_models, n_tasks) task scores, larger is better (NaN: no result); flagged:
    the flagged models; eligible: (n_models,) bool, not flagged; id_order: (n_models,)
    int, each id's place in sorted order (ties go to the smaller id); copies: the
    families; weights: (n_models,) each model's weight as an opponent (0 or 1); counts:
    the field counts, (n_tasks, n_models); linked_to: every model a kept link names."""

    signed: np.ndarray
    flagged: frozenset[str]
    eligible: np.ndarray
    id_order: np.ndarray
    copies: field.NearCopies
    weights: np.ndarray
    counts: field.FieldCounts
    linked_to: frozenset[str]

    def with_model(self, ids: list[str], signed: np.ndarray) -> Standing:
        """The standing with one model more, ids[-1] (`ids`: every model, in order; the
        others are this standing's): signed (n_tasks,) its task scores. Only for a model
        that is not flagged, links to nobody and no kept link names: a family of its own.
        O(n_models n_tasks), no sort: what `_standing` would make of all of them."""
        newcomer = ids[-1]
        before = int(np.count_nonzero(np.array(ids[:-1], dtype=object) < newcomer))  # ids sorted before it
        id_order = np.append(self.id_order + (self.id_order >= before), before)
        family = np.append(self.copies.family, int(self.copies.family.max(initial=-1)) + 1)
        copies = field.NearCopies(family, np.append(self.copies.representative, True), self.copies.pairs,
                                  self.copies.share)
        counts = self.counts.with_model(signed, self.signed.T, self.weights, 1.0)
        return Standing(np.vstack([self.signed, signed]), self.flagged, np.append(self.eligible, True), id_order,
                        copies, np.append(self.weights, 1.0), counts, self.linked_to)


@dataclass(frozen=True)
class Panel:
    """The board's scores and its settled panel.

    members: the panel's submission ids, best first; model_ids: every model, in the
    tournament's order; field_scores: (n_models, n_tasks) each model's field share per
    task (NaN for a model without results); win_scores: (n_models, n_tasks) the share of
    the panel beaten in significant duels, NaN for a model without panel duels; family:
    (n_models,) int, the families of near-copies; copies: the near-copy pairs found;
    backfilled: per member that got new duels, the models that dueled it then; standing:
    what the scores were made of; duel_parts: the duel rows the duel wins were counted from."""

    members: tuple[str, ...]
    model_ids: tuple[str, ...]
    field_scores: np.ndarray
    win_scores: np.ndarray
    family: np.ndarray
    copies: field.NearCopies
    backfilled: Mapping[str, tuple[str, ...]]
    standing: Standing
    duel_parts: tuple[DuelRows, ...]

    def scores(self, benchmark: Benchmark) -> pd.DataFrame:
        """Task, category and overall field scores (`ranking.scores_table`'s shape);
        `attrs`: "panel" the members, "family" each model's family (a Series by id: the
        ranks count a family once, `ranking.ranked`), "duel_wins" the duel wins in the same
        shape."""
        ids = list(self.model_ids)
        table = ranking.scores_from_win_scores(self.field_scores, ids, benchmark)
        table.attrs["panel"] = self.members
        table.attrs["family"] = pd.Series(self.family, index=ids)
        table.attrs["representative"] = pd.Series(self.copies.representative, index=ids)
        table.attrs["duel_wins"] = ranking.scores_from_win_scores(self.win_scores, ids, benchmark)
        return table


class _Columns:
    """Per member, every model's duels against it: won and fought, each (n_models,
    n_tasks), read from the rows once, so that each panel the iteration visits costs a
    sum over its members rather than a pass over every stored row."""

    def __init__(self, n_models: int, n_tasks: int):
        self.shape = (n_models, n_tasks)
        self.won: dict[int, np.ndarray] = {}
        self.fought: dict[int, np.ndarray] = {}

    def read(self, parts: list[DuelRows], members: Iterable[int]) -> None:
        """Read the columns of the members not read yet: the first part's as it keeps them
        (`DuelRows.column`: the board's rows, the same for every pre-submission), the later
        parts' entered over them."""
        new = [int(m) for m in members if int(m) not in self.won]
        if not new or not parts:
            for m in new:
                self.won[m], self.fought[m] = np.zeros(self.shape, dtype=bool), np.zeros(self.shape, dtype=bool)
            return
        for m in new:
            won, fought = parts[0].column(m, self.shape[0])
            self.won[m], self.fought[m] = won.copy(), fought.copy()
        for rows in parts[1:]:
            self.add(rows, new)

    def add(self, rows: DuelRows, members: list[int]) -> None:
        """Enter `rows` into the columns of `members`."""
        for member in members:
            first, won, fought = rows.against(member)
            self.won[member][first], self.fought[member][first] = won, fought

    def win_scores(self, members: Iterable[int]) -> FloatArray:
        won, fought = np.zeros(self.shape), np.zeros(self.shape)
        for m in members:
            won += self.won[int(m)]
            fought += self.fought[int(m)]
        with np.errstate(invalid="ignore", divide="ignore"):
            scores: FloatArray = won / np.where(fought > 0, fought, np.nan)
        return scores


def dueled(parts: Iterable[DuelRows], n_models: int, members: np.ndarray, involving: list[int] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Which models have a stored duel against each member, and which members one against
    each model: (model vs member, member vs model), each (n_models, len(members)) bool;
    a member against itself counts as both. involving: look only at the duels of these
    models (the others' cells stay False)."""
    position = np.full(n_models, -1, dtype=np.int64)
    position[members] = np.arange(len(members))
    forward = np.zeros((n_models, len(members)), dtype=bool)
    backward = np.zeros((n_models, len(members)), dtype=bool)
    for rows in parts:
        first, second = rows.first, rows.second
        if involving is not None:
            theirs = np.isin(first, involving) | np.isin(second, involving)
            first, second = first[theirs], second[theirs]
        to_member = position[second] >= 0
        forward[first[to_member], position[second[to_member]]] = True
        from_member = position[first] >= 0
        backward[second[from_member], position[first[from_member]]] = True
    forward[members, np.arange(len(members))] = backward[members, np.arange(len(members))] = True
    return forward, backward


def missing_duels(tournament: Tournament, members: list[str]) -> dict[str, list[str]]:
    """Per model, the panel members it has no stored duel with (in either direction)."""
    index = np.array([tournament.index(m) for m in members], dtype=np.int64)
    forward, backward = dueled(tournament.parts(), len(tournament.model_ids), index)
    done = forward & backward
    out: dict[str, list[str]] = {}
    for i, k in zip(*np.nonzero(~done)):
        out.setdefault(tournament.model_ids[i], []).append(members[k])
    return out


def settle(benchmark: Benchmark, tournament: Tournament, results: Mapping[str, ModelResults],
           flagged: Collection[str] = frozenset(), rules: str | None = None, backfill: bool = True,
           links: Mapping[str, Mapping[str, float]] | None = None,
           backfill_only: Collection[str] | None = None, base: Panel | None = None) -> Panel:
    """The scores and the panel of the models of `tournament` (every one needs its
    `results`; see the module's text for the definitions).

    links: per model, its near-copy links kept with its publication (`NEAR_COPIES` in its
    metadata, `near_copy_metadata`), so that no array is read; None: found here from the
    results, every pair looked at (simulations, tests).
    backfill: run, into `tournament`, the duels the panel lacks (under `rules`, default
    the benchmark's); without it the stored duels alone give the duel wins.
    backfill_only: run only the lacking duels of these models with the members (and of the
    members with them): a pre-submission's, whose entering the panel would otherwise duel
    every model on the board; the others' duel wins then do not count it yet.
    base: the settled panel of these models without the last one (a pre-submission's
    board): when the newcomer makes a family of its own, it alone is counted in."""
    ids, task_ids = tournament.model_ids, tournament.task_ids
    n = len(ids)
    flagged = frozenset(flagged)
    extends = _extends(base, ids, flagged, links)
    if extends:
        assert base is not None
        standing = base.standing.with_model(ids, signed_task_scores(benchmark, task_ids, results, ids[-1:])[0])
    else:
        standing = _standing(benchmark, tournament, results, flagged, links)
    shares = standing.counts.shares.T
    members = _seats(standing, shares @ _task_weights(benchmark, task_ids), benchmark.top_opponents)
    backfilled: dict[str, list[str]] = {}
    if backfill:
        only = None if backfill_only is None else [tournament.index(m) for m in backfill_only]
        _backfill(benchmark, tournament, results, tuple(members), rules or rules_id(rules_description(benchmark)),
                  backfilled, only)
    parts = tuple(tournament.parts())
    win_scores = _win_scores_counted_in(base, parts, members) if extends else None
    if win_scores is None:
        columns = _Columns(n, len(task_ids))
        columns.read(list(parts), members)
        win_scores = columns.win_scores(members)
    return Panel(tuple(ids[i] for i in members), tuple(ids), shares, win_scores, standing.copies.family,
                 standing.copies, {m: tuple(v) for m, v in backfilled.items()}, standing, parts)


def _win_scores_counted_in(base: Panel | None, parts: tuple[DuelRows, ...], members: list[int]) -> np.ndarray | None:
    """The duel wins of `base`'s models and a newcomer (the last model), (n_models,
    n_tasks), when the panel kept its members and the rows added since `base` (`parts`
    beyond its own) are the newcomer's: base's own, and the newcomer's counted from its
    rows. None otherwise (the caller counts them all)."""
    assert base is not None
    newcomer, kept = len(base.model_ids), len(base.duel_parts)
    if (newcomer in members or tuple(base.model_ids[m] for m in members) != base.members or len(parts) < kept
            or any(mine is not theirs for mine, theirs in zip(parts, base.duel_parts))
            or any(((rows.first != newcomer) & (rows.second != newcomer)).any() for rows in parts[kept:])):
        return None
    position = np.full(newcomer + 1, -1, dtype=np.int64)  # a model's place in the panel, -1 outside it
    position[members] = np.arange(len(members))
    won = np.zeros((len(members), base.win_scores.shape[1]), dtype=bool)
    fought = np.zeros_like(won)
    for rows in parts[kept:]:  # as `_Columns` enters them: a repeated pair's later row last
        mine = (rows.first == newcomer) & (position[rows.second] >= 0)
        at = position[rows.second[mine]]
        won[at], fought[at] = (rows.fought & rows.significant)[mine], rows.fought[mine]
    count = fought.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        own = won.sum(axis=0) / np.where(count > 0, count, np.nan)
    return np.vstack([base.win_scores, own])


def _extends(base: Panel | None, ids: list[str], flagged: frozenset[str],
             links: Mapping[str, Mapping[str, float]] | None) -> bool:
    """Whether the standing of `ids` is `base`'s with the last model counted in alone: the
    others are base's, in order, under the same flags, and the newcomer neither is flagged
    nor links to a model nor is named by a kept link (so it makes a family of its own)."""
    return (base is not None and links is not None and len(ids) == len(base.model_ids) + 1
            and flagged == base.standing.flagged and ids[-1] not in flagged and not links.get(ids[-1])
            and ids[-1] not in base.standing.linked_to and tuple(ids[:-1]) == base.model_ids)


def _standing(benchmark: Benchmark, tournament: Tournament, results: Mapping[str, ModelResults],
              flagged: frozenset[str], links: Mapping[str, Mapping[str, float]] | None) -> Standing:
    """The standing of the models of `tournament`, every one counted (see `settle`)."""
    ids, task_ids = tournament.model_ids, tournament.task_ids
    n = len(ids)
    signed = signed_task_scores(benchmark, task_ids, results, ids)
    eligible = np.array([m not in flagged for m in ids], dtype=bool)
    id_order = np.array(ids, dtype=object).argsort().argsort()  # ties go to the smaller submission id
    if links is None and n:  # every pair looked at: reads the candidates' arrays
        def replicates_of(indices: Iterable[int]) -> Iterator[np.ndarray]:
            return ranking.task_replicates(benchmark, results, [ids[i] for i in indices])
        noise = field.task_noise(replicates_of(range(n)))
        # a flagged model is nobody's near-copy: it weighs nothing to share
        copies = field.near_copies(np.where(eligible[:, None], signed, np.nan), noise, replicates_of, id_order)
        linked_to: frozenset[str] = frozenset()
    else:
        copies = linked_copies(ids, links or {}, eligible, id_order)
        linked_to = frozenset(other for theirs in (links or {}).values() for other in (theirs or {}))
    weights = field.family_weights(copies.family, copies.representative) * eligible
    return Standing(signed, flagged, eligible, id_order, copies, weights, field.field_counts(signed.T, weights),
                    linked_to)


def _seats(standing: Standing, overall: np.ndarray, size: int) -> list[int]:
    """The panel's members, best first: the `size` best eligible models by `overall`, one
    seat per family, ties to the smaller submission id."""
    order = np.lexsort((standing.id_order, -np.where(np.isnan(overall), -np.inf, np.round(overall, 9))))
    members: list[int] = []
    families_seated = set()
    for i in order:
        if len(members) == size:
            break
        if not standing.eligible[i] or np.isnan(overall[i]) or standing.copies.family[i] in families_seated:
            continue
        members.append(int(i))
        families_seated.add(standing.copies.family[i])
    return members


# What a publication keeps in its model's metadata about near-copies (`near_copy_metadata`).
TASK_NOISE, NEAR_COPIES = "task_noise", "near_copies"


@dataclass(frozen=True)
class Candidates:
    """The published models a newcomer may nearly copy, what `near_copy_metadata` compares
    it with: ids, the models that kept their TASK_NOISE; scores and noise, (len(ids),
    n_tasks) their signed task scores and standard errors. Made once per board content
    (`Leaderboard.near_copy_candidates`) for every pre-submission."""

    ids: list[str]
    scores: np.ndarray
    noise: np.ndarray


def near_copy_candidates(benchmark: Benchmark, models: Mapping[str, BoardModel]) -> Candidates:
    """The `Candidates` among `models` (id -> a model with `results` and `metadata`); a model
    published before TASK_NOISE was kept is nobody's candidate."""
    task_ids = benchmark.task_ids
    ids = [m for m in models if TASK_NOISE in models[m].metadata]
    results = {m: models[m].results for m in ids}
    key = (TASK_NOISE, tuple(task_ids))
    noise = np.array([models[m].results.kept_vector(key, lambda: [models[m].metadata[TASK_NOISE].get(t, np.nan)
                                                                for t in task_ids]) for m in ids],
                     dtype=float).reshape(len(ids), len(task_ids))
    return Candidates(ids, signed_task_scores(benchmark, task_ids, results, ids), noise)


def near_copy_metadata(benchmark: Benchmark, models: Mapping[str, BoardModel], sid: str,
                       candidates: Candidates | None = None) -> dict[str, dict[str, float]]:
    """What the publication of model `sid` keeps about near-copies, found against the
    published `models` (id -> a model with `results` and `metadata`; `candidates`: theirs,
    when made already) with its own arrays and its candidates' alone: TASK_NOISE its
    bootstrap standard error per task (task id -> float), NEAR_COPIES the published models
    it nearly copies (id -> difference share, `stats.field`)."""
    task_ids = benchmark.task_ids
    results = {sid: models[sid].results}
    own_noise = field.task_noise(ranking.task_replicates(benchmark, results, [sid]))[0]
    noise_of = {TASK_NOISE: dict(zip(task_ids, own_noise.tolist()))}
    if candidates is None:
        candidates = near_copy_candidates(benchmark, {m: model for m, model in models.items() if m != sid})
    own = signed_task_scores(benchmark, task_ids, results, [sid])[0]
    close = [candidates.ids[k] for k in np.flatnonzero(field.candidates_of(own, own_noise, candidates.scores,
                                                                          candidates.noise))]
    if not close:  # no arrays to read
        return {**noise_of, NEAR_COPIES: {}}
    results.update({m: models[m].results for m in close})
    share = field.difference_share(ranking.task_replicates(benchmark, results, [sid, *close]),
                                   np.column_stack([np.zeros(len(close), dtype=int), 1 + np.arange(len(close))]))
    return {**noise_of, NEAR_COPIES: {m: float(x) for m, x in zip(close, share) if x <= field.NEAR_COPY_SHARE}}


def signed_task_scores(benchmark: Benchmark, task_ids: list[str], results: Mapping[str, ModelResults],
                       ids: list[str]) -> np.ndarray:
    """The models' task scores, larger is better (the metric's sign applied): (len(ids),
    len(task_ids)), NaN where a model has no result."""
    signs = np.array([benchmark.task(t).metric.sign for t in task_ids])
    key = ("aggregates", tuple(task_ids))

    def vector(of: ModelResults) -> np.ndarray:  # `of` looked up once, not once a task (a lazy mapping's)
        return of.kept_vector(key, lambda: [of.aggregates.get(t, np.nan) for t in task_ids])
    scores: FloatArray = np.array([vector(results[m]) for m in ids], dtype=float).reshape(len(ids), len(task_ids)) * signs
    return scores


def linked_copies(ids: list[str], links: Mapping[str, Mapping[str, float]], eligible: np.ndarray,
                  tie_order: np.ndarray) -> field.NearCopies:
    """The families of the models `ids` from their kept links (model -> {other: share});
    links to a model not on the board or not `eligible` (flagged) are left out."""
    position = {m: i for i, m in enumerate(ids)}
    found: dict[tuple[int, int], float] = {}
    for m, theirs in links.items():
        for other, share in (theirs or {}).items():
            if m in position and other in position and eligible[position[m]] and eligible[position[other]]:
                low, high = sorted((position[m], position[other]))
                found[low, high] = float(share)
    pairs = np.array(sorted(found), dtype=int).reshape(-1, 2)
    return field.linked(len(ids), pairs, np.array([found[tuple(p)] for p in pairs]), tie_order)


def _task_weights(benchmark: Benchmark, task_ids: list[str]) -> np.ndarray:
    """`Benchmark.task_weights` as an array in the order of `task_ids`: (n_tasks,)."""
    weights = benchmark.task_weights
    return np.array([weights[t] for t in task_ids])


def _backfill(benchmark: Benchmark, tournament: Tournament, results: Mapping[str, ModelResults],
              panel: tuple[int, ...], rules: str, backfilled: dict[str, list[str]],
              only: list[int] | None = None) -> None:
    """Duel each member against every model that has no stored duel with it (with `only`:
    the pairs of those models with the members, and of the members with those among
    them), into `tournament`, in one addition (a pair of two members lacking each other
    once)."""
    members = np.array(panel, dtype=np.int64)
    ids = tournament.model_ids
    position = np.full(len(ids), -1, dtype=np.int64)  # a model's place in the panel, -1 outside it
    position[members] = np.arange(len(members))
    forward, backward = dueled(tournament.parts(), len(ids), members, only)
    todo = ~(forward & backward)  # (model, member) pairs to duel; a pair of two members has two cells
    if only is not None:
        wanted = np.zeros_like(todo)
        wanted[only] = True
        at = position[only]
        wanted[members[:, None], at[at >= 0][None, :]] = True
        todo &= wanted
    new = []
    while todo.any():  # one duel pass per member that many models lack, or per model that lacks many members
        per_member, per_model = todo.sum(axis=0), todo.sum(axis=1)
        if per_member.max() >= per_model.max():
            column = int(np.argmax(per_member))
            one, lacking = members[column], np.flatnonzero(todo[:, column])
            todo[:, column] = False
            todo[one, position[lacking[position[lacking] >= 0]]] = False
            backfilled.setdefault(ids[one], []).extend(ids[i] for i in lacking)
        else:
            one = int(np.argmax(per_model))
            lacking = members[np.flatnonzero(todo[one])]
            todo[one] = False
            if position[one] >= 0:
                todo[lacking, position[one]] = False
            for member in lacking:
                backfilled.setdefault(ids[member], []).append(ids[one])
        new.append(duel_rows(benchmark, tournament, ids[one], [ids[i] for i in lacking], results, rules))
    if not new:
        return
    rows = DuelRows.concat(new, len(tournament.task_ids))
    to_member = position[rows.second] >= 0  # else the first is the member
    stored = np.where(to_member, forward[rows.first, np.maximum(position[rows.second], 0)],
                      backward[rows.second, np.maximum(position[rows.first], 0)])  # one direction may be stored
    tournament.add_rows(rows.take(~stored))
