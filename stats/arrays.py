"""The array types the statistics pass around, by element type (numpy.typing): an array of
a known dtype keeps its type through numpy's arithmetic, where a bare `np.ndarray` becomes Any."""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.intp]
