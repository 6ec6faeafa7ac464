"""A corpus of bad submission files, generated from a valid one: every validation rule,
hostile encodings and shapes, and files built to exhaust memory or time.

`bad_files(valid)` returns {case: (file bytes, a part of the expected message)}.
Used by the command-line tests (validate, presubmit, publish) and the web upload test.
"""
from __future__ import annotations

import gc
import json
import re

from leaderboard.submission.reading import MAX_FILE_BYTES, MAX_JSON_OBJECTS, MAX_JSON_VALUES

ACC_TASK = "benczechmark_hellaswag"
EM_TASK = "benczechmark_cs_naturalquestions"
AUC_TASK = "benczechmark_snli"
PPL_TASK = "benczechmark_essay"


def _metric(sample: dict) -> str:
    return next(k for k in sample if k not in ("doc_id", "filtered_resps"))


def set_value(doc, task, index, value):
    sample = doc["predictions"][task][index]
    sample[_metric(sample)] = value


def n_classes(doc) -> int:
    return len(doc["predictions"][AUC_TASK][0]["avg_mcauroc"][1])


def _uniform(doc) -> list[float]:
    return [1.0 / n_classes(doc)] * n_classes(doc)


def _probs(doc, first: float) -> list[float]:
    """Probabilities with `first` for class 0, the rest sharing 1 - first (not checked)."""
    k = n_classes(doc)
    return [first] + [(1.0 - first) / (k - 1)] * (k - 1)


def _with(path_value):
    """A mutation setting doc[...path] = value."""
    *path, value = path_value

    def mutate(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _drop_all_doc_ids_and_reverse(doc):
    samples = doc["predictions"][ACC_TASK]
    for s in samples:
        del s["doc_id"]
    samples.reverse()


def _swap_doc_ids(doc):
    samples = doc["predictions"][ACC_TASK]
    samples[3]["doc_id"], samples[4]["doc_id"] = samples[4]["doc_id"], samples[3]["doc_id"]


def _all_probs_extra_class(doc):
    for s in doc["predictions"][AUC_TASK]:
        gold, probs = s["avg_mcauroc"]
        s["avg_mcauroc"] = [gold, [p * 0.5 for p in probs] + [0.5]]


def _gold_changed(doc):
    gold, probs = doc["predictions"][AUC_TASK][7]["avg_mcauroc"]
    doc["predictions"][AUC_TASK][7]["avg_mcauroc"] = [(gold + 1) % len(probs), probs]


def _probs_wrong_count(doc):
    gold, probs = doc["predictions"][AUC_TASK][5]["avg_mcauroc"]
    doc["predictions"][AUC_TASK][5]["avg_mcauroc"] = [gold, probs[:-1]]


def _one_class_probs(doc):
    for s in doc["predictions"][AUC_TASK]:
        s["avg_mcauroc"] = [0, [1.0]]


def _drop_tasks(k):
    def mutate(doc):
        for task in list(doc["predictions"])[:k]:
            del doc["predictions"][task]
    return mutate


DOCUMENT_CASES = {
    # tasks
    "missing task": (lambda d: d["predictions"].pop(AUC_TASK), f"missing tasks (1 of 50): {AUC_TASK}"),
    "five missing tasks": (_drop_tasks(5), "missing tasks (5 of 50)"),
    "all tasks missing": (_with(("predictions", {})), "missing tasks (50 of 50)"),
    "extra task": (_with(("predictions", "benczechmark_summarization", [{"rouge_raw_r2_mid_f": 0.2, "doc_id": 0}])),
                   "not part of BenCzechMark: benczechmark_summarization"),
    "task id in another case": (lambda d: d["predictions"].__setitem__(ACC_TASK.upper(), d["predictions"].pop(ACC_TASK)),
                                f"missing tasks (1 of 50): {ACC_TASK}"),
    "task is an object": (_with(("predictions", ACC_TASK, {"0": {"acc": 1}})), f"task {ACC_TASK}: predictions must be a list"),
    "task is a string": (_with(("predictions", ACC_TASK, "all correct")), f"task {ACC_TASK}: predictions must be a list"),
    "task is null": (_with(("predictions", ACC_TASK, None)), f"task {ACC_TASK}: predictions must be a list"),
    "empty task": (_with(("predictions", EM_TASK, [])), f"task {EM_TASK}: has no samples"),
    "sample count": (lambda d: d["predictions"][ACC_TASK].pop(), f"task {ACC_TASK}: has "),
    "one sample more": (lambda d: d["predictions"][ACC_TASK].append({"acc": 1, "doc_id": 10**6}), f"task {ACC_TASK}: has "),
    # top level
    "no predictions": (lambda d: d.pop("predictions"), "the file has no 'predictions' object"),
    "predictions a list": (_with(("predictions", [1, 2])), "the file has no 'predictions' object"),
    "predictions null": (_with(("predictions", None)), "the file has no 'predictions' object"),
    "results a list": (_with(("results", [])), "'results' must be an object"),
    "results a string": (_with(("results", "good")), "'results' must be an object"),
    # samples: shape
    "sample a number": (_with(("predictions", ACC_TASK, 0, 1)), f"task {ACC_TASK}, sample 0: acc must be an object"),
    "sample a list": (_with(("predictions", ACC_TASK, 0, [1, 0])), f"task {ACC_TASK}, sample 0: acc must be an object"),
    "sample null": (_with(("predictions", ACC_TASK, 1, None)), f"task {ACC_TASK}, sample 1: acc must be an object"),
    "missing metric": (lambda d: d["predictions"][EM_TASK][2].pop("exact_match"),
                       f"task {EM_TASK}, sample 2 (doc_id 2): exact_match has no 'exact_match' value"),
    "metric renamed": (lambda d: d["predictions"][ACC_TASK][0].__setitem__("accuracy", d["predictions"][ACC_TASK][0].pop("acc")),
                       f"task {ACC_TASK}, sample 0 (doc_id 0): acc has no 'acc' value"),
    # 0/1 metrics
    "acc not 0/1": (lambda d: set_value(d, ACC_TASK, 10, 0.5), f"task {ACC_TASK}, sample 10 (doc_id 10): acc must be 0 or 1, got 0.5"),
    "acc 2": (lambda d: set_value(d, ACC_TASK, 10, 2), "sample 10 (doc_id 10): acc must be 0 or 1, got 2"),
    "acc -1": (lambda d: set_value(d, ACC_TASK, 10, -1), "sample 10 (doc_id 10): acc must be 0 or 1, got -1"),
    "acc a string": (lambda d: set_value(d, ACC_TASK, 11, "1"), "sample 11 (doc_id 11): acc must be 0 or 1, got \"1\""),
    "acc null": (lambda d: set_value(d, ACC_TASK, 11, None), "sample 11 (doc_id 11): acc must be 0 or 1, got null"),
    "acc a list": (lambda d: set_value(d, ACC_TASK, 11, [1]), "sample 11 (doc_id 11): acc must be 0 or 1, got [1]"),
    "acc an object": (lambda d: set_value(d, ACC_TASK, 11, {"v": 1}), "sample 11 (doc_id 11): acc must be 0 or 1"),
    "acc true": (lambda d: set_value(d, ACC_TASK, 12, True), "sample 12 (doc_id 12): acc must be 0 or 1, got true (true/false are not numbers)"),
    "acc false": (lambda d: set_value(d, ACC_TASK, 0, False), "sample 0 (doc_id 0): acc must be 0 or 1, got false"),
    "exact match true": (lambda d: set_value(d, EM_TASK, 3, True), f"task {EM_TASK}, sample 3 (doc_id 3): exact_match must be 0 or 1, got true"),
    "exact match yes": (lambda d: set_value(d, EM_TASK, 3, "yes"), f"task {EM_TASK}, sample 3 (doc_id 3): exact_match must be 0 or 1, got \"yes\""),
    "NaN": (lambda d: set_value(d, EM_TASK, 12, float("nan")), f"task {EM_TASK}, sample 12 → 'exact_match' is NaN or Infinity"),
    "acc Infinity": (lambda d: set_value(d, ACC_TASK, 5, float("inf")), f"task {ACC_TASK}, sample 5 → 'acc' is NaN or Infinity"),
    # perplexity
    "infinite loglik": (lambda d: set_value(d, PPL_TASK, 3, [float("-inf"), 10]), f"task {PPL_TASK}, sample 3 → 'word_perplexity' → item 0 is NaN or Infinity"),
    "loglik and words overflow": (lambda d: set_value(d, PPL_TASK, 0, [-1e306, 1e306]), f"task {PPL_TASK}, sample 0 (doc_id 0): word_perplexity number_of_words must be a whole number from 1"),
    "loglik beyond float range per word": (lambda d: set_value(d, PPL_TASK, 1, [-1e308, 7]), f"task {PPL_TASK}, sample 1 (doc_id 1): word_perplexity loglikelihood -1e+308 over 7 words is below -700 per word"),
    "positive loglik": (lambda d: set_value(d, PPL_TASK, 2, [3.5, 10]), f"task {PPL_TASK}, sample 2 (doc_id 2): word_perplexity loglikelihood must be <= 0"),
    "zero words": (lambda d: set_value(d, PPL_TASK, 4, [-10.0, 0]), "number_of_words must be a whole number from 1 to 1,000,000,000, got 0"),
    "negative words": (lambda d: set_value(d, PPL_TASK, 4, [-10.0, -3]), "number_of_words must be a whole number from 1 to 1,000,000,000, got -3"),
    "fractional words": (lambda d: set_value(d, PPL_TASK, 4, [-10.0, 2.5]), "number_of_words must be a whole number from 1 to 1,000,000,000, got 2.5"),
    "words beyond a billion": (lambda d: set_value(d, PPL_TASK, 4, [-10.0, 2e9]), "got 2e+09"),
    "perplexity not a pair": (lambda d: set_value(d, PPL_TASK, 6, -10.0), "must be a pair [loglikelihood, number_of_words], got -10.0"),
    "perplexity a triple": (lambda d: set_value(d, PPL_TASK, 6, [-10.0, 3, 1]), "must be a pair [loglikelihood, number_of_words], got [-10.0, 3, 1]"),
    "perplexity nested": (lambda d: set_value(d, PPL_TASK, 6, [[-10.0], 3]), "must be a pair [loglikelihood, number_of_words], got [[-10.0], 3]"),
    "perplexity strings": (lambda d: set_value(d, PPL_TASK, 6, ["-10", "3"]), "must be a pair [loglikelihood, number_of_words], got [\"-10\", \"3\"]"),
    "perplexity bool loglik": (lambda d: set_value(d, PPL_TASK, 7, [False, 3]), f"task {PPL_TASK}, sample 7 (doc_id 7): word_perplexity must be a pair [loglikelihood, number_of_words], got [false, 3] (true/false"),
    "perplexity bool words": (lambda d: set_value(d, PPL_TASK, 7, [-4.0, True]), "got [-4.0, true] (true/false are not numbers)"),
    # classification
    "probability above 1": (lambda d: set_value(d, AUC_TASK, 2, [0, [1.2] + [0.0] * (n_classes(d) - 1)]),
                            f"task {AUC_TASK}, sample 2 (doc_id 2): avg_mcauroc has a probability outside [0, 1]"),
    "negative probability": (lambda d: set_value(d, AUC_TASK, 2, [0, [-0.5] + [1.5 / (n_classes(d) - 1)] * (n_classes(d) - 1)]),
                             "sample 2 (doc_id 2): avg_mcauroc has a probability outside [0, 1]"),
    "probabilities sum above 1": (lambda d: set_value(d, AUC_TASK, 3, [0, [0.9] * n_classes(d)]),
                                  f"task {AUC_TASK}, sample 3 (doc_id 3): avg_mcauroc class probabilities sum to"),
    "probabilities all zero": (lambda d: set_value(d, AUC_TASK, 4, [0, [0.0] * n_classes(d)]),
                               "sample 4 (doc_id 4): avg_mcauroc class probabilities sum to 0, not 1 (within 0.01)"),
    "probabilities sum to 0.9": (lambda d: set_value(d, AUC_TASK, 4, [0, [0.9 / n_classes(d)] * n_classes(d)]),
                                 "sample 4 (doc_id 4): avg_mcauroc class probabilities sum to 0.9, not 1"),
    "probability NaN": (lambda d: set_value(d, AUC_TASK, 4, [0, [float("nan")] * n_classes(d)]),
                        f"task {AUC_TASK}, sample 4 → 'avg_mcauroc' → item 1 → item 0 is NaN or Infinity"),
    "probability true": (lambda d: set_value(d, AUC_TASK, 6, [0, [True] + [0.0] * (n_classes(d) - 1)]),
                         "sample 6 (doc_id 6): avg_mcauroc must be a pair [gold_class_index, [p_class0, p_class1, ...]], got [0, [true"),
    "gold true": (lambda d: set_value(d, AUC_TASK, 6, [True, _uniform(d)]), "sample 6 (doc_id 6): avg_mcauroc must be a pair"),
    "gold a float": (lambda d: set_value(d, AUC_TASK, 6, [0.5, _uniform(d)]), "gold_class_index must be an integer, got 0.5"),
    "gold a string": (lambda d: set_value(d, AUC_TASK, 6, ["0", _uniform(d)]), "sample 6 (doc_id 6): avg_mcauroc must be a pair"),
    "gold out of range": (lambda d: set_value(d, AUC_TASK, 8, [7, _uniform(d)]), "gold class 7 is out of range"),
    "gold negative": (lambda d: set_value(d, AUC_TASK, 8, [-1, _uniform(d)]), "gold class -1 is out of range"),
    "probabilities not a list": (lambda d: set_value(d, AUC_TASK, 8, [0, 0.5]), "sample 8 (doc_id 8): avg_mcauroc must be a pair"),
    "classification value a number": (lambda d: set_value(d, AUC_TASK, 8, 0.5), "sample 8 (doc_id 8): avg_mcauroc must be a pair"),
    "classification pair too short": (lambda d: set_value(d, AUC_TASK, 8, [0]), "sample 8 (doc_id 8): avg_mcauroc must be a pair"),
    "class count varies": (_probs_wrong_count, "sample 5 (doc_id 5): avg_mcauroc has"),
    "class count differs from published": (_all_probs_extra_class, "classes, the published submissions have"),
    "one class only": (_one_class_probs, "needs at least 2 class probabilities, got 1"),
    "gold differs from published": (_gold_changed, f"task {AUC_TASK}, sample 7 (doc_id 7): gold class "),
    "word count differs from published": (lambda d: set_value(d, PPL_TASK, 5, [-10.0, 999_999]),
                                          f"task {PPL_TASK}, sample 5 (doc_id 5): word count 999999 differs from the "
                                          f"published submissions' "),
    # doc_id
    "doc_id order": (_swap_doc_ids, "sample 3 has doc_id 4, the published submissions have doc_id 3 there"),
    "duplicate doc_id": (lambda d: d["predictions"][ACC_TASK][4].__setitem__("doc_id", 3), "sample 4 (doc_id 3): acc repeats a doc_id"),
    "doc_id a string": (lambda d: d["predictions"][ACC_TASK][4].__setitem__("doc_id", "4"), "sample 4: acc doc_id must be an integer, got \"4\""),
    "doc_id a float": (lambda d: d["predictions"][ACC_TASK][4].__setitem__("doc_id", 4.0), "sample 4: acc doc_id must be an integer, got 4.0"),
    "doc_id true": (lambda d: d["predictions"][ACC_TASK][4].__setitem__("doc_id", True), "sample 4: acc doc_id must be an integer, got true"),
    "doc_id missing on one sample": (lambda d: d["predictions"][ACC_TASK][4].pop("doc_id"),
                                     "sample 4: acc doc_id must be an integer, got null (every sample needs its doc_id"),
    "reordered without doc_ids": (_drop_all_doc_ids_and_reverse,
                                  f"task {ACC_TASK}, sample 0: acc doc_id must be an integer, got null (every sample needs its doc_id"),
    "doc_id negative": (lambda d: d["predictions"][ACC_TASK][0].__setitem__("doc_id", -1),
                        "sample 0 has doc_id -1, the published submissions have doc_id 0 there"),
    "doc_id beyond 64 bits": (lambda d: d["predictions"][ACC_TASK][4].__setitem__("doc_id", 2**70),
                              f"task {ACC_TASK}, sample 4 → 'doc_id' is an integer beyond 64 bits"),
    "acc beyond 64 bits": (lambda d: set_value(d, ACC_TASK, 9, 2**64), f"task {ACC_TASK}, sample 9 → 'acc' is an integer beyond 64 bits"),
    "results integer beyond 64 bits": (_with(("results", ACC_TASK, "acc", 2**80)), f"'results' → '{ACC_TASK}' → 'acc' is an integer beyond 64 bits"),
    "results NaN": (_with(("results", ACC_TASK, "acc", float("nan"))), f"'results' → '{ACC_TASK}' → 'acc' is NaN or Infinity"),
    "metadata Infinity": (_with(("metadata", "max_length", float("inf"))), "'metadata' → 'max_length' is NaN or Infinity"),
    "filtered_resps NaN": (lambda d: d["predictions"][ACC_TASK][2].__setitem__("filtered_resps", [[float("nan"), False]]),
                           f"task {ACC_TASK}, sample 2 → 'filtered_resps' → item 0 → item 0 is NaN or Infinity"),
    "lone surrogate in metadata": (_with(("metadata", "model_name", "\ud800")),
                                   "'metadata' → 'model_name' holds a lone surrogate \\ud800"),
    "lone surrogate in a sample": (lambda d: d["predictions"][ACC_TASK][2].__setitem__("filtered_resps", ["a\udfff"]),
                                   f"task {ACC_TASK}, sample 2 → 'filtered_resps' → item 0 holds a lone surrogate \\udfff"),
    "lone surrogate in a key": (_with(("metadata", "\udc80", 1)), "'metadata' has a key with a lone surrogate \\udc80"),
    "million-digit integer in metadata": (_with(("metadata", "seed", 10**200)), "'metadata' → 'seed' is an integer beyond 64 bits"),
}


def _in_metadata(member: str):
    """A file with `member` ("key": value text) inserted first into the metadata object."""
    return lambda text, valid: text.replace('"metadata": {', '"metadata": {' + member + ", ", 1).encode()


def _repeated_key_in_sample(text, valid):
    sample = json.dumps(valid["predictions"][EM_TASK][2])
    return text.replace(sample, sample[:-1] + ', "exact_match": 0}', 1).encode()


# Cases only raw bytes can express: encodings, broken or non-strict JSON, size.
# name -> (file bytes from (json text of the valid document, the document), expected message)
TEXT_CASES = {
    "empty file": (lambda text, valid: b"", "the file is not valid JSON: Expecting value at line 1, column 1"),
    "whitespace only": (lambda text, valid: b"  \n\t ", "the file is not valid JSON"),
    "not JSON": (lambda text, valid: b"{not json",
                 "the file is not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2"),
    "truncated": (lambda text, valid: text[:1000].encode(), "the file is not valid JSON"),
    "trailing garbage": (lambda text, valid: (text + " }{").encode(), "the file is not valid JSON: Extra data"),
    "two documents": (lambda text, valid: (text + "\n" + text).encode(), "the file is not valid JSON: Extra data"),
    "JSON lines": (lambda text, valid: b'{"acc": 1}\n{"acc": 0}\n', "the file is not valid JSON: Extra data"),
    "top-level list": (lambda text, valid: b"[1, 2]", "the file must hold a JSON object"),
    "top-level string": (lambda text, valid: b'"predictions"', "the file must hold a JSON object"),
    "top-level null": (lambda text, valid: b"null", "the file must hold a JSON object"),
    "top-level number": (lambda text, valid: b"42", "the file must hold a JSON object"),
    "invalid UTF-8": (lambda text, valid: b"\x80abc", "not UTF-8"),
    "Latin-1 text": (lambda text, valid: _in_metadata('"team": "Tom\u00e1s"')(text, valid).decode().encode("latin-1"),
                     "is not UTF-8 text"),
    "UTF-16 with BOM": (lambda text, valid: text.encode("utf-16"), "the file is UTF-16 encoded; save it as UTF-8"),
    "UTF-16-LE without BOM": (lambda text, valid: text.encode("utf-16-le"), "the file is UTF-16-LE encoded; save it as UTF-8"),
    "UTF-16-BE without BOM": (lambda text, valid: text.encode("utf-16-be"), "the file is UTF-16-BE encoded; save it as UTF-8"),
    "UTF-32": (lambda text, valid: text.encode("utf-32"), "the file is UTF-32 encoded; save it as UTF-8"),
    "repeated key in a sample": (_repeated_key_in_sample,
                                 f"task {EM_TASK}, sample 2 repeats the key 'exact_match' (keys must be unique)"),
    "repeated task": (lambda text, valid: text.replace('"predictions": {', f'"predictions": {{"{ACC_TASK}": [], ', 1).encode(),
                      f"'predictions' repeats the key '{ACC_TASK}'"),
    "repeated top-level key": (lambda text, valid: ('{"results": {}, ' + text[1:]).encode(),
                               "the top level repeats the key 'results'"),
    "bare NaN constant": (_in_metadata('"x": NaN'), "'metadata' → 'x' is NaN or Infinity"),
    "negative Infinity constant": (_in_metadata('"x": -Infinity'), "'metadata' → 'x' is NaN or Infinity"),
    "float overflowing to infinity": (_in_metadata('"x": 1e400'), "'metadata' → 'x' is NaN or Infinity"),
    "100,000-digit integer": (_in_metadata('"x": ' + "9" * 100_000), "'metadata' → 'x' is an integer beyond 64 bits"),
    "nesting 100,000 deep": (lambda text, valid: ("[" * 100_000 + "]" * 100_000).encode(), "nests arrays or objects too deeply"),
    "nesting 100,000 deep in metadata": (_in_metadata('"x": ' + "[" * 100_000 + "]" * 100_000),
                                         "nests arrays or objects too deeply"),
    "a million task keys": (lambda text, valid: json.dumps({"predictions": {f"task_{i}": [] for i in range(1_000_000)}}).encode(),
                            "1,000,000 tasks that are not part of BenCzechMark: task_0, task_1"),
    "too many objects": (lambda text, valid: ("[" + ",".join(["{}"] * (MAX_JSON_OBJECTS + 1)) + "]").encode(),
                         f"the file holds more than {MAX_JSON_OBJECTS:,} JSON objects"),
    "too many values": (lambda text, valid: ("[" + "0," * (MAX_JSON_VALUES + 1) + "0]").encode(),
                        f"the file holds more than {MAX_JSON_VALUES:,} JSON values"),
    "larger than the limit": (lambda text, valid: b" " * (MAX_FILE_BYTES + 1),
                              f"larger than the limit of {MAX_FILE_BYTES // 2**20} MB"),
}
CASE_NAMES = [*DOCUMENT_CASES, *TEXT_CASES]


class _CopiedWhenTaken(dict):
    """An object of the valid document whose values are copied when first taken by key, as
    every mutation reaches what it changes; what a case does not take stays the valid
    document's own (unchanged) object. json.dumps reads the values as they are held."""

    def __init__(self, original: dict):
        super().__init__(original)
        self._copied = set()

    def __getitem__(self, key):
        value = super().__getitem__(key)
        if key not in self._copied:
            value = _CopiedWhenTaken(value) if isinstance(value, dict) else (
                json.loads(json.dumps(value)) if isinstance(value, list) else value)
            self[key] = value
        return value

    def __setitem__(self, key, value):
        self._copied.add(key)
        super().__setitem__(key, value)


_TASK_MARK = re.compile(r'"\\u0000task (\d+)"')


def _dumps(doc, task_texts: dict[int, str]) -> bytes:
    """json.dumps(doc).encode(), with each of the valid document's task lists that doc still
    holds (by identity) written from its text, dumped once for all cases."""
    predictions = dict.get(doc, "predictions") if isinstance(doc, dict) else None
    if not isinstance(predictions, dict):
        return json.dumps(doc).encode()
    held = list(dict.values(predictions))
    marked = {key: f"\0task {i}" if id(value) in task_texts else value
              for i, (key, value) in enumerate(dict.items(predictions))}
    text = json.dumps({key: marked if key == "predictions" else value for key, value in dict.items(doc)})
    return _TASK_MARK.sub(lambda m: task_texts[id(held[int(m[1])])], text).encode()


def bad_files(valid: dict) -> dict[str, tuple[bytes, str]]:
    """{case: (bytes of the file, part of the expected message)} for every case. A case
    copies what its mutation takes (`_CopiedWhenTaken`) and dumps only that."""
    cases = {}
    text = json.dumps(valid)
    task_texts = {id(samples): json.dumps(samples) for samples in valid["predictions"].values()}
    collecting = gc.isenabled()
    gc.disable()  # the copies and the million task keys are objects without cycles: the collector's passes
    try:          # took half the time
        for name, (mutate, expected) in DOCUMENT_CASES.items():
            doc = _CopiedWhenTaken(valid)
            mutate(doc)
            cases[name] = (_dumps(doc, task_texts), expected)
        assert json.dumps(valid) == text, "a mutation changed the valid document itself"
        for name, (build, expected) in TEXT_CASES.items():
            cases[name] = (build(text, valid), expected)
    finally:
        if collecting:
            gc.enable()
    return cases
