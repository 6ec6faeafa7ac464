"""lm-evaluation-harness output -> a submission file (`python -m leaderboard compile`).

The layout is the one the harness's `EvaluationTracker` writes
(`lm_eval/loggers/evaluation_tracker.py`): one folder per model,
`<output_path>/<model_name_sanitized>/`, holding per run `results_<date_id>.json` (keys
`results`, `group_subtasks`, `configs`, `n-shot`, `versions`, `task_hashes`, `model_name`,
`lm_eval_version`, ...) and, with `--log_samples`, `samples_<task>_<date_id>.jsonl` for
every task in `configs`, one line per document and filter (`doc_id`, `filter`,
`filtered_resps` and the per-sample metric values by bare name, e.g. `acc`).

Which harness task produces which benchmark task is data in the tasks file
(`Task.harness`, `Task.prompt_variants`, `Task.harness_subtasks`, `Task.harness_metric`,
`Task.harness_filter`, `Benchmark.harness_deprecated`). Prompt variants are the subtasks
the run lists under the task's group in `group_subtasks`, never guessed from aliases or
names. An aggregated task concatenates its subtasks' samples in the tasks file's order.
Harness tasks no benchmark task maps are ignored with a note (an error with strict=True).
A run made with `--limit` is refused: the harness records it in `config.limit` and, per
task, in `n-samples` ({"original", "effective"}). Every problem found is reported, all at
once, as a BadInput.

What the submission records of the runs names each by its place under the inputs
(`Run.label`), never by a folder of the machine that compiled it.
"""
from __future__ import annotations

import glob
import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import jsonlines
import numpy as np

from leaderboard.strict_json import dump_json
from leaderboard.submission.reading import MAX_FILE_BYTES
from leaderboard.submission.parsing import parse_submission
from leaderboard.errors import BadInput, some_names
from leaderboard.config.tasks import Benchmark, Task, harness_version
from leaderboard.engine.progress import no_progress
from leaderboard.engine.progress import Progress
from leaderboard.strict_json import is_finite_number

# Copied from the run into the submission's "metadata" (the harness's own names).
RUN_KEYS = ("model_name", "model_name_sanitized", "model_source", "lm_eval_version", "transformers_version",
            "git_hash", "upper_git_hash", "max_length", "tokenizer_pad_token", "tokenizer_eos_token",
            "tokenizer_bos_token", "eot_token_id", "system_instruction", "system_instruction_sha",
            "fewshot_as_multiturn", "chat_template", "chat_template_sha")
CONFIG_KEYS = ("model_dtype", "model_num_parameters", "model_revision", "model_sha")
KEPT_SAMPLE_KEYS = ("doc_id", "filtered_resps")


LFS_POINTER = b"version https://git-lfs.github.com/spec/"
LFS_MESSAGE = "the file is a Git LFS pointer, not the file itself: run git lfs pull"


@dataclass
class Run:
    """One harness invocation: its results file and what it says."""

    path: Path
    date_id: str
    document: dict
    label: str = ""  # the results file's path under the inputs' common folder ("en/model/results_<date>.json")

    @property
    def name(self) -> str:
        """For messages to whoever compiles: the path as given."""
        return str(self.path)

    def result(self, name: str) -> dict | None:
        """The results entry of a task or group (0.4.13 also lists aggregating groups under "groups")."""
        entry = self.document["results"].get(name, self.document.get("groups", {}).get(name))
        return entry if isinstance(entry, dict) else None

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
    """What a benchmark task is read from: the prompt variant kept, or an aggregated task's
    subtasks in order (`leaves`)."""

    run: Run
    leaves: list[str]  # the harness tasks whose samples make the task: one variant, or the subtasks
    metric_key: str  # e.g. "acc_norm,none"
    spread: float | None = None  # max_centered_variance over the variants
    n_variants: int = 1
    compared: list[str] = field(default_factory=list)  # the other variants: same documents required

    @property
    def variant(self) -> str:
        return self.leaves[0]


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
        data = path.read_bytes()
        if data.startswith(LFS_POINTER):
            problems.append(f"{path}: {LFS_MESSAGE}")
            return None
        document = json.loads(data)
    except OSError as e:
        problems.append(f"{path}: cannot be read ({e.strerror or e})")
        return None
    except (ValueError, RecursionError) as e:
        problems.append(f"{path}: not a JSON file ({e})")
        return None
    if not isinstance(document, dict) or not isinstance(document.get("results"), dict):
        problems.append(f"{path}: not a harness results file (no 'results' object)")
        return None
    for key in ("group_subtasks", "groups", "configs", "n-shot", "versions", "task_hashes", "n-samples", "config"):
        if not isinstance(document.get(key, {}), dict):
            problems.append(f"{path}: '{key}' must be an object")
            return None
    return Run(path, path.stem[len("results_"):], document)


def find_runs(inputs: list[str], problems: list[str]) -> list[Run]:
    """The runs under the inputs (run folders, their parents, globs or results files),
    each labelled by its path under the folder all of them share."""
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
    if runs:
        common = Path(os.path.commonpath([r.path.resolve().parent for r in runs]))
        for run in runs:
            run.label = run.path.resolve().relative_to(common).as_posix()
    return runs


# --- which run and variant each benchmark task comes from -----------------------------

def _maps(task: Task, names: set[str]) -> bool:
    """Whether a run reporting `names` evaluated the task (an aggregated one: any subtask)."""
    return (any(s in names for s in task.harness_subtasks) if task.harness_subtasks
            else task.harness in names)


def _mapped_leaves(task: Task, run: Run) -> list[str]:
    return list(task.harness_subtasks) if task.harness_subtasks else run.leaves(task.harness)


def _assign(runs: list[Run], benchmark: Benchmark, newest: bool, strict: bool, problems: list[str],
            notes: list[str]) -> dict[str, Run]:
    """benchmark task id -> the run that evaluated it. Harness tasks no benchmark task maps
    are noted as ignored (problems when `strict`)."""
    by_task: dict[str, list[Run]] = {}
    for run in runs:
        names = run.tasks()
        covered = set()
        for task in benchmark.tasks:
            if _maps(task, names):
                by_task.setdefault(task.id, []).append(run)
                covered.update(_mapped_leaves(task, run))
        for name in benchmark.harness_deprecated:
            if name in names:
                covered.update(run.leaves(name))
                notes.append(f"{run.name}: skipped {name}, listed in the tasks file's harness_deprecated")
        leaves = {n for n in names if not run.is_group(n)}
        unmapped = sorted(leaves - covered)
        if unmapped:
            what = (f"{len(unmapped)} harness task{'s' * (len(unmapped) > 1)} that no {benchmark.name} task maps: "
                    f"{some_names(unmapped)}")
            if strict:
                problems.append(f"{run.name}: {what} (--strict; the tasks file's harness_task names what each "
                                f"task comes from)")
            else:
                notes.append(f"{run.name}: ignored {what}")
    chosen, missing = {}, []
    for task in benchmark.tasks:
        found = sorted(by_task.get(task.id, []), key=lambda r: r.date_id)
        if not found:
            missing.append(f"{task.id} (harness: {', '.join(task.harness_subtasks) or task.harness})")
        elif len(found) > 1 and not newest:
            problems.append(f"task {task.id}: evaluated in {len(found)} runs ({', '.join(r.name for r in found)}); "
                            f"remove one or pass --newest to keep the newest")
        else:
            chosen[task.id] = found[-1]
            if len(found) > 1:
                notes.append(f"task {task.id}: kept the newest run, {found[-1].name}")
    if missing and runs and len(missing) < len(benchmark.tasks):  # none at all: _foreign_runs_problem
        problems.append(f"{len(missing)} of {len(benchmark.tasks)} {benchmark.name} tasks are in none of the runs: "
                        + some_names(missing))
    return chosen


def _foreign_runs_problem(inputs: list[str], runs: list[Run], benchmark: Benchmark) -> str:
    """Runs none of whose tasks the benchmark maps (another benchmark's logs): what they
    hold, of which model, rather than every benchmark task as missing."""
    leaves = sorted({name for run in runs for name in run.tasks() if not run.is_group(name)})
    models = sorted({str(run.document.get("model_name")) for run in runs})
    where = inputs[0] if len(inputs) == 1 else "the inputs"
    return (f"{where} holds {len(leaves)} harness task{'s' * (len(leaves) != 1)} ({some_names(leaves)}) of "
            f"{', '.join(models)}; none is a task of {benchmark.name}")


def _version_problem(task: Task, chosen: Chosen) -> str | None:
    """Why the run's version of a harness task the benchmark task is read from is not one
    the tasks file accepts (`harness_versions`), or None."""
    if not task.harness_versions:
        return None
    accepted = ", ".join(task.harness_versions)
    recorded = chosen.run.document.get("versions", {})
    for leaf in chosen.leaves:
        if leaf not in recorded:
            return f"{leaf} has no version in the run's 'versions'; the tasks file accepts {accepted} (harness_versions)"
        if harness_version(recorded[leaf]) not in task.harness_versions:
            return (f"{leaf} is version {harness_version(recorded[leaf])} of the harness task; the tasks file "
                    f"accepts {accepted} (harness_versions)")
    return None


def _metric_key(task: Task, run: Run, variant: str) -> str:
    """The results key of the task's harness metric and filter for `variant`
    ("acc_norm,none"); raises ValueError naming what the run has instead."""
    entry = run.result(variant)
    if entry is None:
        raise ValueError(f"the run has no results for {variant}")
    names = [task.harness_metric, *(task.metric.aliases if task.harness_metric == task.metric_name else ())]
    wanted = [f"{name},{task.harness_filter}" for name in names]
    if task.harness_filter == "none":  # logs older than filters wrote the bare name
        wanted += names
    key = next((k for k in wanted if k in entry), None)
    if key is None or not is_finite_number(entry[key]):
        has = ", ".join(k for k in entry if "," in k and "_stderr" not in k) or "no metrics"
        with_filter = f" with filter {task.harness_filter}" if task.harness_filter != "none" else ""
        what = "no finite value" if key else "no result"
        raise ValueError(f"{variant} has {what} for {task.harness_metric}{with_filter} (it has: {has})")
    return key


def _choose(task: Task, run: Run) -> Chosen:
    """The best variant by the task's metric in its direction, or an aggregated task's
    subtasks; raises ValueError."""
    if task.harness_subtasks:
        names = run.tasks()
        present = [s for s in task.harness_subtasks if s in names]
        if len(present) < len(task.harness_subtasks):
            absent = [s for s in task.harness_subtasks if s not in names]
            raise ValueError(f"the run has {len(present)} of its {len(task.harness_subtasks)} subtasks; missing: "
                             + some_names(absent))
        groups = [s for s in present if run.is_group(s)]
        if groups:
            raise ValueError(f"{', '.join(groups)} is a group in the run: list its tasks in harness_subtasks")
        keys = [_metric_key(task, run, s) for s in task.harness_subtasks]
        return Chosen(run, list(task.harness_subtasks), keys[0])
    is_group = run.is_group(task.harness)
    if is_group != task.prompt_variants:
        raise ValueError(f"{task.harness} is {'a group' if is_group else 'one task'} in the run, the tasks file "
                         f"says it {'has' if task.prompt_variants else 'has no'} prompt variants")
    variants = run.leaves(task.harness)
    keys = [_metric_key(task, run, v) for v in variants]
    values = np.array([run.result(v)[k] for v, k in zip(variants, keys)], dtype=float)
    best = int(np.argmax(task.metric.sign * values))
    spread = (float(np.sum((100 * values - 100 * values[best]) ** 2) / (len(values) - 1))
              if len(values) > 1 else None)
    return Chosen(run, [variants[best]], keys[best], spread, len(variants),
                  [v for v in variants if v != variants[best]])


# --- samples --------------------------------------------------------------------------

def _sample_value(sample: dict, names: list[str]):
    """The first of `names` in the sample line. A boolean becomes 0 or 1: the harness logs
    some 0/1 metrics as Python booleans (IFEval's prompt_level_strict_acc,
    `tasks/leaderboard/ifeval/utils.py`), which a submission file may not hold."""
    for name in names:
        if name in sample:
            value = sample[name]
            return int(value) if isinstance(value, bool) else value
    raise KeyError(names[0])


def _is_lfs_pointer(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(len(LFS_POINTER)) == LFS_POINTER


def read_samples(path: Path, task: Task, keep: bool) -> tuple[np.ndarray, list[dict]]:
    """(doc_ids, kept samples) of one samples file, streamed; only lines of the task's
    harness filter (lines without a "filter", as older logs wrote them, count as its).
    keep=False reads the doc_ids only. Raises ValueError naming the file and line."""
    names = [task.harness_metric, *(task.metric.aliases if task.harness_metric == task.metric_name else ())]
    filter_name = task.harness_filter
    doc_ids, kept = [], []
    try:
        if _is_lfs_pointer(path):
            raise ValueError(f"{path.name}: {LFS_MESSAGE}")
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
                        raise ValueError(f"{path.name} line {line}: no '{task.harness_metric}' value") from None
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


def _limit_problem(run: Run, leaf: str, documents: int) -> str | None:
    """Why `leaf` looks like a partial run, from what the harness recorded, or None:
    "n-samples" says how many of its documents were evaluated; logs without it only have
    `config.limit`, a cap that leaves a task with fewer documents whole."""
    limit = (run.document.get("config") or {}).get("limit")
    made_with = f" (it was made with --limit {limit:g})" if is_finite_number(limit) else ""
    counts = run.document.get("n-samples", {}).get(leaf)
    if isinstance(counts, dict) and all(isinstance(counts.get(k), int) for k in ("original", "effective")):
        if counts["effective"] < counts["original"]:
            return f"the run evaluated {counts['effective']} of {counts['original']} documents of {leaf}{made_with}"
        return None
    if is_finite_number(limit) and (limit < 1 or documents >= limit):
        return f"{leaf} has {documents} documents and the run was made with --limit {limit:g}"
    return None


def _task_samples(task: Task, chosen: Chosen) -> tuple[list[dict], list[int]]:
    """(the task's samples, the documents of each leaf): the chosen variant's samples in
    doc_id order after checking every variant covers the same documents, or the subtasks'
    samples concatenated, each naming its subtask, doc ids offset by the documents of the
    subtasks before it. Raises ValueError."""
    samples, sizes = [], []
    for leaf in chosen.leaves:
        ids, kept = read_samples(chosen.run.samples_path(leaf), task, keep=True)
        problem = _limit_problem(chosen.run, leaf, len(ids))
        if problem:
            raise ValueError(problem)
        order = np.argsort(ids, kind="stable")
        if task.harness_subtasks:
            offset = sum(sizes)
            samples += [{**kept[i], "doc_id": int(ids[i]) + offset, "subtask": leaf} for i in order]
        else:
            samples += [kept[i] for i in order]
        sizes.append(len(ids))
        for variant in chosen.compared:
            problem = _doc_id_problem(leaf, ids, variant,
                                      read_samples(chosen.run.samples_path(variant), task, keep=False)[0])
            if problem:
                raise ValueError(problem)
    try:
        json.dumps([s[task.metric_name] for s in samples], allow_nan=False)
    except ValueError:
        raise ValueError(f"a {task.harness_metric} value is NaN or infinite in "
                         f"{', '.join(chosen.run.samples_path(leaf).name for leaf in chosen.leaves)}") from None
    problem = task.count_problem(len(samples))
    if problem:
        raise ValueError(problem)
    return samples, sizes


# --- the submission ---------------------------------------------------------------------

def _task_results(task: Task, chosen: Chosen, sizes: list[int]) -> dict:
    """The task's results entry: the harness's value of its metric (an aggregated task: the
    subtasks' values weighted by their documents) and stderr under the scoring metric's
    name (a stderr of "N/A" becomes null), plus where it came from."""
    name, _, filt = chosen.metric_key.partition(",")
    stderr_key = f"{name}_stderr" + (f",{filt}" if filt else "")
    values = [chosen.run.result(leaf)[chosen.metric_key] for leaf in chosen.leaves]
    out = {"alias": chosen.run.result(chosen.variant).get("alias", chosen.variant), "harness_task": chosen.variant,
           task.metric_name: values[0] if len(values) == 1 else float(np.dot(values, sizes) / sum(sizes))}
    if task.harness_subtasks:
        out.update(alias=task.harness, harness_task=task.harness, harness_subtasks=list(task.harness_subtasks))
    elif stderr_key in chosen.run.result(chosen.variant):
        stderr = chosen.run.result(chosen.variant)[stderr_key]
        out[f"{task.metric_name}_stderr"] = stderr if is_finite_number(stderr) else None
    if chosen.spread is not None:
        out["max_centered_variance"] = chosen.spread
    out["prompt_variants"] = chosen.n_variants
    return out


def _harness_aggregate(task: Task, chosen: Chosen, sizes: list[int], score: float) -> tuple[dict, str | None]:
    """An aggregated task's record for the metadata and, when the run reports another value
    for the group (`harness_task`), a note saying so (and the record names it)."""
    record = {"subtasks": list(task.harness_subtasks), "documents": sizes}
    group = chosen.run.result(task.harness) if task.harness not in task.harness_subtasks else None
    reported = (group or {}).get(chosen.metric_key)
    if not is_finite_number(reported) or math.isclose(reported, score, rel_tol=1e-9, abs_tol=1e-12):
        return record, None
    record.update(harness_group=task.harness, harness_value=reported)
    return record, (f"task {task.id}: the sample-weighted mean of {len(sizes)} subtasks, {score:.4f}; the harness "
                    f"reports {reported:.4f} for {task.harness} (another aggregate, e.g. a mean of subtask means)")


def _same_or_per_run(values: dict[str, object]):
    distinct = {json.dumps(v, sort_keys=True) for v in values.values()}
    return next(iter(values.values())) if len(distinct) == 1 else values


def _one_or_per_leaf(record: dict, leaves: list[str]):
    """A per-task field of the harness (n-shot, version) for a task read from `leaves`:
    their common value, or one per leaf when they differ."""
    return _same_or_per_run({leaf: record.get(leaf) for leaf in leaves})


def _metadata(benchmark: Benchmark, chosen: dict[str, Chosen], aggregated: dict[str, dict]) -> dict:
    runs = {c.run.label: c.run for c in chosen.values()}
    meta = {}
    for key in RUN_KEYS:
        meta[key] = _same_or_per_run({n: r.document.get(key) for n, r in runs.items()})
    for key in CONFIG_KEYS:
        meta[key] = _same_or_per_run({n: (r.document.get("config") or {}).get(key) for n, r in runs.items()})
    per_task = {t.id: (chosen[t.id].run.document, chosen[t.id].leaves, t.harness) for t in benchmark.tasks}
    meta["n-shot"] = {t: (_one_or_per_leaf(d["n-shot"], leaves) if len(leaves) > 1
                          else d["n-shot"].get(leaves[0], d["n-shot"].get(g)))
                      for t, (d, leaves, g) in per_task.items() if "n-shot" in d}
    meta["versions"] = {t: _one_or_per_leaf(d["versions"], leaves) for t, (d, leaves, g) in per_task.items()
                        if "versions" in d}
    # an aggregated task's fingerprint joins its subtasks' as the harness joins its samples' hashes
    meta["task_hashes"] = {t: (d["task_hashes"][leaves[0]] if len(leaves) == 1 else
                               hashlib.sha256("".join(d["task_hashes"][leaf] for leaf in leaves).encode()).hexdigest())
                           for t, (d, leaves, g) in per_task.items()
                           if all(leaf in d.get("task_hashes", {}) for leaf in leaves)}
    if aggregated:
        meta["aggregated_tasks"] = aggregated
    times = [float(r.document.get("total_evaluation_time_seconds") or 0) for r in runs.values()]
    meta["total_evaluation_time_seconds"] = round(sum(times), 3)
    meta["harness_runs"] = [{"run": label, "results_file": r.path.name, "date": r.date_id,
                             "tasks": sorted(t for t, c in chosen.items() if c.run is r)} for label, r in runs.items()]
    return meta


def compile_runs(inputs: list[str], benchmark: Benchmark, newest: bool = False, strict: bool = False,
                 progress: Progress = no_progress) -> tuple[dict, list[str]]:
    """(the submission document, notes) from the harness output under `inputs`.
    Raises BadInput with every problem found; the document is valid for
    `parse_submission` (checked). strict: harness tasks no benchmark task maps are
    problems, not notes."""
    problems, notes = [], []
    runs = find_runs(inputs, problems)
    models = {r.name: r.document.get("model_name") for r in runs}
    if len(set(map(str, models.values()))) > 1:
        problems.append("the runs are of different models: " + "; ".join(f"{m} in {n}" for n, m in models.items()))
    assigned = _assign(runs, benchmark, newest, strict, problems, notes)
    if runs and not any(_maps(task, run.tasks()) for task in benchmark.tasks for run in runs):
        problems.append(_foreign_runs_problem(inputs, runs, benchmark))
    chosen, predictions, results, aggregated = {}, {}, {}, {}
    for k, task in enumerate(benchmark.tasks):
        if task.id not in assigned:
            continue
        progress(k / len(benchmark.tasks), f"reading {task.id}")
        run = assigned[task.id]
        try:
            chosen[task.id] = _choose(task, run)
            problem = _version_problem(task, chosen[task.id])
            if problem:
                raise ValueError(problem)
            predictions[task.id], sizes = _task_samples(task, chosen[task.id])
            results[task.id] = _task_results(task, chosen[task.id], sizes)
            if task.harness_subtasks:
                aggregated[task.id], note = _harness_aggregate(task, chosen[task.id], sizes,
                                                               results[task.id][task.metric_name])
                notes += [note] if note else []
        except ValueError as e:
            problems.append(f"task {task.id} ({run.name}): {e}")
    if problems:
        raise BadInput(problems)
    document = {"predictions": predictions, "results": results,
                "metadata": _metadata(benchmark, chosen, aggregated)}
    progress(1.0, "checking the compiled file")
    try:
        parse_submission(dump_json(document), benchmark)
    except BadInput as e:
        raise BadInput([f"the compiled file would not be accepted: {p}" for p in e.problems]) from None
    return document, notes
