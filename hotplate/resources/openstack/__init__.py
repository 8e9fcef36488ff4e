"""Resource types backed by an OpenStack service, one package per service."""
