"""Every page in Chinese (issue 33), at a desk and on a phone, light and dark: axe-core finds
nothing serious or critical and the phone never scrolls sideways. Other words, other widths of
text, ``lang="zh-Hans"``: the checks of tests/test_pages_axe.py on the Chinese pages, in a module
of their own so that the suite's workers share the two sets. Screenshots:
``pages-<page>-<width>-zh[-dark].png`` under test-output/screenshots/."""

from __future__ import annotations

from dataclasses import replace

from tests.browser import OpenPage, PageServer, screenshot, skip_module_without_chromium
from tests.site_pages import SitePage
from tests.test_pages_axe import every_page_size_and_scheme, fit_and_axe, open_ready

skip_module_without_chromium()


@every_page_size_and_scheme
def test_page_in_chinese_passes_axe_and_fits_the_phone(
    pages: OpenPage, page_server: PageServer, site_page: SitePage, width: int, height: int, scheme: str
) -> None:
    separator = "&" if "?" in site_page.path else "?"
    chinese = replace(site_page, path=f"{site_page.path}{separator}lang=zh")
    page, problems = open_ready(pages, page_server, chinese, width, height, scheme)
    if not problems:
        problems += fit_and_axe(page, site_page, width)
        screenshot(page, f"pages-{site_page.slug}-{width}-zh{'' if scheme == 'light' else '-dark'}", full_page=False)
    assert not problems, "\n".join(problems)
