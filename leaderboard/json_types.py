"""The type of a JSON object as the stores read and write it: its values are whatever JSON
holds (checked where they are read), hence Any."""
from __future__ import annotations

from typing import Any

JSONObject = dict[str, Any]
