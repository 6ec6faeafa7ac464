"""The dataset card (README.md) that makes `datasets.load_dataset` read the ranking snapshot
alone (`configs`): a store holds the raw submissions as JSON beside it, which load_dataset
would otherwise try to read as one table and fail to cast. Written with the snapshot, into
a local store's folder and a Hub repo; a card the maintainers wrote keeps its text and
front matter and gains the `configs` entry."""
from __future__ import annotations

import logging

log = logging.getLogger(__name__)

CARD_FILE = "README.md"
RANKING_CONFIG = {"config_name": "default", "data_files": "leaderboard.parquet"}  # the snapshot (SNAPSHOT_FILE)


def card_update(existing: bytes | None, benchmark_name: str | None) -> bytes | None:
    """The card to write so that load_dataset returns the ranking: ours when there is none,
    `existing` with RANKING_CONFIG as its default config (other configs kept), or None when
    it already has it or cannot be read as a card (left as the maintainers wrote it, with a
    warning in the log)."""
    if existing is None:
        return dataset_card(benchmark_name)
    import yaml  # here, as huggingface_hub: a validate or presubmit never writes a card
    from huggingface_hub import DatasetCard
    try:
        card = DatasetCard(existing.decode())
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as e:  # not UTF-8, not YAML, not a mapping
        log.warning("%s is not a dataset card that can be read (%s): left unchanged, so load_dataset may not "
                    "return the ranking", CARD_FILE, e)
        return None
    configs = card.data.get("configs")
    configs = configs if isinstance(configs, list) else []
    if RANKING_CONFIG in configs:
        return None
    card.data["configs"] = [RANKING_CONFIG, *(c for c in configs
                                               if not (isinstance(c, dict) and c.get("config_name") == "default"))]
    return str(card).encode()


def dataset_card(benchmark_name: str | None) -> bytes:
    """Our README.md: its `configs` make load_dataset read only the snapshot; titled by the
    benchmark's name when the store knows it."""
    title = f"{benchmark_name} duel leaderboard" if benchmark_name else "Duel leaderboard"
    return f"""---
configs:
- config_name: default
  data_files: leaderboard.parquet
---
# {title}

`leaderboard.parquet` is the current ranking, one row per published model: ids, metadata
(`publisher`: the Hugging Face account that published it from the app, signed in; empty when
the maintainers published it), whether the maintainers flagged it (`flagged`, `flag_reason`, `flag_link`; flagged models
are ranked like the others and weigh nothing in the others' scores), rank, overall score,
one column per category and per task (scores as fractions: under the default rule the
share of the other models a model's result beats, near-copies counted once; under
`top-of-its-day` the Win Score), `duel_wins_<scope>` (default rule: the share of the
reference panel beaten in significant duels), and per scope
(`overall` and each category) how certain the score and rank are:
`<scope>_score_low`/`_score_high` (95% interval of the score), `<scope>_rank_low`/`_rank_high`
(95% interval of the rank) and `<scope>_group` (tie group, "A" = the top group; see the app's
About tab for the method).
It is written again after every publication, once the new ranking's intervals are computed
(until then it is the ranking before that publication). Raw per-sample submissions are in
`data/`, all duels (p-values, deltas, and the rules that computed them) in
`duels/<submission_id>.parquet`, one file per publication, and the models' titles in
`titles/<xx>.json` (by the first two hex digits of the sha256 of the submission id).
""".encode()
