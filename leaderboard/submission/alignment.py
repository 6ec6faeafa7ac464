"""Alignment: what every submission must share on a task (doc ids, gold labels, class and
word counts) so that its samples pair with the published ones in duels."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leaderboard.submission.samples import TaskSamples, first_index
from stats import ClassProbs, LabelPairs


@dataclass(frozen=True)
class TaskReference:
    """What every submission must share on a task so that duels are paired: the fields
    that describe the documents, not the model."""

    n_samples: int
    doc_ids: np.ndarray | None = None
    gold: np.ndarray | None = None
    n_classes: int | None = None
    words: np.ndarray | None = None  # perplexity tasks: each document's number of words

    @classmethod
    def of(cls, task_samples: TaskSamples) -> "TaskReference":
        s = task_samples.samples
        if isinstance(s, (ClassProbs, LabelPairs)):
            return cls(len(s.gold), task_samples.doc_ids, s.gold, s.n_classes)
        if s.ndim == 2 and s.shape[1] == 2:  # loglik_words: (n, 2) pairs [loglikelihood, number_of_words]
            return cls(len(s), task_samples.doc_ids, words=s[:, 1])
        return cls(len(s), task_samples.doc_ids)


def alignment_problem(task_id: str, samples: TaskSamples, ref: TaskReference) -> str | None:
    """Why these samples cannot be paired with the published ones, or None. Every
    per-sample field that describes the document (doc_id, gold label, word count) must
    equal the published one; the first differing sample is named."""
    new = TaskReference.of(samples)
    if new.n_samples != ref.n_samples:
        return f"task {task_id}: has {new.n_samples} samples, the published submissions have {ref.n_samples}"
    if ref.doc_ids is not None and new.doc_ids is not None and not np.array_equal(new.doc_ids, ref.doc_ids):
        i = first_index(new.doc_ids != ref.doc_ids)
        return (f"task {task_id}: sample {i} has doc_id {new.doc_ids[i]}, the published submissions have doc_id "
                f"{ref.doc_ids[i]} there (samples must be in the same order)")
    if ref.n_classes is not None and new.n_classes != ref.n_classes:
        return f"task {task_id}: has {new.n_classes} classes, the published submissions have {ref.n_classes}"
    gold = "gold class" if isinstance(samples.samples, ClassProbs) else "gold label"
    for name, mine, published in ((gold, new.gold, ref.gold), ("word count", new.words, ref.words)):
        if mine is None or published is None:
            continue
        differs = np.asarray(mine) != np.asarray(published)
        if differs.any():
            i, more = first_index(differs), int(differs.sum()) - 1
            label = f"task {task_id}, sample {i}" + (f" (doc_id {new.doc_ids[i]})" if new.doc_ids is not None else "")
            return (f"{label}: {name} {mine[i]:.10g} differs from the published submissions' {published[i]:.10g}"
                    + (f" (and {more:,} more samples)" if more else ""))
    return None
