"""What the tests share: helpers, simulations and oracles that test modules import (the
fixtures pytest discovers stay in `conftest.py`), and the code that only tests use, kept out
of the product's modules."""
