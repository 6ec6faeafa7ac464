"""Where the tests find the project and leave their artifacts."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
ARTIFACTS = ROOT / "test-artifacts"
