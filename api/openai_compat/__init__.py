"""The OpenAI-compatible face: ``/v1/chat/completions`` and ``/v1/models`` in OpenAI's shapes."""
