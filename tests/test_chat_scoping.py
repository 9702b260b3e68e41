"""Chat scoping on a real server: what of a chat request scopes the cache (docs/integrations.md).

The default policy masks the volatile parts of a system prompt (dates, times, UUIDs, request ids),
keeps prior turns and the model in the key, and always keys on ``tools`` and ``response_format``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import LiveServer, start_server, stop_server
from hypothesis import given
from hypothesis import strategies as st

from lastline.api.openai_compat.chat_context import chat_prompt
from lastline.api.openai_compat.volatile import mask_volatile
from lastline.settings import ChatScope

AGENT = "You are Acme's support assistant. Today is {date}. Current time: {time} UTC. Request ID: {rid}."


def _system(date: str, time: str, rid: str) -> dict[str, str]:
    return {"role": "system", "content": AGENT.format(date=date, time=time, rid=rid)}


def _writeback(server: LiveServer, messages: list[dict[str, Any]], content: str, **extra: Any) -> None:
    got = httpx.post(server.url("/v1/chat/completions/writeback"),
                     json={"messages": messages, "content": content, **extra})
    assert got.status_code == 201, got.text


def _ask(server: LiveServer, messages: list[dict[str, Any]], **extra: Any) -> httpx.Response:
    return httpx.post(server.url("/v1/chat/completions"), json={"model": "lastline", "messages": messages, **extra})


def test_a_system_prompt_with_todays_date_and_a_request_id_still_hits(live_server: LiveServer) -> None:
    question = {"role": "user", "content": "How do I export my invoices as PDF?"}
    _writeback(live_server, [_system("2026-11-30", "09:12", "req_7f3a9c21"), question], "Billing → Invoices → Export.")
    got = _ask(live_server, [_system("2026-12-01", "14:05", "req_0b55e4d8"), question])
    assert got.status_code == 200, got.text
    assert got.json()["lastline"]["source"] == "cache"
    assert got.json()["choices"][0]["message"]["content"] == "Billing → Invoices → Export."


def test_another_agent_template_does_not_see_the_answer(live_server: LiveServer) -> None:
    question = {"role": "user", "content": "What is the cancellation fee for the Gold plan?"}
    _writeback(live_server, [_system("2026-11-30", "09:12", "req_1"), question], "No fee within 14 days.")
    other = {"role": "system", "content": "You are a pirate. Answer in rhymes. Today is 2026-12-01."}
    got = _ask(live_server, [other, question])
    assert got.status_code == 422 or got.json()["lastline"]["source"] != "cache"


def test_a_json_object_request_is_not_served_a_prose_answer(live_server: LiveServer) -> None:
    question = [{"role": "user", "content": "List the opening hours of the Berlin store"}]
    _writeback(live_server, question, "We are open 9 to 18, Monday to Saturday.")
    assert _ask(live_server, question).json()["lastline"]["source"] == "cache"
    as_json = _ask(live_server, question, response_format={"type": "json_object"})
    assert as_json.status_code == 422 or as_json.json()["lastline"]["source"] != "cache"
    _writeback(live_server, question, '{"mon-sat": "9-18"}', response_format={"type": "json_object"})
    again = _ask(live_server, question, response_format={"type": "json_object"})
    assert again.json()["choices"][0]["message"]["content"] == '{"mon-sat": "9-18"}'
    assert _ask(live_server, question).json()["choices"][0]["message"]["content"].startswith("We are open")


def test_follow_ups_stay_in_their_conversation(live_server: LiveServer) -> None:
    def conversation(plan: str) -> list[dict[str, Any]]:
        return [
            {"role": "user", "content": f"How much is the {plan} plan per month?"},
            {"role": "assistant", "content": f"The {plan} plan is priced per seat."},
            {"role": "user", "content": "And how much for a whole year?"},
        ]

    _writeback(live_server, conversation("Team"), "A year of Team costs 120 EUR per seat.")
    same = _ask(live_server, conversation("Team"))
    assert same.json()["choices"][0]["message"]["content"] == "A year of Team costs 120 EUR per seat."
    other = _ask(live_server, conversation("Enterprise"))
    assert other.status_code == 422 or other.json()["lastline"]["source"] != "cache"


@pytest.fixture(scope="module")
def exact_system_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A tenant whose policy keys on the system prompt exactly as sent."""
    server = start_server(tmp_path_factory.mktemp("scope"), {"LASTLINE_CHAT_SCOPE": '{"*": {"system": "exact"}}'})
    yield server
    stop_server(server)


def test_a_tenant_policy_can_key_on_the_system_prompt_exactly(exact_system_server: LiveServer) -> None:
    question = {"role": "user", "content": "How do I export my invoices as PDF?"}
    _writeback(exact_system_server, [_system("2026-11-30", "09:12", "req_1"), question], "Billing → Export.")
    got = _ask(exact_system_server, [_system("2026-12-01", "14:05", "req_2"), question])
    assert got.status_code == 422 or got.json()["lastline"]["source"] != "cache"


def test_a_bad_policy_stops_start_up_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="LASTLINE_CHAT_SCOPE"):
        start_server(tmp_path, {"LASTLINE_CHAT_SCOPE": '{"*": {"system": "sometimes"}}'}, timeout_s=30)


def test_policy_parts_of_the_key() -> None:
    q = {"role": "user", "content": "hi there"}
    sys_a, sys_b = _system("2026-01-01", "01:00", "req-1111"), _system("2026-02-02", "02:00", "req-2222")
    assert chat_prompt([sys_a, q]).context == chat_prompt([sys_b, q]).context
    assert chat_prompt([sys_a, q], scope=ChatScope(system="exact")).context != chat_prompt(
        [sys_b, q], scope=ChatScope(system="exact")).context
    assert chat_prompt([sys_a, q], scope=ChatScope(system="ignore")).context is None
    turns = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, q]
    assert chat_prompt(turns, scope=ChatScope(history=False)).context is None
    assert chat_prompt([q], model="gpt-x").context != chat_prompt([q]).context
    assert chat_prompt([q], model="gpt-x", scope=ChatScope(model=False)).context is None
    assert chat_prompt([q], response_format={"type": "text"}).context is None
    assert chat_prompt([q], response_format={"type": "json_object"}).context is not None


DATES = st.dates().map(lambda d: d.isoformat())
TIMES = st.times().map(lambda t: t.strftime("%H:%M:%S"))
IDS = st.uuids().map(str)


@given(DATES, DATES, TIMES, TIMES, IDS, IDS)
def test_masking_makes_one_template_one_key(d1: str, d2: str, t1: str, t2: str, u1: str, u2: str) -> None:
    template = "Agent v3. Date: {d}. Time: {t}. Trace: {u}. Be brief."
    a = mask_volatile(template.format(d=d1, t=t1, u=u1))
    assert a == mask_volatile(template.format(d=d2, t=t2, u=u2))
    assert mask_volatile(a) == a  # idempotent: a masked prompt stays as it is


@given(st.text(alphabet=st.characters(categories=["L", "Zs"]), max_size=80))
def test_masking_leaves_text_without_volatile_parts_alone(text: str) -> None:
    words = {"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday", "tuesday",
             "wednesday", "thursday", "friday", "saturday", "sunday"}
    if words & {w.strip(".,").lower() for w in text.split()}:
        return
    assert mask_volatile(text) == text
