"""Keystone's resource types (``OS::Keystone::*``), as Heat 27.0.1 defines them.

``api`` is the call layer (Keystone's v3 JSON through the stack's identity
proxy, errors named as keystoneauth names them); ``base`` is what every type
does the same way (create, PATCH update, a delete that accepts gone, ``show``);
``role_assignments`` grants roles on projects and domains, for the two
assignment types and for users' and groups' ``roles``. Heat's policy lets only
admins use these types (``heat_types.ADMIN_ONLY_TYPES``: ``OS::Keystone::*``).
"""
