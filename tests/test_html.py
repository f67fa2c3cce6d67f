"""The self-contained HTML report: content, determinism, rendering in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.html import render_html
from harness.narrative import narrate

ROOT = Path(__file__).resolve().parent.parent


def load(name):
    return json.loads((ROOT / "tests" / "reports" / f"{name}.json").read_text(encoding="utf-8"))


def test_page_has_the_tables_the_three_charts_and_the_narrative():
    report = load("trois_camps_outsider")
    story = narrate(report, None, unavailable="test")
    page = render_html(report, story)
    assert page.count("<svg") == 3
    for side in report["sides"]:
        assert f"{100 * side['rate']:.1f}%" in page
    for c in report["combatants"]:
        assert f"<td>{c['id']}</td>" in page
    assert "<h2>Analyse</h2>" in page and "gabarit déterministe" in page
    assert render_html(report, story) == page  # same inputs, same bytes


def test_page_fetches_nothing_and_escapes_names():
    report = load("ecrasant")
    report["map"] = "<script>alert(1)</script>"
    page = render_html(report)
    assert "<script>" not in page and "&lt;script&gt;" in page
    urls = re.findall(r"(?:src|href)=|url\(|https?://", page)
    assert urls == ["http://"] * page.count('xmlns="http://www.w3.org/2000/svg"')


def test_cli_writes_the_html_report(tmp_path, capsys):
    out = tmp_path / "rapport.html"
    stats = ROOT / "tests" / "reports" / "nuls_plafond.json"
    assert main(["report", str(stats), "--no-narrate", "--html", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "=== Rapport d'équilibrage ===" in capsys.readouterr()[0]


def _png_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and raw (filtered) scanlines of an 8-bit PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, zlib.decompress(idat)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="apt-get install chromium")
def test_page_renders_in_headless_chromium(tmp_path):
    page = tmp_path / "rapport.html"
    page.write_text(render_html(load("trois_camps_outsider")), encoding="utf-8")
    png = tmp_path / "capture.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--proxy-server=127.0.0.1:9",
            "--window-size=1000,1400",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    width, height, raw = _png_pixels(png)
    assert (width, height) == (1000, 1400)
    # the bars are drawn in the palette's colours: the page is not blank
    assert len(set(raw)) > 50
