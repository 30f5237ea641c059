"""End to end in headless Debian Chromium: the real `workbench dashboard` on 127.0.0.1,
Compare and Annotate opened in a browser, an annotation saved through the UI.

Chromium and chromedriver are Debian packages (.ci/steps/chromium.sh); selenium
drives them with explicit paths, so nothing is downloaded. Screenshots are written to
the test's output folder (tmp_path) as compare.png and annotate.png.
"""

from __future__ import annotations

import os
import shutil

import pytest
from dashboard_helpers import running_dashboard

from workbench.annotation import AnnotationStore
from workbench.annotation.sampling import SampleRecipe, draw_sample

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1800")

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def needs_chromium():
    """Skip locally without the Debian packages; under CI fail, since CI's setup installs them."""
    if not (CHROMIUM and CHROMEDRIVER):
        message = "Debian chromium/chromedriver not installed (bash .ci/steps/chromium.sh installs them)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def dashboard(baseline_copy, tmp_path):
    """`workbench dashboard` as a user starts it; stopped by its process group at the end."""
    with running_dashboard(baseline_copy, tmp_path) as url:
        yield url


@pytest.fixture
def browser(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")  # a fresh profile
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def settled(driver) -> bool:
    """Streamlit has finished its rerun: no "Running…" status and no element greyed out as stale,
    so a screenshot shows the page as it ends, not half-drawn."""
    return driver.execute_script(
        "return !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " && !document.querySelector('[data-stale=\"true\"]')")


def test_compare_and_annotate_in_chromium(baseline_copy, dashboard, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    store = AnnotationStore(baseline_copy)
    runs = [r.run_id for r in store.run_store.runs() if r.corpus_name == "pgv-pii-en"]
    items = draw_sample(store.run_store, SampleRecipe(tuple(runs), 10, "document", 0))
    store.create_sample("browser-session", items, {"runs": runs})
    wait = WebDriverWait(browser, 90)

    # Runs: select the runs; the selection lives in the browser's session, so Compare is
    # reached through the sidebar (a new URL would be a new session with nothing selected).
    browser.get(f"{dashboard}/Runs")
    wait.until(ec.element_to_be_clickable((By.XPATH, "//button[.//p[contains(., 'Select all shown')]]"))).click()
    wait.until(ec.text_to_be_present_in_element((By.TAG_NAME, "body"), runs[0][:8]))
    wait.until(ec.element_to_be_clickable(
        (By.CSS_SELECTOR, 'a[data-testid="stSidebarNavLink"][href$="/Compare"]'))).click()

    # Compare: the original beside the runs, every replacement marked, jump to the next span.
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "mark.wb-focus")))
    wait.until(ec.text_to_be_present_in_element((By.TAG_NAME, "body"), "Span 0:"))
    next_button = wait.until(ec.element_to_be_clickable((By.XPATH, "//button[.//p[contains(., 'Next')]]")))
    next_button.click()
    wait.until(ec.text_to_be_present_in_element((By.TAG_NAME, "body"), "Span 1:"))
    marks = browser.find_elements(By.CSS_SELECTOR, "mark.wb-rep")
    assert marks and all("original:" in m.get_attribute("title") for m in marks)  # hover shows the original
    wait.until(settled)
    wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, '[data-testid="stDataFrame"] canvas')))
    browser.save_screenshot(str(tmp_path / "compare.png"))

    # Annotate: type 3 (OVERLAP) in the key field and press Enter.
    browser.get(f"{dashboard}/Annotate?annotator=browser")
    key = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, 'input[aria-label^="Key"]')))
    wait.until(ec.text_to_be_present_in_element((By.TAG_NAME, "body"), f"item 1 of {len(items)}"))
    key.send_keys("3")
    key.send_keys(Keys.ENTER)
    wait.until(ec.text_to_be_present_in_element((By.TAG_NAME, "body"), "saved OVERLAP"))
    wait.until(ec.text_to_be_present_in_element((By.TAG_NAME, "body"), f"item 2 of {len(items)}"))
    browser.execute_script("window.scrollTo(0, 0); document.querySelectorAll('section').forEach(s => s.scrollTo(0, 0))")
    wait.until(settled)
    wait.until(lambda driver: driver.execute_script(
        "return window.scrollY === 0 && [...document.querySelectorAll('section')].every(s => s.scrollTop === 0)"))
    browser.save_screenshot(str(tmp_path / "annotate.png"))

    saved = store.get((items[0].run_id, items[0].doc_id, items[0].span_index), "browser")
    assert saved is not None and saved.tag == "OVERLAP" and saved.source == "dashboard"
    for name in ("compare.png", "annotate.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    print(f"\nscreenshots: {tmp_path / 'compare.png'} {tmp_path / 'annotate.png'}")
