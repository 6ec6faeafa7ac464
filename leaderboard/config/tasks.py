"""The benchmark as configuration: its name, texts, categories, tasks and duel rules, read
from a tasks file (`LEADERBOARD_TASKS`, default `data/tasks_metadata.json`).

README.md, section "Run your own benchmark", explains the file field by field.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from stats import ALPHA, METRICS, Metric
from stats.registry import UnknownName

from leaderboard.config.settings import Settings
from leaderboard.errors import BadInput
from leaderboard.strict_json import exact_text, is_finite_number

# The shipped tasks files are package data (the repository's data/ links here), so an
# installed command finds them from any folder.
SHIPPED_TASKS = Path(__file__).resolve().parents[1] / "data"
DEFAULT_TASKS_FILE = SHIPPED_TASKS / "tasks_metadata.json"
DEFAULT_TOP_OPPONENTS = 50
# Whom a model's Win Score counts duels against: "panel", the same top `top_opponents`
# models for everyone (leaderboard/engine/panel.py); "top-of-its-day", BenCzechMark's
# original rule, the top models of the day each model was published (frozen then).
PANEL, TOP_OF_ITS_DAY = "panel", "top-of-its-day"
OPPONENT_RULES = (PANEL, TOP_OF_ITS_DAY)
TASK_FIELDS = ("id", "abbreviation", "short_name", "name", "category", "metric", "dataset_url")


class TasksFileError(BadInput):
    """The tasks file is missing, not JSON, or breaks a rule; the message says which and where."""


@dataclass(frozen=True, kw_only=True)
class Task:
    id: str
    abbreviation: str
    short_name: str
    name: str
    category: str
    metric_name: str
    dataset_url: str  # may be empty: a dataset that is not public
    labels: tuple[str, ...] = ()  # label metrics: the class names, by class index
    score_range: tuple[float, float] | None = None  # judge scores: lowest and highest score
    criteria: tuple[tuple[str, float], ...] = ()  # judge scores: (criterion, weight), weights summing to 1
    # Counts [tp, fp, fn]: the classes a sample may count per class ({class: [tp, fp, fn]}),
    # and those of them the score leaves out (EuroEval's NER: MISC)
    entity_classes: tuple[str, ...] = ()
    left_out_classes: tuple[str, ...] = ()
    # Which lm-evaluation-harness task produces it (`compile`): a group whose subtasks are
    # its prompt variants (the best one is kept), or one task without variants; by
    # default the harness task of the same id.
    harness_task: str = ""
    prompt_variants: bool = False
    # The harness's side of the task: the metric key in its `results` and sample lines (by
    # default the scoring metric's name), the filter ("none" unless the task filters its
    # answers, e.g. "strict-match"), the subtasks an aggregated task concatenates in this
    # order, and the number of documents a full run has (None: not stated).
    harness_metric: str = ""
    harness_filter: str = "none"
    harness_subtasks: tuple[str, ...] = ()
    samples: int | None = None
    # The harness task versions (`versions` in results_*.json) whose results the task accepts,
    # as `harness_version` writes them ("3.0"); () accepts any. A task's meaning can change
    # between versions (MATH Lvl 5's exact_match: 2.0 the original check, 3.0 Math-Verify).
    harness_versions: tuple[str, ...] = ()
    metric_label: str = ""  # what the page calls the measure ("BLEU accuracy"); default the metric's name

    @property
    def metric(self) -> Metric:
        return METRICS[self.metric_name]

    @property
    def metric_title(self) -> str:
        return self.metric_label or self.metric.display_name

    def count_problem(self, documents: int) -> str | None:
        """Why `documents` samples are not a full run of the task, when the tasks file states
        how many a full run has (`samples`); None otherwise."""
        if self.samples is None or documents == self.samples:
            return None
        return (f"has {documents:,} documents, but a full run has {self.samples:,} (the tasks file's 'samples')"
                + ("; was the harness run with --limit?" if documents < self.samples else ""))

    @property
    def harness(self) -> str:
        return self.harness_task or self.id


@dataclass(frozen=True, kw_only=True)
class Benchmark:
    name: str
    categories: tuple[str, ...]
    tasks: tuple[Task, ...]
    description: str = ""  # one paragraph of markdown under the title
    about: str = ""  # markdown at the end of the About tab: background, changes, citation
    alpha: float = ALPHA  # a duel is won when the one-tailed p-value is at most alpha
    top_opponents: int = DEFAULT_TOP_OPPONENTS  # the panel's size (or, top-of-its-day, a new model's opponents)
    opponents: str = PANEL  # one of OPPONENT_RULES
    # Harness tasks (or groups) that older runs produce but the benchmark no longer scores:
    # `compile` skips them with a note instead of calling them unknown.
    harness_deprecated: tuple[str, ...] = ()

    @property
    def task_ids(self) -> list[str]:
        return [t.id for t in self.tasks]

    def task(self, task_id: str) -> Task:
        try:
            return self._by_id[task_id]
        except KeyError:
            raise UnknownName(f"unknown task {task_id!r}; known: {', '.join(sorted(self._by_id))}") from None

    def tasks_in(self, category: str) -> list[Task]:
        return [t for t in self.tasks if t.category == category]

    @property
    def task_weights(self) -> dict[str, float]:
        """Each task's weight in the overall score: overall is the mean of the C categories,
        a category the mean of its k tasks, so a task weighs 1 / (C k)."""
        sizes = {c: len(self.tasks_in(c)) for c in self.categories}
        return {t.id: 1.0 / (len(self.categories) * sizes[t.category]) for t in self.tasks}

    @property
    def effective_tasks(self) -> float:
        """How many equally weighted tasks the overall score is worth: 1 / sum(weight²)
        (Kish's effective number; the task count when every category has as many tasks)."""
        return 1.0 / sum(w * w for w in self.task_weights.values())

    def __post_init__(self):
        object.__setattr__(self, "_by_id", {t.id: t for t in self.tasks})


def configured_tasks_file() -> Path:
    """LEADERBOARD_TASKS, else the shipped BenCzechMark file."""
    return Path(Settings.from_environment().tasks_file or DEFAULT_TASKS_FILE)


def _text(raw: dict, key: str, where: str, required: bool = True) -> str:
    value = raw.get(key, None if required else "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise TasksFileError(f"{where}: '{key}' must be {'a non-empty' if required else 'a'} string, "
                             f"got {json.dumps(value)[:60]}")
    return value


def _labels(raw: dict, where: str) -> tuple[str, ...]:
    labels = raw.get("labels")
    if not (isinstance(labels, list) and len(labels) >= 2 and all(isinstance(x, str) and x for x in labels)
            and len(set(labels)) == len(labels)):
        raise TasksFileError(f"{where}: metric {raw['metric']} needs 'labels', a list of at least 2 distinct "
                             f"class names (class index i is the i-th name), got {json.dumps(labels)[:80]}")
    return tuple(labels)


def _score_range(raw: dict, where: str) -> tuple[float, float]:
    value = raw.get("score_range")
    if not (isinstance(value, list) and len(value) == 2 and all(map(is_finite_number, value)) and value[0] < value[1]):
        raise TasksFileError(f"{where}: metric {raw['metric']} needs 'score_range', [lowest, highest] with "
                             f"lowest < highest (e.g. [0, 1] or [1, 10]), got {json.dumps(value)[:60]}")
    return float(value[0]), float(value[1])


WEIGHT_SUM_TOLERANCE = 1e-9  # judge-criterion weights: the sum may miss 1 by a float's rounding, no more


def _criteria(raw: dict, where: str) -> tuple[tuple[str, float], ...]:
    value = raw.get("criteria", {})
    rule = (f"{where}: 'criteria' must map each judge criterion to a positive weight, the weights summing to 1 "
            f"(e.g. {{\"helpfulness\": 0.5, \"relevance\": 0.5}})")
    if not (isinstance(value, dict) and all(is_finite_number(w) and w > 0 for w in value.values())):
        raise TasksFileError(f"{rule}, got {json.dumps(value)[:80]}")
    total = math.fsum(value.values()) or 1.0
    if not math.isclose(total, 1.0, rel_tol=0, abs_tol=WEIGHT_SUM_TOLERANCE):
        raise TasksFileError(f"{rule}; the weights sum to {exact_text(total)}, not 1 within "
                             f"{WEIGHT_SUM_TOLERANCE:g}: {json.dumps(value)[:80]}")
    return tuple((name, float(w)) for name, w in value.items())


def _harness_name(raw: dict, key: str, default: str, where: str, what: str) -> str:
    """A harness metric or filter name: non-empty, without the "," that joins them in the
    harness's result keys ("acc_norm,none")."""
    value = raw.get(key, default)
    if not (isinstance(value, str) and value.strip() and "," not in value):
        raise TasksFileError(f"{where}: '{key}' must be {what} without a comma, got {json.dumps(value)[:60]}")
    return value


def harness_version(value) -> str:
    """A harness task version as one text, however the file wrote it: 3, 3.0 and "3.0" alike."""
    return str(float(value)) if is_finite_number(value) else str(value)


def _harness_versions(raw: dict, where: str) -> tuple[str, ...]:
    value = raw.get("harness_versions", [])
    if not (isinstance(value, list) and ("harness_versions" not in raw or value)
            and all(is_finite_number(v) or (isinstance(v, str) and v.strip()) for v in value)):
        raise TasksFileError(f"{where}: 'harness_versions' must be a non-empty list of the harness task versions "
                             f"the task accepts (e.g. [3.0]), got {json.dumps(value)[:60]}")
    return tuple(dict.fromkeys(map(harness_version, value)))


def _harness_fields(raw: dict, where: str) -> dict:
    harness_task = raw.get("harness_task", raw["id"])  # a task of the same id by default
    variants = raw.get("harness_prompt_variants", False)
    if not (isinstance(harness_task, str) and harness_task.strip()):
        raise TasksFileError(f"{where}: 'harness_task' must be the name of an lm-evaluation-harness task or group, "
                             f"got {json.dumps(harness_task)[:60]}")
    if not isinstance(variants, bool):
        raise TasksFileError(f"{where}: 'harness_prompt_variants' must be true or false, got {json.dumps(variants)[:20]}")
    subtasks = raw.get("harness_subtasks", [])
    if not (isinstance(subtasks, list) and all(isinstance(s, str) and s.strip() for s in subtasks)
            and len(set(subtasks)) == len(subtasks) and len(subtasks) != 1):
        raise TasksFileError(f"{where}: 'harness_subtasks' must be a list of at least 2 distinct lm-evaluation-harness "
                             f"task names (concatenated in this order), got {json.dumps(subtasks)[:80]}")
    if subtasks and variants:
        raise TasksFileError(f"{where}: 'harness_subtasks' and 'harness_prompt_variants' exclude each other (distinct "
                             f"subtasks are concatenated; prompt variants of one task compete)")
    samples = raw.get("samples")
    if samples is not None and not (isinstance(samples, int) and not isinstance(samples, bool) and samples >= 1):
        raise TasksFileError(f"{where}: 'samples' must be a whole number of at least 1 (the documents of a full "
                             f"run), got {json.dumps(samples)[:40]}")
    label = raw.get("metric_label", "")
    if not isinstance(label, str) or ("metric_label" in raw and not label.strip()):
        raise TasksFileError(f"{where}: 'metric_label' must be a non-empty string (what the page calls the "
                             f"measure, e.g. \"BLEU accuracy\"), got {json.dumps(label)[:60]}")
    return {"harness_task": harness_task, "prompt_variants": variants, "harness_subtasks": tuple(subtasks),
            "samples": samples, "metric_label": label, "harness_versions": _harness_versions(raw, where),
            "harness_metric": _harness_name(raw, "harness_metric", raw["metric"], where,
                                            "a metric key of the harness's results (e.g. \"acc_norm\")"),
            "harness_filter": _harness_name(raw, "harness_filter", "none", where,
                                            "a filter name of the harness (e.g. \"strict-match\")")}


def _entity_classes(raw: dict, where: str) -> tuple[str, ...]:
    value = raw.get("entity_classes")
    if not (isinstance(value, list) and value and all(isinstance(x, str) and x.strip() for x in value)
            and len(set(value)) == len(value)):
        raise TasksFileError(f"{where}: 'entity_classes' must be a list of distinct class names, each sample then "
                             f"counting {{class: [tp, fp, fn]}} (e.g. [\"PER\", \"LOC\", \"ORG\", \"MISC\"]), "
                             f"got {json.dumps(value)[:80]}")
    return tuple(value)


def _left_out_classes(raw: dict, where: str) -> tuple[str, ...]:
    value, declared = raw.get("left_out_classes"), raw.get("entity_classes")
    if not (isinstance(value, list) and value and isinstance(declared, list) and all(x in declared for x in value)
            and len(set(value)) == len(value) < len(declared)):
        raise TasksFileError(f"{where}: 'left_out_classes' must list some of the task's 'entity_classes', not all "
                             f"(the classes the score does not count, e.g. [\"MISC\"]), got {json.dumps(value)[:80]} "
                             f"with entity_classes {json.dumps(declared)[:80]}")
    return tuple(value)


# What a task declares for the metrics whose sample kind needs it: field -> reader.
KIND_FIELDS = {"label_pair": {"labels": _labels},
               "judge": {"score_range": _score_range, "criteria": _criteria},
               "tp_fp_fn": {"entity_classes": _entity_classes, "left_out_classes": _left_out_classes}}
OPTIONAL_FIELDS = {"criteria", "entity_classes", "left_out_classes"}


def _task(raw, index: int, categories: tuple[str, ...]) -> Task:
    if not isinstance(raw, dict):
        raise TasksFileError(f"task {index}: must be an object with {', '.join(TASK_FIELDS)}")
    where = f"task {raw.get('id', index)}"
    values = {key: _text(raw, key, where, required=key != "dataset_url") for key in TASK_FIELDS}
    metric, category = values.pop("metric"), values["category"]
    try:
        sample_kind = METRICS[metric].sample_kind
    except UnknownName as e:
        raise TasksFileError(f"{where}: {e}") from None
    if category not in categories:
        raise TasksFileError(f"{where}: category {category!r} is not in 'categories'")
    kind_fields = KIND_FIELDS.get(sample_kind, {})
    for field in {f for fields in KIND_FIELDS.values() for f in fields} - set(kind_fields):
        if field in raw:
            raise TasksFileError(f"{where}: '{field}' does not apply to metric {metric}")
    declared = {field: read(raw, where) for field, read in kind_fields.items()
                if field in raw or field not in OPTIONAL_FIELDS}
    return Task(**values, metric_name=metric, **declared, **_harness_fields(raw, where))


def load_benchmark(path: str | Path | None = None) -> Benchmark:
    """The benchmark of a tasks file (default: `configured_tasks_file()`); TasksFileError
    names the first problem."""
    path = Path(path or configured_tasks_file())
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise TasksFileError(f"cannot read the tasks file {path}: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TasksFileError(f"the tasks file {path} is not valid UTF-8 JSON: {e}") from None
    try:
        return benchmark_of(raw)
    except TasksFileError as e:
        raise TasksFileError(f"{path}: {e}") from None


def benchmark_of(raw) -> Benchmark:
    """The benchmark of a parsed tasks file; TasksFileError names the first problem."""
    if not isinstance(raw, dict):
        raise TasksFileError("must hold a JSON object with 'benchmark', 'categories' and 'tasks'")
    name = _text(raw, "benchmark", "the top level")
    description, about = (_text(raw, key, "the top level", required=False) for key in ("description", "about"))
    alpha = raw.get("alpha", ALPHA)
    if not (is_finite_number(alpha) and 0 < alpha < 0.5):
        raise TasksFileError(f"'alpha' must be a number between 0 and 0.5 (e.g. 0.05), got {json.dumps(alpha)}")
    top = raw.get("top_opponents", DEFAULT_TOP_OPPONENTS)
    if not (isinstance(top, int) and not isinstance(top, bool) and top >= 1):
        raise TasksFileError(f"'top_opponents' must be a whole number of at least 1, got {json.dumps(top)}")
    opponents = raw.get("opponents", PANEL)
    if opponents not in OPPONENT_RULES:
        raise TasksFileError(f"'opponents' must be one of {', '.join(map(json.dumps, OPPONENT_RULES))}, "
                             f"got {json.dumps(opponents)}")
    categories = raw.get("categories")
    if not (isinstance(categories, list) and categories and all(isinstance(c, str) and c for c in categories)
            and len(set(categories)) == len(categories)):
        raise TasksFileError("'categories' must be a non-empty list of distinct names")
    categories = tuple(categories)
    if not isinstance(raw.get("tasks"), list) or not raw["tasks"]:
        raise TasksFileError("'tasks' must be a non-empty list of task objects")
    tasks = tuple(_task(t, i, categories) for i, t in enumerate(raw["tasks"]))
    repeated = sorted(i for i, n in Counter(t.id for t in tasks).items() if n > 1)
    if repeated:
        raise TasksFileError(f"task ids must be unique; repeated: {', '.join(repeated)}")
    empty = [c for c in categories if not any(t.category == c for t in tasks)]
    if empty:
        raise TasksFileError(f"categories without tasks: {', '.join(empty)}")
    deprecated = raw.get("harness_deprecated", [])
    if not (isinstance(deprecated, list) and all(isinstance(d, str) and d for d in deprecated)):
        raise TasksFileError("'harness_deprecated' must be a list of lm-evaluation-harness task names")
    return Benchmark(name=name, categories=categories, tasks=tasks, description=description, about=about,
                     alpha=float(alpha), top_opponents=top, opponents=opponents, harness_deprecated=tuple(deprecated))
