"""The window's one escaping (inspector/session/visible.py): what would not show as itself is made visible in
the CLI's escape form, control pictures only where the window's fonts draw them, and ids that mix look-alike
scripts are named."""

from __future__ import annotations

import pytest

from inspector.checkpoint.artifact import display_text
from inspector.session import visible as v


@pytest.fixture
def pictures():
    yield v.use_pictures
    v.use_pictures(())  # (the default: no pictures)


def test_controls_are_escapes_by_default_and_pictures_where_the_fonts_draw_them(pictures):
    assert v.visible("a\nb\x00c\x7f\x1b[31m\x07") == "a\\nb\\x00c\\x7f\\x1b[31m\\x07"
    pictures({0x0A, 0x00, 0x7F})
    assert v.visible("a\nb\x00c\x7f\x1b[31m\x07") == "a␊b␀c␡\\x1b[31m\\x07"
    pictures(set(range(0x20)) | {0x7F})
    assert v.visible("\x1b\x07\t") == "␛␇␉"


def test_format_characters_separators_c1_and_surrogates_get_the_clis_escapes():
    text = "x\u2028y\u2029z\u200b\u202e\ufeff\u2066\u0085\u00ad\U000e0001"
    assert v.visible(text) == "x\\u2028y\\u2029z\\u200b\\u202e\\ufeff\\u2066\\u0085\\u00ad\\U000e0001" \
        == display_text(text)
    assert v.visible("caf\udce9.json") == "caf\\xe9.json" == display_text("caf\udce9.json")
    assert v.visible("é 漢字 ok\u00a0 \\u202e") == "é 漢字 ok\u00a0 \\u202e"  # (a no-break space stays; so does text)
    assert display_text("ok\u00a0") == "ok\\u00a0"  # (the CLI escapes other spaces too)


def test_lines_keeps_newlines_and_tabs_only():
    assert v.visible("a\nb\tc\r\x1b\u202e", lines=True) == "a\nb\tc\\r\\x1b\\u202e"
    assert v.visible("a\nb\tc", lines=False) == "a\\nb\\tc"


def test_an_id_that_mixes_look_alike_scripts_is_named():
    assert v.mixed_scripts("p\u0430ypal") == ["Cyrillic", "Latin"]  # (a Cyrillic а)
    assert v.mixed_scripts("\u03bfrder-1") == ["Greek", "Latin"]
    assert v.mixed_scripts("run-1") == [] and v.mixed_scripts("сессия-1") == [] and v.mixed_scripts("漢字abc") == []
    assert v.preview("a\u202e" + "b" * 100, 10) == "a\\u202ebb…"
