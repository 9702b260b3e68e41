"""Write an upstream model's answer back through the OpenAI-shaped API, then get it from lastline.

Run a server first (`lastline serve`), then: python docs/examples/chat_writeback.py
"""

import os

import httpx
from openai import OpenAI

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")
messages = [{"role": "system", "content": "You are the help desk of Acme Rail."},
            {"role": "user", "content": "Can I take a bicycle on the train?"}]

# 1. While the provider works: after each good completion, post the request messages and the
#    completion (as the provider returned it, e.g. `completion.model_dump()`).
upstream_completion = {"id": "chatcmpl-123", "object": "chat.completion", "model": "gpt-4o",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": "Yes, outside rush hours."}}]}
stored = httpx.post(f"{LASTLINE}/v1/chat/completions/writeback",
                    json={"messages": messages, "completion": upstream_completion})
stored.raise_for_status()
print("stored under context", stored.json()["context"])

# 2. When the provider is down: the same conversation, sent to lastline, gets that answer back.
with OpenAI(base_url=f"{LASTLINE}/v1", api_key="unused") as client:
    completion = client.chat.completions.create(model="lastline", messages=messages)
    print(completion.choices[0].message.content)
    print("source:", completion.model_extra["lastline"]["source"])
