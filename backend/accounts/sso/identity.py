"""Just-in-time accounts: the Tankodrom user of an outside identity, made at its first sign-on.

The link is SignOnIdentity (issuer + subject), never the e-mail or the username: both change, and both can be chosen
by someone else. A new account gets the identity's preferred username when it is free, else that name with a number
(a directory user "admin" becomes "admin-2" next to the local "admin", never the local admin). It has no usable
password: it can only come in through its sign-on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from backend.accounts.models import SignOnIdentity

USERNAME_MAX = 150  # Django's User.username
_NOT_USERNAME = re.compile(r"[^\w.@+-]+")
PROFILE_MAX = {"email": 254, "first_name": 150, "last_name": 150}  # Django's User fields' lengths


@dataclass(frozen=True)
class Identity:
    issuer: str
    subject: str
    username: str  # what the provider calls the person: a hint for a new account's name
    email: str = ""
    first_name: str = ""
    last_name: str = ""


def free_username(wanted: str) -> str:
    """`wanted` cleaned to Django's username characters; with -2, -3, ... when another account has it."""
    base = _NOT_USERNAME.sub("-", wanted.strip()).strip("-")[: USERNAME_MAX - 8] or "user"
    taken = set(User.objects.filter(username__istartswith=base).values_list("username", flat=True))
    taken_lower = {name.lower() for name in taken}
    if base.lower() not in taken_lower:
        return base
    n = 2
    while f"{base}-{n}".lower() in taken_lower:
        n += 1
    return f"{base}-{n}"


def _update_profile(user: User, identity: Identity) -> None:
    changed = []
    for field, longest in PROFILE_MAX.items():
        value = getattr(identity, field)[:longest]
        if value and getattr(user, field) != value:
            setattr(user, field, value)
            changed.append(field)
    if changed:
        user.save(update_fields=changed)


def linked_user(issuer: str, subject: str) -> User | None:
    found = SignOnIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()
    return found.user if found else None


def link(user: User, issuer: str, subject: str) -> None:
    """Records that `user` is this identity (idempotent), with the time of this sign-on."""
    SignOnIdentity.objects.update_or_create(
        issuer=issuer, subject=subject, defaults={"user": user, "last_sign_on_at": timezone.now()}
    )


def user_for(identity: Identity) -> User:
    """The account linked to the identity, its name and e-mail refreshed; made (with the link) at its first sign-on.

    The caller decides whether the account may come in (a deactivated one may not).
    """
    for _attempt in range(2):
        user = linked_user(identity.issuer, identity.subject)
        if user is not None:
            _update_profile(user, identity)
            link(user, identity.issuer, identity.subject)
            return user
        try:
            with transaction.atomic():
                user = User(username=free_username(identity.username))
                user.set_unusable_password()
                user.save()
                _update_profile(user, identity)
                SignOnIdentity.objects.create(
                    issuer=identity.issuer, subject=identity.subject, user=user, last_sign_on_at=timezone.now()
                )
            return user
        except IntegrityError:
            continue  # the same identity's first sign-on in two tabs at once, or a name taken meanwhile: read again
    raise RuntimeError(f"could not make an account for {identity.issuer} {identity.subject}")
