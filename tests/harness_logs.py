"""Writes lm-evaluation-harness output for tests, in the layout and with the keys of the
harness's own writer (`EvaluationTracker.save_results_aggregated` and
`save_results_samples`, lm-evaluation-harness 0.4.13 `lm_eval/loggers/evaluation_tracker.py`;
result keys as `lm_eval/result_schema.py` lists them):

    <output>/<model_name_sanitized>/results_<date_id>.json
    <output>/<model_name_sanitized>/samples_<task>_<date_id>.jsonl   one per task in "configs"

date_id is `datetime.isoformat()` with ":" replaced by "-". Prompt variants are the
subtasks of the task's group in "group_subtasks"; their alias is "prompt-N" as 0.4.13
writes it (older releases wrote " - prompt-N", which compile must not depend on).

What the harness's source says and these logs follow (read at 0.4.13.dev0, 4e7e0d47f):
- `evaluator.evaluate` logs one sample line per document and filter, with "filter" (the
  filter key: "none", or e.g. "strict-match") and every metric of `process_results` by
  bare name ("acc" and "acc_norm" side by side for multiple-choice tasks); results keys
  are "<metric>,<filter>" (`evaluator_utils._compute_task_aggregations`).
- A group's entry in "results" (and in "groups" when it aggregates) is
  `api/group.Group.aggregate`: `aggregate_subtask_metrics(values, sizes, weight_by_size)`
  (`api/metrics.py`), the mean of subtask means when weight_by_size is false, as BBH's
  groups are written; the sample-weighted mean when true, as the `leaderboard_*` groups
  declare. A group of groups (`leaderboard`) lists its children in "group_subtasks".
- IFEval's `process_results` (`tasks/leaderboard/ifeval/utils.py`) returns its
  prompt-level metrics as booleans, so its sample lines hold `true`/`false`.
- `--limit N` is recorded as `config.limit` (`evaluator.simple_evaluate`) and, per task,
  "n-samples": {"original": documents, "effective": documents evaluated}
  (`evaluator_utils._collect_results`); only the first N documents are logged.

The samples come from a submission document (e.g. a demo model aligned with a store): the
best variant carries the document's samples, the others worse copies of them. A task read
from another harness metric (`harness_metric`, e.g. acc_norm) also logs the scoring
metric's name with worse values, and a task with a filter also logs a second filter with
zeros, so that reading the wrong key or filter shows. An aggregated task
(`harness_subtasks`) splits the document's samples over its subtasks in order, each
subtask numbering its documents from 0.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from leaderboard.submission.samples import SAMPLE_PARSERS
from leaderboard.config.tasks import Benchmark, Task

MODEL = "Brno-NLP/Buk-9B-v1"
LM_EVAL_VERSION = "0.4.13"
# The task versions lm-evaluation-harness records (`versions` in results_*.json): each yaml's
# `metadata.version` at commit 4e7e0d4 for the `leaderboard` group's tasks
# (lm_eval/tasks/leaderboard/{ifeval/ifeval.yaml, bbh_mc/_fewshot_template_yaml,
# math/_template_yaml, gpqa/_template_yaml, musr/_template_yaml, mmlu_pro/mmlu_pro.yaml}),
# by the benchmark task's `harness_task`; 1.0 for any other task.
HARNESS_VERSIONS = {"leaderboard_ifeval": 3.0, "leaderboard_bbh": 1.0, "leaderboard_math_hard": 3.0,
                    "leaderboard_gpqa": 1.0, "leaderboard_musr": 1.0, "leaderboard_mmlu_pro": 0.1}


def sanitize_model_name(name: str) -> str:
    """As the harness's `lm_eval.utils.sanitize_model_name`."""
    return re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def worse(task: Task, samples: list, k: int) -> list:
    """A worse copy of the samples, variant k: fewer right answers, lower likelihoods."""
    name = task.metric_name
    out = []
    for i, s in enumerate(samples):
        v = s[name]
        if task.metric.sample_kind == "binary":
            v = 0 if (i + k) % 3 == 0 else v
        elif task.metric.sample_kind == "loglik_words":
            v = [v[0] * (1.05 + 0.01 * k), v[1]]
        elif task.metric.sample_kind == "unit_interval":
            v = v * 0.9
        elif task.metric.sample_kind == "gold_probs":
            v = [v[0], v[1][::-1] if (i + k) % 3 == 0 else v[1]]
        out.append({**s, name: v})
    return out


def aggregate(task: Task, samples: list) -> float:
    parse = SAMPLE_PARSERS[task.metric.sample_kind]
    return float(task.metric.aggregate(parse([s[task.metric_name] for s in samples], task)))


def other_filter(task: Task) -> str | None:
    """The second filter a task logs next to the one it is read from (exact match is
    logged as "none" and "strict-match"; a strict-match task also has flexible-extract)."""
    if task.harness_filter != "none":
        return "flexible-extract" if task.harness_filter == "strict-match" else "none"
    return "strict-match" if task.metric_name == "exact_match" else None


# Metrics whose per-sample values the harness logs as JSON booleans.
BOOLEAN_METRICS = {"prompt_level_strict_acc", "prompt_level_loose_acc"}


def _sample_lines(task: Task, leaf: str, samples: list, decoys: list) -> str:
    """`decoys`: the scoring metric's worse values, logged under its own name when the task
    is read from another harness metric."""
    filters = [f for f in (task.harness_filter, other_filter(task)) if f]
    logged = bool if task.harness_metric in BOOLEAN_METRICS else (lambda v: v)
    lines = []
    for s, decoy in zip(samples, decoys):
        for f in filters:
            values = {task.harness_metric: logged(s[task.metric_name] if f == task.harness_filter else 0)}
            if task.harness_metric != task.metric_name:
                values[task.metric_name] = decoy[task.metric_name]
            lines.append(json.dumps({
                "doc_id": s["doc_id"], "doc": {"query": f"otázka {s['doc_id']}", "choices": ["a", "b"]},
                "target": "0", "arguments": {"gen_args_0": {"arg_0": f"{leaf} prompt", "arg_1": " a"}},
                "resps": [[["-1.25", "False"]]], "filtered_resps": [["-1.25", "False"]], "filter": f,
                "metrics": list(values), "doc_hash": _sha(str(s["doc_id"])), "prompt_hash": _sha(leaf),
                "target_hash": _sha("0"), **values}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _leaf_results(task: Task, leaf: str, alias: str, samples: list, decoys: list) -> dict:
    entry = {"alias": alias, "name": leaf, "sample_len": len(samples),
             f"{task.harness_metric},{task.harness_filter}": aggregate(task, samples),
             f"{task.harness_metric}_stderr,{task.harness_filter}": "N/A"}
    if other_filter(task):
        entry[f"{task.harness_metric},{other_filter(task)}"] = 0.0
    if task.harness_metric != task.metric_name:
        entry[f"{task.metric_name},{task.harness_filter}"] = aggregate(task, decoys)
    return entry


def _subtask_slices(task: Task, n: int, documents: list[int] | None = None) -> list[tuple[str, slice]]:
    """Each subtask of an aggregated task and its part of the n samples: `documents` per
    subtask, or sized 1 : 2 : 3 ... (unequal sizes make the harness's mean of subtask means
    differ from the sample-weighted mean)."""
    k = len(task.harness_subtasks)
    ends = ([sum(documents[:i]) for i in range(k + 1)] if documents
            else [n * i * (i + 1) // (k * (k + 1)) for i in range(k + 1)])
    return [(name, slice(ends[i], ends[i + 1])) for i, name in enumerate(task.harness_subtasks)]


def write_run(output: Path, benchmark: Benchmark, task_ids: list[str], document: dict, date_id: str,
              variants: dict[str, int] | None = None, best: dict[str, int] | None = None,
              model: str = MODEL, version: str = LM_EVAL_VERSION, extra_tasks: tuple[str, ...] = (),
              chat_template: str | None = None, limit: int | None = None,
              subtask_documents: dict[str, list[int]] | None = None, weight_by_size: bool = False,
              parent_group: str | None = None, versions: dict[str, float] | None = None) -> Path:
    """One harness run of `task_ids` into `output`; returns the results file.
    variants: task id -> number of prompt variants (default 3 for tasks with variants);
    best: task id -> which variant gets the document's samples (default the last);
    limit: as `--limit`, only the first `limit` documents of each (sub)task are evaluated;
    subtask_documents: aggregated task id -> documents of each subtask (default 1 : 2 : 3 ...);
    weight_by_size: the subtask groups' aggregation (default a mean of subtask means);
    parent_group: a group holding every task and group of the run (`--tasks leaderboard`);
    versions: harness task (or group) -> the version its leaves record (default HARNESS_VERSIONS)."""
    folder = output / sanitize_model_name(model)
    folder.mkdir(parents=True, exist_ok=True)
    variants, best, declared = variants or {}, best or {}, {**HARNESS_VERSIONS, **(versions or {})}
    results, group_subtasks, configs, versions, n_shot, hashes, higher, counts = {}, {}, {}, {}, {}, {}, {}, {}
    groups = {}

    def leaf(task: Task, name: str, alias: str, samples: list, decoys: list) -> None:
        original = len(samples)
        samples, decoys = samples[:limit], decoys[:limit]
        results[name] = _leaf_results(task, name, alias, samples, decoys)
        configs[name] = {"task": name, "tag": [task.harness], "num_fewshot": 0, "output_type": "loglikelihood"}
        versions[name] = declared.get(name, declared.get(task.harness, 1.0))
        n_shot[name], hashes[name] = 0, _sha(f"{name}:{len(samples)}")
        higher[name] = {task.harness_metric: task.metric.higher_is_better}
        counts[name] = {"original": original, "effective": len(samples)}
        (folder / f"samples_{name}_{date_id}.jsonl").write_text(_sample_lines(task, name, samples, decoys),
                                                                encoding="utf-8")

    for task_id in task_ids:
        task = benchmark.task(task_id)
        samples = document["predictions"][task_id]
        if task.harness_subtasks:
            parts = _subtask_slices(task, len(samples), (subtask_documents or {}).get(task_id))
            for name, part in parts:
                offset = part.start
                mine = [{**s, "doc_id": s["doc_id"] - offset} for s in samples[part]]
                leaf(task, name, name, mine, worse(task, mine, 1))
            if task.harness not in task.harness_subtasks:  # run as a group: aggregate_subtask_metrics
                key = f"{task.harness_metric},{task.harness_filter}"
                means = [results[name][key] for name, _ in parts]
                sizes = [results[name]["sample_len"] if weight_by_size else 1 for name, _ in parts]
                group_subtasks[task.harness] = [name for name, _ in parts]
                results[task.harness] = groups[task.harness] = {
                    "alias": task.harness, "name": task.harness,
                    key: sum(m * size for m, size in zip(means, sizes)) / sum(sizes),
                    "sample_len": sum(results[name]["sample_len"] for name, _ in parts)}
            continue
        n = variants.get(task_id, 3) if task.prompt_variants else 1
        leaves = [f"{task.harness}_{i}" for i in range(n)] if task.prompt_variants else [task.harness]
        winner = best.get(task_id, n - 1)
        if task.prompt_variants:
            group_subtasks[task.harness] = leaves
            results[task.harness] = {"alias": task.harness, "name": task.harness}
        for k, name in enumerate(leaves):
            mine = samples if k == winner else worse(task, samples, k)
            leaf(task, name, f"prompt-{k}" if task.prompt_variants else name, mine, worse(task, mine, k + 1))
    if parent_group:
        group_subtasks[parent_group] = [benchmark.task(t).harness for t in task_ids]
        results[parent_group] = {"alias": parent_group, "name": parent_group}
    for name in extra_tasks:  # e.g. a deprecated or unknown task: results and configs, no samples needed
        results[name] = {"alias": name, "acc,none": 0.5}
        configs[name], versions[name], n_shot[name] = {"task": name}, 1.0, 0
    document_out = {
        "results": results, **({"groups": groups} if groups else {}), "group_subtasks": group_subtasks,
        "configs": configs, "versions": versions, "n-shot": n_shot, "higher_is_better": higher,
        "n-samples": counts,
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=bfloat16", "model_num_parameters": 9_120_000_000,
                   "model_dtype": "torch.bfloat16", "model_revision": "main", "model_sha": "abc123",
                   "batch_size": "auto", "batch_sizes": [], "device": "cuda:0", "limit": limit,
                   "bootstrap_iters": 100000, "gen_kwargs": None, "random_seed": 0, "numpy_seed": 1234,
                   "torch_seed": 1234, "fewshot_seed": 1234},
        "git_hash": "4e7e0d4", "date": 1760000000.0, "pretty_env_info": "PyTorch version: 2.6.0",
        "transformers_version": "4.51.3", "lm_eval_version": version, "upper_git_hash": None,
        "tokenizer_pad_token": ["<pad>", "0"], "tokenizer_eos_token": ["</s>", "2"],
        "tokenizer_bos_token": ["<s>", "1"], "eot_token_id": 2, "max_length": 4096,
        "task_hashes": hashes, "model_source": "hf", "model_name": model,
        "model_name_sanitized": sanitize_model_name(model), "system_instruction": None,
        "system_instruction_sha": None, "fewshot_as_multiturn": False, "chat_template": chat_template,
        "chat_template_sha": _sha(chat_template) if chat_template else None,
        "start_time": 100.0, "end_time": 4000.0, "total_evaluation_time_seconds": "3900.0"}
    path = folder / f"results_{date_id}.json"
    path.write_text(json.dumps(document_out, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


DATE_A, DATE_B = "2025-10-01T09-15-02.123456", "2025-10-02T18-40-59.654321"


def write_two_runs(root: Path, benchmark: Benchmark, document: dict, variants: dict[str, int] | None = None,
                   best: dict[str, int] | None = None) -> tuple[Path, Path]:
    """The benchmark's tasks split over two run folders (first half, second half)."""
    ids = benchmark.task_ids
    half = len(ids) // 2
    return (write_run(root / "run_a", benchmark, ids[:half], document, DATE_A, variants, best),
            write_run(root / "run_b", benchmark, ids[half:], document, DATE_B, variants, best))
