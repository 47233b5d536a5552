"""Who a provider's claims sign in as: a verified email of an allowed domain links the person
with that email; an unknown one becomes a new person only when creating is allowed (with a
free handle from the email); unverified, other domains and disabled people are refused."""

from __future__ import annotations

import dataclasses

import pytest

from band_server.config import Settings
from band_server.context import Platform
from band_server.errors import Forbidden
from band_server.services.identity import oidc
from conftest import make_user


async def test_claims_link_create_or_refuse(platform: Platform, settings: Settings) -> None:
    strict = dataclasses.replace(settings, oidc_allowed_domains="example.org, corp.example")
    open_door = dataclasses.replace(strict, oidc_create_users=True)
    known_id, _ = await make_user(platform, "kim")
    async with platform.db.write() as session:
        # No domain list: any domain; the email is matched without regard to case.
        linked = await oidc.person_for(
            session, settings, {"email": "KIM@localhost", "email_verified": True}
        )
        assert linked.id == known_id
        with pytest.raises(Forbidden, match="domain"):
            await oidc.person_for(
                session, strict, {"email": "kim@localhost", "email_verified": True}
            )
    async with platform.db.write() as session:
        with pytest.raises(Forbidden, match="no account for that email"):
            await oidc.person_for(
                session, strict, {"email": "new@example.org", "email_verified": True}
            )
        made = await oidc.person_for(
            session, open_door, {"email": "new@example.org", "email_verified": True, "name": "Nu"}
        )
        again = await oidc.person_for(
            session, open_door, {"email": "new.x@corp.example", "email_verified": True}
        )
        assert made.name == "Nu" and made.handle == "new" and again.handle == "new.x"
        for claims, words in (
            ({"email": "x@example.org", "email_verified": False}, "verified"),
            ({"email": "x@example.org"}, "verified"),
            ({"email": "x@evil.example", "email_verified": True}, "domain"),
        ):
            with pytest.raises(Forbidden, match=words):
                await oidc.person_for(session, open_door, claims)
