"""The OpenAI SDK pointed at lastline: same client, same calls, degraded answers with provenance.

Run a server first (`lastline serve`), then: python docs/examples/openai_sdk.py
"""

import os

from openai import OpenAI

from lastline.api.integrations.client import LastlineClient

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")

# Something for lastline to answer from (normally your app writes good answers back as it goes).
with LastlineClient(LASTLINE) as ll:
    ll.cache_put("What are your opening hours?", "We are open from 9:00 to 17:00, Monday to Friday.")

client = OpenAI(base_url=f"{LASTLINE}/v1", api_key=os.environ.get("LASTLINE_API_KEY", "unused"))
question = [{"role": "user", "content": "What are your opening hours?"}]

# Plain: provenance in the x-lastline-* headers and in the extra `lastline` body field.
raw = client.chat.completions.with_raw_response.create(model="lastline", messages=question)
completion = raw.parse()
print(completion.choices[0].message.content)
print("source:", raw.headers["x-lastline-source"], "confidence:", raw.headers["x-lastline-confidence"])
print("notice:", completion.model_extra["lastline"]["notice"])

# Streaming: role chunk, content chunks, final chunk, usage chunk, [DONE].
stream = client.chat.completions.create(
    model="lastline", messages=question, stream=True, stream_options={"include_usage": True}
)
text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
print("streamed:", text)
client.close()
