"""Single sign-on: OpenID Connect (oidc.py, Authlib), LDAP / Active Directory (ldap.py, django-auth-ldap),
just-in-time accounts linked by identity (identity.py), and directory groups mapped to project roles (group_roles.py).

Configuration comes from the environment through backend/settings.py (TANKODROM_OIDC_*, TANKODROM_LDAP_*,
TANKODROM_SSO_GROUP_ROLES, TANKODROM_LOCAL_LOGIN); README "Single sign-on" says how to turn each on.
"""
