"""One module per route group of the ``/v1`` HTTP API (the OpenAI face lives in ``openai_compat``)."""
