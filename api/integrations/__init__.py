"""Client-side integrations: the Python client, the LangChain cache and the LiteLLM write-back."""
