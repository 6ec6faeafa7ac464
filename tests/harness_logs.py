"""Writes lm-evaluation-harness output for tests, in the layout and with the keys of the
harness's own writer (`EvaluationTracker.save_results_aggregated` and
`save_results_samples`, lm-evaluation-harness 0.4.13 `lm_eval/loggers/evaluation_tracker.py`;
result keys as `lm_eval/result_schema.py` lists them):

    <output>/<model_name_sanitized>/results_<date_id>.json
    <output>/<model_name_sanitized>/samples_<task>_<date_id>.jsonl   one per task in "configs"

date_id is `datetime.isoformat()` with ":" replaced by "-". Prompt variants are the
subtasks of the task's group in "group_subtasks"; their alias is "prompt-N" as 0.4.13
writes it (older releases wrote " - prompt-N", which compile must not depend on).

The samples come from a submission document (e.g. a demo model aligned with a store): the
best variant carries the document's samples, the others worse copies of them.
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


def _sample_lines(task: Task, leaf: str, samples: list, filters: tuple[str, ...]) -> str:
    lines = []
    for s in samples:
        for f in filters:
            value = s[task.metric_name]
            lines.append(json.dumps({
                "doc_id": s["doc_id"], "doc": {"query": f"otázka {s['doc_id']}", "choices": ["a", "b"]},
                "target": "0", "arguments": {"gen_args_0": {"arg_0": f"{leaf} prompt", "arg_1": " a"}},
                "resps": [[["-1.25", "False"]]], "filtered_resps": [["-1.25", "False"]], "filter": f,
                "metrics": [task.metric_name], "doc_hash": _sha(str(s["doc_id"])), "prompt_hash": _sha(leaf),
                "target_hash": _sha("0"), task.metric_name: value if f == "none" else 0}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def write_run(output: Path, benchmark: Benchmark, task_ids: list[str], document: dict, date_id: str,
              variants: dict[str, int] | None = None, best: dict[str, int] | None = None,
              model: str = MODEL, version: str = LM_EVAL_VERSION, extra_tasks: tuple[str, ...] = (),
              chat_template: str | None = None) -> Path:
    """One harness run of `task_ids` into `output`; returns the results file.
    variants: task id -> number of prompt variants (default 3 for tasks with variants);
    best: task id -> which variant gets the document's samples (default the last)."""
    folder = output / sanitize_model_name(model)
    folder.mkdir(parents=True, exist_ok=True)
    variants, best = variants or {}, best or {}
    results, group_subtasks, configs, versions, n_shot, hashes, higher = {}, {}, {}, {}, {}, {}, {}
    for task_id in task_ids:
        task = benchmark.task(task_id)
        samples = document["predictions"][task_id]
        n = variants.get(task_id, 3) if task.prompt_variants else 1
        leaves = [f"{task.harness}_{i}" for i in range(n)] if task.prompt_variants else [task.harness]
        winner = best.get(task_id, n - 1)
        if task.prompt_variants:
            group_subtasks[task.harness] = leaves
            results[task.harness] = {"alias": task.harness, "name": task.harness}
        filters = ("none", "strict-match") if task.metric_name == "exact_match" else ("none",)
        for k, leaf in enumerate(leaves):
            mine = samples if k == winner else worse(task, samples, k)
            metric = f"{task.metric_name},none"
            results[leaf] = {"alias": f"prompt-{k}" if task.prompt_variants else leaf, "name": leaf,
                             "sample_len": len(mine), metric: aggregate(task, mine),
                             f"{task.metric_name}_stderr,none": "N/A"}
            if len(filters) > 1:
                results[leaf][f"{task.metric_name},strict-match"] = 0.0
            configs[leaf] = {"task": leaf, "tag": [task.harness], "num_fewshot": 0, "output_type": "loglikelihood"}
            versions[leaf], n_shot[leaf], hashes[leaf] = 1.0, 0, _sha(f"{leaf}:{len(mine)}")
            higher[leaf] = {task.metric_name: task.metric.higher_is_better}
            (folder / f"samples_{leaf}_{date_id}.jsonl").write_text(_sample_lines(task, leaf, mine, filters),
                                                                    encoding="utf-8")
    for name in extra_tasks:  # e.g. a deprecated or unknown task: results and configs, no samples needed
        results[name] = {"alias": name, "acc,none": 0.5}
        configs[name], versions[name], n_shot[name] = {"task": name}, 1.0, 0
    document_out = {
        "results": results, "group_subtasks": group_subtasks, "configs": configs, "versions": versions,
        "n-shot": n_shot, "higher_is_better": higher,
        "n-samples": {t: {"original": 100, "effective": 100} for t in configs},
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=bfloat16", "model_num_parameters": 9_120_000_000,
                   "model_dtype": "torch.bfloat16", "model_revision": "main", "model_sha": "abc123",
                   "batch_size": "auto", "batch_sizes": [], "device": "cuda:0", "limit": None,
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
