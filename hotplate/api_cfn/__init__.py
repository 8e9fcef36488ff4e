"""The CFN-compatible API (heat-api-cfn's paths) that in-instance agents call."""

from hotplate.api_cfn.app import KeyLookup, create_cfn_app

__all__ = ["KeyLookup", "create_cfn_app"]
