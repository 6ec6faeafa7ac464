"""The benchmarks the project ships, by name, for the tests that run each."""
from __future__ import annotations

from leaderboard.config.tasks import DEFAULT_TASKS_FILE
from support.paths import ROOT


SUITE_FILE = ROOT / "data" / "czechsuite_tasks.json"


OPEN_LLM_FILE = ROOT / "data" / "open_llm_leaderboard_v2_tasks.json"


EUROEVAL_FILE = ROOT / "data" / "euroeval_czech_tasks.json"


BENCHMARKS = {"BenCzechMark": DEFAULT_TASKS_FILE, "CzechSuite": SUITE_FILE, "OpenLLMv2": OPEN_LLM_FILE,
              "EuroEval": EUROEVAL_FILE}
