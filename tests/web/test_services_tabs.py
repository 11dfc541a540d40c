"""The Fetch services and Search services tabs in Chromium against a real server: a Brave service added
through the form, a save refused naming the service and the field, an outside change with Reload, Test on
a local page, duplicate and delete, and one service copied and pasted as JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
import yaml
from playwright.async_api import Locator, Page, expect

from tests.web.settings_pages import HubServer, field, field_error, hub_server, labelled, open_card, save
from tests.webtools.servers import Answer, Running, by_path, serve

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]
__all__ = ["hub_server"]

DIRECT = "# Page fetching\nservices:\n  - name: Local Direct\n    type: Direct\n    priority: 100\n"
# The test site is on 127.0.0.1, loopback, which a fetch service reaches only when its settings allow it.
LOCAL_DIRECT = DIRECT + "    settings:\n      AllowPrivateNetwork: true\n"
PAGE = "<html><body><h1>Hello from the test site</h1></body></html>"


@pytest.fixture
def site() -> Iterator[Running]:
    with serve(by_path({"/page.html": lambda seen: Answer.of("text/html", PAGE)})) as running:
        yield running


async def open_tab(page: Page, hub: HubServer, tab: str) -> Locator:
    body = await open_card(page, hub.url, "MiniAgent")
    await body.get_by_role("button", name=tab, exact=True).click()
    await expect(body.locator(".tab-panel")).to_have_attribute("data-ready", "1")
    return body


def names(body: Locator) -> Locator:
    return body.locator(".service-list .entry")


async def test_a_brave_service_added_through_the_form_creates_search_yml(
    page: Page, hub_server: HubServer
) -> None:
    search = hub_server.path("search.yml")
    assert not search.exists()
    body = await open_tab(page, hub_server, "Search services")
    await expect(body.locator(".notice.info")).to_contain_text(".miniroom/search.yml does not exist yet")
    hint = "A new service's priority is one above the current maximum"
    await expect(body.get_by_text(hint)).to_be_visible()
    await body.get_by_role("button", name="New service").click()
    await expect(field(body, "Name *")).to_have_value("Serper")
    await field(body, "Type *").select_option("Brave")
    await expect(field(body, "Name *")).to_have_value("Brave")  # the name follows the type
    await expect(labelled(body, "ApiKey *")).to_contain_text("Required. Default: none")
    await expect(labelled(body, "TimeoutSec")).to_contain_text("Default: 30")
    key = field(body, "ApiKey *")
    await expect(key).to_have_attribute("type", "password")
    await key.fill("$BRAVE_API_KEY")
    await labelled(body, "ApiKey *").get_by_role("button", name="Show").click()
    await expect(key).to_have_attribute("type", "text")
    await expect(body.get_by_label("Priority of Brave")).to_have_value("100")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved .miniroom/search.yml")
    assert yaml.safe_load(search.read_text())["services"] == [
        {
            "name": "Brave",
            "type": "Brave",
            "enabled": True,
            "priority": 100,
            "settings": {"ApiKey": "$BRAVE_API_KEY"},
        }
    ]


async def test_a_click_straight_after_typing_a_services_name_is_kept(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_tab(page, hub_server, "Search services")
    await body.get_by_role("button", name="New service").click()
    await field(body, "Type *").select_option("Brave")
    await field(body, "Name *").fill("My search")
    await field(body, "ApiKey *").click()  # no Tab: this click ends the name's edit
    await page.keyboard.type("$BRAVE_API_KEY")
    await expect(names(body)).to_have_text(["My search"])
    await expect(field(body, "ApiKey *")).to_have_value("$BRAVE_API_KEY")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved .miniroom/search.yml")
    [service] = yaml.safe_load(hub_server.path("search.yml").read_text())["services"]
    assert (service["name"], service["settings"]) == ("My search", {"ApiKey": "$BRAVE_API_KEY"})


async def test_a_missing_required_setting_is_refused_naming_service_and_field(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_tab(page, hub_server, "Search services")
    await body.get_by_role("button", name="New service").click()
    await field(body, "Type *").select_option("Brave")
    await field(body, "Name *").fill("My Brave")
    await field(body, "Name *").press("Tab")
    await save(body)
    await expect(body.locator(".notice.error")).to_contain_text(
        'Not saved: Service "My Brave", ApiKey: ApiKey is required by Brave'
    )
    await expect(field_error(body, "ApiKey *")).to_contain_text("ApiKey is required by Brave")
    await expect(names(body)).to_have_class("entry active has-problem")
    assert not hub_server.path("search.yml").exists()


async def test_an_outside_change_is_kept_and_reload_shows_exactly_that_file(
    page: Page, hub_server: HubServer
) -> None:
    fetch = hub_server.path("fetch.yml")
    fetch.write_text(DIRECT, encoding="utf-8")
    body = await open_tab(page, hub_server, "Fetch services")
    await expect(names(body)).to_have_text(["Local Direct"])
    outside = DIRECT + "  - name: Proxy\n    type: Proxied\n    priority: 50\n    settings:\n"
    outside += "      ProxyUrl: http://proxy.example:3128\n"
    fetch.write_text(outside, encoding="utf-8")
    await field(body, "TimeoutSec").fill("12")
    await save(body)
    warning = body.locator(".notice.warning")
    await expect(warning).to_contain_text("fetch.yml changed outside this dialog. Your edits were not saved.")
    assert fetch.read_text() == outside
    await warning.get_by_role("button", name="Reload").click()
    await expect(names(body)).to_have_text(["Proxy", "Local Direct"])  # priority order: 50 before 100
    assert not hub_server.path("search.yml").exists()


async def test_test_runs_the_saved_direct_service_on_a_local_page(
    page: Page, hub_server: HubServer, site: Running
) -> None:
    hub_server.path("fetch.yml").write_text(LOCAL_DIRECT, encoding="utf-8")
    body = await open_tab(page, hub_server, "Fetch services")
    await body.get_by_label("Test page").fill(f"{site.url}/page.html")
    await body.get_by_role("button", name="Test", exact=True).click()
    result = body.locator(".test-result.ok")
    await expect(result.locator(".test-status")).to_have_text(re.compile(r"^Success · \d+ ms$"))
    explanation = result.locator(".test-explanation")
    await expect(explanation).to_contain_text(f"fetched {site.url}/page.html (HTTP 200")
    await expect(result.locator(".test-sample")).to_contain_text("Hello from the test site")
    await expect(result.locator(".notice.warning")).to_have_count(0)
    await field(body, "TimeoutSec").fill("9")
    await body.get_by_role("button", name="Test", exact=True).click()
    await expect(body.locator(".test-result .notice.warning")).to_contain_text(
        "You have unsaved edits: Test runs .miniroom/fetch.yml as saved"
    )
    await expect(body.locator(".test-result.ok .test-status")).to_contain_text("Success")


async def test_test_can_expand_the_settings_with_a_models_variables(
    page: Page, hub_server: HubServer, site: Running
) -> None:
    hub_server.path("fetch.yml").write_text(LOCAL_DIRECT, encoding="utf-8")
    body = await open_tab(page, hub_server, "Fetch services")
    model = body.get_by_label("Expand $VAR with")
    await expect(model.locator("option")).to_have_text(["No model's variables", "Variables of default"])
    await model.select_option("default")
    await body.get_by_label("Test page").fill(f"{site.url}/page.html")
    async with page.expect_request("**/api/settings/services/fetch/test") as sent:
        await body.get_by_role("button", name="Test", exact=True).click()
    assert json.loads((await sent.value).post_data or "{}")["model"] == "default"
    await expect(body.locator(".test-result.ok .test-status")).to_contain_text("Success")


async def test_duplicate_and_delete_are_saved(page: Page, hub_server: HubServer) -> None:
    fetch = hub_server.path("fetch.yml")
    fetch.write_text(DIRECT, encoding="utf-8")
    body = await open_tab(page, hub_server, "Fetch services")
    await body.get_by_role("button", name="Duplicate").click()
    await expect(names(body)).to_have_text(["Local Direct", "Local Direct 2"])
    await expect(body.get_by_label("Priority of Local Direct 2")).to_have_value("101")
    await names(body).first.click()
    await body.get_by_role("button", name="Delete service").click()
    await expect(names(body)).to_have_text(["Local Direct 2"])
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved .miniroom/fetch.yml")
    text = fetch.read_text()
    assert text.startswith("# Page fetching\n")
    assert yaml.safe_load(text)["services"] == [{"name": "Local Direct 2", "type": "Direct", "priority": 101}]


async def test_one_service_is_copied_and_pasted_as_json(page: Page, hub_server: HubServer) -> None:
    fetch = hub_server.path("fetch.yml")
    fetch.write_text(DIRECT, encoding="utf-8")
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=hub_server.url)
    body = await open_tab(page, hub_server, "Fetch services")
    await body.get_by_role("button", name="Copy as JSON").click()
    await expect(page.locator("#toast")).to_have_text("Copied Local Direct as JSON")
    copied = json.loads(await page.evaluate("navigator.clipboard.readText()"))
    assert copied == {"name": "Local Direct", "type": "Direct", "priority": 100}
    await body.locator("summary", has_text="JSON").click()
    await body.get_by_role("button", name="Paste from clipboard").click()
    await expect(names(body)).to_have_text(["Local Direct", "Local Direct 2"])
    other = {"name": "Slow", "type": "Direct", "settings": {"TimeoutSec": "90"}}
    await body.get_by_label("Service JSON").fill(json.dumps(other))
    await body.get_by_role("button", name="Add from JSON").click()
    await expect(names(body)).to_have_text(["Local Direct", "Local Direct 2", "Slow"])
    await expect(field(body, "TimeoutSec")).to_have_value("90")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved .miniroom/fetch.yml")
    assert [(item["name"], item["priority"]) for item in yaml.safe_load(fetch.read_text())["services"]] == [
        ("Local Direct", 100),
        ("Local Direct 2", 101),
        ("Slow", 102),
    ]
