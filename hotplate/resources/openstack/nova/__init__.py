"""Nova's resource types (``OS::Nova::*``), as Heat 27.0.1 defines them.

``api`` is the REST call layer (microversions, Nova's error texts as Heat
shows novaclient's); ``keypair`` and ``server_group`` are the small types;
``server`` is OS::Nova::Server, split by concern into ``server_*`` modules
(its docstring lists them: checks, create, boot data, ports, update,
attributes), with its boot data's formats (``user_data``) and its waits
(``status``: Heat's reading of a server's status, pure).
"""
