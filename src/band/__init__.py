"""band: the SDK for building agents on Band (open implementation)."""
