"""The API's own core: the fallback ladder, the runtime that wires the tiers, declared defaults and events."""
