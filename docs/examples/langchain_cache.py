"""LangChain's LLM cache kept by lastline: shared between processes, paraphrase-aware, with provenance.

Run a server first (`lastline serve`), then: python docs/examples/langchain_cache.py
"""

import os

from langchain_core.globals import set_llm_cache
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from lastline.api.integrations.langchain_cache import LastlineCache

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")

cache = LastlineCache(LASTLINE, api_key=os.environ.get("LASTLINE_API_KEY"))
set_llm_cache(cache)

# A stand-in for your real chat model (ChatOpenAI, ChatAnthropic …): it answers once.
model = FakeListChatModel(responses=["Check-in opens 24 hours before departure.", "(model called again)"])

first = model.invoke("When does online check-in open?")  # a miss: the model answers, lastline stores it
again = model.invoke("When does online check-in open?")  # a hit: served by lastline, model not called
print(first.content)
print(again.content)
print("layer:", again.response_metadata["lastline"]["layer"], "source:", again.response_metadata["lastline"]["source"])

cache.clear()  # drops what this adapter stored (entries tagged "langchain")
set_llm_cache(None)
cache.close()
