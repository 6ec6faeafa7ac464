"""The administration role: remove, flag and unflag a model, rebuild and migrate the
duels, check the store's integrity, export the reference layout. Every write is one commit."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard.board.reader import BoardReader
from leaderboard.board.writing import NOTHING_CHANGED, locked, rewrite, stale_snapshot, write
from leaderboard.config.tasks import PANEL
from leaderboard.engine import panel as reference_panel, ranking, replay
from leaderboard.engine.replay import duel_file_owners, missing_duels, run_missing_duels, submitted_times
from leaderboard.engine.tournament import DuelRows, Tournament, duel_rows
from leaderboard.errors import BadInput, NotFound
from leaderboard.engine.progress import Progress, no_progress
from leaderboard.storage.flags import Flag, flags_json, validate_flag
from leaderboard.storage.store import TITLES_FILE, TOURNAMENT_FILE, BoardRewrite
from leaderboard.storage.snapshot import snapshot_parquet
from leaderboard.strict_json import dump_json
from leaderboard.submission.metadata import normalize_name


@dataclass
class RebuildReport:
    """What a rebuild did: model pairs dueled for missing duels; with --recompute, pairs
    dueled again under the current rules, the verdicts that changed, and the ranks that
    moved: from the ranking of the stored duels under the rule they were run for (the
    reference panel when every model has dueled its members, else the top models of
    each one's day) to the ranking after, under the tasks file's rule."""

    dueled: int = 0
    recomputed_pairs: int = 0
    changed: list[tuple[str, str, str, bool, bool]] = field(default_factory=list)  # task, A, B, before, after
    moved: list[tuple[str, int, int]] = field(default_factory=list)  # model, rank before, rank after


def _in_pairs(rows: DuelRows, pairs: dict[int, set[int]]) -> np.ndarray:
    """Which rows belong to an unordered pair {owner, opponent} listed in `pairs`: (P,) bool."""
    keys = {(min(o, x), max(o, x)) for o, xs in pairs.items() for x in xs}
    if not keys:
        return np.zeros(len(rows), dtype=bool)
    wanted = np.array(sorted(a << 32 | b for a, b in keys), dtype=np.int64)
    low, high = np.minimum(rows.first, rows.second).astype(np.int64), np.maximum(rows.first, rows.second)
    return np.isin(low << 32 | high.astype(np.int64), wanted)


def _changed_verdicts(before: Tournament, after: Tournament, stale: DuelRows) -> list[tuple[str, str, str, bool, bool]]:
    """(task, A, B, significant before, after) for every stale duel whose verdict changed."""
    changed = []
    for k in range(len(stale)):
        a, b = before.model_ids[stale.first[k]], before.model_ids[stale.second[k]]
        new = after.pair(a, b)
        if new is None:
            continue
        differs = (stale.significant[k] != new.significant[0]) & stale.fought[k]
        changed += [(before.task_ids[t], a, b, bool(stale.significant[k, t]), bool(new.significant[0, t]))
                    for t in np.flatnonzero(differs)]
    return changed


class Administration:
    """The maintainers' commands on `board`, built beside it (the command line)."""

    def __init__(self, board: BoardReader):
        self.board = board

    def remove(self, submission_id: str, reason: str) -> None:
        """Take a model and its duels off the board, in one write. The duels the rule now
        expects are run and written in the same commit: under the panel, those with the
        model that takes a removed member's place; under top-of-its-day, those of the
        models published after it, which dueled it instead of another top model of their day."""
        board = self.board
        if not reason.strip():
            raise BadInput("give a reason for the removal")
        with locked(board, NOTHING_CHANGED):
            board.refresh(fresh=True)
            self._require_published(submission_id)
            models = {s: m for s, m in board.models.items() if s != submission_id}
            affected = {board.tournament.model_ids[i] for part in [board.tournament.rows_involving(submission_id)]
                        for i in np.r_[part.first, part.second]} - {submission_id}
            tournament = board.tournament.subset(list(models))
            affected |= set(run_missing_duels(tournament, models, board.flags, board.benchmark, board.rules))
            legacy = board.store.read_tournament()
            if legacy:
                legacy = {a: {b: d for b, d in row.items() if b != submission_id}
                          for a, row in legacy.items() if a != submission_id}
            flags = ({s: f for s, f in board.flags.items() if s != submission_id} if submission_id in board.flags
                     else None)
            rewrite(board, tournament, models, f"Remove {submission_id}: {reason}", deleted=[submission_id, *affected],
                    only=affected, removed=submission_id, legacy=legacy or None, flags=flags)

    def flag(self, submission_id: str, reason: str, link: str | None = None) -> Flag:
        """Mark a published model (or change its flag's reason and link), in one write.
        The model stays on the board. Under the panel it leaves the panel (the model taking
        its place is dueled by all that have not, in the same commit); under top-of-its-day
        new submissions no longer duel it. A changed flag keeps its time: the replay passes
        the model over from then on, as publication did."""
        board = self.board
        reason, link = validate_flag(reason, link)
        with locked(board, NOTHING_CHANGED):
            board.refresh(fresh=True)
            self._require_published(submission_id)
            earlier = board.flags.get(submission_id)
            flag = Flag(reason, link, time.time() if earlier is None else earlier.flagged_at)
            self._write_flags({**board.flags, submission_id: flag}, f"Flag {submission_id}: {reason}")
            return flag

    def unflag(self, submission_id: str, reason: str = "") -> None:
        """Take a model's flag off, in one write."""
        board = self.board
        reason = validate_flag(reason)[0] if normalize_name(reason) else ""
        with locked(board, NOTHING_CHANGED):
            board.refresh(fresh=True)
            self._require_published(submission_id)
            if submission_id not in board.flags:
                raise BadInput(f"{submission_id} is not flagged")
            self._write_flags({s: f for s, f in board.flags.items() if s != submission_id},
                              f"Unflag {submission_id}" + (f": {reason}" if reason else ""))

    def _require_published(self, submission_id: str) -> None:
        if submission_id not in self.board.models:
            raise NotFound(f"no published model {submission_id!r}")

    def _write_flags(self, flags: dict[str, Flag], message: str) -> None:
        """Write `flags`; under the panel also the duels a change of the panel brings."""
        board = self.board
        if board.benchmark.opponents != PANEL:
            snapshot = snapshot_parquet(board.models, board.state.ranked, board.benchmark, flags)
            write(board, BoardRewrite(board.titles(), snapshot, message, flags=flags_json(flags)), board.models,
                  board.tournament, board.state.ranked, flags)
            return
        tournament = board.tournament.copy()
        owners = set(run_missing_duels(tournament, board.models, flags, board.benchmark, board.rules))
        rewrite(board, tournament, board.models, message, only=owners, flags=flags)

    def check(self) -> list[str]:
        """Integrity report: files that fail validation, duels that are missing (by the
        tasks file's rule: with the reference panel's members, or the top models of each
        model's day) and duels of models that are not published. Empty when all is well."""
        board = self.board
        board.refresh(fresh=True)
        problems = list(board.load_problems)
        for sid, missing in missing_duels(board.tournament, board.models, board.flags, board.benchmark):
            problems.append(f"{sid}: {len(missing)} missing duels (with {', '.join(missing[:3])}"
                            f"{', ...' if len(missing) > 3 else ''}); run rebuild")
        orphans = sorted(board.orphan_duels)
        if orphans:
            problems.append(f"duels of {len(orphans)} unpublished models ({', '.join(orphans[:3])}"
                            f"{', ...' if len(orphans) > 3 else ''}); run rebuild to drop them")
        return problems

    def stale_snapshot(self) -> int | None:
        """`writing.stale_snapshot`; `Publishing.refresh_intervals` writes it again."""
        return stale_snapshot(self.board)

    def rebuild(self, progress: Progress = no_progress, recompute: bool = False) -> RebuildReport:
        """Run the duels the tasks file's rule expects and the store lacks: the reference
        panel's (settled with its backfill), or each submission's with the top models of
        its day, replayed in time order. With `recompute`, first re-duel every pair whose
        stored duels were computed under other rules than the current ones, and report the
        verdicts that changed and the ranks that moved (so a store moves between the
        opponent rules: see `RebuildReport`). Duels of unpublished models are dropped.
        Writes every duel file again, in one commit."""
        board = self.board
        with locked(board, NOTHING_CHANGED):
            board.refresh(fresh=True)
            tournament, report = board.tournament.copy(), RebuildReport()
            before = self._ranks_as_stored() if recompute else None
            if recompute:
                tournament = self._recompute(tournament, report, progress)
            report.dueled = sum(run_missing_duels(tournament, board.models, board.flags, board.benchmark, board.rules,
                                                  progress).values())
            rewrite(board, tournament, board.models, "Rebuild the duels", drop_legacy=True,
                    deleted=board.store.duel_file_ids())
            if before is not None:
                after = board.state.ranked["rank"]
                report.moved = [(sid, int(before[sid]), int(after[sid])) for sid in after.index
                                if before[sid] != after[sid]]
            return report

    def _ranks_as_stored(self) -> pd.Series:
        """Ranks of the stored duels under the rule they were run for: the reference panel
        when every model has dueled its members (both rules agree when everyone dueled
        everyone), else the top models of each model's day (every stored duel counts)."""
        board = self.board
        panel = replay.board_panel(board.tournament, board.models, board.flags, board.benchmark)
        if reference_panel.missing_duels(board.tournament, list(panel.members)):
            scores = ranking.scores_table(board.tournament, board.benchmark)
        else:
            scores = panel.scores(board.benchmark)
        return ranking.ranked(scores, submitted_times(board.models))["rank"]

    def _recompute(self, tournament: Tournament, report: RebuildReport, progress: Progress) -> Tournament:
        """`tournament` with every pair that has a duel under other rules dueled again
        (both directions, all tasks); `report` gets the verdicts that changed."""
        board = self.board
        rows = tournament.rows()
        stale = rows.rules != board.rules
        owners = duel_file_owners(tournament, rows, board.models)
        pairs: dict[int, set[int]] = {}  # owner -> opponents whose pair is recomputed
        for first, second, owner in zip(rows.first[stale], rows.second[stale], owners[stale]):
            pairs.setdefault(int(owner), set()).add(int(second if owner == first else first))
        fresh = Tournament(tournament.task_ids, tournament.model_ids, rows.take(~_in_pairs(rows, pairs)))
        for k, (owner, opponents) in enumerate(sorted(pairs.items())):
            progress(k / max(len(pairs), 1), "recomputing duels under the current rules")
            ids = [tournament.model_ids[o] for o in sorted(opponents)]
            sid = tournament.model_ids[owner]
            results = {s: board.models[s].results for s in (sid, *ids)}
            fresh.add_rows(duel_rows(board.benchmark, fresh, sid, ids, results, board.rules))
        report.recomputed_pairs = sum(len(o) for o in pairs.values())
        report.changed = _changed_verdicts(tournament, fresh, rows.take(stale))
        return fresh

    def migrate(self) -> int:
        """Convert a reference-layout store (tournament.json) to per-publication duel
        files, keeping every duel as it is (its rules stay "unrecorded" until a
        `rebuild --recompute`). Returns the number of duel files written."""
        board = self.board
        with locked(board, NOTHING_CHANGED):
            board.refresh(fresh=True)
            if not board.store.read_tournament() and not board.orphan_duels:
                raise BadInput("nothing to migrate: the store has no tournament.json")
            return rewrite(board, board.tournament, board.models, "Migrate tournament.json to duels/",
                           drop_legacy=True, deleted=board.store.duel_file_ids())

    def export_reference_layout(self, folder: str | Path) -> Path:
        """Write the board in the reference dataset's layout (data/, tournament.json, the
        titles file) into `folder`, for tools that read that layout."""
        board = self.board
        folder = Path(folder)
        if folder.exists() and any(folder.iterdir()):
            raise BadInput(f"{folder} is not empty; export into a new folder")
        (folder / "data").mkdir(parents=True)
        for sid in board.models:
            (folder / "data" / f"{sid}.json").write_bytes(board.store.read_document(sid))
        (folder / TOURNAMENT_FILE).write_bytes(dump_json(board.tournament.to_json()))
        (folder / TITLES_FILE).write_bytes(dump_json(board.titles()))
        return folder
