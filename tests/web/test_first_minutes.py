"""What a newcomer meets in the web chat's first minutes, in Chromium: a long reply streaming in stays in
view, the composers' hints fit their boxes, a renamed room is named everywhere, the agents' settings form
holds its fields, and an edit can be saved or cancelled without a keyboard."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import FloatRect, Locator, Page, expect

from tests.web.conftest import LiveServer
from tests.web.settings_pages import HubServer, field, hub_server, open_card
from tests.web.support import YOU, Agent, lobby, turn
from tests.web.test_usage_charts import usage_server

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]
__all__ = ["hub_server", "usage_server"]

LONG_ANSWER = "\n\n".join(f"Step {n}: a paragraph of the plan, a line long." for n in range(40))


AT_THE_END = """(selector) => {
  const list = document.querySelector(selector);
  const overflows = list.scrollHeight > list.clientHeight + 100;
  return overflows && list.scrollHeight - list.scrollTop - list.clientHeight < 2;
}"""


async def box_of(locator: Locator) -> FloatRect:
    box = await locator.bounding_box()
    assert box is not None, "not laid out"
    return box


async def shows_its_end(page: Page, selector: str) -> None:
    """Wait until the list `selector` overflows and is scrolled to its end."""
    await page.wait_for_function(AT_THE_END, arg=selector, timeout=5000)


async def test_a_reply_growing_in_an_open_thread_keeps_its_newest_words_in_view(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    question = {"msgtype": "m.text", "body": "plan?"}
    root = str(live_server.store.append(room_id, YOU, "m.room.message", question)["event_id"])
    reply = agent.post("Step 0", turn=turn("streaming"), thread_root=root)
    await page.goto(f"{live_server.url}/?room=lobby")
    await page.locator("#timeline .thread-link").click()
    await expect(page.locator("#thread .message")).to_have_count(2)
    agent.edit(reply, LONG_ANSWER, turn=turn("streaming"))
    await expect(page.locator("#thread .message").last).to_contain_text("Step 39")
    await shows_its_end(page, "#thread-timeline")


async def test_a_reply_growing_in_the_room_keeps_its_newest_words_in_view(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    reply = agent.post("Step 0", turn=turn("streaming"))
    await page.goto(f"{live_server.url}/?room=lobby")
    await expect(page.locator("#timeline .message")).to_have_count(1)
    agent.edit(reply, LONG_ANSWER, turn=turn("streaming"))
    await expect(page.locator("#timeline .message")).to_contain_text("Step 39")
    await shows_its_end(page, "#timeline")


async def test_a_reply_growing_leaves_a_reader_of_older_messages_where_they_are(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    agent.post(LONG_ANSWER)
    reply = agent.post("Step 0", turn=turn("streaming"))
    await page.goto(f"{live_server.url}/?room=lobby")
    timeline = page.locator("#timeline")
    await shows_its_end(page, "#timeline")
    await timeline.evaluate("(list) => { list.scrollTop = 0; }")
    agent.edit(reply, "Step 0, and more", turn=turn("streaming"))
    await expect(page.locator("#timeline .message").last).to_contain_text("and more")
    assert await timeline.evaluate("(list) => list.scrollTop") == 0


async def test_the_agents_form_holds_its_fields_as_the_models_and_rooms_forms_do(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Agents")
    editor = await box_of(body.locator(".entry-editor"))
    form = body.locator(".entry-editor > div:last-child")
    box = await box_of(form)
    role = await box_of(field(body, "Role"))
    assert role["x"] + role["width"] <= box["x"] + box["width"], "the field runs past its form"
    assert role["width"] >= editor["width"] / 2, "the field takes the page's width, as on Models and Rooms"
    border = await form.evaluate("(form) => getComputedStyle(form).borderTopStyle")
    assert border == "none", "no box of the chat's agent forms around it"


async def test_the_composers_hint_fits_its_box_on_a_phone_and_beside_a_thread(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    Agent(live_server.store, room_id).post("Ask me anything")
    hint_fits = "(input) => input.value === '' && input.scrollHeight <= input.clientHeight"
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await expect(composer).to_have_attribute("placeholder", re.compile("^Message Lobby"))
    assert await composer.evaluate(hint_fits), "the hint wraps onto a second line, cut by the box"
    await page.set_viewport_size({"width": 1000, "height": 700})
    message = page.locator("#timeline .message").first
    await message.hover()
    await message.get_by_role("button", name="Reply in thread").click()
    await expect(page.locator("#thread")).to_be_visible()
    assert await composer.evaluate(hint_fits), "beside the open thread, the hint is cut"
    assert await page.locator("#thread-input").evaluate(hint_fits)


async def test_a_renamed_room_is_named_in_the_composers_hint_too(page: Page, live_server: LiveServer) -> None:
    lobby(live_server.store)
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await expect(composer).to_have_attribute("placeholder", re.compile("^Message Lobby "))
    live_server.store.ensure_room("lobby", name="Front Desk")
    await expect(page.locator("#room-name")).to_have_text("Front Desk")
    await expect(composer).to_have_attribute("placeholder", re.compile("^Message Front Desk "))


async def test_an_edit_has_save_and_cancel_buttons_and_an_unchanged_save_sends_nothing(
    page: Page, live_server: LiveServer
) -> None:
    lobby(live_server.store)
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await composer.fill("write a test for parse()")
    await composer.press("Enter")
    mine = page.locator("#timeline .message.mine")
    await expect(mine).to_have_count(1)
    written = live_server.store.latest_position()

    async def edit() -> Locator:
        await mine.hover()
        await mine.get_by_role("button", name="Edit").click()
        await expect(mine.locator("textarea.editor")).to_be_focused()
        return mine.locator("textarea.editor")

    await edit()
    await mine.get_by_role("button", name="Cancel").click()
    await expect(mine.locator(".body")).to_have_text("write a test for parse()")
    await edit()
    await mine.get_by_role("button", name="Save").click()
    await expect(mine.locator("textarea.editor")).to_have_count(0)
    assert live_server.store.latest_position() == written, "an unchanged text is no edit"
    editor = await edit()
    await editor.fill("write two tests for parse()")
    await mine.get_by_role("button", name="Save").click()
    await expect(mine.locator(".body")).to_have_text("write two tests for parse()")
    await expect(mine).to_have_class(re.compile(r"\bedited\b"))


async def test_a_file_shows_its_name_once_and_a_caption_beside_it(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    file = {"msgtype": "m.file", "url": "mxc://miniroom.local/abc123", "info": {"mimetype": "text/csv"}}
    live_server.store.append(room_id, YOU, "m.room.message", {**file, "body": "visits.csv"})
    captioned = {**file, "body": "the numbers for May", "filename": "visits.csv"}
    live_server.store.append(room_id, YOU, "m.room.message", captioned)
    await page.goto(f"{live_server.url}/?room=lobby")
    bodies = page.locator("#timeline .message .body")
    await expect(bodies).to_have_count(2)
    await expect(bodies.first).to_have_text("📄 visits.csv")
    await expect(bodies.nth(1)).to_contain_text("the numbers for May")
    await expect(bodies.nth(1).locator(".attachment")).to_have_text("📄 visits.csv")


async def test_the_threads_spend_reads_on_one_line_beside_its_buttons(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    question = {"msgtype": "m.text", "body": "plan?"}
    root = str(live_server.store.append(room_id, YOU, "m.room.message", question)["event_id"])
    usage = {"input": 12000, "output": 345, "totalTokens": 12345, "cost": {"total": "0.0123"}}
    Agent(live_server.store, room_id).post("Done.", turn={"state": "done", "usage": usage}, thread_root=root)
    await page.goto(f"{live_server.url}/?room=lobby")
    await page.locator("#timeline .thread-link").click()
    spend = page.locator("#thread-spend")
    await expect(spend).to_have_text("$0.0123 · 12,345 tokens")
    height = await spend.evaluate("(label) => label.offsetHeight")
    line = await spend.evaluate("(label) => parseFloat(getComputedStyle(label).fontSize) * 1.6")
    assert height < line, "the spend wraps onto a second line"
    header = await box_of(page.locator("#thread .room-header"))
    for control in ("#thread-spend", "#thread-export-md", "#thread-export-json", "#thread-close"):
        placed = await box_of(page.locator(control))
        right = placed["x"] + placed["width"]
        assert right <= header["x"] + header["width"], f"{control} runs out of the header"


async def test_a_new_agent_whose_model_cannot_be_used_is_saved_with_a_warning_saying_why(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Agents")
    await body.get_by_role("button", name="New agent").click()
    await field(body, "Name").fill("scout")
    await field(body, "Name").press("Tab")
    await body.get_by_role("button", name="Save Changes").click()
    warning = body.locator(".notice.warning")
    await expect(warning).to_contain_text("Saved config.yaml")
    await expect(warning).to_contain_text("Agent scout: ")
    await expect(warning).to_contain_text("DEEPSEEK_API_KEY")
    await expect(warning).not_to_contain_text("Agent helper")


async def test_a_message_shows_in_the_room_that_its_threads_reply_is_being_written(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await composer.fill("write a test for parse()")
    await composer.press("Enter")
    summary = page.locator("#timeline .message.mine .thread-summary")
    root = await page.locator("#timeline .message.mine").get_attribute("data-event-id")
    assert root is not None
    reply = agent.post("Reading util.py", turn=turn("streaming"), thread_root=root)
    await expect(summary).to_contain_text("1 reply")
    await expect(summary).to_contain_text("Helper is writing…")
    agent.edit(reply, "Done: tests/test_util.py", turn=turn("done"))
    await expect(summary).not_to_contain_text("writing")
    await expect(summary).to_contain_text("1 reply")


async def test_a_reload_keeps_the_open_thread_open(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    question = {"msgtype": "m.text", "body": "plan?"}
    root = str(live_server.store.append(room_id, YOU, "m.room.message", question)["event_id"])
    Agent(live_server.store, room_id).post("Step 0", turn=turn("streaming"), thread_root=root)
    await page.goto(f"{live_server.url}/?room=lobby")
    await page.locator("#timeline .thread-link").click()
    await expect(page.locator("#thread .message")).to_have_count(2)
    await page.reload()
    await expect(page.locator("#thread")).to_be_visible()
    await expect(page.locator("#thread .message")).to_have_count(2)
    await expect(page.locator("#thread .message").last).to_contain_text("Step 0")
    await page.locator("#thread-close").click()
    await page.reload()
    await expect(page.locator("#composer-input")).to_be_enabled()
    await expect(page.locator("#thread")).to_be_hidden()


async def open_on_a_phone(page: Page, url: str, card: str) -> Locator:
    """Open the settings page `card` in a phone-sized page; returns the hub's body."""
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(url)
    await page.get_by_role("button", name="Rooms").click()  # the gear is in the folded list of rooms
    await page.get_by_role("button", name="Settings").click()
    await page.locator("#settings .card strong", has_text=re.compile(f"^{card}$")).click()
    body = page.locator("#settings-body")
    await expect(body).to_have_attribute("data-ready", "1")
    return body


@pytest.mark.parametrize("card", ["Agents", "Models", "Rooms"])
async def test_a_settings_page_on_a_phone_shows_its_form_whole(
    page: Page, hub_server: HubServer, card: str
) -> None:
    body = await open_on_a_phone(page, hub_server.url, card)
    name = await box_of(field(body, "Name"))
    assert name["x"] >= 0
    assert name["x"] + name["width"] <= 390, "the form runs off the screen's right edge"
    assert name["width"] >= 200, "the form is squeezed beside the list"
    wider = await body.evaluate("(page) => page.scrollWidth - page.clientWidth")
    assert wider <= 0, f"the page is {wider} px wider than the screen: its form's fields are cut"


async def test_the_usage_charts_on_a_phone_keep_readable_labels(page: Page, usage_server: str) -> None:
    body = await open_on_a_phone(page, usage_server, "Usage")
    label = body.locator("figure.usage-chart.tokens text.name").first
    await expect(label).to_be_visible()
    height = await label.evaluate("(text) => text.getBoundingClientRect().height")
    assert height >= 10, f"the chart's names are {height:.1f} px high: shrunk to the screen, unreadable"


async def test_project_settings_on_a_phone_show_every_tab_and_the_save_button(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_on_a_phone(page, hub_server.url, "Project settings")
    tabs = await body.locator(".tab").all()
    assert len(tabs) >= 3
    for control in [*tabs, body.get_by_role("button", name="Save Changes")]:
        placed = await box_of(control)
        name = await control.inner_text()
        assert placed["x"] >= 0, f"{name} is cut at the left"
        assert placed["x"] + placed["width"] <= 390, f"{name} runs off the screen"


async def test_the_composer_grows_with_a_message_of_several_lines_and_shrinks_once_it_is_sent(
    page: Page, live_server: LiveServer
) -> None:
    lobby(live_server.store)
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await expect(composer).to_be_enabled()
    one_line = (await box_of(composer))["height"]
    await composer.click()
    for n in range(4):
        await page.keyboard.type(f"line {n} of the request")
        await page.keyboard.press("Shift+Enter")
    await page.keyboard.type("and the last line")
    assert await composer.evaluate("(box) => box.scrollHeight <= box.clientHeight"), "lines are hidden"
    assert (await box_of(composer))["height"] > 3 * one_line
    send = await box_of(page.locator("#composer button[type=submit]"))
    assert send["height"] == one_line, "the Send button stays a line high beside the grown box"
    await page.keyboard.press("Enter")
    await expect(page.locator("#timeline .message.mine")).to_have_count(1)
    await expect(composer).to_have_value("")
    assert (await box_of(composer))["height"] == one_line


async def test_the_models_variable_buttons_stand_apart(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "Models")
    add = await box_of(body.get_by_role("button", name="Add variable"))
    show = await box_of(body.get_by_role("button", name="Show", exact=True))
    assert show["x"] - (add["x"] + add["width"]) >= 4, "Add variable and Show touch, as one button"


async def test_the_newest_message_stays_in_view_as_the_composer_grows(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    Agent(live_server.store, room_id).post(LONG_ANSWER)
    await page.goto(f"{live_server.url}/?room=lobby")
    await shows_its_end(page, "#timeline")
    await page.locator("#composer-input").click()
    for n in range(5):
        await page.keyboard.type(f"line {n}")
        await page.keyboard.press("Shift+Enter")
    await shows_its_end(page, "#timeline")
