"""A served app of a module's own, for browser modules whose tests change its store."""
from __future__ import annotations

import pytest
from support.servers import serve


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, full_store_template):
    with serve(tmp_path_factory, full_store_template) as (url, store, _, _):
        yield url, store
