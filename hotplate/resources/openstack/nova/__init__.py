"""Nova's resource types (``OS::Nova::*``), as Heat 27.0.1 defines them.

``api`` is the REST call layer (microversions, Nova's error texts as Heat
shows novaclient's); ``keypair`` and ``server_group`` are the small types;
``server`` is OS::Nova::Server, with its networks (``server_network``: the
ports it makes, floating IPs, interface attach/detach on update), its boot
data (``user_data``) and its waits (``status``: Heat's reading of a server's
status, pure).
"""
