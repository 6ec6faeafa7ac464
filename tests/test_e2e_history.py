"""The browser's history (issue 36), in Chromium on a desktop and a phone: each view change
pushes a history entry and Back returns to the view before it, Forward to the one after; a
model's link opens its Details in the page (no new tab, no reload) at a URL of its own.

The app is conftest.py's `shared_app` (these tests only read it).
"""
from __future__ import annotations

from support.page_checks import check_back_and_model_link
from support.pages import DESKTOP, PHONE, close, open_page, settled


import pytest


VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@VIEWPORTS
def test_back_returns_to_the_view_before_and_a_model_link_opens_details_in_the_page(browser, app_url, viewport):
    page = open_page(browser, app_url[0], viewport)
    settled(page)
    check_back_and_model_link(page, app_url[0], "NER")
    close(page)
