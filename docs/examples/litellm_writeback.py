"""LiteLLM fills lastline while the provider works; lastline answers when it does not.

Run a server first (`lastline serve`), then: python docs/examples/litellm_writeback.py
(UPSTREAM_URL: a working OpenAI-compatible provider; PRIMARY_URL: the same provider, down.)
"""

import os
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm
from litellm import Router

from lastline.api.integrations.litellm_writeback import LastlineWriteback

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")
UPSTREAM = os.environ.get("UPSTREAM_URL", "https://api.openai.com/v1")
DOWN = os.environ.get("PRIMARY_URL", "http://127.0.0.1:9/v1")
KEY = os.environ.get("OPENAI_API_KEY", "sk-demo")
litellm.telemetry = False

writeback = LastlineWriteback(LASTLINE)  # every good upstream chat answer → lastline
litellm.callbacks = [writeback]


def router(api_base: str) -> Router:
    return Router(
        model_list=[
            {"model_name": "gpt-4o", "litellm_params": {
                "model": "openai/gpt-4o", "api_base": api_base, "api_key": KEY}},
            {"model_name": "lastline", "litellm_params": {
                "model": "openai/lastline", "api_base": f"{LASTLINE}/v1", "api_key": "unused"}},
        ],
        fallbacks=[{"gpt-4o": ["lastline"]}],
        num_retries=0,
    )


messages = [{"role": "system", "content": "You are the Acme hotel concierge."},
            {"role": "user", "content": "Is the pool open in winter?"}]

fresh = router(UPSTREAM).completion(model="gpt-4o", messages=messages)  # the provider answers …
print("upstream:", fresh.choices[0].message.content)
deadline = time.monotonic() + 20  # … and LiteLLM's callback writes it back in the background
while writeback.written < 1 and time.monotonic() < deadline:
    time.sleep(0.05)

later = router(DOWN).completion(model="gpt-4o", messages=messages)  # the provider is down: lastline answers
print("lastline:", later.choices[0].message.content)
print("source:", later.lastline["source"])
writeback.close()
