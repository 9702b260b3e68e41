"""LangChain: a ChatOpenAI primary with lastline (ChatOpenAI on lastline's base_url) as fallback.

Run a server first (`lastline serve`), then: python docs/examples/langchain_fallbacks.py
"""

import os

from langchain_openai import ChatOpenAI

from lastline.api.integrations.client import LastlineClient

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")
PRIMARY = os.environ.get("PRIMARY_URL", "http://127.0.0.1:9/v1")  # a provider that is down

with LastlineClient(LASTLINE) as ll:
    ll.cache_put("Is there parking at the hotel?", "Yes, underground parking for 15 euros a night.")

primary = ChatOpenAI(model="gpt-4o", base_url=PRIMARY, api_key=os.environ.get("OPENAI_API_KEY", "sk-demo"),
                     max_retries=0, timeout=10)
lastline = ChatOpenAI(model="lastline", base_url=f"{LASTLINE}/v1", api_key="unused", max_retries=0,
                      include_response_headers=True)  # provenance: response_metadata["headers"]
chat = primary.with_fallbacks([lastline])

message = chat.invoke("Is there parking at the hotel?")
print(message.content)
print("source:", message.response_metadata["headers"]["x-lastline-source"])
print("streamed:", "".join(str(chunk.content) for chunk in chat.stream("Is there parking at the hotel?")))
