"""The metric registry and the tasks' records: a name clash is refused, an unknown name
lists the known ones, and entries are built by keyword."""
from __future__ import annotations

import json

import numpy as np
import pytest

import stats
from leaderboard.config.tasks import Benchmark, Task, TasksFileError, load_benchmark
from stats import duel_tests as dt
from stats.metrics import resampled_means
from stats.registry import NameClash, Registry, UnknownName


def judge_like(name: str, aliases: tuple[str, ...] = ()) -> stats.Metric:
    return stats.Metric(name=name, sample_kind="unit_interval", higher_is_better=True,
                        aggregate=lambda s: float(np.mean(s)), summarize=lambda s, seed: np.asarray(s, float),
                        test=dt.paired_ttest, test_name="paired t-test", replicates=resampled_means, aliases=aliases)


def test_a_name_clash_is_refused_and_the_first_entry_kept():
    accuracy = stats.METRICS["acc"]
    with pytest.raises(NameClash, match="'acc' is already registered"):
        stats.register(judge_like("acc"))
    assert stats.METRICS["acc"] is accuracy


def test_an_alias_clashing_with_a_registered_name_or_alias_is_refused_and_nothing_registered():
    before = dict(stats.METRIC_ALIASES)
    with pytest.raises(NameClash, match="'rouge_raw_r2_mid_f_without_bootstrap' is already registered"):
        stats.register(judge_like("brand_new", aliases=("rouge_raw_r2_mid_f_without_bootstrap",)))
    with pytest.raises(NameClash, match="'token_f1' is already registered"):
        stats.register(judge_like("another_new", aliases=("token_f1",)))
    assert "brand_new" not in stats.METRICS and "another_new" not in stats.METRICS
    assert dict(stats.METRIC_ALIASES) == before


def test_an_unknown_metric_name_lists_the_known_names():
    with pytest.raises(UnknownName) as caught:
        stats.METRICS["accuracy"]
    message = str(caught.value)
    assert message.startswith("unknown metric 'accuracy'; known: ")
    assert message.endswith(", ".join(sorted(stats.METRICS)))


def test_an_unknown_sample_kind_is_refused_listing_the_kinds():
    metric = judge_like("odd_kind")
    with pytest.raises(ValueError, match="unknown sample kind 'matrix'; known: binary, "):
        stats.register(stats.Metric(**{**metric.__dict__, "sample_kind": "matrix"}))
    assert "odd_kind" not in stats.METRICS


def test_a_registry_of_its_own_refuses_clashes_and_names_what_it_knows():
    colours = Registry("colour")
    colours.register("red", 1, aliases=("rouge",))
    with pytest.raises(NameClash, match="colour 'rouge' is already registered"):
        colours.register("crimson", 2, aliases=("rouge",))
    assert dict(colours) == {"red": 1} and dict(colours.aliases) == {"red": "red", "rouge": "red"}
    with pytest.raises(UnknownName, match="unknown colour 'blue'; known: red$"):
        colours["blue"]
    with pytest.raises(UnknownName, match="unknown colour 'red'; known: none"):
        Registry("colour")["red"]


def test_metrics_tasks_and_benchmarks_are_built_by_keyword_only():
    with pytest.raises(TypeError):
        stats.Metric("x", "binary", True, np.mean, np.mean, dt.paired_ttest, "t")
    with pytest.raises(TypeError):
        Task("t1", "T1", "T1", "Task 1", "A", "acc", "")
    task = Task(id="t1", abbreviation="T1", short_name="T1", name="Task 1", category="A", metric_name="acc",
                dataset_url="")
    with pytest.raises(TypeError):
        Benchmark("Tiny", ("A",), (task,))
    bench = Benchmark(name="Tiny", categories=("A",), tasks=(task,))
    assert bench.task("t1") is task and task.metric is stats.METRICS["acc"]


def test_an_unknown_task_id_lists_the_known_ids(small_benchmark):
    with pytest.raises(UnknownName, match="unknown task 't_nope'; known: t_acc, t_auc, t_em, t_ppl, t_rouge"):
        small_benchmark.task("t_nope")


def test_a_tasks_file_with_an_unknown_metric_names_the_task_and_lists_the_metrics(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"benchmark": "B", "categories": ["A"], "tasks": [
        {"id": "t1", "abbreviation": "T1", "short_name": "T1", "name": "Task 1", "category": "A",
         "metric": "accuracy", "dataset_url": ""}]}))
    with pytest.raises(TasksFileError) as caught:
        load_benchmark(path)
    assert str(caught.value) == (f"{path}: task t1: unknown metric 'accuracy'; "
                                 f"known: {', '.join(sorted(stats.METRICS))}")
