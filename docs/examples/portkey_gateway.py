"""Portkey AI gateway with a fallback config whose last target is lastline.

Run lastline (`lastline serve`) and the open-source gateway (`npx @portkey-ai/gateway`), then:
python docs/examples/portkey_gateway.py
"""

import json
import os

from openai import OpenAI

from lastline.api.integrations.client import LastlineClient

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")
GATEWAY = os.environ.get("PORTKEY_URL", "http://127.0.0.1:8787/v1")
PRIMARY = os.environ.get("PRIMARY_URL", "http://127.0.0.1:9/v1")  # a provider that is down

with LastlineClient(LASTLINE) as ll:
    ll.cache_put("Can I change my seat after booking?", "Yes, free of charge up to 24 hours before departure.")

config = {
    "strategy": {"mode": "fallback"},
    "targets": [
        {"provider": "openai", "api_key": os.environ.get("OPENAI_API_KEY", "sk-demo"), "custom_host": PRIMARY},
        # lastline last: any OpenAI-compatible target works; the model name is lastline's.
        {"provider": "openai", "api_key": "unused", "custom_host": f"{LASTLINE}/v1",
         "override_params": {"model": "lastline"}},
    ],
}

with OpenAI(base_url=GATEWAY, api_key="unused", default_headers={"x-portkey-config": json.dumps(config)}) as client:
    raw = client.chat.completions.with_raw_response.create(
        model="gpt-4o", messages=[{"role": "user", "content": "Can I change my seat after booking?"}]
    )
    completion = raw.parse()
    print(completion.choices[0].message.content)
    print("source:", raw.headers["x-lastline-source"], "target:", raw.headers["x-portkey-last-used-option-index"])
