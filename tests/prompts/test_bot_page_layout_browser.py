"""The bot's admin page lays its fields out for the text they hold, in Chromium at a desktop, a tablet and a
phone width: text inputs and textareas fill their row beside (or under) the label, no field runs past its row
or the page's edge, and a textarea shows its whole text instead of clipping it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from core.models import Membership
from prompts.services.demo import demo_bot_ensure
from tests.support.browser import admin_login, artifact_path
from tests.support.factories import PASSWORD, MembershipFactory

# For each field of the form's aligned rows: its box, its row's content box, and whether its text overflows.
MEASURE = """() => [...document.querySelectorAll('#bot_form .aligned .form-row')].flatMap(row => {
  const field = row.querySelector('.flex-container > input[type=text], .flex-container > textarea,'
    + ' .flex-container select');
  if (!field || !field.offsetParent) return [];
  const r = row.getBoundingClientRect(), f = field.getBoundingClientRect();
  const rightPadding = parseFloat(getComputedStyle(row).paddingRight);
  return [{id: field.id, tag: field.tagName, left: f.left, right: f.right, width: f.width,
    height: f.height, rowLeft: r.left, rowRight: r.right - rightPadding,
    maxWidth: parseFloat(getComputedStyle(field).maxWidth) || Infinity,
    clippedRows: field.tagName === 'TEXTAREA' && field.scrollHeight > field.clientHeight + 1}];
})"""


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_the_bot_page_fields_fill_their_rows_and_clip_nothing(page: Page, admin_base: str) -> None:
    bot = demo_bot_ensure(workspace_slug="demo-bot-layout")
    member = MembershipFactory(workspace=bot.workspace, role=Membership.Role.OWNER)
    admin_login(page, base_url=admin_base, username=member.user.username, password=PASSWORD)

    for width in (1400, 800, 420):
        page.set_viewport_size({"width": width, "height": 1000})
        page.goto(f"{admin_base}/admin/bots/bot/{bot.pk}/change/")
        fields = {field["id"]: field for field in page.evaluate(MEASURE)}
        page.screenshot(path=str(artifact_path(f"admin-bot-page-{width}.png")), full_page=False)

        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{width}px: the page is {overflow}px wider than the window"
        assert {"id_role", "id_specific_instructions", "id_rag_strictness"} <= fields.keys()
        for field in fields.values():
            assert (
                field["left"] >= field["rowLeft"] - 1 and field["right"] <= field["rowRight"] + 1
            ), f"{width}px: {field['id']} runs past its row"
            assert not field["clippedRows"], f"{width}px: {field['id']} hides part of its text"
        # A one-line input stays one line high beside a label that wraps ("Response language (locale)").
        assert fields["id_locale"]["height"] <= fields["id_name"]["height"] + 1
        for name in ("id_role", "id_specific_instructions"):  # a text input and a textarea
            field = fields[name]
            room = field["rowRight"] - field["left"]
            assert field["width"] >= min(0.95 * room, field["maxWidth"] - 1), (
                f"{width}px: {name} is {field['width']:.0f}px wide in a row with {room:.0f}px for it"
            )
