"""chat_prompt: the last user message is the prompt; everything else is an exact-match fingerprint."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lastline import InvalidInput
from lastline.api.openai_compat.chat_context import MODEL_IDS, chat_prompt, message_text, model_scope

text = st.text(min_size=1, max_size=40).filter(lambda s: s.strip())
roles = st.sampled_from(["system", "user", "assistant", "developer"])
messages = st.lists(st.fixed_dictionaries({"role": roles, "content": text}), min_size=0, max_size=6)


@given(messages, text)
def test_prompt_is_the_last_user_message(history: list[dict[str, str]], question: str) -> None:
    convo = [*history, {"role": "user", "content": question}]
    assert chat_prompt(convo).prompt == question.strip()


@given(text)
def test_a_lone_question_has_no_context(question: str) -> None:
    assert chat_prompt([{"role": "user", "content": question}]).context is None
    assert chat_prompt([{"role": "user", "content": question}], model="lastline").context is None


@given(messages, text)
def test_the_fingerprint_is_stable_and_whitespace_insensitive(history: list[dict[str, str]], question: str) -> None:
    convo = [*history, {"role": "user", "content": question}]
    spaced = [{**m, "content": "  " + m["content"].replace(" ", "\n  ") + " "} for m in convo]
    assert chat_prompt(convo).context == chat_prompt(spaced).context


def test_system_prompt_model_tools_and_prior_turns_each_change_the_context() -> None:
    base = [{"role": "system", "content": "You are a bank agent."}, {"role": "user", "content": "Rates?"}]
    contexts = {
        chat_prompt(base).context,
        chat_prompt([{**base[0], "content": "You are a travel agent."}, base[1]]).context,
        chat_prompt(base, model="lastline/gpt-4o").context,
        chat_prompt(base, tools=[{"type": "function", "function": {"name": "get_rate", "parameters": {}}}]).context,
        chat_prompt([base[0], {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}, base[1]])
        .context,
    }
    assert len(contexts) == 5
    assert all(c is not None and c.startswith("chat:") for c in contexts)


def test_tool_order_and_descriptions_do_not_change_the_context() -> None:
    a = {"type": "function", "function": {"name": "a", "description": "x", "parameters": {"type": "object"}}}
    b = {"type": "function", "function": {"name": "b", "parameters": {}}}
    msgs = [{"role": "user", "content": "q"}]
    a2 = {"type": "function", "function": {**a["function"], "description": "other words"}}
    assert chat_prompt(msgs, tools=[a, b]).context == chat_prompt(msgs, tools=[b, a2]).context


def test_model_scope_ignores_lastline_ids_and_reads_the_upstream_name() -> None:
    assert all(model_scope(m) is None for m in (*MODEL_IDS, None, ""))
    assert model_scope("lastline/gpt-4o") == "gpt-4o"
    assert model_scope("gpt-4o") == "gpt-4o"
    msgs = [{"role": "user", "content": "q"}]
    assert chat_prompt(msgs, model="lastline/gpt-4o").context == chat_prompt(msgs, model="gpt-4o").context


def test_messages_after_the_last_user_turn_are_part_of_the_context() -> None:
    q = {"role": "user", "content": "weather in Paris?"}
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "1", "type": "function", "function": {"name": "wx", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "1", "content": "sunny"}
    with_tool = chat_prompt([q, call, result])
    assert with_tool.prompt == "weather in Paris?"
    assert with_tool.context is not None
    assert with_tool.context != chat_prompt([q, call]).context


def test_text_parts_are_joined_and_other_parts_ignored_in_the_prompt() -> None:
    content = [{"type": "text", "text": "describe"}, {"type": "image_url", "image_url": {"url": "x"}},
               {"type": "text", "text": "this"}]
    assert message_text(content) == "describe\nthis"
    assert chat_prompt([{"role": "user", "content": content}]).prompt == "describe\nthis"


@pytest.mark.parametrize(
    "convo",
    [[], [{"role": "system", "content": "x"}], [{"role": "user", "content": "   "}], [{"role": "user"}]],
)
def test_no_user_text_is_invalid_input(convo: list[dict[str, str]]) -> None:
    with pytest.raises(InvalidInput):
        chat_prompt(convo)


def test_namespace_separates_otherwise_equal_conversations() -> None:
    msgs = [{"role": "user", "content": "q"}]
    assert chat_prompt(msgs, namespace="a").context != chat_prompt(msgs, namespace="b").context
