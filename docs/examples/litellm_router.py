"""LiteLLM Router with lastline as the last fallback: when the primary is down, lastline answers.

Run a server first (`lastline serve`), then: python docs/examples/litellm_router.py
"""

import os

# The fallback path must not need the network: use LiteLLM's bundled model-cost map.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm
from litellm import Router

from lastline.api.integrations.client import LastlineClient

LASTLINE = os.environ.get("LASTLINE_URL", "http://127.0.0.1:8765")
PRIMARY = os.environ.get("PRIMARY_URL", "http://127.0.0.1:9/v1")  # a provider that is down
litellm.telemetry = False

with LastlineClient(LASTLINE) as ll:
    ll.cache_put("How do I reset my password?", "Use 'Forgot password' on the sign-in page.")

router = Router(
    model_list=[
        {"model_name": "gpt-4o", "litellm_params": {
            "model": "openai/gpt-4o", "api_base": PRIMARY, "api_key": os.environ.get("OPENAI_API_KEY", "sk-demo")}},
        {"model_name": "lastline", "litellm_params": {
            "model": "openai/lastline", "api_base": f"{LASTLINE}/v1", "api_key": "unused"}},
    ],
    fallbacks=[{"gpt-4o": ["lastline"]}],
    num_retries=0,  # lastline refusals (409 writes, 422 no answer) are final: don't retry them
    timeout=30,
)

response = router.completion(model="gpt-4o", messages=[{"role": "user", "content": "How do I reset my password?"}])
print(response.choices[0].message.content)
print("source:", response.lastline["source"], "confidence:", response.lastline["confidence"])
print("header:", response._hidden_params["additional_headers"]["llm_provider-x-lastline-source"])
