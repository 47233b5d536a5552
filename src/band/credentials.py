"""Credential markers shared by the SDK and the container launcher.

``PROXY_MANAGED_API_KEY`` is the value an agent's key holds when a credential proxy in front
of it injects the real one: the SDK sends it as is and never mistakes it for a real key.
"""

__all__ = ["PROXY_MANAGED_API_KEY"]

PROXY_MANAGED_API_KEY = "proxy-managed"
