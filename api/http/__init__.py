"""The HTTP face: the FastAPI app, its dependencies, request limits, error bodies, metrics and routes."""
