"""Headless Chromium through Selenium, for the viewer's browser tests, benchmark and screenshots.

Optional: needs the ``selenium`` package (the ``dev`` extra) and Chromium with its driver
(Debian: ``apt-get install chromium chromium-driver``). ``headless_chromium()`` raises
:class:`BrowserUnavailable` with a one-line reason when any of them is missing. Chromium
runs with a fresh profile and every background connection turned off, so it works (and
does not hang) on a machine without a network.
"""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from typing import Iterator

from ..game.errors import NecroEnvError

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


class BrowserUnavailable(NecroEnvError, RuntimeError):
    """No headless browser here (the message says what is missing)."""


def find_chromium() -> tuple[str, str]:
    """Paths of the Chromium binary and of chromedriver; ``BrowserUnavailable`` if either is missing."""
    browser = next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)
    if browser is None:
        raise BrowserUnavailable("Chromium not found (apt-get install chromium chromium-driver)")
    driver = shutil.which("chromedriver")
    if driver is None:
        raise BrowserUnavailable("chromedriver not found (apt-get install chromium-driver)")
    return browser, driver


@contextlib.contextmanager
def headless_chromium(width: int = 1400, height: int = 1000) -> Iterator:
    """A Selenium Chrome driver on headless Chromium (browser console logs kept); quits on exit."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise BrowserUnavailable("selenium is not installed (pip install -e '.[dev]')") from None
    browser, driver_path = find_chromium()
    profile = tempfile.mkdtemp(prefix="necro_env_chromium_")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        try:
            driver = webdriver.Chrome(service=Service(driver_path), options=options)
        except Exception as e:  # selenium's own errors: the browser did not start
            raise BrowserUnavailable(f"Chromium did not start: {str(e).splitlines()[0]}") from None
        try:
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
