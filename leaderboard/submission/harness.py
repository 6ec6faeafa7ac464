"""lm-evaluation-harness output -> a submission file (`python -m leaderboard compile`).

The layout is the one the harness's `EvaluationTracker` writes
(`lm_eval/loggers/evaluation_tracker.py`): one folder per model,
`<output_path>/<model_name_sanitized>/`, holding per run `results_<date_id>.json` (keys
`results`, `group_subtasks`, `configs`, `n-shot`, `versions`, `task_hashes`, `model_name`,
`lm_eval_version`, ...) and, with `--log_samples`, `samples_<task>_<date_id>.jsonl` for
every task in `configs`, one line per document and filter (`doc_id`, `filter`,
`filtered_resps` and the per-sample metric values by bare name, e.g. `acc`).

Which harness task produces which benchmark task is data in the tasks file
(`Task.harness`, `Task.prompt_variants`, `Benchmark.harness_deprecated`). Prompt variants
are the subtasks the run lists under the task's group in `group_subtasks`, never guessed
from aliases or names. Every problem found is reported, all at once, as a BadInput.
"""
from __future__ import annotations

import glob
import json
from dataclasses import dataclass
from pathlib import Path

import jsonlines
import numpy as np

from leaderboard.storage.strict_json import dump_json
from leaderboard.submission.reading import MAX_FILE_BYTES
from leaderboard.submission.parsing import parse_submission
from leaderboard.errors import BadInput, some_names
from leaderboard.config.tasks import Benchmark, Task
from leaderboard.engine.progress import no_progress
from leaderboard.engine.progress import Progress
from leaderboard.storage.strict_json import is_finite_number

# Copied from the run into the submission's "metadata" (the harness's own names).
RUN_KEYS = ("model_name", "model_name_sanitized", "model_source", "lm_eval_version", "transformers_version",
            "git_hash", "upper_git_hash", "max_length", "tokenizer_pad_token", "tokenizer_eos_token",
            "tokenizer_bos_token", "eot_token_id", "system_instruction", "system_instruction_sha",
            "fewshot_as_multiturn", "chat_template", "chat_template_sha")
CONFIG_KEYS = ("model_dtype", "model_num_parameters", "model_revision", "model_sha")
KEPT_SAMPLE_KEYS = ("doc_id", "filtered_resps")


@dataclass
class Run:
    """One harness invocation: its results file and what it says."""

    path: Path
    date_id: str
    document: dict

    @property
    def name(self) -> str:
        return str(self.path)

    def samples_path(self, harness_task: str) -> Path:
        return self.path.parent / f"samples_{harness_task}_{self.date_id}.jsonl"

    def leaves(self, name: str) -> list[str]:
        """The tasks (not groups) under `name`, in the run's order; [name] for a task."""
        children = self.document.get("group_subtasks", {}).get(name) or []
        return [leaf for child in children for leaf in self.leaves(child)] if children else [name]

    def is_group(self, name: str) -> bool:
        return bool(self.document.get("group_subtasks", {}).get(name))

    def tasks(self) -> set[str]:
        """Every name the run reports, tasks and groups."""
        d = self.document
        return set(d.get("results", {})) | set(d.get("configs", {})) | set(d.get("group_subtasks", {}))


@dataclass
class Chosen:
    """The prompt variant kept for a benchmark task."""

    run: Run
    variant: str
    metric_key: str  # e.g. "acc,none"
    results: dict
    spread: float | None  # max_centered_variance over the variants
    n_variants: int


# --- finding the runs -------------------------------------------------------------------

def _results_files(pattern: str) -> list[Path]:
    paths = [Path(p) for p in sorted(glob.glob(pattern))] if glob.has_magic(pattern) else [Path(pattern)]
    found = []
    for path in paths:
        if path.is_file() and path.name.startswith("results_") and path.suffix == ".json":
            found.append(path)
        elif path.is_dir():
            found += sorted(p for p in path.rglob("results_*.json") if p.is_file())
    return found


def _read_run(path: Path, problems: list[str]) -> Run | None:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.append(f"{path}: {size / 2**20:.0f} MB, larger than the limit of {MAX_FILE_BYTES // 2**20} MB")
            return None
        document = json.loads(path.read_bytes())
    except OSError as e:
        problems.append(f"{path}: cannot be read ({e.strerror or e})")
        return None
    except (ValueError, RecursionError) as e:
        problems.append(f"{path}: not a JSON file ({e})")
        return None
    if not isinstance(document, dict) or not isinstance(document.get("results"), dict):
        problems.append(f"{path}: not a harness results file (no 'results' object)")
        return None
    for key in ("group_subtasks", "configs", "n-shot", "versions", "task_hashes"):
        if not isinstance(document.get(key, {}), dict):
            problems.append(f"{path}: '{key}' must be an object")
            return None
    return Run(path, path.stem[len("results_"):], document)


def find_runs(inputs: list[str], problems: list[str]) -> list[Run]:
    """The runs under the inputs (run folders, their parents, globs or results files)."""
    seen, runs = set(), []
    for pattern in inputs:
        files = _results_files(pattern)
        if not files:
            problems.append(f"{pattern}: no harness results (results_<date>.json) found there")
        for path in files:
            if path.resolve() not in seen:
                seen.add(path.resolve())
                run = _read_run(path, problems)
                if run:
                    runs.append(run)
    return runs


# --- which run and variant each benchmark task comes from -----------------------------

def _assign(runs: list[Run], benchmark: Benchmark, newest: bool, problems: list[str],
            notes: list[str]) -> dict[str, Run]:
    """benchmark task id -> the run that evaluated it; unknown harness tasks are problems."""
    by_task: dict[str, list[Run]] = {}
    for run in runs:
        names = run.tasks()
        covered = set()
        for task in benchmark.tasks:
            if task.harness in names:
                by_task.setdefault(task.id, []).append(run)
                covered.update(run.leaves(task.harness))
        for name in benchmark.harness_deprecated:
            if name in names:
                covered.update(run.leaves(name))
                notes.append(f"{run.name}: skipped {name}, a task {benchmark.name} no longer scores")
        leaves = {n for n in names if not run.is_group(n)}
        unknown = sorted(leaves - covered)
        if unknown:
            shown = ", ".join(unknown[:10]) + (f", ... ({len(unknown) - 10} more)" if len(unknown) > 10 else "")
            problems.append(f"{run.name}: harness tasks that no {benchmark.name} task maps: {shown} "
                            f"(the tasks file's harness_task names what each task comes from)")
    chosen, missing = {}, []
    for task in benchmark.tasks:
        found = sorted(by_task.get(task.id, []), key=lambda r: r.date_id)
        if not found:
            missing.append(f"{task.id} (harness: {task.harness})")
        elif len(found) > 1 and not newest:
            problems.append(f"task {task.id}: evaluated in {len(found)} runs ({', '.join(r.name for r in found)}); "
                            f"remove one or pass --newest to keep the newest")
        else:
            chosen[task.id] = found[-1]
            if len(found) > 1:
                notes.append(f"task {task.id}: kept the newest run, {found[-1].name}")
    if missing and runs:
        problems.append(f"{len(missing)} of {len(benchmark.tasks)} {benchmark.name} tasks are in none of the runs: "
                        + some_names(missing))
    return chosen


def _metric_key(task: Task, run: Run, variant: str) -> str:
    """The results key of the task's metric for `variant` ("acc,none"); raises ValueError."""
    entry = run.document["results"].get(variant)
    if not isinstance(entry, dict):
        raise ValueError(f"the run has no results for {variant}")
    names = {task.metric_name, *task.metric.aliases}
    keys = [k for k in entry if k.split(",")[0] in names]
    if len(keys) > 1:
        keys = [k for k in keys if k.endswith(",none")] or keys
    if len(keys) != 1 or not is_finite_number(entry[keys[0]]):
        has = ", ".join(k for k in entry if "," in k and "_stderr" not in k) or "no metrics"
        what = "several filters" if len(keys) > 1 else "no finite value" if keys else "no result"
        raise ValueError(f"{variant} has {what} for {task.metric_name} (it has: {has})")
    return keys[0]


def _choose(task: Task, run: Run) -> Chosen:
    """The best variant by the task's metric in its direction; raises ValueError."""
    is_group = run.is_group(task.harness)
    if is_group != task.prompt_variants:
        raise ValueError(f"{task.harness} is {'a group' if is_group else 'one task'} in the run, the tasks file "
                         f"says it {'has' if task.prompt_variants else 'has no'} prompt variants")
    variants = run.leaves(task.harness)
    keys = [_metric_key(task, run, v) for v in variants]
    if len(set(keys)) > 1:
        raise ValueError(f"the variants report {task.metric_name} under different filters: {', '.join(sorted(set(keys)))}")
    values = np.array([run.document["results"][v][k] for v, k in zip(variants, keys)], dtype=float)
    best = int(np.argmax(task.metric.sign * values))
    spread = (float(np.sum((100 * values - 100 * values[best]) ** 2) / (len(values) - 1))
              if len(values) > 1 else None)
    return Chosen(run, variants[best], keys[0], run.document["results"][variants[best]], spread, len(variants))


# --- samples --------------------------------------------------------------------------

def _sample_value(sample: dict, names: list[str]):
    for name in names:
        if name in sample:
            return sample[name]
    raise KeyError(names[0])


def read_samples(path: Path, task: Task, filter_name: str, keep: bool) -> tuple[np.ndarray, list[dict]]:
    """(doc_ids, kept samples) of one samples file, streamed; only lines of `filter_name`.
    keep=False reads the doc_ids only. Raises ValueError naming the file and line."""
    names = [task.metric_name, *task.metric.aliases]
    doc_ids, kept = [], []
    try:
        with jsonlines.open(path) as reader:
            for line, sample in enumerate(reader, 1):
                if not isinstance(sample, dict):
                    raise ValueError(f"{path.name} line {line}: not a JSON object")
                if sample.get("filter", filter_name) != filter_name:
                    continue
                doc_id = sample.get("doc_id")
                if not isinstance(doc_id, int) or isinstance(doc_id, bool):
                    raise ValueError(f"{path.name} line {line}: doc_id must be an integer, got {json.dumps(doc_id)[:40]}")
                doc_ids.append(doc_id)
                if keep:
                    try:
                        value = _sample_value(sample, names)
                    except KeyError:
                        raise ValueError(f"{path.name} line {line}: no '{task.metric_name}' value") from None
                    kept.append({task.metric_name: value, **{k: sample[k] for k in KEPT_SAMPLE_KEYS if k in sample}})
    except FileNotFoundError:
        raise ValueError(f"the samples file {path.name} is missing in {path.parent} "
                         f"(run the harness with --log_samples)") from None
    except OSError as e:
        raise ValueError(f"{path.name} cannot be read ({e.strerror or e})") from None
    except jsonlines.InvalidLineError as e:
        raise ValueError(f"{path.name} line {e.lineno}: not valid JSON") from None
    if not doc_ids:
        raise ValueError(f"{path.name} has no samples with filter {filter_name!r}")
    return np.asarray(doc_ids, dtype=np.int64), kept


def _doc_id_problem(name: str, ids: np.ndarray, other: str, other_ids: np.ndarray) -> str | None:
    if len(ids) != len(other_ids):
        return f"variants {name} ({len(ids)} documents) and {other} ({len(other_ids)}) differ in document count"
    a, b = np.sort(ids), np.sort(other_ids)
    differ = np.flatnonzero(a != b)
    if differ.size:
        return f"variants {name} and {other} have different doc_ids ({a[differ[0]]} against {b[differ[0]]})"
    return None


def _task_samples(task: Task, chosen: Chosen) -> list[dict]:
    """The chosen variant's samples in doc_id order, after checking every variant covers
    the same documents; raises ValueError."""
    filter_name = chosen.metric_key.partition(",")[2] or "none"
    ids, kept = read_samples(chosen.run.samples_path(chosen.variant), task, filter_name, keep=True)
    for variant in chosen.run.leaves(task.harness):
        if variant != chosen.variant:
            problem = _doc_id_problem(chosen.variant, ids, variant,
                                      read_samples(chosen.run.samples_path(variant), task, filter_name, keep=False)[0])
            if problem:
                raise ValueError(problem)
    try:
        json.dumps([s[task.metric_name] for s in kept], allow_nan=False)
    except ValueError:
        raise ValueError(f"{chosen.run.samples_path(chosen.variant).name}: a {task.metric_name} value is NaN "
                         f"or infinite") from None
    return [kept[i] for i in np.argsort(ids, kind="stable")]


# --- the submission ---------------------------------------------------------------------

def _task_results(task: Task, chosen: Chosen) -> dict:
    """The chosen variant's results entry: the metric and its stderr without the filter
    suffix (a stderr of "N/A" becomes null), plus where it came from."""
    suffix = chosen.metric_key.partition(",")[2]
    out = {"alias": chosen.results.get("alias", chosen.variant), "harness_task": chosen.variant}
    for key, value in chosen.results.items():
        name, _, filt = key.partition(",")
        stderr = name.endswith("_stderr")
        if filt == suffix and name.removesuffix("_stderr") in (task.metric_name, *task.metric.aliases):
            out[task.metric_name + ("_stderr" if stderr else "")] = value if is_finite_number(value) else None
    if chosen.spread is not None:
        out["max_centered_variance"] = chosen.spread
    out["prompt_variants"] = chosen.n_variants
    return out


def _same_or_per_run(values: dict[str, object]):
    distinct = {json.dumps(v, sort_keys=True) for v in values.values()}
    return next(iter(values.values())) if len(distinct) == 1 else values


def _metadata(benchmark: Benchmark, chosen: dict[str, Chosen]) -> dict:
    runs = {c.run.name: c.run for c in chosen.values()}
    meta = {}
    for key in RUN_KEYS:
        meta[key] = _same_or_per_run({n: r.document.get(key) for n, r in runs.items()})
    for key in CONFIG_KEYS:
        meta[key] = _same_or_per_run({n: (r.document.get("config") or {}).get(key) for n, r in runs.items()})
    per_task = {t.id: (chosen[t.id].run.document, chosen[t.id].variant, t.harness) for t in benchmark.tasks}
    meta["n-shot"] = {t: d["n-shot"].get(v, d["n-shot"].get(g)) for t, (d, v, g) in per_task.items()
                      if "n-shot" in d}
    meta["versions"] = {t: d["versions"].get(v) for t, (d, v, g) in per_task.items() if "versions" in d}
    meta["task_hashes"] = {t: d["task_hashes"][v] for t, (d, v, g) in per_task.items()
                           if v in d.get("task_hashes", {})}
    times = [float(r.document.get("total_evaluation_time_seconds") or 0) for r in runs.values()]
    meta["total_evaluation_time_seconds"] = round(sum(times), 3)
    meta["harness_runs"] = [{"results_file": r.path.name, "date": r.date_id,
                             "tasks": sorted(t for t, c in chosen.items() if c.run is r)} for r in runs.values()]
    return meta


def compile_runs(inputs: list[str], benchmark: Benchmark, newest: bool = False,
                 progress: Progress = no_progress) -> tuple[dict, list[str]]:
    """(the submission document, notes) from the harness output under `inputs`.
    Raises BadInput with every problem found; the document is valid for
    `parse_submission` (checked)."""
    problems, notes = [], []
    runs = find_runs(inputs, problems)
    models = {r.name: r.document.get("model_name") for r in runs}
    if len(set(map(str, models.values()))) > 1:
        problems.append("the runs are of different models: " + "; ".join(f"{m} in {n}" for n, m in models.items()))
    assigned = _assign(runs, benchmark, newest, problems, notes)
    chosen, predictions, results = {}, {}, {}
    for k, task in enumerate(benchmark.tasks):
        if task.id not in assigned:
            continue
        progress(k / len(benchmark.tasks), f"reading {task.id}")
        run = assigned[task.id]
        try:
            chosen[task.id] = _choose(task, run)
            predictions[task.id] = _task_samples(task, chosen[task.id])
            results[task.id] = _task_results(task, chosen[task.id])
        except ValueError as e:
            problems.append(f"task {task.id} ({run.name}): {e}")
    if problems:
        raise BadInput(problems)
    document = {"predictions": predictions, "results": results, "metadata": _metadata(benchmark, chosen)}
    progress(1.0, "checking the compiled file")
    try:
        parse_submission(dump_json(document), benchmark)
    except BadInput as e:
        raise BadInput([f"the compiled file would not be accepted: {p}" for p in e.problems]) from None
    return document, notes
