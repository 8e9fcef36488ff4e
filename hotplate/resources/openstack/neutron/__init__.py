"""Neutron's resource types (``OS::Neutron::*``), as Heat 27.0.1 defines them.

``base`` holds what every Neutron type does the same way (create, show, the
"GET until 404" delete, status mapping, ``value_specs``, tags); ``api`` is the
REST call layer with Neutron's error texts. Each other module is one type or a
small family: its schema, its translations, its handlers.
"""
