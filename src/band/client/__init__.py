"""Clients of the platform's REST API: ``band.client.rest.AsyncRestClient``."""
